// One Python evaluate() call, for Engine and ServingEngine alike: the
// caller's numpy arrays are checked for what only Python has (dtypes,
// contiguity, the number and trailing size of an array's dimensions) and
// bound, with the GIL held; then every query is evaluated in one call of the
// runtime's many-query path, with the GIL released. The binding rules
// (lengths, inputs without a default, overlaps, zero items, zero queries) and
// their messages are the runtime's.
#ifndef CALCJIT_PYTHON_EVALUATION_H_
#define CALCJIT_PYTHON_EVALUATION_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "calcjit/calcjit.hpp"

namespace calcjit::python {

struct CallArguments {
  pybind11::object inputs;  // a mapping name -> array-like (or None)
  std::optional<std::size_t> item_count;
  pybind11::object offsets;  // None, or query boundaries (ints, ascending, 0 first, n last)
  pybind11::object out;      // None, or a mapping output name -> float32 array to write into
  bool copy = true;
  // Rows as input (engine.evaluate(X)): a float32 matrix whose column j is
  // input j, kept alive by the caller; inputs is None then.
  std::optional<MatrixView> rows;
};

// Where a call's bindings go and how its queries are evaluated: a Batch of an
// Engine, or a Session of a ServingEngine.
class EvaluationTarget {
 public:
  virtual ~EvaluationTarget() = default;
  virtual const Schema& schema() const = 0;
  virtual Status BindInput(std::string_view name, std::span<const float> values) = 0;
  virtual Status BindOutput(std::string_view name, std::span<float> values) = 0;
  virtual Status EvaluateQueries(std::span<const std::size_t> item_counts,
                                 const CancelCheck& cancelled) = 0;
};

class EngineTarget final : public EvaluationTarget {
 public:
  EngineTarget(const Engine& engine, Batch& batch) : engine_(engine), batch_(batch) {}
  const Schema& schema() const override { return engine_.schema(); }
  Status BindInput(std::string_view name, std::span<const float> values) override {
    return batch_.BindInput(name, values);
  }
  Status BindOutput(std::string_view name, std::span<float> values) override {
    return batch_.BindOutput(name, values);
  }
  Status EvaluateQueries(std::span<const std::size_t> item_counts,
                         const CancelCheck& cancelled) override {
    return engine_.EvaluateQueries(batch_, item_counts, cancelled);
  }

 private:
  const Engine& engine_;
  Batch& batch_;
};

class SessionTarget final : public EvaluationTarget {
 public:
  explicit SessionTarget(Session& session) : session_(session) {}
  const Schema& schema() const override { return session_.schema(); }
  Status BindInput(std::string_view name, std::span<const float> values) override {
    return session_.BindInput(name, values);
  }
  Status BindOutput(std::string_view name, std::span<float> values) override {
    return session_.BindOutput(name, values);
  }
  Status EvaluateQueries(std::span<const std::size_t> item_counts,
                         const CancelCheck& cancelled) override {
    return session_.EvaluateQueries(item_counts, cancelled);
  }

 private:
  Session& session_;
};

// Binds the call's arrays to `target` and evaluates every query; returns the
// outputs as a dict (in the target's order) of the caller's out= arrays or
// new float32 arrays. Input names that the target's schema lacks are an
// error (the runtime's) unless `ignorable` has them (inputs of the set that
// these outputs do not need). The GIL is released while the queries run;
// every 100 ms the call takes it back to let Python handle signals, and
// Ctrl-C stops it between two queries. Raises calcjit.Error, or the
// KeyboardInterrupt a signal handler raised. Needs the GIL; the target keeps
// spans over the arrays until the caller clears it.
// A new C-contiguous float32 array of `rows` x `columns` (0: 1-D), made with
// explicit strides (correct under numpy 1 and 2 whatever pybind11's version).
pybind11::array NewFloat32Array(std::size_t rows, std::size_t columns = 0);

pybind11::dict EvaluateCall(EvaluationTarget& target, const Schema* ignorable,
                            const CallArguments& arguments);

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_EVALUATION_H_
