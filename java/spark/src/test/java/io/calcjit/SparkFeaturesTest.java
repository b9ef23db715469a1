package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.calcjit.spark.SetSource;
import io.calcjit.spark.SparkFeatures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * io.calcjit.spark.SparkFeatures on Spark itself (local[2,3]: 2 task threads, a failed task
 * retried): the bits of {@code calcjit eval} for the example set and a set with an XGBoost
 * model, a task failing on its first attempt retried without lost or duplicated rows, and a
 * model file missing on the executors reported on the driver with calcjit's message.
 */
class SparkFeaturesTest {
  static SparkSession spark;
  @TempDir static Path dir;

  static final String TREE_SET = """
      model ranker = xgboost("reg_squarederror.json");
      input a; input b; input c; input d; input e;
      input boost: query = 0;
      margin = model(ranker, a, b, c, d, e)[0];
      score = margin + boost - rank(margin) / 100;
      """;

  @BeforeAll
  static void startSpark() {
    spark = SparkSession.builder()
                .master("local[2,3]")
                .appName("calcjit-java-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "3")
                .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  /** FloatType numbers (parsed to the nearest float32, as calcjit eval does), LongType ids. */
  static Dataset<Row> readLog(Path csv, int partitions) throws Exception {
    String header = Files.readAllLines(csv).get(0);
    StructType schema = new StructType();
    for (String name : header.split(",")) {
      DataType type = name.equals("query_text") ? DataTypes.StringType
          : name.equals("query_id") || name.equals("item_id") ? DataTypes.LongType
          : DataTypes.FloatType;
      schema = schema.add(name, type, true);
    }
    return spark.read().option("header", "true").schema(schema).csv(csv.toString())
        .repartition(partitions);
  }

  /** The rows against the CLI's output (keys query_id, item_id; then the outputs). */
  static void assertSameAsCli(List<Row> rows, Path cliCsv, List<String> outputs) throws Exception {
    List<List<String>> expected = TestSets.readCsv(cliCsv);
    Map<String, Row> byKey = new HashMap<>();
    for (Row row : rows) byKey.put(row.getLong(0) + "/" + row.getLong(1), row);
    assertEquals(expected.size() - 1, rows.size(), "rows lost or duplicated");
    assertEquals(rows.size(), byKey.size(), "duplicated rows");
    for (List<String> line : expected.subList(1, expected.size())) {
      Row row = byKey.get(line.get(0) + "/" + line.get(1));
      for (int o = 0; o < outputs.size(); ++o) {
        float want = TestSets.parseCell(line.get(2 + o));
        float got = row.getFloat(2 + o);
        assertTrue(TestSets.sameFloat(want, got),
            outputs.get(o) + " of " + line.get(0) + "/" + line.get(1) + ": " + got + " vs " + want);
      }
    }
  }

  static Path generatedLog() throws Exception {
    Path csv = dir.resolve("log.csv");
    if (Files.exists(csv)) return csv;
    Process process = new ProcessBuilder(System.getProperty("calcjit.make_items"), "--queries",
        "24", "--items", "45").redirectOutput(csv.toFile()).start();
    assertEquals(0, process.waitFor());
    return csv;
  }

  @Test
  void exampleSetHasTheBitsOfCalcjitEval() throws Exception {
    Path set = TestSets.sourceDir().resolve("examples/ranking/ranking.calc");
    Path log = generatedLog();
    List<String> outputs = List.of("score", "relevance");
    Path cli = dir.resolve("cli.csv");
    TestSets.runCli("eval", set.toString(), "--input", log.toString(), "--output", cli.toString(),
        "--group-by", "query_id", "--keep", "query_id,item_id", "--outputs", "score,relevance");
    // Small batches: queries of a partition spread over many evaluation calls.
    Dataset<Row> features = SparkFeatures.evaluate(readLog(log, 4), SetSource.file(set),
        "query_id", outputs, List.of("query_id", "item_id"), Backend.AUTO, 0, 100);
    assertSameAsCli(features.collectAsList(), cli, outputs);
  }

  /** A set with an XGBoost model, a log with empty cells, and the CLI's output for it. */
  static Path treeFolder(String name) throws Exception {
    Path folder = Files.createDirectories(dir.resolve(name));
    Files.copy(TestSets.sourceDir().resolve("tests/model/data/reg_squarederror.json"),
        folder.resolve("reg_squarederror.json"));
    Files.writeString(folder.resolve("tree.calc"), TREE_SET);
    Random random = new Random(7);
    StringBuilder csv = new StringBuilder("query_id,item_id,a,b,c,d,e,boost\n");
    for (int q = 0; q < 30; ++q) {
      String boost = Float.toString((float) random.nextGaussian());
      for (int i = 0, n = 1 + random.nextInt(60); i < n; ++i) {
        csv.append(q + 1).append(',').append(1000 * q + i);
        for (int k = 0; k < 5; ++k) {
          csv.append(',');
          if (random.nextDouble() >= 0.1) csv.append((float) (2 * random.nextGaussian()));
        }
        csv.append(',').append(boost).append('\n');
      }
    }
    Files.writeString(folder.resolve("tree.csv"), csv);
    TestSets.runCli("eval", folder.resolve("tree.calc").toString(), "--input",
        folder.resolve("tree.csv").toString(), "--output", folder.resolve("cli.csv").toString(),
        "--group-by", "query_id", "--keep", "query_id,item_id", "--outputs", "margin,score");
    return folder;
  }

  @Test
  void treeModelSetHasTheBitsOfCalcjitEvalAndSurvivesAFailedFirstAttempt() throws Exception {
    Path folder = treeFolder("tree");
    List<String> outputs = List.of("margin", "score");
    Map<String, byte[]> models =
        Map.of("ranker", Files.readAllBytes(folder.resolve("reg_squarederror.json")));
    SetSource set = SetSource.of(Files.readAllBytes(folder.resolve("tree.calc")), Format.TEXT,
        models);
    Dataset<Row> features = SparkFeatures.evaluate(readLog(folder.resolve("tree.csv"), 3), set,
        "query_id", outputs, List.of("query_id", "item_id"));
    assertSameAsCli(features.collectAsList(), folder.resolve("cli.csv"), outputs);

    // The same task as the evaluation (no shuffle between): its first attempt fails after its
    // first row, and the whole task, calcjit's part included, runs again.
    MapPartitionsFunction<Row, Row> failFirstAttempt = rows -> {
      TaskContext context = TaskContext.get();
      List<Row> passed = new ArrayList<>();
      Iterator<Row> it = rows;
      while (it.hasNext()) {
        passed.add(it.next());
        if (context.attemptNumber() == 0 && context.partitionId() == 0) {
          throw new IllegalStateException("injected failure of a first attempt");
        }
      }
      return passed.iterator();
    };
    Dataset<Row> retried =
        features.mapPartitions(failFirstAttempt, Encoders.row(features.schema()));
    assertSameAsCli(retried.collectAsList(), folder.resolve("cli.csv"), outputs);
  }

  @Test
  void aModelFileMissingOnTheExecutorsIsAClearErrorOnTheDriver() throws Exception {
    Path folder = treeFolder("missing");
    // By path: the executors read the model from the set's folder when they compile it.
    SetSource set = SetSource.file(folder.resolve("tree.calc"));
    Dataset<Row> features = SparkFeatures.evaluate(readLog(folder.resolve("tree.csv"), 2), set,
        "query_id", List.of("score"), List.of());
    Files.delete(folder.resolve("reg_squarederror.json")); // gone when the tasks run
    Exception error = assertThrows(Exception.class, features::collectAsList);
    StringBuilder messages = new StringBuilder();
    for (Throwable t = error; t != null; t = t.getCause()) messages.append(t).append('\n');
    assertTrue(messages.toString().contains("CalcJitException")
            && messages.toString().contains("reg_squarederror.json"),
        messages.toString());
  }

  @Test
  void argumentsAreCheckedOnTheDriver() throws Exception {
    Path folder = treeFolder("arguments");
    SetSource set = SetSource.file(folder.resolve("tree.calc"));
    Dataset<Row> log = readLog(folder.resolve("tree.csv"), 1);
    assertThrows(IllegalArgumentException.class,
        () -> SparkFeatures.evaluate(log, set, "nope", List.of(), List.of()));
    assertThrows(CalcJitException.class,
        () -> SparkFeatures.evaluate(log, set, "query_id", List.of("nope"), List.of()));
  }
}
