package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The API used as documented: sets, schemas, engines, sessions, reloads, stats, shadow. */
class ApiTest {
  static final int N = 2000;

  @Test
  void libraryVersionIsTheHeaders() {
    assertEquals("0.1.0", Engine.libraryVersion());
  }

  @Test
  void schemaDescribesScopesDimensionsAndDefaults() {
    try (FeatureSet set = FeatureSet.fromText(TestSets.MIXED + "typo_user = missing_input * 2;")) {
      Schema schema = set.schema();
      assertEquals(new InputInfo("price", Scope.ITEM, 0, false, 0f, true),
          schema.input("price").orElseThrow());
      assertEquals(new InputInfo("weight", Scope.QUERY, 0, true, 2f, true),
          schema.input("weight").orElseThrow());
      assertEquals(new InputInfo("user", Scope.QUERY, 3, false, 0f, true),
          schema.input("user").orElseThrow());
      assertEquals(new InputInfo("emb", Scope.ITEM, 3, false, 0f, true),
          schema.input("emb").orElseThrow());
      // Used but never declared: an implicit input, where typos show up.
      assertFalse(schema.input("missing_input").orElseThrow().declared());
      assertEquals(List.of("total", "score", "typo_user"), schema.outputs());
    }
  }

  @Test
  void parseErrorsCarryTheirLocation() {
    CalcJitException e = assertThrows(CalcJitException.class,
        () -> FeatureSet.fromText("input x;\ny = x +;\n"));
    assertEquals(CalcJitException.Kind.USER, e.kind());
    assertTrue(e.location().startsWith("2:"), e.location());
    assertTrue(e.getMessage().startsWith(e.location() + ": "), e.getMessage());
    // UTF-8 from native code, outside the BMP too (not read as modified UTF-8).
    CalcJitException emoji = assertThrows(CalcJitException.class,
        () -> FeatureSet.fromText("input x; y = x +\uD83D\uDE00;"));
    assertEquals("1:17: unexpected character '\uD83D\uDE00'", emoji.getMessage());
    CalcJitException cycle = assertThrows(CalcJitException.class,
        () -> FeatureSet.fromText("a = b + 1;\nb = a + 1;\n"));
    assertTrue(cycle.details().contains("a") && cycle.details().contains("b"), cycle.details());
  }

  /** f_qux from every backend, bit for bit equal to Java's own float division. */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void quxWithDirectBuffersOnEveryBackend(Backend backend) {
    float[] foo = TestSets.values(N, 1, -10, 10);
    float[] bar = TestSets.values(N, 2, 0, 5);
    float[] baz = TestSets.values(N, 3, -5, 0);
    bar[7] = 0f;
    baz[7] = -0f;  // 0 + -0 = 0: division by zero gives inf, not an error
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX);
        Engine engine = Engine.create(set, EngineOptions.of(backend));
        Session session = engine.newSession()) {
      engine.waitForJit();
      FloatBuffer out = TestSets.direct(N);
      session.bindInput("f_foo", TestSets.direct(foo)).bindInput("f_bar", TestSets.direct(bar))
          .bindInput("f_baz", TestSets.direct(baz)).bindOutput("f_qux", out);
      assertEquals(1, session.evaluate(N));
      for (int i = 0; i < N; ++i) {
        float expected = foo[i] / (bar[i] + baz[i]);
        assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(out.get(i)),
            "item " + i);
      }
      assertArrayEquals(session.output("f_qux"), copy(out, N));
      if (backend != Backend.AUTO) assertEquals(backend, engine.stats().backend());
    }
  }

  @Test
  void floatArraysAndByteBuffersGiveTheSameBits() {
    float[] foo = TestSets.values(N, 4, -10, 10);
    float[] bar = TestSets.values(N, 5, 0, 5);
    float[] baz = TestSets.values(N, 6, -5, 5);
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM));
        Session arrays = engine.newSession();
        Session bytes = engine.newSession()) {
      float[] out = new float[N];
      arrays.bindInput("f_foo", foo).bindInput("f_bar", bar).bindInput("f_baz", baz)
          .bindOutput("f_qux", out);
      arrays.evaluate(N);
      ByteBuffer fooBytes = ByteBuffer.allocateDirect(4 * N).order(ByteOrder.nativeOrder());
      fooBytes.asFloatBuffer().put(foo);
      ByteBuffer outBytes = ByteBuffer.allocateDirect(4 * N).order(ByteOrder.nativeOrder());
      bytes.bindInput("f_foo", fooBytes).bindInput("f_bar", TestSets.direct(bar))
          .bindInput("f_baz", baz).bindOutput("f_qux", outBytes);
      bytes.evaluate(N);
      for (int i = 0; i < N; ++i) {
        float expected = foo[i] / (bar[i] + baz[i]);
        assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(out[i]));
        assertEquals(Float.floatToRawIntBits(expected),
            Float.floatToRawIntBits(outBytes.getFloat(4 * i)));
      }
      // Arrays are read at each evaluation: writing into them changes the next result.
      foo[0] = 42f;
      arrays.evaluate(N);
      assertEquals(42f / (bar[0] + baz[0]), out[0]);
      assertArrayEquals(out, arrays.output("f_qux"));
      assertArrayEquals(copy(outBytes.asFloatBuffer(), N), bytes.output("f_qux"));
    }
  }

  @Test
  void aBufferBindsFromItsPositionToItsLimitAndServesFewerItems() {
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM));
        Session session = engine.newSession()) {
      FloatBuffer foo = TestSets.direct(0f, 0f, 0f, 6f, 8f, 10f);
      foo.position(3);
      session.bindInput("f_foo", foo).bindInput("f_bar", TestSets.direct(1f, 1f, 1f))
          .bindInput("f_baz", TestSets.direct(1f, 3f, 4f, 99f));
      FloatBuffer out = TestSets.direct(5);
      out.position(2);
      session.bindOutput("f_qux", out);
      out.position(4).limit(4);  // moving it after binding changes nothing
      session.evaluate(3);
      assertArrayEquals(new float[] {3f, 2f, 2f}, session.output("f_qux"));
      assertEquals(0f, out.get(1));
      assertEquals(3f, out.get(2));
      assertEquals(2f, out.get(3));
      // Fewer items than the buffers hold: their first floats.
      session.evaluate(2);
      assertArrayEquals(new float[] {3f, 2f}, session.output("f_qux"));
    }
  }

  /** Many queries in one call equal the same queries one by one (aggregates per query). */
  @ParameterizedTest
  @EnumSource(value = Backend.class, names = {"REFERENCE", "VM", "JIT"})
  void manyQueriesEqualOneByOne(Backend backend) {
    int[] counts = {5, 0, 17, 1, 2000};
    int total = 0;
    for (int c : counts) total += c;
    float[] price = TestSets.values(total, 7, 1, 100);
    float[] emb = TestSets.values(3 * total, 8, -1, 1);
    float[] user = TestSets.values(3 * counts.length, 9, -1, 1);
    float[] weight = TestSets.values(counts.length, 10, 0, 3);
    try (FeatureSet set = FeatureSet.fromText(TestSets.MIXED);
        Engine engine = Engine.create(set, EngineOptions.of(backend));
        Session many = engine.newSession();
        Session one = engine.newSession()) {
      FloatBuffer score = TestSets.direct(total);
      many.bindInput("price", TestSets.direct(price)).bindInput("emb", TestSets.direct(emb))
          .bindInput("user", TestSets.direct(user)).bindInput("weight", weight)
          .bindOutput("score", score);
      assertEquals(1, many.evaluateMany(counts));
      float[] total_ = many.output("total");
      int offset = 0;
      for (int q = 0; q < counts.length; ++q) {
        int n = counts[q];
        one.bindInput("price", slice(price, offset, n)).bindInput("emb", slice(emb, 3 * offset, 3 * n))
            .bindInput("user", slice(user, 3 * q, 3)).bindInput("weight", slice(weight, q, 1));
        one.evaluate(n);
        float[] expectedScore = one.output("score");
        float[] expectedTotal = one.output("total");
        for (int i = 0; i < n; ++i) {
          assertEquals(Float.floatToRawIntBits(expectedScore[i]),
              Float.floatToRawIntBits(score.get(offset + i)), "query " + q + " item " + i);
          assertEquals(Float.floatToRawIntBits(expectedTotal[i]),
              Float.floatToRawIntBits(total_[offset + i]));
        }
        offset += n;
      }
      // The per-query aggregate differs between queries (it is not over the whole call).
      assertTrue(total_[0] != total_[5 + 17 + 1]);
    }
  }

  /** The goal, as a test: evaluating with bound buffers allocates nothing in Java. */
  @Test
  void evaluationsAllocateNothingOnTheJavaHeap() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    int[] counts = {700, 600, 700};
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.JIT));
        Session buffers = engine.newSession();
        Session arrays = engine.newSession()) {
      buffers.bindInput("f_foo", TestSets.direct(N)).bindInput("f_bar", TestSets.direct(N))
          .bindInput("f_baz", TestSets.direct(N)).bindOutput("f_qux", TestSets.direct(N));
      arrays.bindInput("f_foo", new float[N]).bindInput("f_bar", new float[N])
          .bindInput("f_baz", new float[N]).bindOutput("f_qux", new float[N]);
      // The JVM itself now and then counts a few hundred bytes to the thread
      // (compilation and TLAB bookkeeping, at random): an allocation per call
      // would show in every round, at least 16 bytes x 4,000 evaluations.
      long fewest = Long.MAX_VALUE;
      for (int round = 0; round < 6; ++round) {  // round 0 warms up
        long before = threads.getThreadAllocatedBytes(id);
        for (int k = 0; k < 1000; ++k) {
          buffers.evaluate(N);
          buffers.evaluateMany(counts);
          arrays.evaluate(N);
          arrays.evaluateMany(counts);
        }
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        if (round > 0) {
          assertTrue(allocated < 4000, allocated + " bytes allocated by 4,000 evaluations");
          fewest = Math.min(fewest, allocated);
        }
      }
      assertEquals(0, fewest, "bytes allocated by 4,000 evaluations in the best round");
    }
  }

  @Test
  void anUnboundInputWithADefaultTakesItAndClearForgetsBindings() {
    try (FeatureSet set = FeatureSet.fromText("input x; input k: query = 3; y = x * k;");
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM));
        Session session = engine.newSession()) {
      float[] y = new float[2];
      session.bindInput("x", new float[] {1f, 2f}).bindOutput("y", y);
      session.evaluate(2);
      assertArrayEquals(new float[] {3f, 6f}, y);
      session.bindInput("k", TestSets.direct(10f));
      session.evaluate(2);
      assertArrayEquals(new float[] {10f, 20f}, y);

      session.clear();
      CalcJitException unbound = assertThrows(CalcJitException.class, () -> session.evaluate(2));
      assertEquals("x", unbound.location());
      session.bindInput("x", TestSets.direct(5f, 6f));
      session.evaluate(2);
      assertArrayEquals(new float[] {15f, 18f}, session.output("y"));  // k's default again
      assertArrayEquals(new float[] {10f, 20f}, y);  // no longer bound: left alone
    }
  }

  @Test
  void theSetsFormatsReadTheSame(@TempDir Path dir) throws Exception {
    Path text = dir.resolve("qux.calc");
    Files.writeString(text, TestSets.QUX);
    Path json = dir.resolve("qux.json");
    Path proto = dir.resolve("qux.pb");
    TestSets.runCli("print", text.toString(), "--format", "json", "-o", json.toString());
    TestSets.runCli("print", text.toString(), "--format", "pb", "-o", proto.toString());
    float[] foo = {1f, 2f, 3f};
    float[] bar = {1f, 1f, 2f};
    float[] baz = {0f, 3f, 0.5f};
    float[] expected = null;
    for (FeatureSet set : List.of(FeatureSet.fromText(TestSets.QUX),
        FeatureSet.fromJson(Files.readString(json)),
        FeatureSet.fromProto(Files.readAllBytes(proto)), FeatureSet.readFile(json))) {
      try (set; Engine engine = Engine.create(set, EngineOptions.of(Backend.VM));
          Session session = engine.newSession()) {
        assertEquals(List.of("f_qux"), set.schema().outputs());
        session.bindInput("f_foo", foo).bindInput("f_bar", bar).bindInput("f_baz", baz);
        session.evaluate(3);
        float[] out = session.output("f_qux");
        if (expected == null) expected = out;
        assertArrayEquals(expected, out);
      }
    }
    assertArrayEquals(new float[] {1f, 0.5f, 3f / 2.5f}, expected);
  }

  @Test
  void reloadServesTheNewVersionAndASchemaChangeNeedsRebind() {
    try (FeatureSet v1 = FeatureSet.fromText("input x; y = x * 2;");
        Engine engine = Engine.create(v1, EngineOptions.of(Backend.VM));
        Session session = engine.newSession()) {
      float[] x = {1f, 2f, 3f};
      session.bindInput("x", x);
      assertEquals(1, session.evaluate(3));
      assertArrayEquals(new float[] {2f, 4f, 6f}, session.output("y"));
      try (FeatureSet v2 = FeatureSet.fromText("input x; y = x * 3;")) {
        assertEquals(2, engine.reload(v2));
      }
      assertEquals(2, engine.version());
      assertEquals(2, session.evaluate(3));
      assertArrayEquals(new float[] {3f, 6f, 9f}, session.output("y"));

      // A reload that fails keeps the current version serving.
      assertThrows(CalcJitException.class, () -> engine.reload(FeatureSet.fromText("y = ;")));
      assertEquals(2, engine.version());

      try (FeatureSet v3 = FeatureSet.fromText("input x; input z; y = x + z;")) {
        assertEquals(3, engine.reload(v3));
      }
      CalcJitException stale = assertThrows(CalcJitException.class, () -> session.evaluate(3));
      assertTrue(stale.getMessage().contains("rebind"), stale.getMessage());
      session.rebind();
      assertTrue(session.schema().input("z").isPresent());
      session.bindInput("z", new float[] {10f, 20f, 30f});
      assertEquals(3, session.evaluate(3));
      assertArrayEquals(new float[] {11f, 22f, 33f}, session.output("y"));
    }
  }

  @Test
  void statsCountQueriesAndItems() {
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM));
        Session session = engine.newSession()) {
      session.bindInput("f_foo", new float[10]).bindInput("f_bar", new float[10])
          .bindInput("f_baz", new float[10]);
      session.evaluate(10);
      session.evaluateMany(new int[] {3, 3, 4});
      Stats stats = engine.stats();
      assertEquals(1, stats.version());
      assertEquals(Backend.VM, stats.backend());
      assertEquals(4, stats.evaluations());
      assertEquals(20, stats.items());
      assertFalse(stats.jitPending());
    }
  }

  @Test
  void autoTiersToTheFasterTier() {
    try (FeatureSet set = FeatureSet.fromText(TestSets.QUX); Engine engine = Engine.create(set)) {
      engine.waitForJit();
      Stats stats = engine.stats();
      Tiers tiers = engine.tiers();
      assertTrue(tiers.measured(), tiers.note());
      assertEquals(1000, tiers.items());
      assertTrue(tiers.vmNsPerItem() > 0 && tiers.jitNsPerItem() > 0, tiers.note());
      assertEquals(tiers.chosen(), stats.backend(), engine.backendNote());
      assertEquals(tiers.chosen() == Backend.JIT, tiers.jitNsPerItem() < tiers.vmNsPerItem());
      if (stats.backend() == Backend.JIT) {
        assertEquals("", engine.backendNote());
      } else {
        assertTrue(engine.backendNote().contains("the vm is faster"), engine.backendNote());
      }
    }
  }

  @Test
  void shadowEvaluationsAgreeWithTheReference() {
    try (FeatureSet set = FeatureSet.fromText(TestSets.MIXED);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.JIT))) {
      engine.setShadow(1.0, Backend.REFERENCE);
      try (Session session = engine.newSession()) {
        session.bindInput("price", TestSets.values(100, 11, 1, 10))
            .bindInput("emb", TestSets.values(300, 12, -1, 1))
            .bindInput("user", TestSets.values(6, 13, -1, 1));
        session.evaluateMany(new int[] {40, 60});
      }
      engine.drainShadow();
      Stats stats = engine.stats();
      assertEquals(2, stats.shadowEvaluations() + stats.shadowDropped());
      assertEquals(0, stats.mismatches());
      assertTrue(engine.mismatches().isEmpty());
    }
  }

  @Test
  void shadowAgainstACandidateReportsMismatches() {
    try (FeatureSet set = FeatureSet.fromText("input x; y = x * 2;");
        FeatureSet candidate = FeatureSet.fromText("input x; y = x * 2 + 1;");
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM))) {
      engine.setShadow(1.0, Backend.VM, candidate);
      try (Session session = engine.newSession()) {
        session.bindInput("x", new float[] {1f, 2f});
        session.evaluate(2);
      }
      engine.drainShadow();
      List<Mismatch> mismatches = engine.mismatches();
      assertEquals(2, engine.stats().mismatches());
      assertEquals(new Mismatch(1, "y", 0, Float.floatToRawIntBits(2f),
          Float.floatToRawIntBits(3f)), mismatches.get(0));
    }
  }

  /**
   * A 2,000-level formula parses, compiles and evaluates from a thread with a
   * 256 KiB stack (a quarter of the JVM's default): calcjit's readers and
   * passes are iterative, so parsing and compiling run on the caller's thread.
   */
  @Test
  void deepFormulasOnASmallJavaStack() throws Exception {
    int depth = 2000;
    StringBuilder text = new StringBuilder("input x;\ny = ");
    for (int i = 0; i < depth; ++i) text.append("(1 + ");
    text.append("x");
    for (int i = 0; i < depth; ++i) text.append(")");
    text.append(";\n");
    AtomicReference<Object> result = new AtomicReference<>();
    Thread thread = new Thread(null, () -> {
      try {
        for (Backend backend : List.of(Backend.VM, Backend.JIT)) {
          try (FeatureSet set = FeatureSet.fromText(text.toString());
              Engine engine = Engine.create(set, EngineOptions.of(backend));
              Session session = engine.newSession()) {
            session.bindInput("x", new float[] {0.5f});
            session.evaluate(1);
            result.set(session.output("y")[0]);
          }
        }
      } catch (Throwable t) {
        result.set(t);
      }
    }, "small-stack", 256 * 1024);
    thread.start();
    thread.join();
    if (result.get() instanceof Throwable t) throw new AssertionError(t);
    assertEquals(2000.5f, result.get());
  }

  @Test
  void explainsAMissingSharedLibrary() {
    UnsatisfiedLinkError e = NativeLoader.explain(new UnsatisfiedLinkError(
        "/tmp/libcalcjit_jni123.so: libLLVM-16.so.1: cannot open shared object file: "
            + "No such file or directory"), "Linux", "amd64");
    assertTrue(e.getMessage().contains("apt-get install libllvm16"), e.getMessage());
    assertTrue(e.getMessage().contains("libLLVM-16.so.1"), e.getMessage());
    UnsatisfiedLinkError other = NativeLoader.explain(new UnsatisfiedLinkError("x"), "Mac OS X",
        "aarch64");
    assertTrue(other.getMessage().contains("linux-x86_64 only"), other.getMessage());
  }

  static float[] copy(FloatBuffer buffer, int n) {
    float[] out = new float[n];
    buffer.get(0, out);
    return out;
  }

  static float[] slice(float[] values, int from, int n) {
    float[] out = new float[n];
    System.arraycopy(values, from, out, 0, n);
    return out;
  }
}
