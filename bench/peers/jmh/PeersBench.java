package io.calcjit.peers;

import io.calcjit.Backend;
import io.calcjit.Engine;
import io.calcjit.EngineOptions;
import io.calcjit.FeatureSet;
import io.calcjit.InputInfo;
import io.calcjit.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The peers' benchmark from Java (bench/peers/jmh.sh; docs/PERFORMANCE.md, run PJ): one
 * query of the peers' middle XGBoost model (500 trees of depth 8 in full mode) over the
 * same rows, one thread, in one JVM, each runner from its own fastest input:
 *
 * <ul>
 *   <li>{@code calcjitVm}, {@code calcjitJit}: calcjit's engine of the model
 *       ({@code FeatureSet.fromModel}) on the VM and the JIT, a session whose inputs are
 *       bound to direct FloatBuffers of the feature columns and whose output is bound to a
 *       direct FloatBuffer: native code reads and writes them in place.
 *   <li>{@code xgboost4jInplace}: XGBoost 3.4's JVM package, {@code
 *       Booster.inplace_predict} on the row-major float[] (margins, nthread 1): its C API's
 *       in-place prediction, no DMatrix.
 * </ul>
 *
 * <p>The data come from {@code peers.py --export-java DIR} (the system property
 * calcjit.peers.data): model.json, rows.f32 (row-major), margins.f32 (XGBoost 1.7.4's
 * margins for those rows) and shape.txt. Setup checks every runner's margins against
 * margins.f32, bit for bit, and fails the run otherwise.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PeersBench {
  /** XGBoost's iteration range [0, 0): every tree. */
  private static final int[] EVERY_TREE = {0, 0};

  private int rows;
  private int features;
  private float[] rowMajor;
  private float[] expected;

  private Engine vm;
  private Engine jit;
  private Session vmSession;
  private Session jitSession;
  private FloatBuffer vmOut;
  private FloatBuffer jitOut;
  private Booster booster;

  @Setup(Level.Trial)
  public void setUp() throws IOException, XGBoostError {
    Path data = Path.of(System.getProperty("calcjit.peers.data", "build/bench-peers/java"));
    String[] shape = Files.readString(data.resolve("shape.txt")).trim().split(" ");
    rows = Integer.parseInt(shape[0]);
    features = Integer.parseInt(shape[1]);
    rowMajor = readFloats(data.resolve("rows.f32"), rows * features);
    expected = readFloats(data.resolve("margins.f32"), rows);
    byte[] model = Files.readAllBytes(data.resolve("model.json"));

    FeatureSet set = FeatureSet.fromModel(model, "xgboost");
    vm = Engine.create(set, EngineOptions.of(Backend.VM));
    jit = Engine.create(set, EngineOptions.of(Backend.JIT));
    vmOut = direct(rows);
    jitOut = direct(rows);
    vmSession = bindColumns(vm, vmOut);
    jitSession = bindColumns(jit, jitOut);
    vmSession.evaluate(rows);
    jitSession.evaluate(rows);
    check("calcjit vm", toArray(vmOut));
    check("calcjit jit", toArray(jitOut));

    booster = XGBoost.loadModel(model);
    booster.setParam("nthread", 1);
    check("xgboost4j inplace", column(xgboost4jInplace()));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    vmSession.close();
    jitSession.close();
    vm.close();
    jit.close();
    booster.dispose();
  }

  @Benchmark
  public long calcjitVm() {
    return vmSession.evaluate(rows);
  }

  @Benchmark
  public long calcjitJit() {
    return jitSession.evaluate(rows);
  }

  @Benchmark
  public float[][] xgboost4jInplace() throws XGBoostError {
    return booster.inplace_predict(rowMajor, rows, features, Float.NaN, EVERY_TREE,
        Booster.PredictionType.kMargin, null);
  }

  /** A session whose input j reads column j of the rows, in a direct buffer. */
  private Session bindColumns(Engine engine, FloatBuffer out) {
    Session session = engine.newSession();
    List<InputInfo> inputs = session.schema().inputs();
    if (inputs.size() != features) {
      throw new IllegalStateException(inputs.size() + " inputs for " + features + " features");
    }
    for (int j = 0; j < features; ++j) {
      FloatBuffer column = direct(rows);
      for (int i = 0; i < rows; ++i) column.put(i, rowMajor[i * features + j]);
      session.bindInput(inputs.get(j).name(), column);
    }
    session.bindOutput(session.schema().outputs().get(0), out);
    return session;
  }

  private void check(String runner, float[] got) {
    for (int i = 0; i < rows; ++i) {
      if (Float.floatToRawIntBits(got[i]) != Float.floatToRawIntBits(expected[i])) {
        throw new IllegalStateException(runner + ": row " + i + " is " + got[i]
            + ", XGBoost's margin is " + expected[i]);
      }
    }
    System.out.println("# " + runner + ": " + rows + " margins equal XGBoost's, bit for bit");
  }

  private static float[] column(float[][] predictions) {
    float[] out = new float[predictions.length];
    for (int i = 0; i < out.length; ++i) out[i] = predictions[i][0];
    return out;
  }

  private static float[] toArray(FloatBuffer buffer) {
    float[] out = new float[buffer.capacity()];
    buffer.get(0, out);
    return out;
  }

  private static FloatBuffer direct(int floats) {
    return ByteBuffer.allocateDirect(floats * Float.BYTES)
        .order(ByteOrder.nativeOrder())
        .asFloatBuffer();
  }

  private static float[] readFloats(Path path, int count) throws IOException {
    byte[] bytes = Files.readAllBytes(path);
    if (bytes.length != count * Float.BYTES) {
      throw new IOException(path + " has " + bytes.length + " bytes, not " + count * 4);
    }
    float[] out = new float[count];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }
}
