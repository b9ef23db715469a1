package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The example set (304 features) over examples/ranking/items.csv, 3 queries:
 * every output from Java, on each backend, equals bit for bit what `calcjit
 * eval` (the C++ command line) writes for the same rows.
 */
class CliComparisonTest {
  static List<List<String>> items;
  static List<List<String>> expected;
  static Path setPath;

  @BeforeAll
  static void runTheCommandLine(@TempDir Path dir) throws Exception {
    setPath = TestSets.sourceDir().resolve("examples/ranking/ranking.calc");
    Path input = TestSets.sourceDir().resolve("examples/ranking/items.csv");
    Path output = dir.resolve("out.csv");
    TestSets.runCli("eval", setPath.toString(), "--input", input.toString(), "--output",
        output.toString(), "--group-by", "query_id", "--backend", "reference");
    items = TestSets.readCsv(input);
    expected = TestSets.readCsv(output);
  }

  @ParameterizedTest
  @EnumSource(value = Backend.class, names = {"REFERENCE", "VM", "JIT"})
  void everyOutputEqualsTheCommandLines(Backend backend) throws Exception {
    List<String> header = items.get(0);
    Map<String, Integer> column = new HashMap<>();
    for (int c = 0; c < header.size(); ++c) column.put(header.get(c), c);
    List<List<String>> rows = items.subList(1, items.size());
    // Queries: runs of consecutive rows with the same query_id.
    List<Integer> counts = new ArrayList<>();
    List<Integer> firstRows = new ArrayList<>();
    int queryId = column.get("query_id");
    for (int r = 0; r < rows.size(); ++r) {
      if (r == 0 || !rows.get(r).get(queryId).equals(rows.get(r - 1).get(queryId))) {
        counts.add(0);
        firstRows.add(r);
      }
      counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
    }
    assertEquals(3, counts.size());
    int[] itemCounts = counts.stream().mapToInt(Integer::intValue).toArray();

    try (FeatureSet set = FeatureSet.readFile(setPath);
        Engine engine = Engine.create(set, EngineOptions.of(backend));
        Session session = engine.newSession()) {
      for (InputInfo input : session.schema().inputs()) {
        boolean present = input.dimension() == 0 ? column.containsKey(input.name())
            : column.containsKey(input.name() + "[0]");
        if (!present) continue;  // the default applies (or the evaluation says what is missing)
        boolean item = input.scope() == Scope.ITEM;
        int width = input.width();
        FloatBuffer buffer = TestSets.direct((item ? rows.size() : counts.size()) * width);
        for (int unit = 0; unit < (item ? rows.size() : counts.size()); ++unit) {
          List<String> row = rows.get(item ? unit : firstRows.get(unit));
          for (int k = 0; k < width; ++k) {
            String name = input.dimension() == 0 ? input.name() : input.name() + "[" + k + "]";
            buffer.put(unit * width + k, TestSets.parseCell(row.get(column.get(name))));
          }
        }
        session.bindInput(input.name(), buffer);
      }
      session.evaluateMany(itemCounts);

      List<String> outHeader = expected.get(0);
      assertEquals(session.schema().outputs(), outHeader);
      assertEquals(rows.size() + 1, expected.size());
      int compared = 0;
      for (int o = 0; o < outHeader.size(); ++o) {
        float[] values = session.output(outHeader.get(o));
        for (int r = 0; r < rows.size(); ++r) {
          float cli = TestSets.parseCell(expected.get(r + 1).get(o));
          if (!TestSets.sameFloat(cli, values[r])) {
            throw new AssertionError(outHeader.get(o) + " row " + r + ": command line " + cli
                + ", Java " + values[r] + " (" + backend + ")");
          }
          ++compared;
        }
      }
      assertTrue(compared >= 300 * rows.size(), "compared " + compared);
    }
  }
}
