package io.calcjit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The lifetime of a native handle shared by threads: every call that uses the
 * handle enters and exits; close() refuses new calls and waits until the
 * calls in flight have exited, so that the handle is never freed under a
 * running call. Entering and exiting is one compare-and-set each and
 * allocates nothing.
 */
final class Guard {
  private static final int CLOSED = 1 << 30;

  private final AtomicInteger state = new AtomicInteger();
  private final String what;

  Guard(String what) {
    this.what = what;
  }

  /** Enters a call; throws when closed. */
  void enter() {
    for (;;) {
      int s = state.get();
      if ((s & CLOSED) != 0) throw closed();
      if (state.compareAndSet(s, s + 1)) return;
    }
  }

  /** Enters a call that must be the only one in flight (a session's). */
  void enterExclusive() {
    for (;;) {
      int s = state.get();
      if ((s & CLOSED) != 0) throw closed();
      if (s != 0) {
        throw new IllegalStateException("this " + what
            + " is in use by another thread: a " + what + " is for one thread at a time");
      }
      if (state.compareAndSet(0, 1)) return;
    }
  }

  /** Throws when closed; for calls that need no handle (they would work, but wrongly so). */
  void check() {
    if (isClosed()) throw closed();
  }

  void exit() {
    state.decrementAndGet();
  }

  /**
   * Refuses new calls and waits for the calls in flight. Returns true for the
   * call that closed it, false if it was closed already.
   */
  boolean close() {
    for (;;) {
      int s = state.get();
      if ((s & CLOSED) != 0) return false;
      if (state.compareAndSet(s, s | CLOSED)) break;
    }
    for (int spins = 0; (state.get() & ~CLOSED) != 0; ++spins) {
      if (spins < 100) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(20_000);
      }
    }
    return true;
  }

  boolean isClosed() {
    return (state.get() & CLOSED) != 0;
  }

  private IllegalStateException closed() {
    return new IllegalStateException("this calcjit " + what + " is closed");
  }
}
