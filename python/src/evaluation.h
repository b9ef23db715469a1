// One Python evaluate() call: the caller's numpy arrays checked against a
// schema and turned into spans (with the GIL held), then one or more queries
// evaluated over them (with the GIL released).
#ifndef CALCJIT_PYTHON_EVALUATION_H_
#define CALCJIT_PYTHON_EVALUATION_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"

namespace calcjit::python {

// How one input is bound for the whole call.
struct CallInput {
  std::size_t slot = 0;  // in the schema
  const InputInfo* info = nullptr;
  pybind11::array array;  // keeps the floats alive while the GIL is released
  const float* data = nullptr;
  std::size_t width = 1;   // floats per item (item inputs) or per query (query inputs)
  bool per_query = false;  // a query input with one row per query, not one for all
};

struct CallOutput {
  std::size_t slot = 0;
  pybind11::array array;
  float* data = nullptr;
};

// Every array of the call, checked. Queries are the item ranges
// [offsets[k], offsets[k + 1]).
struct Call {
  std::size_t item_count = 0;
  // The input the item count was taken from ("" when given by n= or a group).
  std::string item_count_source;
  std::vector<std::size_t> offsets;
  std::vector<CallInput> inputs;
  std::vector<CallOutput> outputs;

  std::size_t query_count() const { return offsets.size() - 1; }
  // The outputs as a dict, in schema order.
  pybind11::dict Results(const Schema& schema) const;
};

struct CallArguments {
  pybind11::object inputs;  // a mapping name -> array-like (or None)
  std::optional<std::size_t> item_count;
  pybind11::object offsets;  // None, or query boundaries (ints, ascending, 0 first, n last)
  pybind11::object out;      // None, or a mapping output name -> float32 array to write into
  bool copy = true;
};

// Checks the call against `schema` (what the engine reads and writes) and
// builds it; raises calcjit.Error naming the input or output at fault. Input
// names that are not in `schema` are an error unless `ignorable` has them
// (inputs of the set that these outputs do not need). Needs the GIL.
Call PrepareCall(const Schema& schema, const Schema* ignorable, const CallArguments& arguments);

// Runs the queries of `call` one after another: `evaluate(query)` binds and
// evaluates one query. Returns the first error, with the query named when
// there are several. Runs without the GIL; every 100 ms it takes the GIL to
// let Python handle signals (Ctrl-C), and stops with `interrupted` set when a
// handler raised (the Python error is then pending: raise it).
template <typename EvaluateQuery>
Status RunQueries(const Call& call, EvaluateQuery&& evaluate, bool& interrupted) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kSignalCheckInterval = std::chrono::milliseconds(100);
  auto last_check = Clock::now();
  interrupted = false;
  for (std::size_t query = 0; query < call.query_count(); ++query) {
    Status status = evaluate(query);
    if (!status.ok()) {
      if (call.query_count() == 1) return status;
      std::vector<Diagnostic> diagnostics = status.diagnostics();
      const std::string where = " (query " + std::to_string(query) + ", items " +
                                std::to_string(call.offsets[query]) + " to " +
                                std::to_string(call.offsets[query + 1]) + ")";
      for (Diagnostic& d : diagnostics) d.message += where;
      return Status::Errors(status.kind(), std::move(diagnostics));
    }
    if (Clock::now() - last_check >= kSignalCheckInterval) {
      pybind11::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        return Status::Ok();
      }
      last_check = Clock::now();
    }
  }
  return Status::Ok();
}

// The floats of `input` for one query.
std::span<const float> QueryInput(const Call& call, const CallInput& input, std::size_t query);
// The floats of an output for one query.
std::span<float> QueryOutput(const Call& call, const CallOutput& output, std::size_t query);

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_EVALUATION_H_
