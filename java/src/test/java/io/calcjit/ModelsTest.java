package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A set with an XGBoost model from Java: its file beside the set, under a model root, or its bytes
 * by name; the margins are XGBoost 1.7.4's own (tests/model/data/reg_squarederror.cases). A
 * CatBoost .cbm the same way, with CatBoost 1.2.10's own outputs (catboost_rmse.cases).
 */
class ModelsTest {
  private static final String SET =
      "model ranker = xgboost(\"reg_squarederror.json\");\nm = model(ranker, a, b, c, d, e)[0];\n";
  private static final int[][] ROWS = {
    {0xbe800000, 0x3ea6eed8, 0x3dc8176f, 0x7fc00000, 0xc019f06d, 0x3e719a67},
    {0x7fc00000, 0x3f05eb7e, 0xbff14543, 0xbf46d8bf, 0xbc3756ab, 0x4013b206},
    {0xbf800000, 0x4033548d, 0x3e58c9e0, 0x3f26f76c, 0x3d83f590, 0xbfd9b6f2},
  };

  /** Rows of tests/model/data/catboost_rmse.cases: CatBoost 1.2.10's own RawFormulaVal. */
  private static final int[][] CATBOOST_ROWS = {
    {0xbf000000, 0x3f5c96fd, 0x3f800002, 0x80000000, 0x40103614, 0xbf5e4810},
    {0x3f400000, 0x7fc00000, 0x3f800000, 0x00000001, 0x3fa01974, 0x3feae8ae},
    {0xbe800000, 0xbea9c73c, 0x3f800004, 0x00000004, 0xbf247d9b, 0xbf2a88b3},
  };

  private static Path modelData() {
    return TestSets.sourceDir().resolve("tests/model/data");
  }

  private static void checkMargins(FeatureSet set) {
    checkRows(set, ROWS, new String[] {"a", "b", "c", "d", "e"});
  }

  /** Output "m" of `set` on `rows` (five inputs `names`, then the library's output bits). */
  private static void checkRows(FeatureSet set, int[][] rows, String[] names) {
    try (Engine engine = Engine.create(set);
        Session session = engine.newSession()) {
      for (int j = 0; j < 5; ++j) {
        float[] column = new float[rows.length];
        for (int i = 0; i < rows.length; ++i) column[i] = Float.intBitsToFloat(rows[i][j]);
        session.bindInput(names[j], column);
      }
      session.evaluate(rows.length);
      float[] margins = session.output("m");
      for (int i = 0; i < rows.length; ++i) {
        assertEquals(rows[i][5], Float.floatToRawIntBits(margins[i]), "item " + i);
      }
    }
  }

  @Test
  void modelsBesideTheSetFile(@TempDir Path folder) throws Exception {
    Files.copy(modelData().resolve("reg_squarederror.json"), folder.resolve("reg_squarederror.json"));
    Path file = folder.resolve("ranker.calc");
    Files.writeString(file, SET);
    try (FeatureSet set = FeatureSet.readFile(file)) {
      checkMargins(set);
    }
  }

  @Test
  void modelsUnderARootOrByBytes() throws Exception {
    byte[] text = SET.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (FeatureSet set = FeatureSet.parse(text, Format.TEXT, modelData(), null)) {
      checkMargins(set);
    }
    byte[] model = Files.readAllBytes(modelData().resolve("reg_squarederror.json"));
    try (FeatureSet set = FeatureSet.parse(text, Format.TEXT, null, Map.of("ranker", model))) {
      checkMargins(set);
    }
  }

  /** Contract 6.1: model(m)[k] without inputs binds the model's feature names (f0, f1, ...). */
  @Test
  void impliedInputsAreTheModelsFeatureNames() throws Exception {
    byte[] text =
        "model ranker = xgboost(\"reg_squarederror.json\");\nm = model(ranker)[0];\n"
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (FeatureSet set = FeatureSet.parse(text, Format.TEXT, modelData(), null);
        Engine engine = Engine.create(set);
        Session session = engine.newSession()) {
      for (int j = 0; j < 5; ++j) {
        assertEquals("f" + j, set.schema().inputs().get(j).name());
        float[] column = new float[ROWS.length];
        for (int i = 0; i < ROWS.length; ++i) column[i] = Float.intBitsToFloat(ROWS[i][j]);
        session.bindInput("f" + j, column);
      }
      session.evaluate(ROWS.length);
      float[] margins = session.output("m");
      for (int i = 0; i < ROWS.length; ++i) {
        assertEquals(ROWS[i][5], Float.floatToRawIntBits(margins[i]), "item " + i);
      }
    }
  }

  @Test
  void missingAndBrokenModelsAreErrors() {
    byte[] text = SET.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    CalcJitException none = assertThrows(CalcJitException.class, () -> FeatureSet.fromText(SET));
    assertTrue(none.getMessage().contains("no model root"), none.getMessage());
    CalcJitException broken =
        assertThrows(
            CalcJitException.class,
            () -> FeatureSet.parse(text, Format.TEXT, null, Map.of("ranker", new byte[] {'{'})));
    assertTrue(broken.getMessage().contains("reg_squarederror.json"), broken.getMessage());
    assertThrows(
        NullPointerException.class, () -> FeatureSet.parse(null, Format.TEXT, null, null));
  }

  @Test
  void catboostModelsThroughTheSameCalls() throws Exception {
    // A .cbm under a model root and by bytes; its features bind by their
    // default names f0, f1, ... (spec 6.1).
    byte[] text =
        "model ranker = catboost(\"catboost_rmse.cbm\");\nm = model(ranker)[0];\n"
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String[] names = {"f0", "f1", "f2", "f3", "f4"};
    try (FeatureSet set = FeatureSet.parse(text, Format.TEXT, modelData(), null)) {
      checkRows(set, CATBOOST_ROWS, names);
    }
    byte[] model = Files.readAllBytes(modelData().resolve("catboost_rmse.cbm"));
    try (FeatureSet set = FeatureSet.parse(text, Format.TEXT, null, Map.of("ranker", model))) {
      checkRows(set, CATBOOST_ROWS, names);
    }
    byte[] text2 =
        "model ranker = catboost(\"t.cbm\");\nm = model(ranker)[0];\n"
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] refused = Files.readAllBytes(modelData().resolve("catboost_refused_text.cbm"));
    CalcJitException error =
        assertThrows(
            CalcJitException.class,
            () -> FeatureSet.parse(text2, Format.TEXT, null, Map.of("ranker", refused)));
    assertTrue(error.getMessage().contains("text features"), error.getMessage());
  }
}
