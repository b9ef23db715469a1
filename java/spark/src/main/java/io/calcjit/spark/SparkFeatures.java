package io.calcjit.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.monotonically_increasing_id;

import io.calcjit.Backend;
import io.calcjit.Engine;
import io.calcjit.EngineOptions;
import io.calcjit.FeatureSet;
import io.calcjit.InputInfo;
import io.calcjit.spark.QueryPartitions.Columns;
import io.calcjit.spark.QueryPartitions.Scored;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Feature sets over Spark Datasets, from the JVM (docs/SCALING.md, "A Spark cluster from the
 * JVM"): calcjit-spark.jar, compiled against Spark 4 ({@code provided}: the cluster's own).
 *
 * <pre>{@code
 * Dataset<Row> features = SparkFeatures.evaluate(log, SetSource.file(Path.of("ranking.calc")),
 *     "query_id", List.of("score"), List.of("query_id", "item_id"));
 * }</pre>
 *
 * <ul>
 *   <li><b>Whole queries</b>: a query is every row with one key. The rows are repartitioned by
 *       the key (all of a key's rows in one partition, however the input was split) and sorted
 *       within each partition by the key, then by their order in the input (a row id taken before
 *       the shuffle), so each query's rows arrive together and in the log's order.
 *   <li><b>{@code mapPartitions}</b>: each task reads its partition in batches of whole queries
 *       ({@link QueryPartitions}) and evaluates each batch in one call.
 *   <li><b>One engine per executor JVM</b>: the set travels once, in a broadcast variable; the
 *       first task of each executor compiles it, every later task reuses it.
 *   <li><b>A session and direct buffers per task</b>, bound once and reused for every batch.
 * </ul>
 *
 * <p>Inputs are read from the columns named as the inputs (a vector input {@code v}: columns
 * {@code v[0]} .. {@code v[d-1]}), any numeric type; a null is NaN, as an empty CSV cell is. Read
 * a CSV file with FloatType columns to get the bits of {@code calcjit eval} on the same file
 * (Spark parses text to the nearest float32, as calcjit does; DoubleType would round twice).
 */
public final class SparkFeatures {
  /** The row id that keeps a query's rows in the input's order through the shuffle. */
  static final String ORDER = "__calcjit_row";

  private SparkFeatures() {}

  /** {@link #evaluate(Dataset, SetSource, String, List, List, Backend, int, int)} with backend
   * AUTO, as many partitions as {@code log} has, and batches of 4,096 items. */
  public static Dataset<Row> evaluate(
      Dataset<Row> log, SetSource set, String groupBy, List<String> outputs, List<String> keep) {
    return evaluate(log, set, groupBy, outputs, keep, Backend.AUTO, 0, 4096);
  }

  /**
   * Evaluates a feature set over a Dataset, one query per key.
   *
   * @param set the set and where its models come from
   * @param groupBy the query key column
   * @param outputs the outputs to compute (empty: every definition)
   * @param keep columns copied to the result before the outputs
   * @param partitions how many partitions to spread the queries over (0: as many as {@code log}
   *     has, and at least Spark's default parallelism, so that every core gets a part)
   * @param batchItems items per evaluation call (whole queries: a batch ends with its query)
   * @return a lazy Dataset: the kept columns, then one FloatType column per output
   * @throws io.calcjit.CalcJitException when the set does not parse or compile on the driver
   * @throws IllegalArgumentException for a column the Dataset lacks
   */
  public static Dataset<Row> evaluate(Dataset<Row> log, SetSource set, String groupBy,
      List<String> outputs, List<String> keep, Backend backend, int partitions, int batchItems) {
    Objects.requireNonNull(log, "log is null");
    Objects.requireNonNull(set, "set is null");
    Objects.requireNonNull(groupBy, "groupBy is null");
    Objects.requireNonNull(backend, "backend is null");
    List<String> columns = Arrays.asList(log.columns());
    require(columns, groupBy, "groupBy");
    for (String name : keep) require(columns, name, "keep");
    // Compiled on the driver: checks the set and the options before any task runs, and gives the
    // outputs' order and the inputs they need. The models are read here from the same root.
    List<String> outputNames;
    Set<String> wanted = new LinkedHashSet<>(keep);
    wanted.add(groupBy);
    try (FeatureSet parsed = FeatureSet.parse(set.bytes(), set.format(),
             set.modelRoot() == null ? null : Path.of(set.modelRoot()), set.models());
         Engine engine = Engine.create(parsed, new EngineOptions(backend, outputs, null))) {
      outputNames = engine.schema().outputs();
      for (InputInfo input : engine.schema().inputs()) {
        wanted.add(input.name());
        for (int k = 0; k < input.dimension(); ++k) wanted.add(input.name() + "[" + k + "]");
      }
    }
    List<Column> selected = new ArrayList<>();
    List<String> selectedNames = new ArrayList<>();
    for (String name : columns) {
      if (!wanted.contains(name)) continue;
      selected.add(col(quoted(name)));
      selectedNames.add(name);
    }
    selected.add(monotonically_increasing_id().alias(ORDER));
    StructType outSchema = new StructType();
    for (String name : keep) outSchema = outSchema.add(log.schema().apply(name));
    for (String name : outputNames) outSchema = outSchema.add(name, DataTypes.FloatType, true);

    JavaSparkContext context = JavaSparkContext.fromSparkContext(log.sparkSession().sparkContext());
    Broadcast<SetSource> shipped = context.broadcast(set);
    int count = partitions > 0
        ? partitions
        : Math.max(log.rdd().getNumPartitions(), context.defaultParallelism());
    Dataset<Row> sorted = log.select(selected.toArray(new Column[0]))
                              .repartition(count, col(quoted(groupBy)))
                              .sortWithinPartitions(col(quoted(groupBy)), col(ORDER));
    PartitionScorer scorer = new PartitionScorer(shipped, backend, outputNames.toArray(new String[0]),
        selectedNames, groupBy, keep, batchItems);
    return sorted.mapPartitions(scorer, Encoders.row(outSchema));
  }

  private static void require(List<String> columns, String name, String what) {
    if (!columns.contains(name)) {
      throw new IllegalArgumentException(
          what + " column '" + name + "' is not in the Dataset (" + columns + ")");
    }
  }

  /** A column name for Spark's parser (names such as item_emb[0] need backticks). */
  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /** The mapPartitions function: serialized to the executors with the broadcast's handle. */
  static final class PartitionScorer implements MapPartitionsFunction<Row, Row> {
    private static final long serialVersionUID = 1L;

    private final Broadcast<SetSource> set;
    private final Backend backend;
    private final String[] outputs;
    private final List<String> columns; // of the rows the function receives, ORDER last
    private final int keyIndex;
    private final int[] keepIndexes;
    private final int batchItems;

    PartitionScorer(Broadcast<SetSource> set, Backend backend, String[] outputs,
        List<String> columns, String groupBy, List<String> keep, int batchItems) {
      this.set = set;
      this.backend = backend;
      this.outputs = outputs;
      this.columns = new ArrayList<>(columns);
      this.keyIndex = columns.indexOf(groupBy);
      this.keepIndexes = keep.stream().mapToInt(columns::indexOf).toArray();
      this.batchItems = batchItems;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      SetSource source = set.value();
      Engine engine = QueryPartitions.engine(source.bytes(), source.format(), source.modelRoot(),
          source.models(), backend, outputs);
      Iterator<Scored<Row>> scored =
          QueryPartitions.score(engine, rows, new RowColumns(columns, keyIndex), batchItems);
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return scored.hasNext();
        }

        @Override
        public Row next() {
          Scored<Row> s = scored.next();
          Object[] values = new Object[keepIndexes.length + outputs.length];
          for (int k = 0; k < keepIndexes.length; ++k) values[k] = s.row().get(keepIndexes[k]);
          for (int o = 0; o < outputs.length; ++o) values[keepIndexes.length + o] = s.outputs()[o];
          return RowFactory.create(values);
        }
      };
    }
  }

  /** Spark rows by position: a null cell is NaN. */
  private record RowColumns(List<String> names, int keyIndex) implements Columns<Row> {
    @Override
    public int index(String column) {
      return names.indexOf(column);
    }

    @Override
    public Object queryKey(Row row) {
      return row.get(keyIndex);
    }

    @Override
    public float value(Row row, int column) {
      if (row.isNullAt(column)) return Float.NaN;
      Object value = row.get(column);
      if (value instanceof Float f) return f;
      if (value instanceof Number n) return n.floatValue();
      if (value instanceof Boolean b) return b ? 1.0f : 0.0f;
      throw new IllegalArgumentException("column '" + names.get(column) + "' holds "
          + value.getClass().getSimpleName() + ", not numbers");
    }
  }
}
