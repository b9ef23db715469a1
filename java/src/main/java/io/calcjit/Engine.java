package io.calcjit;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A served feature set: compiled once, reloaded while it serves, evaluated by
 * any number of threads through their own {@link Session}s.
 *
 * <p>Thread safety: every method may be called from any thread at any time,
 * including {@link #reload} while other threads evaluate (evaluations already
 * running finish on their version) and {@link #close} while they evaluate:
 * close refuses new calls (they throw IllegalStateException), waits for the
 * calls in flight, then frees the engine. Sessions of a closed engine throw
 * on evaluate.
 *
 * <p>Lifetime: close it (try-with-resources); a {@link Cleaner} frees an
 * engine that became unreachable without being closed, as a safety net.
 */
public final class Engine implements AutoCloseable {
  private final long handle;
  final Guard guard = new Guard("engine");
  private final Cleaner.Cleanable cleanable;

  private Engine(long handle) {
    this.handle = handle;
    this.cleanable = Resources.CLEANER.register(this, new Free(handle));
  }

  /** Compiles `set` as version 1 with the default options (AUTO, every output). */
  public static Engine create(FeatureSet set) {
    Objects.requireNonNull(set, "set is null");
    return create(set, EngineOptions.defaults());
  }

  /**
   * Compiles `set` as version 1. With Backend.JIT this returns once the JIT
   * has compiled it; with AUTO at once (the VM serves until the JIT is ready).
   */
  public static Engine create(FeatureSet set, EngineOptions options) {
    Objects.requireNonNull(set, "set is null");
    Objects.requireNonNull(options, "options is null");
    String[] outputs = options.outputs().toArray(new String[0]);
    long handle = set.use(setHandle -> Native.engineCreate(
        setHandle, options.backend().ordinal(), outputs, options.isa()));
    return new Engine(handle);
  }

  /** The native library's version, e.g. "0.1.0". */
  public static String libraryVersion() {
    NativeLoader.load();
    return Native.version();
  }

  /**
   * Compiles `set` as a new version and swaps it in; returns the new version.
   * On error the current version keeps serving.
   */
  public long reload(FeatureSet set) {
    Objects.requireNonNull(set, "set is null");
    guard.enter();
    try {
      return set.use(setHandle -> Native.engineReload(handle, setHandle));
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  /** The version serving now. */
  public long version() {
    guard.enter();
    try {
      return Native.engineVersion(handle);
    } finally {
      exit();
    }
  }

  /** The current version's schema (only the inputs its outputs need). */
  public Schema schema() {
    guard.enter();
    try {
      return Schema.fromNative(Native.engineSchema(handle));
    } finally {
      exit();
    }
  }

  /** Waits until the current version's background JIT compilation, if any, is done. */
  public void waitForJit() {
    guard.enter();
    try {
      Native.engineWaitForJit(handle);
    } finally {
      exit();
    }
  }

  public Stats stats() {
    guard.enter();
    try {
      long[] l = new long[9];
      double[] d = new double[3];
      Native.engineStats(handle, l, d);
      return new Stats(l[0], Backend.fromNative(l[1]), l[2] != 0, d[0], d[1], d[2], l[3], l[4],
          l[5], l[6], l[7], l[8]);
    } finally {
      exit();
    }
  }

  /** The VM and the JIT of the current version timed: which serves, and why. */
  public Tiers tiers() {
    guard.enter();
    try {
      long[] l = new long[3];
      double[] d = new double[2];
      String note = Native.engineTiers(handle, l, d);
      return new Tiers(l[0] != 0, l[1], d[0], d[1], Backend.fromNative(l[2]), note);
    } finally {
      exit();
    }
  }

  /** Why the JIT does not serve the current version, or "". */
  public String backendNote() {
    guard.enter();
    try {
      return Native.engineBackendNote(handle);
    } finally {
      exit();
    }
  }

  /**
   * Shadow evaluations: a `fraction` (0 to 1) of the queries is also computed
   * by `backend` (REFERENCE: the oracle) from the served set, on a thread of
   * the engine's, and compared bit for bit. 0 switches them off.
   */
  public void setShadow(double fraction, Backend backend) {
    checkShadow(fraction, backend);
    guard.enter();
    try {
      Native.engineSetShadow(handle, fraction, backend.ordinal(), 0);
    } finally {
      exit();
    }
  }

  /** As {@link #setShadow(double, Backend)}, computing from a candidate set instead. */
  public void setShadow(double fraction, Backend backend, FeatureSet candidate) {
    checkShadow(fraction, backend);
    Objects.requireNonNull(candidate, "candidate is null (setShadow(fraction, backend) uses the "
        + "served set)");
    guard.enter();
    try {
      candidate.use(c -> {
        Native.engineSetShadow(handle, fraction, backend.ordinal(), c);
        return null;
      });
    } finally {
      exit();
    }
  }

  /** Waits until every shadow evaluation sampled so far has been compared. */
  public void drainShadow() {
    guard.enter();
    try {
      Native.engineDrainShadow(handle);
    } finally {
      exit();
    }
  }

  /** The first 32 mismatches recorded (stats().mismatches() counts them all). */
  public List<Mismatch> mismatches() {
    guard.enter();
    try {
      int count = Native.engineMismatchCount(handle);
      List<Mismatch> result = new ArrayList<>(count);
      long[] fields = new long[4];
      for (int k = 0; k < count; ++k) {
        String output = Native.engineMismatch(handle, k, fields);
        result.add(new Mismatch(fields[0], output, fields[1], (int) fields[2], (int) fields[3]));
      }
      return result;
    } finally {
      exit();
    }
  }

  /** A session (one thread's bindings) for the current version's schema. */
  public Session newSession() {
    guard.enter();
    try {
      return new Session(this, Native.sessionCreate(handle));
    } finally {
      exit();
    }
  }

  public boolean isClosed() {
    return guard.isClosed();
  }

  /**
   * Refuses new calls, waits for those in flight (evaluations included), and
   * frees the engine. Idempotent.
   */
  @Override
  public void close() {
    if (guard.close()) cleanable.clean();
  }

  private static void checkShadow(double fraction, Backend backend) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction is " + fraction + ": it must be from 0 to 1");
    }
    Objects.requireNonNull(backend, "backend is null");
  }

  private void exit() {
    guard.exit();
    Reference.reachabilityFence(this);
  }

  private record Free(long handle) implements Runnable {
    @Override
    public void run() {
      Native.engineFree(handle);
    }
  }
}
