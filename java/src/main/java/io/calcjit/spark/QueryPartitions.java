package io.calcjit.spark;

import io.calcjit.Backend;
import io.calcjit.Engine;
import io.calcjit.EngineOptions;
import io.calcjit.FeatureSet;
import io.calcjit.Format;
import io.calcjit.InputInfo;
import io.calcjit.Scope;
import io.calcjit.Session;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Feature generation inside a Spark executor (docs/SCALING.md): the body of a
 * {@code mapPartitions} over a partition sorted by query, with no Spark class in
 * it, so that it is in calcjit's own jar and tested without Spark
 * ({@code SparkFeatures}, in calcjit-spark.jar, is the Spark side).
 *
 * <ul>
 *   <li><b>One engine per executor JVM</b>: {@link #engine} compiles a set once per
 *       process, keyed by the SHA-256 of its bytes (and its models' bytes or root),
 *       backend and outputs; every task of the executor shares it.
 *   <li><b>One session per task thread</b>: a partition's iterator owns its session
 *       and direct buffers, reused for every batch of the partition.
 *   <li><b>Whole queries</b>: rows are read until a batch holds at least {@code
 *       batchItems} items and the current query has ended; each batch is evaluated
 *       with {@link Session#evaluateMany} (each query on its own).
 * </ul>
 *
 * <p>Rows are any type R read through a {@link Columns}: a Spark {@code Row}, a
 * {@code List}, an array. Output is one {@code float[]} per row (the outputs in the
 * engine's order), in the partition's row order, lazily.
 */
public final class QueryPartitions {
  private QueryPartitions() {}

  /** How to read a row: its query key, and a column's value as a float. */
  public interface Columns<R> {
    /** A column's position in the rows, or -1 when they lack it (its input takes its default). */
    int index(String column);

    Object queryKey(R row);

    /** The value at a position of {@link #index}; NaN for a missing value. */
    float value(R row, int column);
  }

  /** A row and its outputs. */
  public record Scored<R>(R row, float[] outputs) {}

  private static final Map<String, Engine> ENGINES = new ConcurrentHashMap<>();

  /**
   * The executor's engine for a set given as bytes (as a broadcast variable carries it),
   * compiled at its first use in this JVM and kept until the JVM ends.
   */
  public static Engine engine(byte[] setBytes, Format format, Backend backend, String... outputs) {
    return engine(setBytes, format, null, Map.of(), backend, outputs);
  }

  /**
   * The same for a set with models: each model's bytes from {@code models} (by the model's name
   * in the set), else its file under {@code modelRoot} on this machine (null: none).
   *
   * @throws io.calcjit.CalcJitException when the set or a model cannot be read or compiled
   */
  public static Engine engine(byte[] setBytes, Format format, String modelRoot,
      Map<String, byte[]> models, Backend backend, String... outputs) {
    Objects.requireNonNull(setBytes, "setBytes is null");
    Map<String, byte[]> sorted = new TreeMap<>(models == null ? Map.of() : models);
    MessageDigest sha = sha256();
    sha.update(setBytes);
    for (Map.Entry<String, byte[]> model : sorted.entrySet()) {
      sha.update(model.getKey().getBytes(StandardCharsets.UTF_8));
      sha.update(model.getValue());
    }
    String key = HexFormat.of().formatHex(sha.digest()) + "/" + format + "/" + modelRoot + "/"
        + backend + "/" + String.join(",", outputs);
    return ENGINES.computeIfAbsent(key, k -> {
      Path root = modelRoot == null ? null : Path.of(modelRoot);
      try (FeatureSet set = FeatureSet.parse(setBytes, format, root, sorted)) {
        return Engine.create(set, EngineOptions.of(backend, outputs));
      }
    });
  }

  /** How many engines this JVM has compiled through {@link #engine}. */
  public static int engineCount() {
    return ENGINES.size();
  }

  /** Scores one partition: {@code rows} must keep each query's rows together. */
  public static <R> Iterator<Scored<R>> score(
      Engine engine, Iterator<R> rows, Columns<R> columns, int batchItems) {
    return new Scorer<>(engine, rows, columns, batchItems);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JVM has SHA-256
    }
  }

  /** An input the rows have columns for: where its floats come from and go. */
  private static final class BoundInput {
    final InputInfo info;
    final int[] columns; // one per float of a row (width)
    FloatBuffer buffer;

    BoundInput(InputInfo info, int[] columns) {
      this.info = info;
      this.columns = columns;
    }
  }

  /** One partition's iterator: a session and buffers of its own (one task thread). */
  private static final class Scorer<R> implements Iterator<Scored<R>> {
    private final Engine engine;
    private final Iterator<R> rows;
    private final Columns<R> columns;
    private final int batchItems;
    private final List<BoundInput> inputs = new ArrayList<>();
    private final List<String> outputs;
    private final FloatBuffer[] outputBuffers;
    private final ArrayDeque<Scored<R>> ready = new ArrayDeque<>();
    private final List<R> batch = new ArrayList<>();
    private int[] counts = new int[16];
    private Session session;
    private int capacity; // items the buffers hold
    private R pending; // the first row of the next batch, read ahead

    Scorer(Engine engine, Iterator<R> rows, Columns<R> columns, int batchItems) {
      this.engine = engine;
      this.rows = rows;
      this.columns = columns;
      this.batchItems = Math.max(1, batchItems);
      for (InputInfo input : engine.schema().inputs()) {
        int[] positions = new int[input.width()];
        for (int k = 0; k < positions.length; ++k) {
          String column = input.dimension() == 0 ? input.name() : input.name() + "[" + k + "]";
          positions[k] = columns.index(column);
        }
        if (positions[0] >= 0) inputs.add(new BoundInput(input, positions));
      }
      this.outputs = engine.schema().outputs();
      this.outputBuffers = new FloatBuffer[outputs.size()];
    }

    @Override
    public boolean hasNext() {
      if (ready.isEmpty()) fill();
      if (ready.isEmpty() && session != null) {
        session.close(); // the partition is done
        session = null;
      }
      return !ready.isEmpty();
    }

    @Override
    public Scored<R> next() {
      if (!hasNext()) throw new NoSuchElementException();
      return ready.poll();
    }

    /** Reads the next batch of whole queries and evaluates it. */
    private void fill() {
      batch.clear();
      int queries = 0;
      Object key = null;
      while (pending != null || rows.hasNext()) {
        R row = pending != null ? pending : rows.next();
        pending = null;
        Object rowKey = columns.queryKey(row);
        boolean newQuery = batch.isEmpty() || !Objects.equals(rowKey, key);
        if (newQuery && batch.size() >= batchItems) {
          pending = row; // starts the next batch
          break;
        }
        if (newQuery) {
          if (queries == counts.length) counts = Arrays.copyOf(counts, 2 * queries);
          counts[queries++] = 0;
        }
        ++counts[queries - 1];
        batch.add(row);
        key = rowKey;
      }
      if (batch.isEmpty()) return;
      evaluate(Arrays.copyOf(counts, queries));
    }

    private void evaluate(int[] queryCounts) {
      int items = batch.size();
      if (session == null) session = engine.newSession();
      if (items > capacity) grow(items);
      int query = -1;
      for (int r = 0, left = 0; r < items; ++r, --left) {
        boolean first = left == 0;
        if (first) left = queryCounts[++query];
        R row = batch.get(r);
        for (BoundInput input : inputs) {
          // A query input takes its value from the first row of its query.
          if (input.info.scope() == Scope.QUERY && !first) continue;
          int unit = input.info.scope() == Scope.ITEM ? r : query;
          int width = input.columns.length;
          for (int k = 0; k < width; ++k) {
            input.buffer.put(unit * width + k, columns.value(row, input.columns[k]));
          }
        }
      }
      session.evaluateMany(queryCounts);
      for (int r = 0; r < items; ++r) {
        float[] values = new float[outputBuffers.length];
        for (int o = 0; o < values.length; ++o) values[o] = outputBuffers[o].get(r);
        ready.add(new Scored<>(batch.get(r), values));
      }
    }

    /** Direct buffers for at least `items` items, bound once until they grow again. */
    private void grow(int items) {
      capacity = Math.max(items, capacity * 2);
      for (BoundInput input : inputs) {
        // A query input needs at most one slot per item (one-item queries).
        input.buffer = direct(capacity * input.columns.length);
        session.bindInput(input.info.name(), input.buffer);
      }
      for (int o = 0; o < outputBuffers.length; ++o) {
        outputBuffers[o] = direct(capacity);
        session.bindOutput(outputs.get(o), outputBuffers[o]);
      }
    }

    private static FloatBuffer direct(int floats) {
      return ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder()).asFloatBuffer();
    }
  }
}
