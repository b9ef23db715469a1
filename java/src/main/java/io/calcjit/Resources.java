package io.calcjit;

import java.lang.ref.Cleaner;

/** What the native handles share. */
final class Resources {
  /**
   * Frees the native objects of engines, sessions and sets that became
   * unreachable without being closed (a safety net: close them).
   */
  static final Cleaner CLEANER = Cleaner.create();

  private Resources() {}
}
