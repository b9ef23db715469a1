package io.calcjit.examples.spark;

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
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Feature generation inside a Spark executor (docs/SCALING.md): the body of a
 * {@code mapPartitions} over a partition sorted by query, with no Spark class
 * in sight, so that it compiles and is tested without Spark.
 *
 * <ul>
 *   <li><b>One engine per executor JVM</b>: {@link #engine} compiles a set once per
 *       process, keyed by the SHA-256 of its bytes, backend and outputs; every
 *       task of the executor shares it.</li>
 *   <li><b>One session per task thread</b>: a {@link Scorer} owns its session and
 *       direct buffers, reused for every batch of its partition.</li>
 *   <li><b>Whole queries</b>: rows are read until a batch holds at least
 *       {@code batchItems} items and the current query has ended; each batch is
 *       evaluated with {@link Session#evaluateMany} (each query on its own).</li>
 * </ul>
 *
 * <p>Rows are any type R read through a {@link Columns}: a Spark {@code Row},
 * a {@code Map}, an array. Output is one {@code float[]} per row (the outputs in
 * the engine's order), in the partition's row order, lazily.
 */
public final class QueryPartitions {
  private QueryPartitions() {}

  /** How to read a row: its query key, and a column's value as a float. */
  public interface Columns<R> {
    Object queryKey(R row);

    /** Whether the rows have this column (an input without one takes its default). */
    boolean has(String column);

    float value(R row, String column);
  }

  /** A row and its outputs. */
  public record Scored<R>(R row, float[] outputs) {}

  private static final Map<String, Engine> ENGINES = new ConcurrentHashMap<>();

  /**
   * The executor's engine for a set given as bytes (as a broadcast variable
   * carries it), compiled at its first use in this JVM and kept until the JVM
   * ends.
   */
  public static Engine engine(byte[] setBytes, Format format, Backend backend, String... outputs) {
    String key = digest(setBytes) + "/" + format + "/" + backend + "/" + String.join(",", outputs);
    return ENGINES.computeIfAbsent(key, k -> {
      try (FeatureSet set = FeatureSet.parse(setBytes, format)) {
        return Engine.create(set, EngineOptions.of(backend, outputs));
      }
    });
  }

  /** How many engines this JVM has compiled through {@link #engine}. */
  public static int engineCount() {
    return ENGINES.size();
  }

  /** Scores one partition: {@code rows} must keep each query's rows together. */
  public static <R> Iterator<Scored<R>> score(Engine engine, Iterator<R> rows, Columns<R> columns,
      int batchItems) {
    return new Scorer<>(engine, rows, columns, batchItems);
  }

  private static String digest(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);  // every JVM has SHA-256
    }
  }

  /** One partition's iterator: a session and buffers of its own (one task thread). */
  private static final class Scorer<R> implements Iterator<Scored<R>> {
    private final Engine engine;
    private final Iterator<R> rows;
    private final Columns<R> columns;
    private final int batchItems;
    private final List<InputInfo> inputs = new ArrayList<>();  // those with columns
    private final List<String> outputs;
    private final Map<String, FloatBuffer> buffers = new HashMap<>();
    private final ArrayDeque<Scored<R>> ready = new ArrayDeque<>();
    private Session session;
    private int capacity;  // items the buffers hold
    private R pending;     // the first row of the next batch, read ahead

    Scorer(Engine engine, Iterator<R> rows, Columns<R> columns, int batchItems) {
      this.engine = engine;
      this.rows = rows;
      this.columns = columns;
      this.batchItems = Math.max(1, batchItems);
      for (InputInfo input : engine.schema().inputs()) {
        String first = input.dimension() == 0 ? input.name() : input.name() + "[0]";
        if (columns.has(first)) inputs.add(input);
      }
      this.outputs = engine.schema().outputs();
    }

    @Override
    public boolean hasNext() {
      if (ready.isEmpty()) fill();
      if (ready.isEmpty() && session != null) {
        session.close();  // the partition is done
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
      List<R> batch = new ArrayList<>();
      List<Integer> counts = new ArrayList<>();
      Object key = null;
      while (pending != null || rows.hasNext()) {
        R row = pending != null ? pending : rows.next();
        pending = null;
        Object rowKey = columns.queryKey(row);
        boolean newQuery = batch.isEmpty() || !Objects.equals(rowKey, key);
        if (newQuery && batch.size() >= batchItems) {
          pending = row;  // starts the next batch
          break;
        }
        if (newQuery) counts.add(0);
        counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
        batch.add(row);
        key = rowKey;
      }
      if (batch.isEmpty()) return;
      evaluate(batch, counts.stream().mapToInt(Integer::intValue).toArray());
    }

    private void evaluate(List<R> batch, int[] counts) {
      int items = batch.size();
      if (session == null) session = engine.newSession();
      if (items > capacity) grow(items);
      int query = -1;
      for (int r = 0, left = 0; r < items; ++r, --left) {
        boolean first = left == 0;
        if (first) left = counts[++query];
        for (InputInfo input : inputs) {
          // A query input takes its value from the first row of its query.
          if (input.scope() == Scope.QUERY && !first) continue;
          int unit = input.scope() == Scope.ITEM ? r : query;
          FloatBuffer buffer = buffers.get(input.name());
          int width = input.width();
          for (int k = 0; k < width; ++k) {
            String column = input.dimension() == 0 ? input.name() : input.name() + "[" + k + "]";
            buffer.put(unit * width + k, columns.value(batch.get(r), column));
          }
        }
      }
      session.evaluateMany(counts);
      for (int r = 0; r < items; ++r) {
        float[] values = new float[outputs.size()];
        for (int o = 0; o < values.length; ++o) values[o] = buffers.get("out:" + outputs.get(o)).get(r);
        ready.add(new Scored<>(batch.get(r), values));
      }
    }

    /** Direct buffers for at least `items` items, bound once until they grow again. */
    private void grow(int items) {
      capacity = Math.max(items, capacity * 2);
      for (InputInfo input : inputs) {
        // A query input needs at most one slot per item (one-item queries).
        FloatBuffer buffer = direct(capacity * input.width());
        buffers.put(input.name(), buffer);
        session.bindInput(input.name(), buffer);
      }
      for (String output : outputs) {
        FloatBuffer buffer = direct(capacity);
        buffers.put("out:" + output, buffer);
        session.bindOutput(output, buffer);
      }
    }

    private static FloatBuffer direct(int floats) {
      return ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder()).asFloatBuffer();
    }
  }
}
