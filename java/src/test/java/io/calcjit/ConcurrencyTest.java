package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Threads evaluating while others reload, close, and collect garbage. */
class ConcurrencyTest {
  static final int THREADS = 4;
  static final int N = 512;

  /** Runs `body(t)` on THREADS threads; rethrows the first failure. */
  static void onThreads(ThrowingIntConsumer body, Runnable main) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(THREADS);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; ++t) {
      final int index = t;
      Thread thread = new Thread(() -> {
        started.countDown();
        try {
          body.accept(index);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      });
      threads.add(thread);
      thread.start();
    }
    started.await();
    main.run();
    for (Thread thread : threads) thread.join(60_000);
    if (failure.get() != null) throw new AssertionError(failure.get());
  }

  interface ThrowingIntConsumer {
    void accept(int t) throws Exception;
  }

  /**
   * Each result comes whole from one version: y = x * k with k = 2 in odd
   * versions and 3 in even ones, and the version each evaluation reports.
   */
  @Test
  void evaluationsDuringReloadsSeeOneVersionEach() throws Exception {
    try (FeatureSet two = FeatureSet.fromText("input x; y = x * 2;");
        FeatureSet three = FeatureSet.fromText("input x; y = x * 3;");
        Engine engine = Engine.create(two, EngineOptions.of(Backend.AUTO))) {
      AtomicInteger done = new AtomicInteger();
      AtomicInteger evaluations = new AtomicInteger();
      onThreads(t -> {
        try (Session session = engine.newSession()) {
          float[] x = TestSets.values(N, t, 1, 100);
          FloatBuffer y = TestSets.direct(N);
          session.bindInput("x", x).bindOutput("y", y);
          while (done.get() == 0 || evaluations.get() < 200) {
            long version = session.evaluate(N);
            float k = version % 2 == 1 ? 2f : 3f;
            for (int i = 0; i < N; ++i) {
              if (y.get(i) != x[i] * k) {
                throw new AssertionError("version " + version + " item " + i + ": " + y.get(i));
              }
            }
            evaluations.incrementAndGet();
          }
        }
      }, () -> {
        for (int r = 0; r < 20; ++r) engine.reload(r % 2 == 0 ? three : two);
        done.set(1);
      });
      assertEquals(21, engine.version());
      assertTrue(evaluations.get() >= 200);
    }
  }

  /**
   * Closing the engine while threads evaluate: evaluations running finish,
   * every later one throws IllegalStateException, and each thread ends on it.
   */
  @Test
  void closeWhileEvaluatingWaitsAndThenRefuses() throws Exception {
    for (Backend backend : List.of(Backend.VM, Backend.VM, Backend.JIT)) {
      FeatureSet set = FeatureSet.fromText(TestSets.QUX);
      Engine engine = Engine.create(set, EngineOptions.of(backend));
      set.close();
      AtomicInteger refused = new AtomicInteger();
      AtomicInteger evaluations = new AtomicInteger();
      AtomicBoolean closed = new AtomicBoolean();
      CountDownLatch running = new CountDownLatch(THREADS);
      onThreads(t -> {
        Session session = engine.newSession();
        session.bindInput("f_foo", TestSets.direct(N)).bindInput("f_bar", new float[N])
            .bindInput("f_baz", TestSets.direct(N)).bindOutput("f_qux", new float[N]);
        running.countDown();
        try {
          for (;;) {
            boolean closedBefore = closed.get();
            session.evaluate(N);
            if (closedBefore) throw new AssertionError("an evaluation after close() returned");
            evaluations.incrementAndGet();
          }
        } catch (IllegalStateException e) {
          assertTrue(e.getMessage().contains("engine is closed"), e.getMessage());
          refused.incrementAndGet();
        } finally {
          session.close();
        }
      }, () -> {
        try {
          running.await();
          Thread.sleep(5);
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        engine.close();
        closed.set(true);
      });
      assertEquals(THREADS, refused.get());
      assertTrue(evaluations.get() > 0);
    }
  }

  /**
   * Closing a session from another thread while it evaluates: close waits for
   * the evaluation (a close that did not wait freed the session under it and
   * crashed the JVM in each of 5 runs of this test).
   */
  @Test
  void closingASessionFromAnotherThread() throws Exception {
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM))) {
      for (int round = 0; round < 50; ++round) {
        Session session = engine.newSession();
        session.bindInput("f_foo", new float[N]).bindInput("f_bar", new float[N])
            .bindInput("f_baz", new float[N]);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
          try {
            for (;;) session.evaluate(N);
          } catch (IllegalStateException e) {
            if (!e.getMessage().contains("closed") && !e.getMessage().contains("one thread")) {
              failure.set(e);
            }
          } catch (Throwable e) {
            failure.set(e);
          }
        });
        thread.start();
        Thread.sleep(1);
        session.close();
        thread.join();
        if (failure.get() != null) throw new AssertionError(failure.get());
      }
    }
  }

  /** float[] bindings stay correct while the GC moves arrays around. */
  @Test
  void arraysSurviveGarbageCollection() throws Exception {
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.JIT))) {
      AtomicInteger done = new AtomicInteger();
      onThreads(t -> {
        try (Session session = engine.newSession()) {
          for (int round = 0; round < 50; ++round) {
            float[] foo = TestSets.values(N, round, -1, 1);
            float[] bar = TestSets.values(N, round + 1, 1, 2);
            float[] baz = TestSets.values(N, round + 2, 1, 2);
            float[] out = new float[N];
            session.bindInput("f_foo", foo).bindInput("f_bar", bar).bindInput("f_baz", baz)
                .bindOutput("f_qux", out);
            for (int e = 0; e < 20; ++e) {
              byte[][] garbage = new byte[64][];
              for (int g = 0; g < garbage.length; ++g) garbage[g] = new byte[1024];
              session.evaluate(N);
              for (int i = 0; i < N; ++i) {
                if (out[i] != foo[i] / (bar[i] + baz[i])) throw new AssertionError("item " + i);
              }
            }
          }
        }
        done.incrementAndGet();
      }, () -> {
        for (int g = 0; g < 5; ++g) System.gc();
      });
      assertEquals(THREADS, done.get());
    }
  }
}
