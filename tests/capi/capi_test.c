/* The C API from C11: parsing, schemas, engines, sessions, one and several
 * queries per call, errors, reloads, statistics and shadow evaluations.
 * Exits 0 when every check passes, else 1 at the first failure with a message.
 * Built with -ffp-contract=off: the expected values below are computed in C
 * float arithmetic, without FMA, and compared bit for bit. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calcjit/calcjit.h"

static void Fail(int line, const char* what) {
  fprintf(stderr, "capi_test.c:%d: check failed: %s\n  last error: \"%s\" (location \"%s\")\n",
          line, what, calcjit_last_error(), calcjit_last_error_location());
  exit(1);
}

#define CHECK(cond)                     \
  do {                                  \
    if (!(cond)) Fail(__LINE__, #cond); \
  } while (0)
#define CHECK_OK(call) CHECK((call) == CALCJIT_OK)
/* A call that must fail with `code`, leaving a non-empty message. */
#define CHECK_FAILS(call, code)                                                 \
  do {                                                                          \
    if ((call) != (code)) Fail(__LINE__, #call " != " #code);                   \
    if (calcjit_last_error()[0] == '\0') Fail(__LINE__, "empty error message"); \
  } while (0)
#define CHECK_ERROR_HAS(text) CHECK(strstr(calcjit_last_error(), (text)) != NULL)

static const char kSet[] =
    "input price;\n"
    "input rating;\n"
    "input w: query = 2;\n"
    "input e: item[3];\n"
    "input u: query[3];\n"
    "score = rating * w / (price + 1) + dot(e, u);\n"
    "rk = rank(price);\n";

enum { kDim = 3, kMaxItems = 64 };

static uint32_t Bits(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
}

/* score of one item, in C float arithmetic. e and u hold small dyadic values:
 * every product and partial sum of the dot product is exact, so its result
 * does not depend on the order of the additions. */
static float ExpectedScore(float price, float rating, float w, const float* e, const float* u) {
  const float base = rating * w / (price + 1.0f);
  const float dot = e[0] * u[0] + e[1] * u[1] + e[2] * u[2];
  return base + dot;
}

/* rank: 1 + the number of items of the query with a greater value. */
static float ExpectedRank(const float* price, size_t n, size_t i) {
  size_t greater = 0;
  for (size_t j = 0; j < n; ++j) greater += price[j] > price[i] ? 1u : 0u;
  return (float)(1 + greater);
}

static void FillItems(float* price, float* rating, float* e, size_t n, size_t seed) {
  for (size_t i = 0; i < n; ++i) {
    price[i] = (float)((i * 7 + seed) % 13) * 1.5f + 0.25f;
    rating[i] = (float)((i * 3 + seed) % 5) + 0.5f;
    for (size_t j = 0; j < kDim; ++j) e[i * kDim + j] = (float)((i + j + seed) % 5) - 2.0f;
  }
}

static void PrintSchema(const char* title, const calcjit_schema* schema) {
  printf("%s:\n", title);
  const size_t inputs = calcjit_schema_input_count(schema);
  for (size_t k = 0; k < inputs; ++k) {
    calcjit_input_info info;
    CHECK_OK(calcjit_schema_input(schema, k, &info));
    printf("  input %s: %s", info.name, info.scope == CALCJIT_SCOPE_ITEM ? "item" : "query");
    if (info.dimension > 0) printf("[%u]", (unsigned)info.dimension);
    if (info.has_default) printf(" = %g", (double)info.default_value);
    printf("%s\n", info.declared ? "" : " (implicit)");
  }
  const size_t outputs = calcjit_schema_output_count(schema);
  for (size_t k = 0; k < outputs; ++k)
    printf("  output %s\n", calcjit_schema_output_name(schema, k));
}

static calcjit_set* Parse(const char* text) {
  calcjit_set* set = NULL;
  CHECK_OK(calcjit_set_parse(text, strlen(text), CALCJIT_FORMAT_TEXT, &set));
  CHECK(set != NULL);
  return set;
}

static void TestSchema(const calcjit_set* set) {
  calcjit_schema* schema = NULL;
  CHECK_OK(calcjit_set_schema(set, &schema));
  PrintSchema("set schema", schema);
  CHECK(calcjit_schema_input_count(schema) == 5);
  CHECK(calcjit_schema_output_count(schema) == 2);
  CHECK(strcmp(calcjit_schema_output_name(schema, 0), "score") == 0);
  CHECK(strcmp(calcjit_schema_output_name(schema, 1), "rk") == 0);
  CHECK(calcjit_schema_output_name(schema, 2) == NULL);
  CHECK_ERROR_HAS("out of range");
  calcjit_input_info info;
  CHECK_OK(calcjit_schema_input(schema, 0, &info));
  CHECK(strcmp(info.name, "price") == 0 && info.scope == CALCJIT_SCOPE_ITEM &&
        info.dimension == 0 && !info.has_default && info.declared);
  CHECK_OK(calcjit_schema_input(schema, 2, &info));
  CHECK(strcmp(info.name, "w") == 0 && info.scope == CALCJIT_SCOPE_QUERY && info.has_default &&
        info.default_value == 2.0f);
  CHECK_OK(calcjit_schema_input(schema, 3, &info));
  CHECK(strcmp(info.name, "e") == 0 && info.scope == CALCJIT_SCOPE_ITEM && info.dimension == 3);
  CHECK_OK(calcjit_schema_input(schema, 4, &info));
  CHECK(strcmp(info.name, "u") == 0 && info.scope == CALCJIT_SCOPE_QUERY && info.dimension == 3);
  CHECK_FAILS(calcjit_schema_input(schema, 5, &info), CALCJIT_ERROR_USER);
  calcjit_schema_free(schema);
}

static void TestNullArguments(void) {
  calcjit_set* set = (calcjit_set*)&set; /* must be reset to NULL */
  CHECK_FAILS(calcjit_set_parse(NULL, 5, CALCJIT_FORMAT_TEXT, &set), CALCJIT_ERROR_USER);
  CHECK(set == NULL);
  CHECK_ERROR_HAS("NULL");
  calcjit_engine* engine = NULL;
  CHECK_FAILS(calcjit_engine_create(NULL, NULL, &engine), CALCJIT_ERROR_USER);
  CHECK(engine == NULL);
  CHECK(strcmp(calcjit_last_error(), "set is NULL") == 0);
  CHECK_FAILS(calcjit_engine_create(NULL, NULL, NULL), CALCJIT_ERROR_USER);
  CHECK_FAILS(calcjit_session_evaluate(NULL, 3, NULL), CALCJIT_ERROR_USER);
  CHECK_FAILS(calcjit_session_bind_input(NULL, "x", NULL, 0), CALCJIT_ERROR_USER);
  CHECK_FAILS(calcjit_engine_stats(NULL, NULL), CALCJIT_ERROR_USER);
  CHECK_FAILS(calcjit_set_read_file(NULL, &set), CALCJIT_ERROR_USER);
  CHECK(calcjit_schema_input_count(NULL) == 0);
  CHECK_ERROR_HAS("schema is NULL");
  CHECK(calcjit_engine_version(NULL) == 0);
  CHECK(calcjit_engine_backend_note(NULL) == NULL);
  CHECK(calcjit_engine_mismatch_count(NULL) == 0);
  calcjit_set_free(NULL);
  calcjit_schema_free(NULL);
  calcjit_engine_free(NULL);
  calcjit_session_free(NULL);
  calcjit_options_init(NULL);
  CHECK(calcjit_set_read_file("/nonexistent/set.calc", &set) != CALCJIT_OK);
  printf("missing file: %s\n", calcjit_last_error());
  CHECK(set == NULL);
}

static void TestParseErrors(void) {
  static const char broken[] = "input x; f = x * ;";
  calcjit_set* set = NULL;
  CHECK_FAILS(calcjit_set_parse(broken, strlen(broken), CALCJIT_FORMAT_TEXT, &set),
              CALCJIT_ERROR_USER);
  CHECK(set == NULL);
  printf("parse error: %s: %s\n", calcjit_last_error_location(), calcjit_last_error());
  CHECK(strncmp(calcjit_last_error_location(), "1:", 2) == 0);
  CHECK(strstr(calcjit_last_error_details(), calcjit_last_error_location()) != NULL);
  CHECK_FAILS(calcjit_set_parse(broken, strlen(broken), (calcjit_format)7, &set),
              CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("format");
  /* A successful call clears the error. */
  CHECK(calcjit_version_string() != NULL);
  calcjit_set* ok = Parse("input x; f = x + 1;");
  CHECK(calcjit_last_error()[0] == '\0' && calcjit_last_error_location()[0] == '\0');
  calcjit_set_free(ok);
}

static void TestOptions(const calcjit_set* set) {
  calcjit_options options;
  calcjit_options_init(&options);
  CHECK(options.backend == CALCJIT_BACKEND_AUTO && options.outputs == NULL &&
        options.output_count == 0 && options.isa == NULL);
  const char* const outputs[] = {"rk"};
  options.outputs = outputs;
  options.output_count = 1;
  options.backend = CALCJIT_BACKEND_VM;
  options.isa = "x86-64";
  calcjit_engine* engine = NULL;
  CHECK_OK(calcjit_engine_create(set, &options, &engine));
  calcjit_schema* schema = NULL;
  CHECK_OK(calcjit_engine_schema(engine, &schema));
  CHECK(calcjit_schema_input_count(schema) == 1 && calcjit_schema_output_count(schema) == 1);
  calcjit_schema_free(schema);
  calcjit_engine_free(engine);

  options.isa = "pentium";
  CHECK_FAILS(calcjit_engine_create(set, &options, &engine), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("pentium");
  CHECK(engine == NULL);
  options.isa = NULL;
  options.backend = (calcjit_backend)42;
  CHECK_FAILS(calcjit_engine_create(set, &options, &engine), CALCJIT_ERROR_USER);
  options.backend = CALCJIT_BACKEND_AUTO;
  const char* const unknown[] = {"nope"};
  options.outputs = unknown;
  CHECK_FAILS(calcjit_engine_create(set, &options, &engine), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("nope");
}

/* ---- Several queries while another thread reloads: every call succeeds,
 * with all its queries computed by the version it reports (the version is
 * taken once per call; a reload cannot split one). Versions alternate between
 * `y = x * 2` (odd) and `y = x * 3` (even). */
enum { kReloadQueries = 64, kReloadItems = 16 };

typedef struct {
  calcjit_engine* engine;
  atomic_int stop;
  atomic_int calls;
  int versions_seen;      /* calls whose version differed from the call before */
  atomic_int failed_line; /* 0: no failure */
  char failure[512];
} ReloadRace;

#define RACE_CHECK(race, cond)                                                          \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      snprintf((race)->failure, sizeof(race)->failure, "%s (last error \"%s\")", #cond, \
               calcjit_last_error());                                                   \
      atomic_store(&(race)->failed_line, __LINE__);                                     \
      goto done;                                                                        \
    }                                                                                   \
  } while (0)

static void* EvaluateWhileReloading(void* arg) {
  ReloadRace* race = (ReloadRace*)arg;
  enum { kTotal = kReloadQueries * kReloadItems };
  static float x[kTotal], y[kTotal];
  size_t items[kReloadQueries];
  for (size_t q = 0; q < kReloadQueries; ++q) items[q] = kReloadItems;
  for (size_t i = 0; i < kTotal; ++i) x[i] = (float)i * 0.5f;
  calcjit_session* session = NULL;
  RACE_CHECK(race, calcjit_session_create(race->engine, &session) == CALCJIT_OK);
  RACE_CHECK(race, calcjit_session_bind_input(session, "x", x, kTotal) == CALCJIT_OK);
  RACE_CHECK(race, calcjit_session_bind_output(session, "y", y, kTotal) == CALCJIT_OK);
  uint64_t last_version = 0;
  while (!atomic_load(&race->stop)) {
    uint64_t version = 0;
    const calcjit_status status =
        calcjit_session_evaluate_many(session, kReloadQueries, items, &version);
    atomic_fetch_add(&race->calls, 1);
    RACE_CHECK(race, status == CALCJIT_OK);
    if (version != last_version) ++race->versions_seen;
    last_version = version;
    const float factor = version % 2 == 1 ? 2.0f : 3.0f;
    for (size_t i = 0; i < kTotal; ++i) RACE_CHECK(race, y[i] == x[i] * factor);
  }
done:
  calcjit_session_free(session);
  return NULL;
}

static void TestReloadDuringEvaluateMany(void) {
  static const char kTimes2[] = "input x; y = x * 2;";
  static const char kTimes3[] = "input x; y = x * 3;";
  calcjit_set* set = Parse(kTimes2);
  calcjit_options options;
  calcjit_options_init(&options);
  options.backend = CALCJIT_BACKEND_VM;
  ReloadRace race;
  memset(&race, 0, sizeof race);
  atomic_init(&race.stop, 0);
  atomic_init(&race.calls, 0);
  atomic_init(&race.failed_line, 0);
  CHECK_OK(calcjit_engine_create(set, &options, &race.engine));
  calcjit_set_free(set);
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, EvaluateWhileReloading, &race) == 0);
  /* Reload until the thread has made 300 calls (or failed). */
  int reloads = 0;
  for (; atomic_load(&race.calls) < 300 && atomic_load(&race.failed_line) == 0; ++reloads) {
    CHECK(reloads < 1000000);
    const char* text = reloads % 2 == 0 ? kTimes3 : kTimes2;
    uint64_t version = 0;
    CHECK_OK(calcjit_engine_reload_bytes(race.engine, text, strlen(text), CALCJIT_FORMAT_TEXT,
                                         &version));
    CHECK(version == (uint64_t)reloads + 2);
  }
  atomic_store(&race.stop, 1);
  CHECK(pthread_join(thread, NULL) == 0);
  printf("reload race: %d reloads, %d calls of %d queries on %d versions in turn\n", reloads,
         atomic_load(&race.calls), kReloadQueries, race.versions_seen);
  if (atomic_load(&race.failed_line) != 0) {
    fprintf(stderr, "capi_test.c:%d: check failed in the evaluating thread: %s\n",
            atomic_load(&race.failed_line), race.failure);
    exit(1);
  }
  calcjit_engine_free(race.engine);
}

/* ---- Zero items and zero queries, for every input kind and backend: a
 * correct empty result, never a crash or a false error. One query of 0 items
 * checks its bindings as any query does; zero queries compute nothing and
 * check only what they can (names, lengths of 0). */
typedef struct {
  const char* name;
  const char* text; /* the input is x */
  int item;         /* an item input (else a query input) */
  size_t width;     /* floats per item or per query */
  int has_default;
} InputKind;

static const InputKind kInputKinds[] = {
    {"item scalar", "input x; f = x * 2; g = rank(x);", 1, 1, 0},
    {"item scalar with default", "input x = 1.5; f = x * 2; g = rank(x);", 1, 1, 1},
    {"query scalar", "input x: query; f = x * 2 + batch_count(1); g = rank(f);", 0, 1, 0},
    {"query scalar with default", "input x: query = 4; f = x * 2; g = rank(f);", 0, 1, 1},
    {"item vector", "input x: item[3]; f = norm(x); g = rank(f);", 1, 3, 0},
    {"query vector", "input x: query[3]; f = norm(x) + batch_count(1); g = rank(f);", 0, 3, 0},
};

static const calcjit_backend kBackends[] = {CALCJIT_BACKEND_REFERENCE, CALCJIT_BACKEND_VM,
                                            CALCJIT_BACKEND_JIT, CALCJIT_BACKEND_AUTO};

/* Evaluates and checks that every output has 0 items and the version is 1. */
static void CheckEmptyResult(calcjit_session* session, size_t query_count,
                             const size_t* item_counts) {
  uint64_t version = 99;
  CHECK_OK(calcjit_session_evaluate_many(session, query_count, item_counts, &version));
  CHECK(version == 1);
  const float* data = NULL;
  size_t count = 99;
  CHECK_OK(calcjit_session_output(session, "f", &data, &count));
  CHECK(count == 0);
  count = 99;
  CHECK_OK(calcjit_session_output(session, "g", &data, &count));
  CHECK(count == 0);
}

static void TestZeroItemsAndZeroQueries(void) {
  static const float values[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  const size_t no_items[3] = {0, 0, 0};
  int cases = 0;
  for (size_t k = 0; k < sizeof kInputKinds / sizeof kInputKinds[0]; ++k) {
    const InputKind* kind = &kInputKinds[k];
    for (size_t b = 0; b < sizeof kBackends / sizeof kBackends[0]; ++b) {
      calcjit_set* set = Parse(kind->text);
      calcjit_options options;
      calcjit_options_init(&options);
      options.backend = kBackends[b];
      calcjit_engine* engine = NULL;
      CHECK_OK(calcjit_engine_create(set, &options, &engine));
      calcjit_set_free(set);
      calcjit_session* session = NULL;
      CHECK_OK(calcjit_session_create(engine, &session));

      /* Nothing bound: one query of 0 items needs x unless it has a default;
       * zero queries do not. */
      if (kind->has_default) {
        CheckEmptyResult(session, 1, no_items);
      } else {
        CHECK_FAILS(calcjit_session_evaluate(session, 0, NULL), CALCJIT_ERROR_USER);
        CHECK(strcmp(calcjit_last_error(), "input 'x' is not bound and has no default value") == 0);
        CHECK(strcmp(calcjit_last_error_location(), "x") == 0);
      }
      CheckEmptyResult(session, 0, NULL);

      /* x bound with what 0 items need: NULL and 0 floats for an item input,
       * one value for a query input. */
      const size_t bound = kind->item ? 0 : kind->width;
      CHECK_OK(calcjit_session_bind_input(session, "x", kind->item ? NULL : values, bound));
      CheckEmptyResult(session, 1, no_items);
      CheckEmptyResult(session, 3, no_items);
      CheckEmptyResult(session, 0, NULL);
      /* Outputs bound to 0 floats. */
      CHECK_OK(calcjit_session_bind_output(session, "f", NULL, 0));
      CHECK_OK(calcjit_session_bind_output(session, "g", NULL, 0));
      CheckEmptyResult(session, 1, no_items);
      CheckEmptyResult(session, 0, NULL);
      if (!kind->item) {
        /* One value per query: 3 queries of 0 items, or none. */
        CHECK_OK(calcjit_session_bind_input(session, "x", values, 2 * kind->width));
        CHECK_FAILS(calcjit_session_evaluate_many(session, 3, no_items, NULL), CALCJIT_ERROR_USER);
        CHECK_ERROR_HAS("for 3 queries");
        CHECK_OK(calcjit_session_bind_input(session, "x", values, 0));
        CheckEmptyResult(session, 0, NULL);
      }
      /* Lengths are still checked: a float too many fails, naming x. */
      CHECK_OK(calcjit_session_bind_input(session, "x", values, bound + 1));
      CHECK_FAILS(calcjit_session_evaluate(session, 0, NULL), CALCJIT_ERROR_USER);
      CHECK(strcmp(calcjit_last_error_location(), "x") == 0);
      CHECK_FAILS(calcjit_session_evaluate_many(session, 0, NULL, NULL), CALCJIT_ERROR_USER);
      CHECK(strcmp(calcjit_last_error_location(), "x") == 0);
      CHECK_OK(calcjit_session_bind_input(session, "x", values, bound));
      float one[1];
      CHECK_OK(calcjit_session_bind_output(session, "g", one, 1));
      CHECK_FAILS(calcjit_session_evaluate_many(session, 0, NULL, NULL), CALCJIT_ERROR_USER);
      CHECK(strcmp(calcjit_last_error(),
                   "output 'g' needs 0 floats for 0 items in 0 queries, got 1") == 0);
      /* A buffer whose prefix is used may be longer than 0 items need. */
      CHECK_OK(calcjit_session_bind_output_prefix(session, "g", one, 1));
      CHECK_OK(calcjit_session_bind_input_prefix(session, "x", values, 6));
      CheckEmptyResult(session, 1, no_items);
      CheckEmptyResult(session, 0, NULL);

      calcjit_session_free(session);
      calcjit_engine_free(engine);
      ++cases;
    }
  }
  printf("zero items and zero queries: %d input kinds x backends\n", cases);
}

/* Rows of tests/model/data/reg_squarederror.cases: five inputs and the margin
   XGBoost 1.7.4 itself predicted, as float32 bits. */
static const uint32_t kModelRows[3][6] = {
    {0xbe800000u, 0x3ea6eed8u, 0x3dc8176fu, 0x7fc00000u, 0xc019f06du, 0x3e719a67u},
    {0x7fc00000u, 0x3f05eb7eu, 0xbff14543u, 0xbf46d8bfu, 0xbc3756abu, 0x4013b206u},
    {0xbf800000u, 0x4033548du, 0x3e58c9e0u, 0x3f26f76cu, 0x3d83f590u, 0xbfd9b6f2u},
};

static float FromBits(uint32_t bits) {
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static char* ReadWholeFile(const char* path, size_t* size) {
  FILE* file = fopen(path, "rb");
  CHECK(file != NULL);
  CHECK(fseek(file, 0, SEEK_END) == 0);
  const long length = ftell(file);
  CHECK(length > 0);
  CHECK(fseek(file, 0, SEEK_SET) == 0);
  char* data = malloc((size_t)length);
  CHECK(data != NULL);
  CHECK(fread(data, 1, (size_t)length, file) == (size_t)length);
  fclose(file);
  *size = (size_t)length;
  return data;
}

/* Evaluates `set`'s output "m" on three recorded rows (inputs `names`, then
   the library's output), against the library's bits. */
static void CheckModelRows(const calcjit_set* set, const uint32_t rows[3][6],
                           const char* const names[5]) {
  calcjit_engine* engine = NULL;
  CHECK_OK(calcjit_engine_create(set, NULL, &engine));
  calcjit_session* session = NULL;
  CHECK_OK(calcjit_session_create(engine, &session));
  float columns[5][3];
  for (size_t j = 0; j < 5; ++j) {
    for (size_t i = 0; i < 3; ++i) columns[j][i] = FromBits(rows[i][j]);
    CHECK_OK(calcjit_session_bind_input(session, names[j], columns[j], 3));
  }
  CHECK_OK(calcjit_session_evaluate(session, 3, NULL));
  const float* out = NULL;
  size_t count = 0;
  CHECK_OK(calcjit_session_output(session, "m", &out, &count));
  CHECK(count == 3);
  for (size_t i = 0; i < 3; ++i) CHECK(Bits(out[i]) == rows[i][5]);
  calcjit_session_free(session);
  calcjit_engine_free(engine);
}

static void CheckModelSet(const calcjit_set* set) {
  static const char* const kNames[5] = {"a", "b", "c", "d", "e"};
  CheckModelRows(set, kModelRows, kNames);
}

/* A set with a model: its bytes by name, or its file under a model root. */
static void TestModels(void) {
  static const char kModelSet[] =
      "model ranker = xgboost(\"reg_squarederror.json\");\n"
      "m = model(ranker, a, b, c, d, e)[0];\n";
  size_t size = 0;
  char* bytes = ReadWholeFile(CALCJIT_MODEL_DATA_DIR "/reg_squarederror.json", &size);
  const calcjit_model_bytes models[1] = {{"ranker", bytes, size}};
  calcjit_set* set = NULL;
  CHECK_OK(calcjit_set_parse_with_models(kModelSet, strlen(kModelSet), CALCJIT_FORMAT_TEXT, NULL,
                                         models, 1, &set));
  free(bytes); /* the set keeps what it needs */
  CheckModelSet(set);
  calcjit_set_free(set);
  set = NULL;
  CHECK_OK(calcjit_set_parse_with_models(kModelSet, strlen(kModelSet), CALCJIT_FORMAT_TEXT,
                                         CALCJIT_MODEL_DATA_DIR, NULL, 0, &set));
  CheckModelSet(set);
  calcjit_set_free(set);
  set = NULL;
  /* Without either: a clear error at the declaration. */
  CHECK_FAILS(calcjit_set_parse(kModelSet, strlen(kModelSet), CALCJIT_FORMAT_TEXT, &set),
              CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("no model root");
  CHECK(strcmp(calcjit_last_error_location(), "1:7") == 0);
  CHECK_FAILS(calcjit_set_parse_with_models(kModelSet, strlen(kModelSet), CALCJIT_FORMAT_TEXT, NULL,
                                            NULL, 1, &set),
              CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("models is NULL");
  const calcjit_model_bytes unnamed[1] = {{NULL, "x", 1}};
  CHECK_FAILS(calcjit_set_parse_with_models(kModelSet, strlen(kModelSet), CALCJIT_FORMAT_TEXT, NULL,
                                            unnamed, 1, &set),
              CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("models[0].name is NULL");
  const calcjit_model_bytes broken[1] = {{"ranker", "{", 1}};
  CHECK(calcjit_set_parse_with_models(kModelSet, strlen(kModelSet), CALCJIT_FORMAT_TEXT, NULL,
                                      broken, 1, &set) != CALCJIT_OK);
  CHECK_ERROR_HAS("reg_squarederror.json");
  CHECK(set == NULL);
  printf("models: XGBoost's margins from bytes and from a model root\n");
}

/* A model on its own (calcjit_set_from_model, calcjit_set_read_model), the
   list of formats, and rows as input (calcjit_session_bind_rows): the three
   recorded rows in a row-major matrix with padding, against XGBoost's bits. */
static void TestModelOnItsOwnWithRows(void) {
  const size_t formats = calcjit_model_format_count();
  CHECK(formats >= 3);
  CHECK(strcmp(calcjit_model_format_name(0), "xgboost") == 0);
  CHECK(strcmp(calcjit_model_format_name(1), "lightgbm") == 0);
  CHECK(calcjit_model_format_name(formats) == NULL);
  CHECK_ERROR_HAS("beyond the");

  size_t size = 0;
  char* bytes = ReadWholeFile(CALCJIT_MODEL_DATA_DIR "/reg_squarederror.json", &size);
  calcjit_set* set = NULL;
  CHECK_FAILS(calcjit_set_from_model(bytes, size, "xgbost", &set), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("unknown model format 'xgbost' ('xgboost', 'lightgbm'");
  CHECK(set == NULL);
  CHECK_OK(calcjit_set_from_model(bytes, size, NULL, &set)); /* by content */
  calcjit_set_free(set);
  set = NULL;
  CHECK_OK(calcjit_set_from_model(bytes, size, "xgboost", &set));
  free(bytes);
  calcjit_schema* schema = NULL;
  CHECK_OK(calcjit_set_schema(set, &schema));
  CHECK(calcjit_schema_input_count(schema) == 5);
  calcjit_input_info input;
  CHECK_OK(calcjit_schema_input(schema, 4, &input));
  CHECK(strcmp(input.name, "f4") == 0); /* no names in the file: f0, f1, ... */
  CHECK(strcmp(calcjit_schema_output_name(schema, 0), "margin") == 0);
  calcjit_schema_free(schema);

  calcjit_engine* engine = NULL;
  CHECK_OK(calcjit_engine_create(set, NULL, &engine));
  calcjit_set_free(set);
  calcjit_session* session = NULL;
  CHECK_OK(calcjit_session_create(engine, &session));
  enum { kStride = 7 }; /* five features, two floats of padding per row */
  float rows[3 * kStride];
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < kStride; ++j) {
      rows[i * kStride + j] = j < 5 ? FromBits(kModelRows[i][j]) : -1.0f;
    }
  }
  CHECK_FAILS(calcjit_session_bind_rows(session, rows, 3, 5, 4), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("row_stride 4 is less than the 5 columns");
  CHECK_FAILS(calcjit_session_bind_rows(session, rows, 3, 4, kStride), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("the matrix has 4 columns but the engine has 5 inputs");
  CHECK_OK(calcjit_session_bind_rows(session, rows, 3, 5, kStride));
  CHECK_FAILS(calcjit_session_evaluate(session, 4, NULL), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("the call has 4 items but the bound rows hold 3");
  const float* out = NULL;
  size_t count = 0;
  for (size_t n = 0; n <= 3; ++n) { /* the first n rows */
    CHECK_OK(calcjit_session_evaluate(session, n, NULL));
    CHECK_OK(calcjit_session_output(session, "margin", &out, &count));
    CHECK(count == n);
    for (size_t i = 0; i < n; ++i) CHECK(Bits(out[i]) == kModelRows[i][5]);
  }
  /* Read at evaluation: a row changed after binding is seen. */
  for (size_t j = 0; j < 5; ++j) rows[j] = FromBits(kModelRows[1][j]);
  CHECK_OK(calcjit_session_evaluate(session, 1, NULL));
  CHECK_OK(calcjit_session_output(session, "margin", &out, &count));
  CHECK(Bits(out[0]) == kModelRows[1][5]);
  CHECK_OK(calcjit_session_clear(session));
  CHECK_FAILS(calcjit_session_evaluate(session, 1, NULL), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("f0");
  calcjit_session_free(session);
  calcjit_engine_free(engine);

  /* Contract 6.1: model(m)[k] without inputs binds the model's feature names,
     f0, f1, ... for a file without names; the rows bind them in that order. */
  static const char kImplied[] =
      "model ranker = xgboost(\"reg_squarederror.json\");\nm = model(ranker)[0];\n";
  CHECK_OK(calcjit_set_parse_with_models(kImplied, strlen(kImplied), CALCJIT_FORMAT_TEXT,
                                         CALCJIT_MODEL_DATA_DIR, NULL, 0, &set));
  CHECK_OK(calcjit_set_schema(set, &schema));
  CHECK_OK(calcjit_schema_input(schema, 0, &input));
  CHECK(strcmp(input.name, "f0") == 0 && input.declared == 0);
  calcjit_schema_free(schema);
  CHECK_OK(calcjit_engine_create(set, NULL, &engine));
  calcjit_set_free(set);
  set = NULL;
  CHECK_OK(calcjit_session_create(engine, &session));
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 5; ++j) rows[i * kStride + j] = FromBits(kModelRows[i][j]);
  }
  CHECK_OK(calcjit_session_bind_rows(session, rows, 3, 5, kStride));
  CHECK_OK(calcjit_session_evaluate(session, 3, NULL));
  CHECK_OK(calcjit_session_output(session, "m", &out, &count));
  for (size_t i = 0; i < 3; ++i) CHECK(Bits(out[i]) == kModelRows[i][5]);
  calcjit_session_free(session);
  calcjit_engine_free(engine);

  CHECK(calcjit_set_read_model(CALCJIT_MODEL_DATA_DIR "/no_such.json", NULL, &set) != CALCJIT_OK);
  CHECK_ERROR_HAS("no_such.json");
  CHECK_OK(calcjit_set_read_model(CALCJIT_MODEL_DATA_DIR "/lgb4_binary.txt", NULL, &set));
  calcjit_set_free(set);
  printf("a model on its own: XGBoost's margins from a row-major matrix\n");
}

/* Rows of tests/model/data/catboost_rmse.cases: five inputs and the
   RawFormulaVal CatBoost 1.2.10 itself predicted, as float32 bits. */
static const uint32_t kCatboostRows[3][6] = {
    {0xbf000000u, 0x3f5c96fdu, 0x3f800002u, 0x80000000u, 0x40103614u, 0xbf5e4810u},
    {0x3f400000u, 0x7fc00000u, 0x3f800000u, 0x00000001u, 0x3fa01974u, 0x3feae8aeu},
    {0xbe800000u, 0xbea9c73cu, 0x3f800004u, 0x00000004u, 0xbf247d9bu, 0xbf2a88b3u},
};

/* A CatBoost .cbm through the same calls: its features bind by their default
   names f0, f1, ... (spec 6.1). */
static void TestCatboostModels(void) {
  static const char kCatboostSet[] =
      "model ranker = catboost(\"catboost_rmse.cbm\");\n"
      "m = model(ranker)[0];\n";
  static const char* const kNames[5] = {"f0", "f1", "f2", "f3", "f4"};
  calcjit_set* set = NULL;
  CHECK_OK(calcjit_set_parse_with_models(kCatboostSet, strlen(kCatboostSet), CALCJIT_FORMAT_TEXT,
                                         CALCJIT_MODEL_DATA_DIR, NULL, 0, &set));
  CheckModelRows(set, kCatboostRows, kNames);
  calcjit_set_free(set);
  set = NULL;
  size_t size = 0;
  char* bytes = ReadWholeFile(CALCJIT_MODEL_DATA_DIR "/catboost_rmse.cbm", &size);
  const calcjit_model_bytes models[1] = {{"ranker", bytes, size}};
  CHECK_OK(calcjit_set_parse_with_models(kCatboostSet, strlen(kCatboostSet), CALCJIT_FORMAT_TEXT,
                                         NULL, models, 1, &set));
  CheckModelRows(set, kCatboostRows, kNames);
  calcjit_set_free(set);
  set = NULL;
  const calcjit_model_bytes cut[1] = {{"ranker", bytes, 64}};
  CHECK(calcjit_set_parse_with_models(kCatboostSet, strlen(kCatboostSet), CALCJIT_FORMAT_TEXT, NULL,
                                      cut, 1, &set) != CALCJIT_OK);
  CHECK_ERROR_HAS("catboost_rmse.cbm");
  free(bytes);
  printf("models: CatBoost's RawFormulaVal from a .cbm, by bytes and from a model root\n");
}

int main(void) {
  printf("calcjit %s\n", calcjit_version_string());
  CHECK(strcmp(calcjit_version_string(), CALCJIT_VERSION_STRING) == 0);
  CHECK(strcmp(calcjit_backend_name(CALCJIT_BACKEND_JIT), "jit") == 0);
  TestNullArguments();
  TestParseErrors();
  TestModels();
  TestModelOnItsOwnWithRows();
  TestCatboostModels();

  calcjit_set* set = Parse(kSet);
  TestSchema(set);
  TestOptions(set);
  TestZeroItemsAndZeroQueries();

  calcjit_engine* engine = NULL;
  CHECK_OK(calcjit_engine_create(set, NULL, &engine));
  CHECK(calcjit_engine_version(engine) == 1);
  calcjit_schema* engine_schema = NULL;
  CHECK_OK(calcjit_engine_schema(engine, &engine_schema));
  PrintSchema("engine schema", engine_schema);
  CHECK(calcjit_schema_input_count(engine_schema) == 5);
  calcjit_schema_free(engine_schema);

  /* ---- One query. */
  enum { kItems = 7 };
  float price[kMaxItems], rating[kMaxItems], e[kMaxItems * kDim];
  const float u[kDim] = {0.5f, -1.0f, 2.0f};
  const float w = 3.0f;
  float score[kMaxItems];
  FillItems(price, rating, e, kItems, 0);

  calcjit_session* session = NULL;
  CHECK_OK(calcjit_session_create(engine, &session));
  CHECK_OK(calcjit_session_bind_input(session, "price", price, kItems));
  CHECK_OK(calcjit_session_bind_input(session, "rating", rating, kItems));
  CHECK_OK(calcjit_session_bind_input(session, "w", &w, 1));
  CHECK_OK(calcjit_session_bind_input(session, "e", e, kItems * kDim));
  CHECK_OK(calcjit_session_bind_input(session, "u", u, kDim));
  CHECK_OK(calcjit_session_bind_output(session, "score", score, kItems));
  const float* out = NULL;
  size_t count = 0;
  CHECK_FAILS(calcjit_session_output(session, "score", &out, &count), CALCJIT_ERROR_USER);
  uint64_t version = 0;
  CHECK_OK(calcjit_session_evaluate(session, kItems, &version));
  CHECK(version == 1);
  CHECK_OK(calcjit_session_output(session, "score", &out, &count));
  CHECK(out == score && count == kItems);
  for (size_t i = 0; i < kItems; ++i) {
    CHECK(Bits(score[i]) == Bits(ExpectedScore(price[i], rating[i], w, e + i * kDim, u)));
  }
  CHECK_OK(calcjit_session_output(session, "rk", &out, &count)); /* the session's own buffer */
  CHECK(count == kItems);
  for (size_t i = 0; i < kItems; ++i) CHECK(out[i] == ExpectedRank(price, kItems, i));
  printf("one query: score[0] = %.9g, rk[0] = %g\n", (double)score[0], (double)out[0]);

  /* The default of w when it is not bound. */
  calcjit_session* defaults = NULL;
  CHECK_OK(calcjit_session_create(engine, &defaults));
  CHECK_OK(calcjit_session_bind_input(defaults, "price", price, kItems));
  CHECK_OK(calcjit_session_bind_input(defaults, "rating", rating, kItems));
  CHECK_OK(calcjit_session_bind_input(defaults, "e", e, kItems * kDim));
  CHECK_OK(calcjit_session_bind_input(defaults, "u", u, kDim));
  CHECK_OK(calcjit_session_evaluate(defaults, kItems, NULL));
  CHECK_OK(calcjit_session_output(defaults, "score", &out, &count));
  CHECK(count == kItems);
  for (size_t i = 0; i < kItems; ++i) {
    CHECK(Bits(out[i]) == Bits(ExpectedScore(price[i], rating[i], 2.0f, e + i * kDim, u)));
  }
  calcjit_session_free(defaults);

  /* ---- Three queries in one call: items concatenated, query inputs one per query. */
  enum { kQueries = 3, kTotal = 12 };
  const size_t items[kQueries] = {5, 0, 7};
  float m_price[kTotal], m_rating[kTotal], m_e[kTotal * kDim], m_score[kTotal];
  const float m_w[kQueries] = {1.0f, 2.5f, -0.75f};
  const float m_u[kQueries * kDim] = {1.0f, 0.25f, -2.0f, 4.0f, 4.0f, 4.0f, -0.5f, 1.5f, 3.0f};
  FillItems(m_price, m_rating, m_e, kTotal, 3);
  calcjit_session* many = NULL;
  CHECK_OK(calcjit_session_create(engine, &many));
  CHECK_OK(calcjit_session_bind_input(many, "price", m_price, kTotal));
  CHECK_OK(calcjit_session_bind_input(many, "rating", m_rating, kTotal));
  CHECK_OK(calcjit_session_bind_input(many, "w", m_w, kQueries));
  CHECK_OK(calcjit_session_bind_input(many, "e", m_e, kTotal * kDim));
  CHECK_OK(calcjit_session_bind_input(many, "u", m_u, kQueries * kDim));
  CHECK_OK(calcjit_session_bind_output(many, "score", m_score, kTotal));
  version = 0;
  CHECK_OK(calcjit_session_evaluate_many(many, kQueries, items, &version));
  CHECK(version == 1);
  const float* m_rk = NULL;
  CHECK_OK(calcjit_session_output(many, "rk", &m_rk, &count));
  CHECK(count == kTotal);
  /* Each query equals a separate evaluation of it, bit for bit. */
  calcjit_session* single = NULL;
  CHECK_OK(calcjit_session_create(engine, &single));
  size_t offset = 0;
  for (size_t q = 0; q < kQueries; ++q) {
    const size_t n = items[q];
    float s_score[kMaxItems];
    CHECK_OK(calcjit_session_bind_input(single, "price", m_price + offset, n));
    CHECK_OK(calcjit_session_bind_input(single, "rating", m_rating + offset, n));
    CHECK_OK(calcjit_session_bind_input(single, "w", m_w + q, 1));
    CHECK_OK(calcjit_session_bind_input(single, "e", m_e + offset * kDim, n * kDim));
    CHECK_OK(calcjit_session_bind_input(single, "u", m_u + q * kDim, kDim));
    CHECK_OK(calcjit_session_bind_output(single, "score", s_score, n));
    CHECK_OK(calcjit_session_evaluate(single, n, NULL));
    const float* s_rk = NULL;
    size_t s_count = 0;
    CHECK_OK(calcjit_session_output(single, "rk", &s_rk, &s_count));
    CHECK(s_count == n);
    CHECK(n == 0 || memcmp(s_score, m_score + offset, n * sizeof(float)) == 0);
    CHECK(n == 0 || memcmp(s_rk, m_rk + offset, n * sizeof(float)) == 0);
    for (size_t i = 0; i < n; ++i) {
      const size_t item = offset + i;
      CHECK(Bits(m_score[item]) == Bits(ExpectedScore(m_price[item], m_rating[item], m_w[q],
                                                      m_e + item * kDim, m_u + q * kDim)));
      /* rank sees the query's items only. */
      CHECK(m_rk[item] == ExpectedRank(m_price + offset, n, i));
    }
    offset += n;
  }
  calcjit_session_free(single);
  CHECK_FAILS(calcjit_session_evaluate_many(many, 2, NULL, NULL), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("item_counts is NULL");
  /* A query input may also hold one value for every query. */
  float shared_score[kTotal];
  CHECK_OK(calcjit_session_bind_input(many, "w", &m_w[1], 1));
  CHECK_OK(calcjit_session_bind_output(many, "score", shared_score, kTotal));
  CHECK_OK(calcjit_session_evaluate_many(many, kQueries, items, NULL));
  offset = 0;
  for (size_t q = 0; q < kQueries; ++q) {
    for (size_t i = offset; i < offset + items[q]; ++i) {
      CHECK(Bits(shared_score[i]) ==
            Bits(ExpectedScore(m_price[i], m_rating[i], m_w[1], m_e + i * kDim, m_u + q * kDim)));
    }
    offset += items[q];
  }
  CHECK_OK(calcjit_session_bind_input(many, "w", m_w, kQueries));
  CHECK_OK(calcjit_session_bind_output(many, "score", m_score, kTotal));

  /* ---- Statistics: an evaluation per query. */
  calcjit_stats stats;
  CHECK_OK(calcjit_engine_stats(engine, &stats));
  printf("stats: version %llu, backend %s, %llu evaluations, %llu items, jit pending %d\n",
         (unsigned long long)stats.version, calcjit_backend_name(stats.backend),
         (unsigned long long)stats.evaluations, (unsigned long long)stats.items, stats.jit_pending);
  CHECK(stats.version == 1);
  CHECK(stats.evaluations == 1 + 1 + kQueries + kQueries + kQueries);
  CHECK(stats.items == kItems + kItems + kTotal + kTotal + kTotal);
  CHECK(stats.errors == 0);
  CHECK_OK(calcjit_engine_wait_for_jit(engine));
  CHECK_OK(calcjit_engine_stats(engine, &stats));
  const char* note = calcjit_engine_backend_note(engine);
  CHECK(note != NULL);
  printf("after the JIT: backend %s, note \"%s\"\n", calcjit_backend_name(stats.backend), note);
  CHECK(!stats.jit_pending);
  CHECK(stats.backend == CALCJIT_BACKEND_JIT || note[0] != '\0');
  /* Tier choice: both timed once the JIT compiled; the faster serves. */
  calcjit_tiers tiers;
  CHECK_OK(calcjit_engine_tiers(engine, &tiers));
  printf("tiers: %s\n", tiers.note);
  if (stats.backend == CALCJIT_BACKEND_JIT || strstr(note, "faster") != NULL) {
    CHECK(tiers.measured == 1);
    CHECK(tiers.items > 0 && tiers.vm_ns_per_item > 0.0 && tiers.jit_ns_per_item > 0.0);
    CHECK(tiers.chosen == stats.backend);
    CHECK((tiers.chosen == CALCJIT_BACKEND_JIT) == (tiers.jit_ns_per_item < tiers.vm_ns_per_item));
  }
  CHECK_FAILS(calcjit_engine_tiers(NULL, &tiers), CALCJIT_ERROR_USER);
  CHECK_FAILS(calcjit_engine_tiers(engine, NULL), CALCJIT_ERROR_USER);

  /* ---- Evaluation errors: nothing is written. */
  for (size_t i = 0; i < kItems; ++i) score[i] = -1.0f;
  CHECK_OK(calcjit_session_bind_input(session, "price", price, kItems - 1));
  CHECK_FAILS(calcjit_session_evaluate(session, kItems, NULL), CALCJIT_ERROR_USER);
  printf("wrong count: %s\n", calcjit_last_error());
  CHECK(strcmp(calcjit_last_error(), "input 'price' needs 7 floats for 7 items, got 6") == 0);
  CHECK(strcmp(calcjit_last_error_location(), "price") == 0);
  for (size_t i = 0; i < kItems; ++i) CHECK(score[i] == -1.0f);
  CHECK_FAILS(calcjit_session_output(session, "score", &out, &count), CALCJIT_ERROR_USER);
  CHECK_OK(calcjit_session_bind_input(session, "price", price, kItems));
  CHECK_FAILS(calcjit_session_bind_input(session, "nope", price, kItems), CALCJIT_ERROR_USER);
  printf("unknown input: %s\n", calcjit_last_error());
  CHECK_ERROR_HAS("'nope'");
  CHECK_FAILS(calcjit_session_bind_input(session, "price", NULL, 3), CALCJIT_ERROR_USER);
  CHECK_FAILS(calcjit_session_bind_output(session, "nope", score, kItems), CALCJIT_ERROR_USER);
  CHECK_FAILS(calcjit_session_output(session, "nope", &out, &count), CALCJIT_ERROR_USER);
  /* An output over an input. */
  CHECK_OK(calcjit_session_bind_output(session, "score", rating, kItems));
  CHECK_FAILS(calcjit_session_evaluate(session, kItems, NULL), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("shares memory");
  CHECK_OK(calcjit_session_bind_output(session, "score", score, kItems));
  /* Several queries: the query scalar needs one float per query. */
  CHECK_OK(calcjit_session_bind_input(many, "w", m_w, kQueries - 1));
  for (size_t i = 0; i < kTotal; ++i) m_score[i] = -1.0f;
  CHECK_FAILS(calcjit_session_evaluate_many(many, kQueries, items, NULL), CALCJIT_ERROR_USER);
  printf("wrong count, several queries: %s\n", calcjit_last_error());
  CHECK(strstr(calcjit_last_error(), "input 'w' needs 3 floats for 3 queries") != NULL);
  for (size_t i = 0; i < kTotal; ++i) CHECK(m_score[i] == -1.0f);
  CHECK_OK(calcjit_session_bind_input(many, "w", m_w, kQueries));
  CHECK_OK(calcjit_session_evaluate_many(many, kQueries, items, NULL));
  /* Zero queries check the lengths too: the item inputs must hold 0 items. */
  CHECK_FAILS(calcjit_session_evaluate_many(many, 0, NULL, NULL), CALCJIT_ERROR_USER);
  printf("zero queries, bindings of 12 items: %s\n", calcjit_last_error());
  CHECK(strcmp(calcjit_last_error(),
               "input 'price' needs 0 floats for 0 items in 0 queries, got 12") == 0);
  CHECK_FAILS(calcjit_session_output(many, "rk", &out, &count), CALCJIT_ERROR_USER);
  CHECK_OK(calcjit_engine_stats(engine, &stats));
  CHECK(stats.errors == 4); /* every call refused above, counted once each */

  /* ---- Reloads. A broken set keeps the version. */
  static const char broken[] = "input price; score = price * ;";
  CHECK_FAILS(
      calcjit_engine_reload_bytes(engine, broken, strlen(broken), CALCJIT_FORMAT_TEXT, &version),
      CALCJIT_ERROR_USER);
  CHECK(strncmp(calcjit_last_error_location(), "1:", 2) == 0);
  CHECK(calcjit_engine_version(engine) == 1);
  CHECK_OK(calcjit_session_evaluate(session, kItems, &version));
  CHECK(version == 1);

  /* A new schema: the sessions refuse to evaluate until rebound. */
  calcjit_set* changed = Parse(
      "input price; input rating; score = rating / (price + 1); "
      "rk = rank(price);");
  CHECK_OK(calcjit_engine_reload(engine, changed, &version));
  CHECK(version == 2 && calcjit_engine_version(engine) == 2);
  CHECK_FAILS(calcjit_session_evaluate(session, kItems, NULL), CALCJIT_ERROR_USER);
  printf("schema change: %s\n", calcjit_last_error());
  CHECK_ERROR_HAS("schema");
  CHECK_ERROR_HAS("rebind the session");
  CHECK_FAILS(calcjit_session_evaluate_many(many, kQueries, items, NULL), CALCJIT_ERROR_USER);
  printf("schema change, several queries: %s\n", calcjit_last_error());
  CHECK(strncmp(calcjit_last_error(), "the set was reloaded with a different schema", 44) == 0);
  CHECK_OK(calcjit_session_rebind(session));
  calcjit_schema* rebound = NULL;
  CHECK_OK(calcjit_session_schema(session, &rebound));
  CHECK(calcjit_schema_input_count(rebound) == 2);
  calcjit_schema_free(rebound);
  /* price, rating and score stay bound; w, e and u are gone. */
  CHECK_FAILS(calcjit_session_bind_input(session, "w", &w, 1), CALCJIT_ERROR_USER);
  CHECK_OK(calcjit_session_evaluate(session, kItems, &version));
  CHECK(version == 2);
  for (size_t i = 0; i < kItems; ++i) CHECK(Bits(score[i]) == Bits(rating[i] / (price[i] + 1.0f)));
  CHECK_OK(calcjit_engine_stats(engine, &stats));
  CHECK(stats.version == 2 && stats.evaluations == 1 && stats.items == kItems);

  /* ---- Clear: every binding is forgotten, then bound again. */
  CHECK_OK(calcjit_session_clear(session));
  CHECK_FAILS(calcjit_session_evaluate(session, kItems, NULL), CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("price");
  CHECK_OK(calcjit_session_bind_input(session, "price", price, kItems));
  CHECK_OK(calcjit_session_bind_input(session, "rating", rating, kItems));
  CHECK_OK(calcjit_session_bind_output(session, "score", score, kItems));

  /* ---- Shadow evaluations: a candidate that differs. */
  calcjit_set* candidate = Parse(
      "input price; input rating; score = rating / (price + 2); "
      "rk = rank(price);");
  CHECK_FAILS(calcjit_engine_set_shadow(engine, 2.0, CALCJIT_BACKEND_REFERENCE, NULL),
              CALCJIT_ERROR_USER);
  CHECK_OK(calcjit_engine_set_shadow(engine, 1.0, CALCJIT_BACKEND_REFERENCE, candidate));
  calcjit_set_free(candidate); /* the engine keeps what it needs */
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  CHECK_OK(calcjit_engine_drain_shadow(engine));
  const size_t mismatches = calcjit_engine_mismatch_count(engine);
  CHECK(mismatches > 0);
  calcjit_mismatch mismatch;
  CHECK_OK(calcjit_engine_mismatch(engine, 0, &mismatch));
  printf("%zu mismatches; first: %s[%zu] served 0x%08X, shadow 0x%08X (version %llu)\n", mismatches,
         mismatch.output, mismatch.item, (unsigned)mismatch.served_bits,
         (unsigned)mismatch.shadow_bits, (unsigned long long)mismatch.version);
  CHECK(strcmp(mismatch.output, "score") == 0 && mismatch.version == 2);
  CHECK(mismatch.item < kItems && mismatch.served_bits == Bits(score[mismatch.item]));
  CHECK(mismatch.shadow_bits == Bits(rating[mismatch.item] / (price[mismatch.item] + 2.0f)));
  CHECK_FAILS(calcjit_engine_mismatch(engine, mismatches, &mismatch), CALCJIT_ERROR_USER);
  CHECK_OK(calcjit_engine_stats(engine, &stats));
  CHECK(stats.shadow_evaluations == 1 && stats.mismatches > 0);
  /* The served set on the reference interpreter: the same bits, no new mismatch. */
  const uint64_t counted = stats.mismatches;
  CHECK_OK(calcjit_engine_set_shadow(engine, 1.0, CALCJIT_BACKEND_REFERENCE, NULL));
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  CHECK_OK(calcjit_engine_drain_shadow(engine));
  CHECK_OK(calcjit_engine_stats(engine, &stats));
  CHECK(stats.shadow_evaluations == 2 && stats.mismatches == counted);
  CHECK_OK(calcjit_engine_set_shadow(engine, 0.0, CALCJIT_BACKEND_REFERENCE, NULL));

  TestReloadDuringEvaluateMany();

  /* ---- Freeing: a session may outlive its engine. */
  calcjit_session_free(many);
  calcjit_engine_free(engine);
  CHECK_OK(calcjit_session_evaluate(session, kItems, &version));
  CHECK(version == 2);
  calcjit_session_free(session);
  calcjit_set_free(changed);
  calcjit_set_free(set);
  printf("capi_test: all checks passed\n");
  return 0;
}
