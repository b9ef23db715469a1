package io.calcjit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Sets, data and helpers shared by the tests. */
final class TestSets {
  private TestSets() {}

  /** The seed formula: f_qux = f_foo / (f_bar + f_baz). */
  static final String QUX = """
      input f_foo;
      input f_bar;
      input f_baz;
      f_qux = f_foo / (f_bar + f_baz);
      """;

  /** Item and query scalars, a query vector with a default, and an aggregate per query. */
  static final String MIXED = """
      input price;
      input weight: query = 2;
      input user: query[3];
      input emb: item[3];
      total = batch_sum(price);
      score = price * weight + dot(emb, user) - total / 100;
      """;

  static Path sourceDir() {
    return Path.of(System.getProperty("calcjit.source_dir", "."));
  }

  static Path cli() {
    String cli = System.getProperty("calcjit.cli");
    if (cli == null) throw new IllegalStateException("run with -Dcalcjit.cli=build/cli/calcjit");
    return Path.of(cli);
  }

  static FloatBuffer direct(int floats) {
    return ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder()).asFloatBuffer();
  }

  static FloatBuffer direct(float... values) {
    FloatBuffer buffer = direct(values.length);
    buffer.put(values).flip();
    return buffer;
  }

  /** Deterministic floats in [lo, hi). */
  static float[] values(int n, long seed, float lo, float hi) {
    float[] out = new float[n];
    long s = seed * 6364136223846793005L + 1442695040888963407L;
    for (int i = 0; i < n; ++i) {
      s = s * 6364136223846793005L + 1442695040888963407L;
      out[i] = lo + (hi - lo) * ((s >>> 40) / (float) (1L << 24));
    }
    return out;
  }

  /** Runs the C++ command line; fails with its stderr when it fails. */
  static void runCli(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(cli().toString());
    command.addAll(List.of(args));
    Path log = Files.createTempFile("calcjit-cli", ".log");
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("calcjit " + command + " timed out");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "calcjit " + command + " failed: " + Files.readString(log));
      }
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** RFC 4180 rows (quoted fields, "" for a quote); LF or CRLF line ends. */
  static List<List<String>> readCsv(Path path) throws IOException {
    String text = Files.readString(path);
    if (text.startsWith("\uFEFF")) text = text.substring(1);
    List<List<String>> rows = new ArrayList<>();
    List<String> row = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < text.length(); ++i) {
      char c = text.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
          field.append('"');
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        row.add(field.toString());
        field.setLength(0);
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') ++i;
        row.add(field.toString());
        field.setLength(0);
        rows.add(row);
        row = new ArrayList<>();
      } else {
        field.append(c);
      }
    }
    if (field.length() > 0 || !row.isEmpty()) {
      row.add(field.toString());
      rows.add(row);
    }
    return rows;
  }

  /** A cell as the CLI reads it (docs/CLI.md): empty is NaN. */
  static float parseCell(String cell) {
    String t = cell.strip();
    if (t.isEmpty()) return Float.NaN;
    String lower = t.toLowerCase();
    String unsigned = lower.startsWith("-") || lower.startsWith("+") ? lower.substring(1) : lower;
    float sign = lower.startsWith("-") ? -1f : 1f;
    if (unsigned.equals("nan")) return Float.NaN;
    if (unsigned.equals("inf") || unsigned.equals("infinity")) return sign * Float.POSITIVE_INFINITY;
    return Float.parseFloat(t);
  }

  /** Same bits, except that any NaN equals any NaN (the CLI prints every NaN as "nan"). */
  static boolean sameFloat(float a, float b) {
    if (Float.isNaN(a) || Float.isNaN(b)) return Float.isNaN(a) && Float.isNaN(b);
    return Float.floatToRawIntBits(a) == Float.floatToRawIntBits(b);
  }
}
