package io.calcjit.examples.spark;

import io.calcjit.Backend;
import io.calcjit.spark.SetSource;
import io.calcjit.spark.SparkFeatures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Training features for a log of queries, on Spark (docs/SCALING.md): reads a CSV log, evaluates
 * a feature set with io.calcjit.spark.SparkFeatures (whole queries, one engine per executor), and
 * writes the kept columns and the outputs as CSV, with the bits {@code calcjit eval --group-by}
 * gives on the same file.
 *
 * <pre>
 * java -cp calcjit.jar:calcjit-spark.jar:SPARK_JARS io.calcjit.examples.spark.SparkRanking \
 *     SET LOG.csv OUT_DIR GROUP_BY OUTPUTS KEEP [MASTER]
 * </pre>
 *
 * OUTPUTS and KEEP are comma-separated ("" for every output / nothing kept); MASTER defaults to
 * local[2]. Numbers are read as FloatType (the nearest float32 to the text, as calcjit eval reads
 * them); the columns named query_text, and those in KEEP that are not inputs, are read as text.
 * Prints the rows and rows per second of the whole job.
 */
public final class SparkRanking {
  private SparkRanking() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 6) {
      System.err.println("usage: SparkRanking SET LOG.csv OUT_DIR GROUP_BY OUTPUTS KEEP [MASTER]");
      System.exit(2);
    }
    Path set = Path.of(args[0]);
    Path log = Path.of(args[1]);
    String groupBy = args[3];
    List<String> outputs = split(args[4]);
    List<String> keep = split(args[5]);
    String master = args.length > 6 ? args[6] : "local[2]";
    SparkSession spark = SparkSession.builder()
                             .master(master)
                             .appName("calcjit-spark-ranking")
                             .config("spark.ui.enabled", "false")
                             .getOrCreate();
    try {
      long start = System.nanoTime();
      Dataset<Row> rows = spark.read().option("header", "true").schema(schema(log, groupBy, keep))
                              .csv(log.toString());
      Dataset<Row> features =
          SparkFeatures.evaluate(rows, SetSource.file(set), groupBy, outputs, keep);
      features.write().mode(SaveMode.Overwrite).option("header", "true").csv(args[2]);
      double seconds = (System.nanoTime() - start) / 1e9;
      long count = spark.read().option("header", "true").csv(args[2]).count();
      System.out.printf("%d rows in %.1f s: %.0f rows/s%n", count, seconds, count / seconds);
    } finally {
      spark.stop();
    }
  }

  private static List<String> split(String list) {
    return list.isEmpty() ? List.of() : Arrays.asList(list.split(","));
  }

  /** FloatType for every column but the key, the kept ones and query_text (LongType keys if
   * they are integers is not assumed: text keys group as calcjit eval groups them). */
  private static StructType schema(Path log, String groupBy, List<String> keep) throws Exception {
    String header;
    try (var lines = Files.lines(log)) {
      header = lines.findFirst().orElseThrow();
    }
    StructType schema = new StructType();
    for (String name : header.split(",")) {
      boolean text = name.equals(groupBy) || keep.contains(name) || name.equals("query_text");
      DataType type = text ? DataTypes.StringType : DataTypes.FloatType;
      schema = schema.add(name, type, true);
    }
    return schema;
  }
}
