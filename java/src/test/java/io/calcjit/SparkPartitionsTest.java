package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.calcjit.spark.QueryPartitions;
import io.calcjit.spark.QueryPartitions.Columns;
import io.calcjit.spark.QueryPartitions.Scored;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor side of io.calcjit.spark without Spark: QueryPartitions over a
 * plain iterator of rows (the rows of items.csv as lists of cells), as a
 * mapPartitions function would be called, gives the bits `calcjit eval`
 * writes, whatever the batch size; the engine is compiled once per JVM.
 */
class SparkPartitionsTest {
  static List<List<String>> items;
  static List<List<String>> expected;
  static byte[] setBytes;

  @BeforeAll
  static void runTheCommandLine(@TempDir Path dir) throws Exception {
    Path set = TestSets.sourceDir().resolve("examples/ranking/ranking.calc");
    Path input = TestSets.sourceDir().resolve("examples/ranking/items.csv");
    Path output = dir.resolve("out.csv");
    TestSets.runCli("eval", set.toString(), "--input", input.toString(), "--output",
        output.toString(), "--group-by", "query_id", "--outputs", "score,relevance");
    items = TestSets.readCsv(input);
    expected = TestSets.readCsv(output);
    setBytes = Files.readAllBytes(set);
  }

  /** The partition as Spark would hand it over: an iterator of rows. */
  static Columns<List<String>> columns() {
    Map<String, Integer> index = new HashMap<>();
    List<String> header = items.get(0);
    for (int c = 0; c < header.size(); ++c) index.put(header.get(c), c);
    return new Columns<>() {
      @Override
      public int index(String column) {
        return index.getOrDefault(column, -1);
      }

      @Override
      public Object queryKey(List<String> row) {
        return row.get(index.get("query_id"));
      }

      @Override
      public float value(List<String> row, int column) {
        return TestSets.parseCell(row.get(column));
      }
    };
  }

  @Test
  void everyBatchSizeGivesTheCommandLinesBits() {
    Engine engine = QueryPartitions.engine(setBytes, Format.TEXT, Backend.AUTO, "score", "relevance");
    List<List<String>> rows = items.subList(1, items.size());
    for (int batchItems : new int[] {1, 39, 40, 41, 100, 1_000_000}) {
      Iterator<Scored<List<String>>> scored =
          QueryPartitions.score(engine, rows.iterator(), columns(), batchItems);
      List<Scored<List<String>>> all = new ArrayList<>();
      scored.forEachRemaining(all::add);
      assertEquals(rows.size(), all.size());
      for (int r = 0; r < rows.size(); ++r) {
        assertSame(rows.get(r), all.get(r).row(), "rows stay in order");
        for (int o = 0; o < 2; ++o) {
          float want = TestSets.parseCell(expected.get(r + 1).get(o));
          float got = all.get(r).outputs()[o];
          assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got),
              "row " + r + " output " + o + " batch " + batchItems);
        }
      }
    }
  }

  @Test
  void oneEnginePerJvmForTheSameBytes() {
    Engine a = QueryPartitions.engine(setBytes, Format.TEXT, Backend.VM, "score");
    int count = QueryPartitions.engineCount();
    Engine b = QueryPartitions.engine(setBytes.clone(), Format.TEXT, Backend.VM, "score");
    assertSame(a, b);
    assertEquals(count, QueryPartitions.engineCount());
    assertFalse(QueryPartitions.score(a, List.<List<String>>of().iterator(), columns(), 10)
        .hasNext());
  }
}
