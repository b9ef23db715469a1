package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A model on its own from Java (FeatureSet.fromModel, readModel, modelFormats) with its rows in
 * a direct buffer (Session.bindRows): every row of committed parity cases (tests/model/data:
 * XGBoost 1.7.4 and 3.4.1, JSON and UBJSON, LightGBM 4.7.0) gives the library's own bits.
 */
class ModelRowsTest {
  private static Path modelData() {
    return TestSets.sourceDir().resolve("tests/model/data");
  }

  /** A .cases file: rows of feature bits, then output bits. */
  private record Cases(int features, int outputs, List<int[]> rows) {}

  private static Cases readCases(Path path, int features) throws Exception {
    List<int[]> rows = new ArrayList<>();
    int outputs = 0;
    for (String line : Files.readAllLines(path)) {
      if (line.isEmpty() || line.startsWith("#")) continue;
      String[] halves = line.split(" : ");
      String[] in = halves[0].trim().split(" ");
      String[] out = halves[1].trim().split(" ");
      assertEquals(features, in.length, path + ": " + line);
      outputs = out.length;
      int[] row = new int[in.length + out.length];
      for (int k = 0; k < in.length; ++k) row[k] = Integer.parseUnsignedInt(in[k], 16);
      for (int k = 0; k < out.length; ++k) row[in.length + k] = Integer.parseUnsignedInt(out[k], 16);
      rows.add(row);
    }
    return new Cases(features, outputs, rows);
  }

  private static void checkRows(String model, String format, Backend backend) throws Exception {
    String base = model.substring(0, model.lastIndexOf('.'));
    byte[] bytes = Files.readAllBytes(modelData().resolve(model));
    try (FeatureSet set = FeatureSet.fromModel(bytes, format)) {
      int features = set.schema().inputs().size();
      Cases cases = readCases(modelData().resolve(base + ".cases"), features);
      assertEquals(cases.outputs(), set.schema().outputs().size(), model);
      int n = cases.rows().size();
      // Rows with two floats of padding, in a direct buffer.
      int stride = features + 2;
      FloatBuffer rows =
          ByteBuffer.allocateDirect(4 * n * stride).order(ByteOrder.nativeOrder()).asFloatBuffer();
      for (int[] row : cases.rows()) {
        for (int j = 0; j < stride; ++j) rows.put(j < features ? Float.intBitsToFloat(row[j]) : -7f);
      }
      rows.flip();
      try (Engine engine = Engine.create(set, EngineOptions.of(backend));
          Session session = engine.newSession()) {
        session.bindRows(rows, features, stride);
        session.evaluate(n);
        for (int k = 0; k < cases.outputs(); ++k) {
          float[] out = session.output(set.schema().outputs().get(k));
          for (int i = 0; i < n; ++i) {
            int expected = cases.rows().get(i)[features + k];
            assertEquals(expected, Float.floatToRawIntBits(out[i]),
                model + " on " + backend + ": row " + i + " output " + k);
          }
        }
      }
    }
  }

  @Test
  void everyRowIsTheLibrarysOwnOnEveryBackend() throws Exception {
    String[][] models = {
      {"reg_squarederror.json", "xgboost"},
      {"categorical_partition.ubj", null},
      {"xgb3_multi_softprob.ubj", "xgboost"},
      {"xgb3_categorical_partition.json", null},
      {"lgb4_categorical.txt", "lightgbm"},
      {"lgb4_zero_as_missing.txt", null},
    };
    for (String[] model : models) {
      for (Backend backend : new Backend[] {Backend.REFERENCE, Backend.VM, Backend.JIT}) {
        checkRows(model[0], model[1], backend);
      }
    }
  }

  @Test
  void formatsAndModelFiles() throws Exception {
    List<String> formats = FeatureSet.modelFormats();
    assertEquals("xgboost", formats.get(0));
    assertTrue(formats.contains("lightgbm") && formats.contains("onnx"), formats.toString());
    byte[] bytes = Files.readAllBytes(modelData().resolve("reg_squarederror.json"));
    CalcJitException unknown =
        assertThrows(CalcJitException.class, () -> FeatureSet.fromModel(bytes, "xgbost"));
    assertTrue(unknown.getMessage().contains("unknown model format 'xgbost' ('xgboost', "),
        unknown.getMessage());
    try (FeatureSet set = FeatureSet.readModel(modelData().resolve("lgb4_binary.txt"), null)) {
      assertEquals(List.of("raw_score"), set.schema().outputs());
    }
    CalcJitException missing =
        assertThrows(CalcJitException.class,
            () -> FeatureSet.readModel(modelData().resolve("no_such_model.ubj"), null));
    assertTrue(missing.getMessage().contains("no_such_model.ubj"), missing.getMessage());
  }

  @Test
  void rowsThatDoNotFitAreErrors() throws Exception {
    byte[] bytes = Files.readAllBytes(modelData().resolve("reg_squarederror.json"));
    try (FeatureSet set = FeatureSet.fromModel(bytes, null);
        Engine engine = Engine.create(set);
        Session session = engine.newSession()) {
      FloatBuffer rows =
          ByteBuffer.allocateDirect(4 * 10).order(ByteOrder.nativeOrder()).asFloatBuffer();
      CalcJitException columns =
          assertThrows(CalcJitException.class, () -> session.bindRows(rows, 4));
      assertTrue(columns.getMessage().contains("the matrix has 4 columns but the engine has 5"),
          columns.getMessage());
      session.bindRows(rows, 5);  // two rows
      session.evaluate(2);
      CalcJitException more = assertThrows(CalcJitException.class, () -> session.evaluate(3));
      assertTrue(more.getMessage().contains("the call has 3 items but the bound rows hold 2"),
          more.getMessage());
      assertThrows(IllegalArgumentException.class, () -> session.bindRows(rows, 5, 3));
      assertThrows(IllegalArgumentException.class,
          () -> session.bindRows(FloatBuffer.allocate(10), 5));
    }
  }
}
