// The objects behind the C API's opaque handles (include/calcjit/calcjit.h):
// each wraps the C++ object it stands for and nothing else.
#ifndef CALCJIT_CAPI_HANDLES_H_
#define CALCJIT_CAPI_HANDLES_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calcjit/calcjit.h"
#include "calcjit/calcjit.hpp"

struct calcjit_set {
  explicit calcjit_set(calcjit::FeatureSet feature_set) : set(std::move(feature_set)) {}
  calcjit::FeatureSet set;
};

struct calcjit_schema {
  explicit calcjit_schema(calcjit::Schema copy) : schema(std::move(copy)) {}
  calcjit::Schema schema;
};

struct calcjit_engine {
  explicit calcjit_engine(calcjit::ServingEngine serving) : engine(std::move(serving)) {}
  calcjit::ServingEngine engine;
};

struct calcjit_session {
  explicit calcjit_session(const calcjit::ServingEngine& engine) : session(engine) {}
  // The bindings, the own output buffers and the many-query evaluation are
  // the Session's; the C API only remembers whether calcjit_session_output
  // has results to give.
  calcjit::Session session;
  bool has_results = false;
  // The floats of Arrow columns that had to be converted
  // (calcjit_session_bind_input_arrow), by input name: alive while bound.
  std::map<std::string, std::vector<float>, std::less<>> arrow_copies;
  // calcjit_session_bind_rows (capi/rows.cc): the caller's matrix, copied
  // into `columns` and bound at each evaluation.
  std::optional<calcjit::MatrixView> rows;
  calcjit::MatrixColumns columns;
};

#endif  // CALCJIT_CAPI_HANDLES_H_
