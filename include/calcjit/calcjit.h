/* calcjit: the stable C API (C11 and C++).
 *
 * Wraps the C++ serving API (calcjit/serving.h): a calcjit_engine is a
 * ServingEngine (versions swapped by reload, tiering from the VM to the JIT,
 * shadow evaluations), a calcjit_session is one thread's Session (which
 * evaluates one or several queries per call). docs/C_API.md is the guide.
 *
 * Conventions:
 * - Every fallible function returns a calcjit_status. On failure,
 *   calcjit_last_error() and calcjit_last_error_location() describe it (per
 *   thread); every successful call clears them.
 * - Functions that return a count, a version or a string return 0 or NULL
 *   for a NULL handle or an index out of range, and then set the last error.
 * - `out` parameters are written only on success, except that a handle
 *   `out` (calcjit_xxx** out) is set to NULL on failure.
 * - NULL handles and pointers are errors (CALCJIT_ERROR_USER), never crashes;
 *   the *_free functions accept NULL.
 * - No C++ exception ever leaves a calcjit function.
 */
#ifndef CALCJIT_CALCJIT_H_
#define CALCJIT_CALCJIT_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CALCJIT_API __attribute__((visibility("default")))
#else
#define CALCJIT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; calcjit_version_string() is the library's. */
#define CALCJIT_VERSION_MAJOR 0
#define CALCJIT_VERSION_MINOR 1
#define CALCJIT_VERSION_PATCH 0
#define CALCJIT_VERSION_STRING "0.1.0"

/* Opaque handles. */
typedef struct calcjit_set calcjit_set;         /* a parsed, checked feature set; immutable */
typedef struct calcjit_engine calcjit_engine;   /* a served set, reloadable; shared by threads */
typedef struct calcjit_session calcjit_session; /* one thread's bindings and results */
typedef struct calcjit_schema calcjit_schema;   /* a copy of a schema; immutable */

/* Who has to act on an error. */
typedef enum calcjit_status {
  CALCJIT_OK = 0,
  CALCJIT_ERROR_USER = 1,    /* the set, the data or the call is wrong */
  CALCJIT_ERROR_RUNTIME = 2, /* the environment failed: I/O, memory */
  CALCJIT_ERROR_INTERNAL = 3 /* a bug in calcjit */
} calcjit_status;

typedef enum calcjit_format {
  CALCJIT_FORMAT_TEXT = 0,  /* .calc */
  CALCJIT_FORMAT_JSON = 1,  /* the proto3 JSON mapping */
  CALCJIT_FORMAT_PROTO = 2, /* binary protobuf */
  /* Not a format: makes the type as wide as an int, so that any int a caller
   * passes is a value of it (and is refused with an error, not undefined). */
  CALCJIT_FORMAT_INT_ = 0x7FFFFFFF
} calcjit_format;

typedef enum calcjit_backend {
  CALCJIT_BACKEND_REFERENCE = 0,
  CALCJIT_BACKEND_VM = 1,
  CALCJIT_BACKEND_JIT = 2,
  CALCJIT_BACKEND_AUTO = 3, /* the VM at once, the JIT when its background compilation is done */
  CALCJIT_BACKEND_INT_ = 0x7FFFFFFF /* not a backend: as wide as an int (see calcjit_format) */
} calcjit_backend;

typedef enum calcjit_scope {
  CALCJIT_SCOPE_ITEM = 0, /* a value (or vector) per item */
  CALCJIT_SCOPE_QUERY = 1 /* a value (or vector) per query */
} calcjit_scope;

/* ------------------------------------------------------------------------ */
/* The Arrow C Data Interface: the two structs every Arrow implementation
 * shares (pyarrow, polars, Arrow Java and C++, DuckDB, ...), defined as the
 * Arrow specification ("The Arrow C data interface") defines them, under the
 * specification's own guard, so that a program that also includes Arrow's
 * header (or another copy of these lines) gets one definition. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  /* Array type description */
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  /* Release callback */
  void (*release)(struct ArrowSchema*);
  /* Opaque producer-specific data */
  void* private_data;
};

struct ArrowArray {
  /* Array data description */
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  /* Release callback */
  void (*release)(struct ArrowArray*);
  /* Opaque producer-specific data */
  void* private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* ------------------------------------------------------------------------ */
/* Errors and version */

/* The first diagnostic's message of the last failed call on this thread; ""
 * when the last call succeeded. Valid until the next calcjit call on this
 * thread. */
CALCJIT_API const char* calcjit_last_error(void);
/* Where that error is: "line:column" in text, a field path for JSON and
 * protobuf ("features[3].expression"), "byte 17", or an input or output name
 * at evaluation; "" when none. */
CALCJIT_API const char* calcjit_last_error_location(void);
/* Every diagnostic of the last failed call, one per line, each as
 * "location: message" (a set check reports every problem it finds). */
CALCJIT_API const char* calcjit_last_error_details(void);

/* The library's version, e.g. "0.1.0" (static storage). */
CALCJIT_API const char* calcjit_version_string(void);
/* "reference", "vm", "jit", "auto"; NULL for a value out of range (static storage). */
CALCJIT_API const char* calcjit_backend_name(calcjit_backend backend);

/* ------------------------------------------------------------------------ */
/* Feature sets */

/* Parses and checks a set from `size` bytes (not NUL-terminated). */
CALCJIT_API calcjit_status calcjit_set_parse(const void* data, size_t size, calcjit_format format,
                                             calcjit_set** out);
/* A model's bytes by the model's name in the set (`model NAME = ...`). */
typedef struct calcjit_model_bytes {
  const char* name; /* UTF-8, NUL-terminated */
  const void* data;
  size_t size;
} calcjit_model_bytes;

/* The same, with the set's models (contract section 6.1): each model's bytes
   from `models` (`model_count` entries; the bytes need only live during the
   call), else its file under `model_root` (NULL: none). Paths that are
   absolute or leave the root are refused. */
CALCJIT_API calcjit_status calcjit_set_parse_with_models(const void* data, size_t size,
                                                         calcjit_format format,
                                                         const char* model_root,
                                                         const calcjit_model_bytes* models,
                                                         size_t model_count, calcjit_set** out);
/* Reads a file; the format comes from the extension (.calc, .json, .pb, .binpb).
   The set's models are read from the file's folder. */
CALCJIT_API calcjit_status calcjit_set_read_file(const char* path, calcjit_set** out);
CALCJIT_API void calcjit_set_free(calcjit_set* set);
/* A trained model on its own as a set ("load a model and predict",
 * FeatureSet::FromModel): its inputs are the model's features (named as its
 * file names them, else f0, f1, ...), its outputs the model's outputs, named as
 * its library names them (margin, raw_score, output; _0, _1, ... when
 * several). `format` is a name of calcjit_model_format_name ("xgboost",
 * "lightgbm", ...), or NULL to tell it from the bytes' content. */
CALCJIT_API calcjit_status calcjit_set_from_model(const void* data, size_t size, const char* format,
                                                  calcjit_set** out);
/* The same from a file; with `format` NULL, from its content or extension.
 * Errors name the file. */
CALCJIT_API calcjit_status calcjit_set_read_model(const char* path, const char* format,
                                                  calcjit_set** out);
/* The model formats calcjit reads (include/calcjit/model_formats.def), by the
 * names the text syntax and every frontend use; NULL beyond the count (static
 * storage). */
CALCJIT_API size_t calcjit_model_format_count(void);
CALCJIT_API const char* calcjit_model_format_name(size_t index);
/* The set's schema: declared inputs in order, then implicit ones; every definition. */
CALCJIT_API calcjit_status calcjit_set_schema(const calcjit_set* set, calcjit_schema** out);

/* ------------------------------------------------------------------------ */
/* Schemas */

typedef struct calcjit_input_info {
  const char* name; /* valid while the schema lives */
  calcjit_scope scope;
  uint32_t dimension; /* 0: a scalar; d > 0: a vector of d floats */
  int has_default;
  float default_value; /* 0 when has_default is 0 */
  int declared;        /* 0 for an implicit input (used, never declared: typos show up here) */
} calcjit_input_info;

CALCJIT_API size_t calcjit_schema_input_count(const calcjit_schema* schema);
CALCJIT_API calcjit_status calcjit_schema_input(const calcjit_schema* schema, size_t index,
                                                calcjit_input_info* out);
CALCJIT_API size_t calcjit_schema_output_count(const calcjit_schema* schema);
/* NULL if out of range; valid while the schema lives. */
CALCJIT_API const char* calcjit_schema_output_name(const calcjit_schema* schema, size_t index);
CALCJIT_API void calcjit_schema_free(calcjit_schema* schema);

/* ------------------------------------------------------------------------ */
/* Engines */

typedef struct calcjit_options {
  calcjit_backend backend;    /* AUTO tiers VM -> JIT; a named backend is pinned */
  const char* const* outputs; /* the outputs to compute, in order; NULL/0: every definition */
  size_t output_count;
  const char* isa; /* NULL or "auto", "x86-64", "avx2", "avx512" */
} calcjit_options;

/* Backend AUTO, every output, the best instruction set of the CPU. */
CALCJIT_API void calcjit_options_init(calcjit_options* options);

/* Compiles `set` as version 1. The engine keeps what it needs of `set`: the
 * set may be freed at once. `options` NULL: the defaults. */
CALCJIT_API calcjit_status calcjit_engine_create(const calcjit_set* set,
                                                 const calcjit_options* options,
                                                 calcjit_engine** out);
/* Compiles a new version and swaps it in; evaluations already running finish
 * on their version. On error the current version keeps serving. `version`
 * (may be NULL) receives the new version. */
CALCJIT_API calcjit_status calcjit_engine_reload(calcjit_engine* engine, const calcjit_set* set,
                                                 uint64_t* version);
CALCJIT_API calcjit_status calcjit_engine_reload_bytes(calcjit_engine* engine, const void* data,
                                                       size_t size, calcjit_format format,
                                                       uint64_t* version);
/* Sessions may outlive their engine (they keep the served versions alive). */
CALCJIT_API void calcjit_engine_free(calcjit_engine* engine);
/* The version serving now; 0 for a NULL engine. */
CALCJIT_API uint64_t calcjit_engine_version(const calcjit_engine* engine);
/* The current version's schema (only the inputs the requested outputs need). */
CALCJIT_API calcjit_status calcjit_engine_schema(const calcjit_engine* engine,
                                                 calcjit_schema** out);
/* Waits until the current version's background JIT compilation, if any, is done. */
CALCJIT_API calcjit_status calcjit_engine_wait_for_jit(const calcjit_engine* engine);

/* Counters of the current version since it was loaded. */
typedef struct calcjit_stats {
  uint64_t version;
  calcjit_backend backend; /* what serves it now (never AUTO) */
  int jit_pending;         /* its JIT compilation is still running */
  double parse_ms, vm_compile_ms, jit_compile_ms;
  uint64_t evaluations; /* one per query */
  uint64_t items;
  uint64_t errors; /* calls the engine refused: bad bindings, a schema change (docs/C_API.md) */
  uint64_t shadow_evaluations, shadow_dropped, mismatches;
} calcjit_stats;

CALCJIT_API calcjit_status calcjit_engine_stats(const calcjit_engine* engine, calcjit_stats* out);
/* Why the JIT does not serve the current version, or "". A thread-local copy,
 * valid until the next calcjit_engine_backend_note call on this thread. NULL
 * for a NULL engine. */
CALCJIT_API const char* calcjit_engine_backend_note(const calcjit_engine* engine);

/* Tier choice (docs/SERVING.md): with AUTO, once the JIT has compiled the
 * current version, a background thread times the VM and the JIT on one
 * synthetic batch of the version's shape and the JIT serves only if it was
 * faster. measured is 0 until then (and for a pinned backend). */
typedef struct calcjit_tiers {
  int measured;
  size_t items; /* items in the batch timed */
  double vm_ns_per_item, jit_ns_per_item;
  calcjit_backend chosen; /* VM or JIT */
  /* The timings and the choice in words, or why nothing was timed. Valid
   * until the next calcjit_engine_tiers call on this thread. */
  const char* note;
} calcjit_tiers;

CALCJIT_API calcjit_status calcjit_engine_tiers(const calcjit_engine* engine, calcjit_tiers* out);

/* Shadow evaluations: a `fraction` (0 to 1) of the evaluations (queries) is
 * also computed by `backend` (REFERENCE: the oracle) from the served set, or
 * from `candidate` when not NULL (it may be freed afterwards), on a thread of
 * the engine's, and compared bit for bit. 0 switches them off. */
CALCJIT_API calcjit_status calcjit_engine_set_shadow(calcjit_engine* engine, double fraction,
                                                     calcjit_backend backend,
                                                     const calcjit_set* candidate);
/* Waits until every shadow evaluation sampled so far has been compared. */
CALCJIT_API calcjit_status calcjit_engine_drain_shadow(const calcjit_engine* engine);
/* How many mismatches are recorded (the first 32; stats.mismatches counts all). */
CALCJIT_API size_t calcjit_engine_mismatch_count(const calcjit_engine* engine);

typedef struct calcjit_mismatch {
  uint64_t version;
  const char* output; /* valid until the next calcjit_engine_mismatch call on this thread */
  size_t item;        /* the item's index within its query */
  uint32_t served_bits, shadow_bits;
} calcjit_mismatch;

CALCJIT_API calcjit_status calcjit_engine_mismatch(const calcjit_engine* engine, size_t index,
                                                   calcjit_mismatch* out);

/* ------------------------------------------------------------------------ */
/* Sessions: one thread at a time each */

/* A session for the engine's current version's schema. */
CALCJIT_API calcjit_status calcjit_session_create(const calcjit_engine* engine,
                                                  calcjit_session** out);
CALCJIT_API void calcjit_session_free(calcjit_session* session);
/* The schema the session's bindings are for. */
CALCJIT_API calcjit_status calcjit_session_schema(const calcjit_session* session,
                                                  calcjit_schema** out);

/* Binds the caller's memory (never copied; it must stay valid while the
 * session evaluates with it). Lengths are checked by evaluate: see below.
 * `data` may be NULL only when `count` is 0. Binding a name again replaces it.
 * An output that is not bound goes to a buffer the session owns. */
CALCJIT_API calcjit_status calcjit_session_bind_input(calcjit_session* session, const char* name,
                                                      const float* data, size_t count);
CALCJIT_API calcjit_status calcjit_session_bind_output(calcjit_session* session, const char* name,
                                                       float* data, size_t count);
/* The same for a buffer of `capacity` floats that may be longer than a call
 * needs: each evaluation uses its first floats, as many as it needs, and fails
 * if it has fewer (for a caller that binds a buffer once and evaluates
 * different item counts with it). A query input bound so holds one value (or
 * vector) per query. */
CALCJIT_API calcjit_status calcjit_session_bind_input_prefix(calcjit_session* session,
                                                             const char* name, const float* data,
                                                             size_t capacity);
CALCJIT_API calcjit_status calcjit_session_bind_output_prefix(calcjit_session* session,
                                                              const char* name, float* data,
                                                              size_t capacity);
/* Binds an input to a column of Arrow data (the C Data Interface above),
 * borrowed: calcjit reads `array` and `schema` but never moves them and never
 * calls their release callbacks; the array's buffers must stay valid while the
 * session evaluates with the binding (as for calcjit_session_bind_input).
 * `array` holds one entry per item (an item input: N entries for the call's N
 * items) or per query (a query input: one entry for every query, or one per
 * query). A scalar input takes a numeric array; a vector input of dimension d
 * a fixed-size list of d numbers (format "+w:d").
 * Read in place, with no copy: float32 (format "f", or a fixed-size list of
 * float32 for a vector) without nulls (null_count 0, or no validity buffer)
 * at a 4-byte aligned address. Converted once into a buffer the session owns
 * (kept until the name is bound again, calcjit_session_clear or free): every
 * other numeric format (int8..int64, uint8..uint64, float64, bool; values of
 * float64 beyond the float32 range are refused, as the CSV reader refuses
 * them) and any array with nulls, whose null entries become NaN (missing), as
 * an empty CSV cell does. Other formats (strings, dictionaries, lists of
 * another size, ...) are refused with an error naming the format.
 * `copied` (may be NULL) receives 1 when the values were converted, 0 when
 * they are read in place. */
CALCJIT_API calcjit_status calcjit_session_bind_input_arrow(calcjit_session* session,
                                                            const char* name,
                                                            const struct ArrowArray* array,
                                                            const struct ArrowSchema* schema,
                                                            int* copied);
/* Rows as input (calcjit/matrix.h): binds the schema's inputs, in order (each
 * must be an item scalar; for a set from calcjit_set_from_model, the model's
 * features), to the columns of a row-major matrix: item i's value of input j
 * is data[i * row_stride + j] (row_stride >= columns, in floats). Like a prefix
 * binding it may hold more rows than a call needs (`row_capacity`): each
 * evaluation reads its first N rows (N: the call's items, every query's
 * concatenated), copied into the session's columns then (so the memory must
 * stay valid while the session evaluates with it), and fails if there are
 * fewer. At evaluation it replaces any binding of those inputs by name.
 * calcjit_session_clear forgets it. */
CALCJIT_API calcjit_status calcjit_session_bind_rows(calcjit_session* session, const float* data,
                                                     size_t row_capacity, size_t columns,
                                                     size_t row_stride);
/* Forgets every binding: unbound inputs take their defaults again, outputs go
 * to the session's own buffers. */
CALCJIT_API calcjit_status calcjit_session_clear(calcjit_session* session);
/* Accepts the current version's schema after a reload changed it; keeps the
 * bindings whose names it still has. */
CALCJIT_API calcjit_status calcjit_session_rebind(calcjit_session* session);

/* One query of `item_count` items: evaluate_many with one query. Bound
 * lengths: item scalar n floats, item vector n*d (row-major), query scalar 1,
 * query vector d; an output n. `item_count` 0 is a query like any other: its
 * bindings are checked (an input without a default must be bound) and nothing
 * is computed. `version` (may be NULL) receives the version that computed the
 * results. */
CALCJIT_API calcjit_status calcjit_session_evaluate(calcjit_session* session, size_t item_count,
                                                    uint64_t* version);
/* `query_count` queries in one call, each evaluated on its own (aggregates
 * such as rank see one query's items). With N = the sum of item_counts:
 * item inputs and outputs hold the queries' items concatenated (N floats, or
 * N*d row-major); a query scalar holds one float for every query or one per
 * query (query_count floats), a query vector d floats for every query or d
 * per query. Every binding is checked before the first query runs: on error
 * nothing is written. Every query runs on the version serving when the call
 * starts, the one reported. query_count 0 computes nothing: the lengths are
 * checked (N = 0), item_counts may be NULL, every output has 0 items, and
 * `version` is the version serving. */
CALCJIT_API calcjit_status calcjit_session_evaluate_many(calcjit_session* session,
                                                         size_t query_count,
                                                         const size_t* item_counts,
                                                         uint64_t* version);
/* An output of the last successful evaluate(_many): the caller's buffer when
 * bound, else the session's own (valid until the next evaluate, rebind or
 * free). `count` is the total item count. An error after a failed
 * evaluation, a rebind, or before any evaluation. */
CALCJIT_API calcjit_status calcjit_session_output(const calcjit_session* session, const char* name,
                                                  const float** data, size_t* count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALCJIT_CALCJIT_H_ */
