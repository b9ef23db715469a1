/* The shared list of bad calls (tests/frontends/bad_calls.txt) through the C
 * API: every line that names "c" has a handler here that makes the call and
 * returns its status; the kind and the text the message must contain come
 * from the file. Exit status 1 lists every line that failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calcjit/calcjit.h"

static const char kS1[] = "input x; f = x * 2; g = x + 1;";

static calcjit_set* ParseOrDie(const char* text) {
  calcjit_set* set = NULL;
  if (calcjit_set_parse(text, strlen(text), CALCJIT_FORMAT_TEXT, &set) != CALCJIT_OK) {
    fprintf(stderr, "cannot parse a test set: %s\n", calcjit_last_error());
    exit(2);
  }
  return set;
}

static calcjit_engine* ServeOrDie(const char* text) {
  calcjit_set* set = ParseOrDie(text);
  calcjit_options options;
  calcjit_options_init(&options);
  options.backend = CALCJIT_BACKEND_VM;
  calcjit_engine* engine = NULL;
  if (calcjit_engine_create(set, &options, &engine) != CALCJIT_OK) {
    fprintf(stderr, "cannot compile a test set: %s\n", calcjit_last_error());
    exit(2);
  }
  calcjit_set_free(set);
  return engine;
}

static calcjit_session* SessionOrDie(const calcjit_engine* engine) {
  calcjit_session* session = NULL;
  if (calcjit_session_create(engine, &session) != CALCJIT_OK) exit(2);
  return session;
}

/* Frees what a handler made; the status is the handler's. */
typedef struct Made {
  calcjit_set* set;
  calcjit_engine* engine;
  calcjit_session* session;
} Made;

static calcjit_status ParseStatus(const char* text, size_t size, Made* made) {
  return calcjit_set_parse(text, size, CALCJIT_FORMAT_TEXT, &made->set);
}

static calcjit_status CompileWith(const char* text, const char* const* outputs, size_t count,
                                  Made* made) {
  made->set = ParseOrDie(text);
  calcjit_options options;
  calcjit_options_init(&options);
  options.backend = CALCJIT_BACKEND_VM;
  options.outputs = outputs;
  options.output_count = count;
  return calcjit_engine_create(made->set, &options, &made->engine);
}

static calcjit_status ServeAndBind(const char* text, const char* name, const float* data,
                                   size_t count, Made* made) {
  made->engine = ServeOrDie(text);
  made->session = SessionOrDie(made->engine);
  return calcjit_session_bind_input(made->session, name, data, count);
}

static const float kThree[3] = {1, 2, 3};

/* tests/frontends/files, next to the list (main sets it). */
static char g_files[4096];

static calcjit_status ParseModelWithRoot(const char* model_path, const char* root, Made* made) {
  char text[256];
  snprintf(text, sizeof text, "model m = xgboost(\"%s\"); f = model(m, a)[0];", model_path);
  return calcjit_set_parse_with_models(text, strlen(text), CALCJIT_FORMAT_TEXT, root, NULL, 0,
                                       &made->set);
}

static calcjit_status ReadFile(const char* name, Made* made) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", g_files, name);
  return calcjit_set_read_file(path, &made->set);
}

static calcjit_status Handle(const char* id, Made* made) {
  if (strcmp(id, "parse_syntax_error") == 0) return ParseStatus("f = ;", 5, made);
  if (strcmp(id, "parse_nul_byte") == 0) return ParseStatus("f = a \0 b;", 10, made);
  if (strcmp(id, "parse_invalid_utf8") == 0) return ParseStatus("f = a \xff b;", 10, made);
  if (strcmp(id, "parse_bom") == 0)
    return ParseStatus(
        "\xEF\xBB\xBF"
        "f = 1;",
        9, made);
  if (strcmp(id, "unknown_format") == 0) {
    return calcjit_set_parse("f = 1;", 6, (calcjit_format)99, &made->set);
  }
  if (strcmp(id, "unknown_backend") == 0) {
    made->set = ParseOrDie(kS1);
    calcjit_options options;
    calcjit_options_init(&options);
    options.backend = (calcjit_backend)99;
    return calcjit_engine_create(made->set, &options, &made->engine);
  }
  if (strcmp(id, "unknown_output_option") == 0) {
    static const char* const kNope[] = {"nope"};
    return CompileWith(kS1, kNope, 1, made);
  }
  if (strcmp(id, "null_output_option") == 0) {
    static const char* const kNull[] = {NULL};
    return CompileWith(kS1, kNull, 1, made);
  }
  if (strcmp(id, "astral_names") == 0) {
    static const char* const kF[] = {"𝑓"};
    calcjit_status status = CompileWith("input `x😀`; `𝑓` = `x😀` * 2;", kF, 1, made);
    if (status != CALCJIT_OK) return status;
    made->session = SessionOrDie(made->engine);
    status = calcjit_session_bind_input(made->session, "x😀", kThree, 3);
    if (status == CALCJIT_OK) status = calcjit_session_evaluate(made->session, 3, NULL);
    const float* f = NULL;
    size_t count = 0;
    if (status == CALCJIT_OK) status = calcjit_session_output(made->session, "𝑓", &f, &count);
    if (status == CALCJIT_OK && (count != 3 || f[0] != 2 || f[1] != 4 || f[2] != 6)) {
      fprintf(stderr, "astral_names: wrong values\n");
      return CALCJIT_ERROR_INTERNAL;
    }
    return status;
  }
  if (strcmp(id, "astral_unknown_input") == 0) return ServeAndBind(kS1, "😀", kThree, 1, made);
  if (strcmp(id, "bind_unknown_input") == 0) return ServeAndBind(kS1, "nope", kThree, 1, made);
  if (strcmp(id, "bind_null_name") == 0) return ServeAndBind(kS1, NULL, kThree, 1, made);
  if (strcmp(id, "input_too_short") == 0) {
    const calcjit_status status = ServeAndBind(kS1, "x", kThree, 2, made);
    if (status != CALCJIT_OK) return status;
    return calcjit_session_evaluate(made->session, 3, NULL);
  }
  if (strcmp(id, "missing_input") == 0) {
    made->engine = ServeOrDie(kS1);
    made->session = SessionOrDie(made->engine);
    return calcjit_session_evaluate(made->session, 3, NULL);
  }
  if (strcmp(id, "read_unknown_output") == 0) {
    calcjit_status status = ServeAndBind(kS1, "x", kThree, 3, made);
    if (status == CALCJIT_OK) status = calcjit_session_evaluate(made->session, 3, NULL);
    const float* data = NULL;
    size_t count = 0;
    if (status == CALCJIT_OK) status = calcjit_session_output(made->session, "nope", &data, &count);
    return status;
  }
  if (strcmp(id, "zero_queries") == 0) {
    made->engine = ServeOrDie(kS1);
    made->session = SessionOrDie(made->engine);
    calcjit_status status = calcjit_session_evaluate_many(made->session, 0, NULL, NULL);
    const char* const outputs[] = {"f", "g"};
    for (int k = 0; k < 2 && status == CALCJIT_OK; ++k) {
      const float* data = NULL;
      size_t count = 99;
      status = calcjit_session_output(made->session, outputs[k], &data, &count);
      if (status == CALCJIT_OK && count != 0) return CALCJIT_ERROR_INTERNAL;
    }
    return status;
  }
  if (strcmp(id, "shadow_bad_fraction") == 0) {
    made->engine = ServeOrDie(kS1);
    return calcjit_engine_set_shadow(made->engine, 1.5, CALCJIT_BACKEND_REFERENCE, NULL);
  }
  if (strcmp(id, "shadow_needs_unread") == 0) {
    made->engine = ServeOrDie(kS1);
    made->set = ParseOrDie("input x; input y; f = x * y;");
    return calcjit_engine_set_shadow(made->engine, 1, CALCJIT_BACKEND_REFERENCE, made->set);
  }
  if (strcmp(id, "reload_dropped_input") == 0) {
    made->engine = ServeOrDie(kS1);
    made->session = SessionOrDie(made->engine);
    made->set = ParseOrDie("input y; f = y;");
    calcjit_status status = calcjit_engine_reload(made->engine, made->set, NULL);
    if (status == CALCJIT_OK) status = calcjit_session_rebind(made->session);
    if (status == CALCJIT_OK) status = calcjit_session_bind_input(made->session, "x", kThree, 1);
    return status;
  }
  if (strcmp(id, "model_path_outside") == 0) return ParseModelWithRoot("../m.json", g_files, made);
  if (strcmp(id, "model_path_absolute") == 0) {
    return ParseModelWithRoot("/etc/hostname", g_files, made);
  }
  if (strcmp(id, "model_link_outside") == 0) return ReadFile("link_outside.calc", made);
  if (strcmp(id, "model_not_regular") == 0) return ParseModelWithRoot("zero", "/dev", made);
  if (strcmp(id, "set_file_device") == 0) return ReadFile("zero.calc", made);
  if (strcmp(id, "set_file_location") == 0) return ReadFile("syntax_error.calc", made);
  return (calcjit_status)-1; /* no handler */
}

/* The handlers above, to find one whose line is gone. */
static const char* const kHandled[] = {
    "parse_syntax_error",  "parse_nul_byte",       "parse_invalid_utf8",    "parse_bom",
    "unknown_format",      "unknown_backend",      "unknown_output_option", "null_output_option",
    "astral_names",        "astral_unknown_input", "bind_unknown_input",    "bind_null_name",
    "input_too_short",     "missing_input",        "read_unknown_output",   "zero_queries",
    "shadow_bad_fraction", "shadow_needs_unread",  "reload_dropped_input",  "model_path_outside",
    "model_path_absolute", "model_link_outside",   "model_not_regular",     "set_file_device",
    "set_file_location",
};

static char* Trim(char* text) {
  while (*text == ' ' || *text == '\t') ++text;
  size_t n = strlen(text);
  while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n')) {
    text[--n] = '\0';
  }
  return text;
}

static int Contains(const char* text, const char* part) {
  return text != NULL && strstr(text, part) != NULL;
}

static int HasWord(const char* list, const char* word) {
  const size_t n = strlen(word);
  for (const char* p = strstr(list, word); p != NULL; p = strstr(p + 1, word)) {
    if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s bad_calls.txt\n", argv[0]);
    return 2;
  }
  const char* slash = strrchr(argv[1], '/');
  const int folder = slash == NULL ? 0 : (int)(slash - argv[1] + 1);
  snprintf(g_files, sizeof g_files, "%.*sfiles", folder, argv[1]);
  FILE* file = fopen(argv[1], "r");
  if (file == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  int failures = 0;
  int ran = 0;
  int seen[sizeof kHandled / sizeof kHandled[0]] = {0};
  char line[1024];
  while (fgets(line, sizeof line, file) != NULL) {
    if (line[0] == '#' || Trim(line)[0] == '\0') continue;
    char* columns[5] = {NULL};
    int count = 0;
    for (char* p = line; count < 5;) {
      char* bar = strchr(p, '|');
      if (bar != NULL) *bar = '\0';
      columns[count++] = Trim(p);
      if (bar == NULL) break;
      p = bar + 1;
    }
    if (count != 5) {
      fprintf(stderr, "malformed line: %s\n", line);
      ++failures;
      continue;
    }
    const char* id = columns[0];
    const char* kind = columns[1];
    const char* contains = columns[3];
    int handled = 0;
    for (size_t k = 0; k < sizeof kHandled / sizeof kHandled[0]; ++k) {
      if (strcmp(kHandled[k], id) == 0) handled = seen[k] = 1;
    }
    if (!HasWord(columns[2], "c")) {
      if (handled) {
        fprintf(stderr, "%s: a C handler, but the line does not name c\n", id);
        ++failures;
      }
      continue;
    }
    Made made = {NULL, NULL, NULL};
    const calcjit_status status = Handle(id, &made);
    ++ran;
    const char* message = calcjit_last_error();
    const char* details = calcjit_last_error_details();
    int ok = 1;
    if ((int)status == -1 || !handled) {
      fprintf(stderr, "%s: no C handler\n", id);
      ok = 0;
    } else if (strcmp(kind, "ok") == 0) {
      ok = status == CALCJIT_OK;
    } else if (strcmp(kind, "user") == 0 || strcmp(kind, "argument") == 0) {
      ok = status == CALCJIT_ERROR_USER &&
           (Contains(details, contains) || Contains(message, contains));
    } else {
      fprintf(stderr, "%s: kind %s is not for C\n", id, kind);
      ok = 0;
    }
    if (!ok) {
      fprintf(stderr, "FAILED %s: status %d, '%s' (expected %s containing '%s')\n", id, (int)status,
              details != NULL ? details : "", kind, contains);
      ++failures;
    }
    calcjit_session_free(made.session);
    calcjit_engine_free(made.engine);
    calcjit_set_free(made.set);
  }
  fclose(file);
  for (size_t k = 0; k < sizeof kHandled / sizeof kHandled[0]; ++k) {
    if (!seen[k]) {
      fprintf(stderr, "the handler '%s' has no line in the file\n", kHandled[k]);
      ++failures;
    }
  }
  printf("%d bad calls through the C API, %d failed\n", ran, failures);
  return failures == 0 && ran > 0 ? 0 : 1;
}
