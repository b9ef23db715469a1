package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The shared list of bad calls (tests/frontends/bad_calls.txt) through the
 * Java API: every line that names "java" has a handler here; the kind of
 * exception and the text its message must contain come from the file, so
 * that every frontend asserts the same thing.
 */
class BadCallsTest {
  static final String S1 = "input x; f = x * 2; g = x + 1;";

  interface Call {
    void run() throws Exception;
  }

  static Engine serve(String text) {
    try (FeatureSet set = FeatureSet.fromText(text)) {
      return Engine.create(set, EngineOptions.of(Backend.VM));
    }
  }

  static void bind(String text, String name) {
    try (Engine engine = serve(text); Session session = engine.newSession()) {
      session.bindInput(name, new float[] {1});
    }
  }

  static final Path FILES = TestSets.sourceDir().resolve("tests/frontends/files");

  static String modelSet(String path) {
    return "model m = xgboost(\"" + path + "\"); f = model(m, a)[0];";
  }

  static void parseWithRoot(String text, Path root) {
    FeatureSet.parse(text.getBytes(StandardCharsets.UTF_8), Format.TEXT, root, null).close();
  }

  static void parseWithModel(String name) {
    FeatureSet.parse(S1.getBytes(StandardCharsets.UTF_8), Format.TEXT, null,
        Map.of(name, new byte[] {'{', '}'})).close();
  }

  static final Map<String, Call> HANDLERS = Map.ofEntries(
      Map.entry("parse_syntax_error", () -> FeatureSet.fromText("f = ;").close()),
      Map.entry("parse_nul_byte", () -> FeatureSet.fromText("f = a \0 b;").close()),
      Map.entry("parse_invalid_utf8", () -> FeatureSet.parse(
          new byte[] {'f', ' ', '=', ' ', 'a', ' ', (byte) 0xff, ' ', 'b', ';'}, Format.TEXT)
          .close()),
      Map.entry("parse_bom", () -> FeatureSet.fromText("\uFEFFf = 1;").close()),
      Map.entry("unknown_format", () -> FeatureSet.parse(new byte[0], null)),
      Map.entry("unknown_backend", () -> {
        try (FeatureSet set = FeatureSet.fromText(S1)) {
          Engine.create(set, new EngineOptions(null, List.of(), null));
        }
      }),
      Map.entry("unknown_output_option", () -> {
        try (FeatureSet set = FeatureSet.fromText(S1)) {
          Engine.create(set, EngineOptions.of(Backend.VM, "nope")).close();
        }
      }),
      Map.entry("null_output_option", () -> EngineOptions.of(Backend.VM, (String) null)),
      Map.entry("astral_names", () -> {
        try (FeatureSet set = FeatureSet.fromText("input `x😀`; `𝑓` = `x😀` * 2;");
            Engine engine = Engine.create(set, EngineOptions.of(Backend.VM, "𝑓"));
            Session session = engine.newSession()) {
          session.bindInput("x😀", new float[] {1, 2, 3});
          session.evaluate(3);
          assertArrayEquals(new float[] {2, 4, 6}, session.output("𝑓"));
          assertEquals("x😀", session.schema().inputs().get(0).name());
        }
      }),
      Map.entry("astral_unknown_input", () -> bind(S1, "😀")),
      Map.entry("bind_unknown_input", () -> bind(S1, "nope")),
      Map.entry("bind_null_name", () -> bind(S1, null)),
      Map.entry("bind_nul_in_name", () -> bind(S1, "a\0b")),
      Map.entry("bind_lone_surrogate", () -> bind(S1, "\uD800")),
      Map.entry("input_too_short", () -> {
        try (Engine engine = serve(S1); Session session = engine.newSession()) {
          session.bindInput("x", new float[] {1, 2});
          session.evaluate(3);
        }
      }),
      Map.entry("missing_input", () -> {
        try (Engine engine = serve(S1); Session session = engine.newSession()) {
          session.evaluate(3);
        }
      }),
      Map.entry("read_unknown_output", () -> {
        try (Engine engine = serve(S1); Session session = engine.newSession()) {
          session.bindInput("x", new float[] {1, 2, 3});
          session.evaluate(3);
          session.output("nope");
        }
      }),
      Map.entry("zero_queries", () -> {
        try (Engine engine = serve(S1); Session session = engine.newSession()) {
          assertEquals(1, session.evaluateMany(new int[0]));
          assertEquals(0, session.output("f").length);
          assertEquals(0, session.output("g").length);
        }
      }),
      Map.entry("negative_item_count", () -> {
        try (Engine engine = serve(S1); Session session = engine.newSession()) {
          session.evaluate(-1);
        }
      }),
      Map.entry("closed_set_schema", () -> {
        FeatureSet set = FeatureSet.fromText(S1);
        set.close();
        set.schema();
      }),
      Map.entry("closed_session", () -> {
        try (Engine engine = serve(S1)) {
          Session session = engine.newSession();
          session.bindInput("x", new float[] {1});
          session.close();
          session.evaluate(1);
        }
      }),
      Map.entry("shadow_bad_fraction", () -> {
        try (Engine engine = serve(S1)) {
          engine.setShadow(1.5, Backend.REFERENCE);
        }
      }),
      Map.entry("shadow_needs_unread", () -> {
        try (Engine engine = serve(S1);
            FeatureSet candidate = FeatureSet.fromText("input x; input y; f = x * y;")) {
          engine.setShadow(1, Backend.REFERENCE, candidate);
        }
      }),
      Map.entry("reload_dropped_input", () -> {
        try (Engine engine = serve(S1); Session session = engine.newSession();
            FeatureSet next = FeatureSet.fromText("input y; f = y;")) {
          engine.reload(next);
          session.rebind();
          session.bindInput("x", new float[] {1});
        }
      }),
      Map.entry("model_path_outside", () -> parseWithRoot(modelSet("../m.json"), FILES)),
      Map.entry("model_path_absolute", () -> parseWithRoot(modelSet("/etc/hostname"), FILES)),
      Map.entry("model_link_outside",
          () -> FeatureSet.readFile(FILES.resolve("link_outside.calc")).close()),
      Map.entry("model_not_regular", () -> parseWithRoot(modelSet("zero"), Path.of("/dev"))),
      Map.entry("models_key_nul", () -> parseWithModel("a\0b")),
      Map.entry("models_key_surrogate", () -> parseWithModel("\uD800")),
      Map.entry("set_file_device", () -> FeatureSet.readFile(FILES.resolve("zero.calc")).close()),
      Map.entry("set_file_location",
          () -> FeatureSet.readFile(FILES.resolve("syntax_error.calc")).close()));

  record Line(String id, String kind, Set<String> frontends, String contains) {}

  static List<Line> readLines() throws IOException {
    List<Line> lines = new ArrayList<>();
    for (String text : Files.readAllLines(
        TestSets.sourceDir().resolve("tests/frontends/bad_calls.txt"), StandardCharsets.UTF_8)) {
      if (text.isBlank() || text.startsWith("#")) continue;
      String[] columns = text.split("\\|", -1);
      assertEquals(5, columns.length, text);
      lines.add(new Line(columns[0].strip(), columns[1].strip(),
          new HashSet<>(Arrays.asList(columns[2].strip().split("\\s+"))), columns[3].strip()));
    }
    return lines;
  }

  static boolean isKind(Throwable e, String kind) {
    return switch (kind) {
      case "user" -> e instanceof CalcJitException c && c.kind() == CalcJitException.Kind.USER;
      case "argument" -> e instanceof NullPointerException
          || e instanceof IllegalArgumentException;
      case "state" -> e instanceof IllegalStateException;
      default -> false;
    };
  }

  @Test
  void everyLineForJavaGivesItsKindOfException() throws IOException {
    List<Line> lines = readLines();
    assertFalse(lines.isEmpty());
    Set<String> ids = new HashSet<>();
    List<String> failures = new ArrayList<>();
    for (Line line : lines) {
      ids.add(line.id());
      Call call = HANDLERS.get(line.id());
      if (!line.frontends().contains("java")) {
        if (call != null) failures.add(line.id() + ": a Java handler, but the line does not name java");
        continue;
      }
      if (call == null) {
        failures.add(line.id() + ": no Java handler");
        continue;
      }
      Throwable thrown = null;
      try {
        call.run();
      } catch (Throwable e) {
        thrown = e;
      }
      if (line.kind().equals("ok")) {
        if (thrown != null) failures.add(line.id() + ": expected success, got " + thrown);
      } else if (thrown == null) {
        failures.add(line.id() + ": expected " + line.kind() + ", got success");
      } else if (!isKind(thrown, line.kind())) {
        failures.add(line.id() + ": expected " + line.kind() + ", got " + thrown);
      } else if (thrown.getMessage() == null || !thrown.getMessage().contains(line.contains())) {
        failures.add(line.id() + ": '" + thrown.getMessage() + "' lacks '" + line.contains() + "'");
      } else if (thrown.getMessage().indexOf('\0') >= 0) {
        failures.add(line.id() + ": a raw NUL in the message");
      }
    }
    for (String id : HANDLERS.keySet()) {
      if (!ids.contains(id)) failures.add("the handler '" + id + "' has no line in the file");
    }
    if (!failures.isEmpty()) fail(String.join("\n", failures));
    assertTrue(ids.size() > 0);
  }
}
