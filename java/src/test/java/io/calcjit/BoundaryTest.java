package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Hostile calls: each is a Java exception with a clear message, never a crash. */
class BoundaryTest {
  static final int N = 100;
  FeatureSet set;
  Engine engine;
  Session session;

  @BeforeEach
  void setUp() {
    set = FeatureSet.fromText(TestSets.QUX);
    engine = Engine.create(set, EngineOptions.of(Backend.VM));
    session = engine.newSession();
  }

  @AfterEach
  void tearDown() {
    session.close();
    engine.close();
    set.close();
  }

  void bindAll(int n) {
    session.bindInput("f_foo", TestSets.direct(n)).bindInput("f_bar", TestSets.direct(n))
        .bindInput("f_baz", TestSets.direct(n));
  }

  static void assertMessage(Throwable e, String... parts) {
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' lacks '" + part + "'");
    }
  }

  @Test
  void heapBuffersAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> session.bindInput("f_foo", FloatBuffer.allocate(N)));
    assertMessage(e, "'f_foo'", "heap buffer", "allocateDirect");
    assertThrows(IllegalArgumentException.class,
        () -> session.bindOutput("f_qux", ByteBuffer.allocate(4 * N).order(ByteOrder.nativeOrder())));
  }

  @Test
  void theWrongByteOrderIsRefused() {
    ByteBuffer bigEndian = ByteBuffer.allocateDirect(4 * N);  // BIG_ENDIAN until told otherwise
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> session.bindInput("f_foo", bigEndian));
    assertMessage(e, "'f_foo'", "BIG_ENDIAN", "ByteOrder.nativeOrder()");
    assertThrows(IllegalArgumentException.class,
        () -> session.bindInput("f_foo", bigEndian.asFloatBuffer()));
  }

  @Test
  void misalignedAndReadOnlyBuffersAreRefused() {
    ByteBuffer bytes = ByteBuffer.allocateDirect(4 * N + 1).order(ByteOrder.nativeOrder());
    bytes.position(1);
    assertMessage(assertThrows(IllegalArgumentException.class,
        () -> session.bindInput("f_foo", bytes)), "multiple of 4");
    assertMessage(assertThrows(IllegalArgumentException.class,
        () -> session.bindOutput("f_qux", TestSets.direct(N).asReadOnlyBuffer())), "read-only");
    // A read-only buffer is fine for an input.
    session.bindInput("f_foo", TestSets.direct(N).asReadOnlyBuffer());
  }

  @Test
  void tooSmallBuffersAndArraysFailTheEvaluationNamingTheInput() {
    bindAll(N);
    session.bindInput("f_bar", TestSets.direct(N - 1));
    CalcJitException e = assertThrows(CalcJitException.class, () -> session.evaluate(N));
    assertEquals(CalcJitException.Kind.USER, e.kind());
    assertEquals("f_bar", e.location());
    assertEquals("input 'f_bar' needs 100 floats for 100 items, got a buffer of 99", e.reason());
    session.bindInput("f_bar", new float[N - 2]);
    assertMessage(assertThrows(CalcJitException.class, () -> session.evaluate(N)),
        "got a buffer of 98");
    session.bindInput("f_bar", TestSets.direct(N));
    session.bindOutput("f_qux", new float[N / 2]);
    CalcJitException out = assertThrows(CalcJitException.class, () -> session.evaluate(N));
    assertEquals("f_qux", out.location());
    // Fixed, the session works again.
    session.bindOutput("f_qux", TestSets.direct(N));
    session.evaluate(N);
  }

  @Test
  void unknownNamesAreCalcJitExceptions() {
    CalcJitException e = assertThrows(CalcJitException.class,
        () -> session.bindInput("f_fooo", TestSets.direct(N)));
    assertEquals("f_fooo", e.location());
    assertMessage(e, "f_fooo");
    assertThrows(CalcJitException.class, () -> session.bindOutput("nope", new float[N]));
    assertThrows(CalcJitException.class, () -> session.output("nope"));
    // Nothing was bound by the failed calls: binding the real names still works.
    bindAll(N);
    session.evaluate(N);
  }

  @Test
  void aMissingInputOrResultIsAnError() {
    session.bindInput("f_foo", TestSets.direct(N));
    assertMessage(assertThrows(CalcJitException.class, () -> session.evaluate(N)),
        "not bound", "no default");
    assertThrows(CalcJitException.class, () -> session.output("f_qux"));  // nothing evaluated
  }

  @Test
  void anOutputSharingAnInputsMemoryIsRefused() {
    FloatBuffer shared = TestSets.direct(N);
    bindAll(N);
    session.bindInput("f_foo", shared).bindOutput("f_qux", shared);
    assertMessage(assertThrows(CalcJitException.class, () -> session.evaluate(N)),
        "shares memory");
  }

  @Test
  void badCountsAreRefused() {
    bindAll(N);
    assertThrows(IllegalArgumentException.class, () -> session.evaluate(-1));
    assertEquals(1, session.evaluateMany(new int[0]));  // zero queries: nothing to compute
    assertThrows(IllegalArgumentException.class, () -> session.evaluateMany(new int[] {1, -1}));
    assertMessage(assertThrows(NullPointerException.class, () -> session.evaluateMany(null)),
        "itemCounts is null");
    // More items over the queries than the buffers hold.
    assertMessage(assertThrows(CalcJitException.class,
        () -> session.evaluateMany(new int[] {60, 60})),
        "needs 120 floats for 120 items in 2 queries, got a buffer of 100");
    assertMessage(assertThrows(NullPointerException.class,
        () -> session.bindInput("f_foo", (float[]) null)), "values", "'f_foo'");
    assertMessage(assertThrows(NullPointerException.class,
        () -> session.bindInput(null, TestSets.direct(N))), "name is null");
  }

  @Test
  void closedObjectsThrowIllegalState() {
    bindAll(N);
    session.evaluate(N);
    engine.close();
    engine.close();  // idempotent
    assertMessage(assertThrows(IllegalStateException.class, () -> session.evaluate(N)),
        "engine is closed");
    assertThrows(IllegalStateException.class, engine::version);
    assertThrows(IllegalStateException.class, engine::stats);
    assertThrows(IllegalStateException.class, engine::newSession);
    assertThrows(IllegalStateException.class, () -> engine.reload(set));
    session.close();
    assertMessage(assertThrows(IllegalStateException.class,
        () -> session.bindInput("f_foo", new float[1])), "session is closed");
    set.close();
    assertThrows(IllegalStateException.class, () -> Engine.create(set));
  }

  @Test
  void aSessionIsForOneThreadAtATime() {
    Guard guard = new Guard("session");
    guard.enterExclusive();
    assertMessage(assertThrows(IllegalStateException.class, guard::enterExclusive),
        "one thread at a time");
    guard.exit();
    guard.enterExclusive();
    guard.exit();
  }

  @Test
  void badOptionsAreCalcJitExceptions() {
    assertMessage(assertThrows(CalcJitException.class,
        () -> Engine.create(set, EngineOptions.of(Backend.VM, "no_such_output"))), "no_such_output");
    assertMessage(assertThrows(CalcJitException.class,
        () -> Engine.create(set, EngineOptions.defaults().withIsa("pentium"))), "pentium");
    assertThrows(CalcJitException.class, () -> FeatureSet.fromProto(new byte[] {1, 2, 3}));
    assertThrows(CalcJitException.class, () -> FeatureSet.fromJson("{"));
  }
}
