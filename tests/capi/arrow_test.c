/* calcjit_session_bind_input_arrow from C11: Arrow arrays built by hand, as
 * any producer of the C Data Interface builds them. float32 without nulls is
 * read in place (the test changes the buffer after binding and sees the new
 * results); nulls, other numbers and vectors with nulls are converted once,
 * nulls becoming NaN; other formats are refused with the format's name.
 * Exits 0 when every check passes, else 1 at the first failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calcjit/calcjit.h"

static void Fail(int line, const char* what) {
  fprintf(stderr, "arrow_test.c:%d: check failed: %s\n  last error: \"%s\"\n", line, what,
          calcjit_last_error());
  exit(1);
}

#define CHECK(cond)                     \
  do {                                  \
    if (!(cond)) Fail(__LINE__, #cond); \
  } while (0)
#define CHECK_OK(call) CHECK((call) == CALCJIT_OK)
#define CHECK_ERROR_HAS(text) CHECK(strstr(calcjit_last_error(), (text)) != NULL)

static uint32_t Bits(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
}

/* A producer's release callback: these arrays own nothing, it only marks
 * them released (calcjit must never call it: the test checks). */
static int released_count = 0;
static void ReleaseArray(struct ArrowArray* array) {
  ++released_count;
  array->release = NULL;
}
static void ReleaseSchema(struct ArrowSchema* schema) {
  ++released_count;
  schema->release = NULL;
}

static struct ArrowSchema Schema(const char* format) {
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  schema.format = format;
  schema.flags = ARROW_FLAG_NULLABLE;
  schema.release = ReleaseSchema;
  return schema;
}

/* A primitive array of `length` values from `offset` of `values`;
 * `validity` NULL means no nulls. */
static struct ArrowArray Primitive(const void** buffers, const void* validity, const void* values,
                                   int64_t length, int64_t offset, int64_t null_count) {
  struct ArrowArray array;
  memset(&array, 0, sizeof array);
  buffers[0] = validity;
  buffers[1] = values;
  array.length = length;
  array.offset = offset;
  array.null_count = null_count;
  array.n_buffers = 2;
  array.buffers = buffers;
  array.release = ReleaseArray;
  return array;
}

static const char kSet[] =
    "input x;\n"
    "input e: item[2];\n"
    "input u: query[2];\n"
    "y = x * 2 + dot(e, u);\n";

int main(void) {
  calcjit_set* set = NULL;
  CHECK_OK(calcjit_set_parse(kSet, strlen(kSet), CALCJIT_FORMAT_TEXT, &set));
  calcjit_engine* engine = NULL;
  CHECK_OK(calcjit_engine_create(set, NULL, &engine));
  calcjit_session* session = NULL;
  CHECK_OK(calcjit_session_create(engine, &session));

  enum { kItems = 4 };
  /* Offset 1: the array's values are x_values[1..4]. */
  float x_values[kItems + 1] = {100.0f, 1.0f, 2.0f, 3.0f, 4.0f};
  const float e_values[kItems * 2] = {1, 0, 0, 1, 1, 1, 2, -1};
  const float u_values[2] = {10.0f, 100.0f};
  const void* x_buffers[2];
  const void* e_child_buffers[2];
  const void* e_buffers[1] = {NULL};
  const void* u_child_buffers[2];
  const void* u_buffers[1] = {NULL};

  struct ArrowSchema x_schema = Schema("f");
  struct ArrowArray x = Primitive(x_buffers, NULL, x_values, kItems, 1, 0);

  /* e: fixed_size_list<float32>[2], one list per item. */
  struct ArrowSchema e_item_schema = Schema("f");
  struct ArrowSchema* e_children[1] = {&e_item_schema};
  struct ArrowSchema e_schema = Schema("+w:2");
  e_schema.n_children = 1;
  e_schema.children = e_children;
  struct ArrowArray e_child = Primitive(e_child_buffers, NULL, e_values, kItems * 2, 0, 0);
  struct ArrowArray* e_array_children[1] = {&e_child};
  struct ArrowArray e;
  memset(&e, 0, sizeof e);
  e.length = kItems;
  e.n_buffers = 1;
  e.buffers = e_buffers;
  e.n_children = 1;
  e.children = e_array_children;
  e.release = ReleaseArray;

  /* u: one list for every query. */
  struct ArrowSchema u_schema = e_schema;
  struct ArrowArray u_child = Primitive(u_child_buffers, NULL, u_values, 2, 0, 0);
  struct ArrowArray* u_array_children[1] = {&u_child};
  struct ArrowArray u = e;
  u.length = 1;
  u.buffers = u_buffers;
  u.children = u_array_children;

  int copied = -1;
  CHECK_OK(calcjit_session_bind_input_arrow(session, "x", &x, &x_schema, &copied));
  CHECK(copied == 0);
  CHECK_OK(calcjit_session_bind_input_arrow(session, "e", &e, &e_schema, &copied));
  CHECK(copied == 0);
  CHECK_OK(calcjit_session_bind_input_arrow(session, "u", &u, &u_schema, &copied));
  CHECK(copied == 0);
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  const float* y = NULL;
  size_t count = 0;
  CHECK_OK(calcjit_session_output(session, "y", &y, &count));
  CHECK(count == kItems);
  for (size_t i = 0; i < kItems; ++i) {
    const float expected = x_values[i + 1] * 2.0f +
                           (e_values[2 * i] * u_values[0] + e_values[2 * i + 1] * u_values[1]);
    CHECK(Bits(y[i]) == Bits(expected));
  }
  /* Read in place: a change to the Arrow buffer shows in the next evaluation. */
  x_values[1] = 50.0f;
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  CHECK_OK(calcjit_session_output(session, "y", &y, &count));
  CHECK(Bits(y[0]) == Bits(50.0f * 2.0f + 10.0f));
  printf("float32 without nulls: read in place (scalar, item vector, query vector)\n");

  /* Nulls, in a copy: the validity bits 0b11011 from offset 1 are items
   * 1,0,1,1: item 1 is null and becomes NaN. */
  const uint8_t validity = 0x1B;
  x = Primitive(x_buffers, &validity, x_values, kItems, 1, 1);
  CHECK_OK(calcjit_session_bind_input_arrow(session, "x", &x, &x_schema, &copied));
  CHECK(copied == 1);
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  CHECK_OK(calcjit_session_output(session, "y", &y, &count));
  CHECK(!isnan(y[0]) && isnan(y[1]) && !isnan(y[2]) && !isnan(y[3]));
  x_values[1] = 60.0f; /* a copy: no longer seen */
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  CHECK_OK(calcjit_session_output(session, "y", &y, &count));
  CHECK(Bits(y[0]) == Bits(50.0f * 2.0f + 10.0f));
  printf("float32 with nulls: converted, nulls are NaN\n");

  /* int64 and float64: converted, correctly rounded like a CSV cell. */
  const int64_t ints[kItems] = {16777217, -3, 0, 7};
  struct ArrowSchema l_schema = Schema("l");
  x = Primitive(x_buffers, NULL, ints, kItems, 0, 0);
  CHECK_OK(calcjit_session_bind_input_arrow(session, "x", &x, &l_schema, &copied));
  CHECK(copied == 1);
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  CHECK_OK(calcjit_session_output(session, "y", &y, &count));
  CHECK(Bits(y[0]) == Bits(16777216.0f * 2.0f + 10.0f));
  const double doubles[kItems] = {0.1, 1e39, 2.0, 3.0};
  struct ArrowSchema g_schema = Schema("g");
  x = Primitive(x_buffers, NULL, doubles, kItems, 0, 0);
  CHECK(calcjit_session_bind_input_arrow(session, "x", &x, &g_schema, &copied) ==
        CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("beyond the float32 range");
  x = Primitive(x_buffers, NULL, doubles, 1, 0, 0);
  CHECK(calcjit_session_bind_input_arrow(session, "x", &x, &g_schema, &copied) == CALCJIT_OK);
  printf("int64 and float64: converted; float64 beyond float32 refused\n");

  /* Refused: strings, a list of the wrong size, an unknown input, a released array. */
  struct ArrowSchema utf8_schema = Schema("u");
  CHECK(calcjit_session_bind_input_arrow(session, "x", &x, &utf8_schema, NULL) ==
        CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("format 'u'");
  struct ArrowSchema w3_schema = e_schema;
  w3_schema.format = "+w:3";
  CHECK(calcjit_session_bind_input_arrow(session, "e", &e, &w3_schema, NULL) == CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("'+w:2'");
  CHECK(calcjit_session_bind_input_arrow(session, "nope", &x, &x_schema, NULL) ==
        CALCJIT_ERROR_USER);
  CHECK(calcjit_session_bind_input_arrow(session, "x", NULL, &x_schema, NULL) ==
        CALCJIT_ERROR_USER);
  struct ArrowArray released = x;
  released.release = NULL;
  CHECK(calcjit_session_bind_input_arrow(session, "x", &released, &x_schema, NULL) ==
        CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("released");
  printf("strings, wrong list sizes, unknown inputs, released arrays: refused\n");

  /* A vector with a null row: the whole row is NaN, in a copy. */
  const uint8_t rows_valid = 0x0B; /* rows 0,1,3 */
  e.buffers = e_buffers;
  e_buffers[0] = &rows_valid;
  e.null_count = 1;
  x = Primitive(x_buffers, NULL, x_values, kItems, 1, 0);
  CHECK_OK(calcjit_session_bind_input_arrow(session, "x", &x, &x_schema, &copied));
  CHECK_OK(calcjit_session_bind_input_arrow(session, "e", &e, &e_schema, &copied));
  CHECK(copied == 1);
  CHECK_OK(calcjit_session_evaluate(session, kItems, NULL));
  CHECK_OK(calcjit_session_output(session, "y", &y, &count));
  CHECK(!isnan(y[0]) && !isnan(y[1]) && isnan(y[2]) && !isnan(y[3]));
  printf("vector with a null row: that row is NaN\n");

  /* A list that declares nulls but has no buffer array: its validity was
     read through a null pointer (seen while writing the arrow_input fuzz
     target), now refused. */
  struct ArrowArray no_buffers = e;
  no_buffers.buffers = NULL;
  CHECK(calcjit_session_bind_input_arrow(session, "e", &no_buffers, &e_schema, NULL) ==
        CALCJIT_ERROR_USER);
  CHECK_ERROR_HAS("not a valid fixed-size list");
  printf("a list without its buffer array: refused\n");

  CHECK(released_count == 0); /* borrowed: calcjit never released anything */
  calcjit_session_free(session);
  calcjit_engine_free(engine);
  calcjit_set_free(set);
  printf("arrow_test: ok\n");
  return 0;
}
