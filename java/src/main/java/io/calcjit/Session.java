package io.calcjit;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One thread's bindings and results for an {@link Engine}: the batch type.
 *
 * <p><b>Bindings.</b> An input or output is bound once, by name, and stays
 * bound across evaluations:
 * <ul>
 *   <li>a direct {@link FloatBuffer} or {@link ByteBuffer} in native byte
 *       order: native code reads and writes its memory in place
 *       (GetDirectBufferAddress); nothing is copied and nothing is allocated
 *       per evaluation. The floats bound are those between the buffer's
 *       position and limit <em>at bind time</em>; each evaluation uses as many
 *       of them as it needs (item inputs and outputs: one float, or d for a
 *       vector of dimension d, per item; query inputs: one, or d, per query),
 *       and fails if there are fewer (the C API's rules and message). The
 *       session keeps the buffer reachable.</li>
 *   <li>a {@code float[]}, for convenience: the array is pinned with
 *       GetPrimitiveArrayCritical during each evaluation (no copy on
 *       HotSpot), so the GC waits for the evaluation to end (microseconds to
 *       a millisecond); fetching, pinning and releasing it costs about 70-80
 *       ns per array per evaluation. Write into the same array between
 *       evaluations.</li>
 * </ul>
 * An output that is not bound goes to the session's own memory; {@link
 * #output} copies it out. An input that is not bound takes its default.
 *
 * <p><b>Rows.</b> {@link #bindRows(FloatBuffer, int)} binds every input at once
 * to a row-major matrix in a direct buffer, as a model's predict() takes its
 * data: row i is item i, column j the schema's input j (each an item scalar;
 * for {@link FeatureSet#fromModel}, the model's feature j). Each evaluation
 * copies the rows it needs into the engine's columns (docs/PERFORMANCE.md,
 * "Rows as input", measures the copy).
 *
 * <p><b>Many queries.</b> {@link #evaluateMany} evaluates several queries in
 * one call, each on its own (aggregates such as rank see one query's items):
 * item inputs and outputs hold the queries' items concatenated, query inputs
 * one value (or vector) per query. Zero queries compute nothing.
 *
 * <p><b>Threads.</b> A session is for one thread at a time: a second thread
 * calling it while it evaluates gets an IllegalStateException (it never
 * corrupts it). Use one session per thread; they share the engine. Closing
 * the session or its engine from another thread waits for the evaluation in
 * flight.
 *
 * <p><b>Reloads.</b> A reload that keeps the schema needs nothing; one that
 * changes it makes evaluate throw a CalcJitException until {@link #rebind} is
 * called (which keeps the bindings whose names the new schema still has).
 */
public final class Session implements AutoCloseable {
  private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

  private final Engine engine;
  private final long handle;
  private final Guard guard = new Guard("session");
  private final Cleaner.Cleanable cleanable;
  private Schema schema;

  /** A bound name: its slot in the native session and what it refers to. */
  private static final class Binding {
    final int slot;
    final boolean output;
    Buffer buffer;  // a direct buffer, or null for an array
    float[] array;
    long byteOffset;
    long floatCount;

    Binding(int slot, boolean output) {
      this.slot = slot;
      this.output = output;
    }
  }

  private final Map<String, Binding> inputs = new HashMap<>();
  private final Map<String, Binding> outputs = new HashMap<>();
  /** The buffer of bindRows, kept reachable while the native session reads it. */
  private Buffer rows;
  private int slotCount;
  /** The bound arrays by slot, passed to each evaluation; null while none is bound. */
  private Object[] arrays;
  /** Items (over every query) of the last successful evaluation; -1 before. */
  private long lastItems = -1;

  Session(Engine engine, long handle) {
    this.engine = engine;
    this.handle = handle;
    this.cleanable = Resources.CLEANER.register(this, new Free(handle));
    try {
      this.schema = Schema.fromNative(Native.sessionSchema(handle));
    } catch (RuntimeException | Error e) {
      cleanable.clean();
      throw e;
    }
  }

  /** The schema this session's bindings are for. */
  public Schema schema() {
    guard.check();
    return schema;
  }

  public Engine engine() {
    return engine;
  }

  // --- Bindings

  /** Binds an input to a direct FloatBuffer in native order (read in place). */
  public Session bindInput(String name, FloatBuffer buffer) {
    Objects.requireNonNull(name, "name is null");
    checkDirect(name, buffer, buffer == null ? null : buffer.order());
    bind(name, false, buffer, 4, (long) buffer.position() * 4, buffer.remaining(), null);
    return this;
  }

  /** Binds an input to a direct ByteBuffer in native order (read in place). */
  public Session bindInput(String name, ByteBuffer buffer) {
    Objects.requireNonNull(name, "name is null");
    checkDirect(name, buffer, buffer == null ? null : buffer.order());
    bind(name, false, buffer, 1, buffer.position(), buffer.remaining() / 4, null);
    return this;
  }

  /** Binds an input to a float[] (pinned during each evaluation, not copied). */
  public Session bindInput(String name, float[] values) {
    Objects.requireNonNull(name, "name is null");
    Objects.requireNonNull(values, () -> "values (the array of input '" + name + "') is null");
    bind(name, false, null, 4, 0, values.length, values);
    return this;
  }

  /** Binds an output to a direct, writable FloatBuffer in native order (written in place). */
  public Session bindOutput(String name, FloatBuffer buffer) {
    Objects.requireNonNull(name, "name is null");
    checkDirect(name, buffer, buffer == null ? null : buffer.order());
    checkWritable(name, buffer);
    bind(name, true, buffer, 4, (long) buffer.position() * 4, buffer.remaining(), null);
    return this;
  }

  /** Binds an output to a direct, writable ByteBuffer in native order (written in place). */
  public Session bindOutput(String name, ByteBuffer buffer) {
    Objects.requireNonNull(name, "name is null");
    checkDirect(name, buffer, buffer == null ? null : buffer.order());
    checkWritable(name, buffer);
    bind(name, true, buffer, 1, buffer.position(), buffer.remaining() / 4, null);
    return this;
  }

  /** Binds an output to a float[] (pinned during each evaluation, written in place). */
  public Session bindOutput(String name, float[] values) {
    Objects.requireNonNull(name, "name is null");
    Objects.requireNonNull(values, () -> "values (the array of output '" + name + "') is null");
    bind(name, true, null, 4, 0, values.length, values);
    return this;
  }

  /**
   * Binds the schema's inputs, in order, to the columns of a row-major matrix: the floats
   * between the buffer's position and limit at bind time, {@code columns} per row (a direct
   * FloatBuffer in native order). Each evaluation of n items reads the first n rows (and fails
   * if there are fewer). Every input must be an item scalar, one per column. Replaces the
   * bindings of those inputs by name at each evaluation; {@link #clear} forgets it.
   */
  public Session bindRows(FloatBuffer rows, int columns) {
    return bindRows(rows, columns, columns);
  }

  /** The same with rows {@code rowStride} floats apart (at least {@code columns}). */
  public Session bindRows(FloatBuffer rows, int columns, int rowStride) {
    checkDirect("rows", rows, rows == null ? null : rows.order());
    bindRows(rows, 4, (long) rows.position() * 4, rows.remaining(), columns, rowStride);
    return this;
  }

  /** The same for a direct ByteBuffer in native order (4 bytes per float). */
  public Session bindRows(ByteBuffer rows, int columns) {
    return bindRows(rows, columns, columns);
  }

  /** The same for a direct ByteBuffer, rows {@code rowStride} floats apart. */
  public Session bindRows(ByteBuffer rows, int columns, int rowStride) {
    checkDirect("rows", rows, rows == null ? null : rows.order());
    bindRows(rows, 1, rows.position(), rows.remaining() / 4, columns, rowStride);
    return this;
  }

  private void bindRows(Buffer buffer, int elementBytes, long byteOffset, long floatCount,
      int columns, int rowStride) {
    if (columns < 0 || rowStride < Math.max(columns, 1)) {
      throw new IllegalArgumentException("columns is " + columns + " and rowStride " + rowStride
          + ": a row holds its columns (rowStride >= columns >= 0, rowStride >= 1)");
    }
    guard.enterExclusive();
    try {
      Native.sessionBindRows(handle, buffer, elementBytes, byteOffset, floatCount, columns,
          rowStride);
      rows = buffer;
      lastItems = -1;
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  private static void checkDirect(String name, Buffer buffer, ByteOrder order) {
    Objects.requireNonNull(buffer, () -> "buffer (the buffer of '" + name + "') is null");
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("the buffer of '" + name + "' is a heap buffer; calcjit "
          + "reads buffers in place and needs a direct one (ByteBuffer.allocateDirect(4 * n)"
          + ".order(ByteOrder.nativeOrder()).asFloatBuffer()), or bind a float[]");
    }
    if (order != NATIVE) {
      throw new IllegalArgumentException("the buffer of '" + name + "' is in " + order
          + " byte order; calcjit reads floats in the native order (" + NATIVE
          + "): call .order(ByteOrder.nativeOrder()) on the ByteBuffer");
    }
  }

  private static void checkWritable(String name, Buffer buffer) {
    if (buffer.isReadOnly()) {
      throw new IllegalArgumentException("the buffer of output '" + name + "' is read-only");
    }
  }

  private void bind(String name, boolean output, Buffer buffer, int elementBytes, long byteOffset,
      long floatCount, float[] array) {
    guard.enterExclusive();
    try {
      Map<String, Binding> map = output ? outputs : inputs;
      Binding existing = map.get(name);
      Binding binding = existing != null ? existing : new Binding(slotCount, output);
      // Native first: an unknown name throws there (CalcJitException) and changes nothing.
      sendBinding(name, binding.slot, output, buffer, elementBytes, byteOffset, floatCount);
      if (existing == null) {
        map.put(name, binding);
        ++slotCount;
      }
      binding.buffer = buffer;
      binding.array = array;
      binding.byteOffset = byteOffset;
      binding.floatCount = floatCount;
      setArraySlot(binding.slot, array);
      lastItems = -1;
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  private void sendBinding(String name, int slot, boolean output, Buffer buffer, int elementBytes,
      long byteOffset, long floatCount) {
    Native.sessionBind(handle, slot, output, name, buffer, elementBytes, byteOffset, floatCount);
  }

  private void setArraySlot(int slot, float[] array) {
    if (array == null && arrays == null) return;
    if (arrays == null) arrays = new Object[Math.max(slotCount, slot + 1)];
    if (slot >= arrays.length) arrays = Arrays.copyOf(arrays, Math.max(slotCount, slot + 1));
    arrays[slot] = array;
    boolean any = false;
    for (Object a : arrays) any |= a != null;
    if (!any) arrays = null;
  }

  // --- Evaluation

  /**
   * Evaluates one query of `itemCount` items; returns the version that
   * computed the results. A query of 0 items is checked like any other (an
   * input without a default must be bound) and computes nothing. Allocates
   * nothing on the Java heap.
   */
  public long evaluate(int itemCount) {
    if (itemCount < 0) {
      throw new IllegalArgumentException("itemCount is " + itemCount + ": it must be 0 or more");
    }
    // The engine is only checked, not entered: the native session keeps what
    // it needs of the engine alive by itself, and threads evaluating on one
    // engine then share no counter (an atomic per call on one cache line).
    engine.guard.check();
    guard.enterExclusive();
    try {
      lastItems = -1;
      long version = Native.sessionEvaluate(handle, itemCount, arrays);
      lastItems = itemCount;
      return version;
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Evaluates several queries of `itemCounts[q]` items each, in one call;
   * returns the version that computed them (every query runs on the version
   * serving when the call starts; a reload during the call cannot split it).
   * An empty `itemCounts` is zero queries: nothing is computed, no input needs
   * a value, every output has 0 items. Allocates nothing on the Java heap.
   */
  public long evaluateMany(int[] itemCounts) {
    Objects.requireNonNull(itemCounts, "itemCounts is null (new int[0] is zero queries)");
    long items = 0;
    for (int q = 0; q < itemCounts.length; ++q) {
      if (itemCounts[q] < 0) {
        throw new IllegalArgumentException(
            "itemCounts[" + q + "] is " + itemCounts[q] + ": it must be 0 or more");
      }
      items += itemCounts[q];
    }
    // The engine is only checked, not entered: the native session keeps what
    // it needs of the engine alive by itself, and threads evaluating on one
    // engine then share no counter (an atomic per call on one cache line).
    engine.guard.check();
    guard.enterExclusive();
    try {
      lastItems = -1;
      long version = Native.sessionEvaluateMany(handle, itemCounts, arrays);
      lastItems = items;
      return version;
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A copy of an output of the last successful evaluation (every query's
   * items). Allocates; bind outputs to buffers to read them in place.
   */
  public float[] output(String name) {
    Objects.requireNonNull(name, "name is null");
    guard.enterExclusive();
    try {
      Binding bound = outputs.get(name);
      if (bound == null) return Native.sessionOutput(handle, name);
      if (lastItems < 0) {
        throw new IllegalStateException("no results for '" + name
            + "': the session has not evaluated successfully since it was bound");
      }
      float[] result = new float[(int) lastItems];
      if (bound.array != null) {
        System.arraycopy(bound.array, 0, result, 0, result.length);
      } else if (bound.buffer instanceof FloatBuffer f) {
        // Where it was bound, whatever its position and limit are now.
        f.duplicate().clear().get((int) (bound.byteOffset / 4), result);
      } else {
        ByteBuffer b = ((ByteBuffer) bound.buffer).duplicate().clear();
        b.position((int) bound.byteOffset);
        b.slice().order(NATIVE).asFloatBuffer().get(result);
      }
      return result;
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Accepts the engine's current schema after a reload changed it: keeps the
   * bindings whose names it still has (with the new dimensions), drops the
   * others.
   */
  public void rebind() {
    engine.guard.enter();
    try {
      guard.enterExclusive();
      try {
        lastItems = -1;
        Native.sessionRebind(handle);
        schema = Schema.fromNative(Native.sessionSchema(handle));
        inputs.entrySet().removeIf(e -> schema.input(e.getKey()).isEmpty() && clearSlot(e.getValue()));
        outputs.entrySet().removeIf(e -> !schema.hasOutput(e.getKey()) && clearSlot(e.getValue()));
        for (Map.Entry<String, Binding> e : inputs.entrySet()) resend(e.getKey(), e.getValue());
        for (Map.Entry<String, Binding> e : outputs.entrySet()) resend(e.getKey(), e.getValue());
      } finally {
        guard.exit();
      }
    } finally {
      engine.guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Forgets every binding: unbound inputs take their defaults again (those
   * without one must be bound before the next evaluation), outputs go to the
   * session's own memory. The session no longer refers to the buffers and
   * arrays it had bound.
   */
  public void clear() {
    guard.enterExclusive();
    try {
      lastItems = -1;
      Native.sessionClear(handle);
      inputs.clear();
      outputs.clear();
      rows = null;
      arrays = null;
      slotCount = 0;
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  private boolean clearSlot(Binding binding) {
    setArraySlot(binding.slot, null);
    return true;
  }

  private void resend(String name, Binding b) {
    int elementBytes = b.buffer instanceof ByteBuffer ? 1 : 4;
    sendBinding(name, b.slot, b.output, b.buffer, elementBytes, b.byteOffset, b.floatCount);
  }

  /** Frees the session (waits for an evaluation in flight). Idempotent. */
  @Override
  public void close() {
    if (guard.close()) cleanable.clean();
  }

  private record Free(long handle) implements Runnable {
    @Override
    public void run() {
      Native.sessionFree(handle);
    }
  }
}
