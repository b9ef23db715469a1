package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

/**
 * Zero items and zero queries for every input kind and backend, with direct
 * buffers and with arrays: a correct empty result, never a crash or a false
 * error. One query of 0 items checks its bindings as any query does (an input
 * without a default must be bound); zero queries compute nothing and need no
 * input. The rules and messages are the C API's (the runtime's): JNI only
 * pins and forwards.
 */
class EmptyCallsTest {
  /** The input is x; the outputs f and g. */
  record Kind(String name, String text, Scope scope, int width, boolean hasDefault) {}

  static final Kind[] KINDS = {
    new Kind("item scalar", "input x; f = x * 2; g = rank(x);", Scope.ITEM, 1, false),
    new Kind("item scalar with default", "input x = 1.5; f = x * 2; g = rank(x);", Scope.ITEM, 1,
        true),
    new Kind("query scalar", "input x: query; f = x * 2 + batch_count(1); g = rank(f);",
        Scope.QUERY, 1, false),
    new Kind("query scalar with default", "input x: query = 4; f = x * 2; g = rank(f);",
        Scope.QUERY, 1, true),
    new Kind("item vector", "input x: item[3]; f = norm(x); g = rank(f);", Scope.ITEM, 3, false),
    new Kind("query vector", "input x: query[3]; f = norm(x) + batch_count(1); g = rank(f);",
        Scope.QUERY, 3, false),
  };

  static void assertEmpty(Session session, long version) {
    assertEquals(1, version);
    assertEquals(0, session.output("f").length);
    assertEquals(0, session.output("g").length);
  }

  @Test
  void everyInputKindOnEveryBackend() {
    for (Kind kind : KINDS) {
      for (Backend backend : Backend.values()) {
        String what = kind.name() + " on " + backend;
        try (FeatureSet set = FeatureSet.fromText(kind.text());
            Engine engine = Engine.create(set, EngineOptions.of(backend));
            Session session = engine.newSession()) {
          // Nothing bound.
          if (kind.hasDefault()) {
            assertEmpty(session, session.evaluate(0));
          } else {
            CalcJitException e = assertThrows(CalcJitException.class, () -> session.evaluate(0),
                what);
            assertEquals("x", e.location(), what);
            assertEquals("input 'x' is not bound and has no default value", e.reason(), what);
          }
          assertEmpty(session, session.evaluateMany(new int[0]));
          // A direct buffer: an item input needs none of it, a query input
          // one value (or vector) per query.
          FloatBuffer x = TestSets.direct(kind.width() * 4);
          session.bindInput("x", x);
          assertEmpty(session, session.evaluate(0));
          assertEmpty(session, session.evaluateMany(new int[] {0, 0, 0}));
          assertEmpty(session, session.evaluateMany(new int[0]));
          // Outputs in the caller's memory, buffers and arrays.
          session.bindOutput("f", TestSets.direct(2)).bindOutput("g", new float[0]);
          assertEmpty(session, session.evaluate(0));
          assertEmpty(session, session.evaluateMany(new int[0]));
          // An array, empty or not.
          session.bindInput("x", new float[kind.scope() == Scope.ITEM ? 0 : kind.width()]);
          assertEmpty(session, session.evaluate(0));
          assertEmpty(session, session.evaluateMany(new int[0]));
          if (kind.scope() == Scope.QUERY) {
            // Too few values for three queries: the C API's message.
            session.bindInput("x", new float[2 * kind.width()]);
            CalcJitException e = assertThrows(CalcJitException.class,
                () -> session.evaluateMany(new int[] {0, 0, 0}), what);
            assertTrue(e.reason().contains("for 3 queries"), e.reason());
            assertTrue(e.reason().endsWith("got a buffer of " + 2 * kind.width()), e.reason());
            session.bindInput("x", new float[0]);
            assertEmpty(session, session.evaluateMany(new int[0]));
          }
        }
      }
    }
  }

  @Test
  void manyQueriesEqualOneAtATimeWithAnEmptyQueryAmongThem() {
    int[] counts = {3, 0, 5, 1};
    int total = 9;
    float[] price = TestSets.values(total, 1, -3, 7);
    float[] emb = TestSets.values(3 * total, 2, -1, 1);
    float[] user = TestSets.values(3 * counts.length, 3, -1, 1);
    float[] weight = TestSets.values(counts.length, 4, 0, 2);
    for (Backend backend : Backend.values()) {
      try (FeatureSet set = FeatureSet.fromText(TestSets.MIXED);
          Engine engine = Engine.create(set, EngineOptions.of(backend));
          Session many = engine.newSession();
          Session one = engine.newSession()) {
        float[] score = new float[total];
        many.bindInput("price", price).bindInput("emb", emb).bindInput("user", user)
            .bindInput("weight", weight).bindOutput("score", score);
        many.evaluateMany(counts);
        int first = 0;
        for (int q = 0; q < counts.length; ++q) {
          int n = counts[q];
          one.bindInput("price", java.util.Arrays.copyOfRange(price, first, first + n))
              .bindInput("emb", java.util.Arrays.copyOfRange(emb, 3 * first, 3 * (first + n)))
              .bindInput("user", java.util.Arrays.copyOfRange(user, 3 * q, 3 * q + 3))
              .bindInput("weight", new float[] {weight[q]});
          one.evaluate(n);
          float[] alone = one.output("score");
          float[] together = java.util.Arrays.copyOfRange(score, first, first + n);
          assertArrayEquals(alone, together, backend + ", query " + q);
          first += n;
        }
      }
    }
  }
}
