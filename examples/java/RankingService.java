import io.calcjit.Backend;
import io.calcjit.CalcJitException;
import io.calcjit.Engine;
import io.calcjit.EngineOptions;
import io.calcjit.FeatureSet;
import io.calcjit.InputInfo;
import io.calcjit.Scope;
import io.calcjit.Session;
import io.calcjit.Stats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A small ranking service: loads a feature set, scores queries from several
 * threads, reloads the set while it serves.
 *
 * <p>Each worker thread owns a {@link Session} and direct buffers sized for
 * the largest query; a request copies its values into those buffers (the
 * service's own serialization step), calcjit reads and writes them in place.
 *
 * <pre>
 *   java -cp build/java/calcjit.jar:build/java/calcjit-example.jar \
 *       RankingService examples/ranking/ranking.calc
 * </pre>
 */
public final class RankingService implements AutoCloseable {
  /** One search: per-item columns (d floats per item for vectors) and query values. */
  public record Query(int items, Map<String, float[]> values) {}

  static final int MAX_ITEMS = 1000;

  private final Engine engine;
  private final ConcurrentLinkedQueue<Worker> workers = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Worker> worker = ThreadLocal.withInitial(this::newWorker);

  public RankingService(Path setPath) throws IOException {
    try (FeatureSet set = FeatureSet.readFile(setPath)) {
      engine = Engine.create(set, EngineOptions.of(Backend.AUTO, "score"));
    }
  }

  /** Loads a new version of the set; queries in flight finish on the old one. */
  public long reload(Path setPath) throws IOException {
    try (FeatureSet set = FeatureSet.readFile(setPath)) {
      return engine.reload(set);
    }
  }

  public Engine engine() {
    return engine;
  }

  /** The items' scores (a copy: the worker's buffer is reused by the next query). */
  public float[] score(Query query) {
    if (query.items() > MAX_ITEMS) throw new IllegalArgumentException("too many items");
    Worker w = worker.get();
    try {
      w.fill(query);
      w.session.evaluate(query.items());
    } catch (CalcJitException e) {
      // A reload changed the schema: take the new one, bind again, retry once.
      if (w.session.schema().equals(engine.schema())) throw e;
      w.rebind();
      w.fill(query);
      w.session.evaluate(query.items());
    }
    float[] scores = new float[query.items()];
    w.score.get(0, scores);
    return scores;
  }

  private Worker newWorker() {
    Worker w = new Worker(engine.newSession());
    workers.add(w);
    return w;
  }

  @Override
  public void close() {
    for (Worker w : workers) w.session.close();
    engine.close();
  }

  /** One thread's session and its direct buffers, one per input of the schema. */
  private static final class Worker {
    final Session session;
    final List<InputInfo> inputs = new ArrayList<>();
    final List<FloatBuffer> buffers = new ArrayList<>();
    final FloatBuffer score = direct(MAX_ITEMS);

    Worker(Session session) {
      this.session = session;
      bind();
    }

    void bind() {
      inputs.clear();
      buffers.clear();
      for (InputInfo input : session.schema().inputs()) {
        FloatBuffer buffer = direct((input.scope() == Scope.ITEM ? MAX_ITEMS : 1) * input.width());
        session.bindInput(input.name(), buffer);
        inputs.add(input);
        buffers.add(buffer);
      }
      session.bindOutput("score", score);
    }

    void rebind() {
      session.rebind();
      bind();
    }

    void fill(Query query) {
      for (int k = 0; k < inputs.size(); ++k) {
        InputInfo input = inputs.get(k);
        float[] values = query.values().get(input.name());
        FloatBuffer buffer = buffers.get(k);
        long needed = input.floatsFor(query.items());
        if (values == null) {
          float value = input.hasDefault() ? input.defaultValue() : Float.NaN;
          for (int i = 0; i < needed; ++i) buffer.put(i, value);
        } else {
          buffer.put(0, values, 0, (int) needed);
        }
      }
    }

    static FloatBuffer direct(int floats) {
      return ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder()).asFloatBuffer();
    }
  }

  /** Plausible random values for every input of the set. */
  static Query randomQuery(List<InputInfo> inputs, int items, long seed) {
    Random random = new Random(seed);
    Map<String, float[]> values = new java.util.HashMap<>();
    for (InputInfo input : inputs) {
      float[] v = new float[(int) input.floatsFor(items)];
      for (int i = 0; i < v.length; ++i) {
        v[i] = input.dimension() > 0 ? (float) random.nextGaussian() * 0.2f
            : 1 + random.nextInt(5) + random.nextFloat();
      }
      values.put(input.name(), v);
    }
    return new Query(items, values);
  }

  /** Scores 4 x 50 queries from 4 threads, reloading in the middle; checks determinism. */
  public static void main(String[] args) throws Exception {
    Path setPath = Path.of(args.length > 0 ? args[0] : "examples/ranking/ranking.calc");
    try (RankingService service = new RankingService(setPath)) {
      List<InputInfo> inputs = service.engine().schema().inputs();
      List<Query> queries = new ArrayList<>();
      for (int q = 0; q < 50; ++q) queries.add(randomQuery(inputs, 20 + 7 * q, q));
      float[][] reference = new float[queries.size()][];
      for (int q = 0; q < queries.size(); ++q) reference[q] = service.score(queries.get(q));

      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 4; ++t) {
        results.add(pool.submit(() -> {
          int mismatches = 0;
          for (int q = 0; q < queries.size(); ++q) {
            if (!Arrays.equals(service.score(queries.get(q)), reference[q])) ++mismatches;
          }
          return mismatches;
        }));
      }
      long version = service.reload(setPath);  // same set, new version: same scores
      int mismatches = 0;
      for (Future<Integer> result : results) mismatches += result.get();
      pool.shutdown();
      service.engine().waitForJit();
      Stats stats = service.engine().stats();
      System.out.printf("version %d on %s, %d queries since the reload, %d mismatches%n",
          version, stats.backend(), stats.evaluations(), mismatches);
      float[] top = reference[0];
      int best = 0;
      for (int i = 1; i < top.length; ++i) if (top[i] > top[best]) best = i;
      System.out.printf("query 0: %d items, best item %d with score %.6f%n", top.length, best,
          top[best]);
      if (mismatches != 0 || version != 2 || Float.isNaN(top[best])) {
        System.out.println("ranking service: FAILED");
        System.exit(1);
      }
      System.out.println("ranking service: ok");
    }
  }
}
