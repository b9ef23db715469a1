// libFuzzer target, structure-aware: the fuzzer's bytes choose a VALID
// feature set and its input data (FuzzedDataProvider), and every backend on
// every instruction-set tier this CPU has must give the reference
// interpreter's bits (spec section 3), with every output NaN 0x7FC00000
// (spec section 1):
//   the VM on baseline, AVX2 and AVX-512, each with the default block size
//   and with a block size and a set of optimizer passes and VM steps
//   switched off that the bytes choose; the JIT on the same tiers.
//
// Operators come from the operator table (ir::kOpTable), so every row is
// reachable: a byte picks a row, and the row's kind, syntax, spelling and
// hooks (lhs_only, weighted) say how to write a call of it. The one kind left
// out is the model call, which no backend evaluates yet (ir::MakePlan refuses
// it). The set is written as fully parenthesized text; names are chosen so
// that the set is valid by construction (scalar inputs as operands, vector
// inputs of one dimension as vector operands, only earlier definitions
// referenced), so a set that does not parse or compile is a failure too.
//
// CALCJIT_FUZZ_JIT=0 in the environment leaves the JIT out (it compiles
// each set with LLVM, milliseconds rather than microseconds: a VM-only run
// covers many more sets per hour).
#include <fuzzer/FuzzedDataProvider.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "calcjit/engine.h"
#include "calcjit/feature_set.h"
#include "calcjit/numbers.h"
#include "ir/op.h"
#include "tests/fuzz/round_trip.h"

namespace calcjit::fuzz {
namespace {

constexpr std::uint32_t kCanonicalNan = 0x7FC00000u;
constexpr std::uint32_t kPoison = 0x7FA5A5A5u;  // a signaling NaN no output may keep

float FromBits(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}
std::uint32_t Bits(float value) {
  return std::bit_cast<std::uint32_t>(value);
}

// Values that make kernels take their unusual paths.
const float kSpecials[] = {0.0f,
                           -0.0f,
                           1.0f,
                           -1.0f,
                           0.5f,
                           2.0f,
                           -3.0f,
                           100.0f,
                           88.7f,
                           -103.9f,
                           1e-7f,
                           3e38f,
                           -3e38f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(),
                           FromBits(0xFFC00001u),
                           FromBits(0x7F800001u),
                           FromBits(0x00000001u),
                           FromBits(0x807FFFFFu),
                           16777217.0f,
                           0.1f};

float ChooseFloat(FuzzedDataProvider& p) {
  switch (p.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return FromBits(p.ConsumeIntegral<std::uint32_t>());
    case 1:
      return static_cast<float>(p.ConsumeIntegralInRange(-8, 8)) * 0.25f;
    default:
      return p.PickValueInArray(kSpecials);
  }
}

// A constant as text: the shortest decimal (calcjit::FormatNumber), in
// parentheses when negative so that it binds like an operand anywhere.
std::string ConstantText(float value) {
  const std::string text = FormatNumber(value);
  return text[0] == '-' ? "(" + text + ")" : text;
}

struct Input {
  std::string name;
  bool query = false;
  std::uint32_t dimension = 0;
  bool has_default = false;
  float default_value = 0.0f;
};

class SetWriter {
 public:
  explicit SetWriter(FuzzedDataProvider& p) : p_(p) {}

  // The whole set as text; fills inputs() and definitions().
  std::string Write() {
    vector_dimension_ = p_.PickValueInArray({1u, 2u, 3u, 8u, 9u, 16u, 17u});
    const int scalars = p_.ConsumeIntegralInRange(1, 4);
    for (int i = 0; i < scalars; ++i) {
      Input input{"x" + std::to_string(i)};
      input.query = p_.ConsumeIntegralInRange(0, 3) == 0;
      input.has_default = p_.ConsumeBool();
      if (input.has_default) input.default_value = ChooseFloat(p_);
      (input.query ? query_scalars_ : item_scalars_).push_back(inputs_.size());
      inputs_.push_back(input);
    }
    const int vectors = p_.ConsumeIntegralInRange(0, 3);
    for (int i = 0; i < vectors; ++i) {
      Input input{"v" + std::to_string(i)};
      input.query = p_.ConsumeIntegralInRange(0, 2) == 0;
      input.dimension = vector_dimension_;
      vectors_.push_back(inputs_.size());
      inputs_.push_back(input);
    }
    std::string text;
    for (const Input& input : inputs_) {
      text += "input " + input.name;
      if (input.query || input.dimension > 0) {
        text += std::string(": ") + (input.query ? "query" : "item");
        if (input.dimension > 0) text += "[" + std::to_string(input.dimension) + "]";
      }
      if (input.has_default) text += " = " + FormatNumber(input.default_value);
      text += ";\n";
    }
    const int definitions = p_.ConsumeIntegralInRange(1, 4);
    for (int d = 0; d < definitions; ++d) {
      budget_ = p_.ConsumeIntegralInRange(1, 40);
      const std::string expression = Expression(0);
      definitions_.push_back("f" + std::to_string(d));
      text += definitions_.back() + " = " + expression + ";\n";
    }
    return text;
  }

  const std::vector<Input>& inputs() const { return inputs_; }
  const std::vector<std::string>& definitions() const { return definitions_; }

 private:
  static constexpr int kMaxDepth = 10;

  std::string Leaf() {
    const int defined = static_cast<int>(definitions_.size());
    switch (p_.ConsumeIntegralInRange(0, 3)) {
      case 0:
        return ConstantText(ChooseFloat(p_));
      case 1:
        if (defined > 0) return definitions_[p_.ConsumeIntegralInRange(0, defined - 1)];
        [[fallthrough]];
      default: {
        const bool query = !query_scalars_.empty() && p_.ConsumeIntegralInRange(0, 3) == 0;
        const std::vector<std::size_t>& pool = query ? query_scalars_ : item_scalars_;
        if (pool.empty()) return ConstantText(ChooseFloat(p_));
        return inputs_[pool[p_.ConsumeIntegralInRange<std::size_t>(0, pool.size() - 1)]].name;
      }
    }
  }

  std::string VectorName() {
    return inputs_[vectors_[p_.ConsumeIntegralInRange<std::size_t>(0, vectors_.size() - 1)]].name;
  }

  std::string Operands(int count, int depth) {
    std::string text;
    for (int k = 0; k < count; ++k) text += (k > 0 ? ", " : "") + Expression(depth + 1);
    return text;
  }

  std::string Expression(int depth) {
    if (budget_ <= 0 || depth >= kMaxDepth || p_.ConsumeIntegralInRange(0, 4) == 0) {
      --budget_;
      return Leaf();
    }
    --budget_;
    const ir::OpInfo& info = ir::kOpTable[p_.ConsumeIntegralInRange(0, ir::kOpCount - 1)];
    const std::string spelling(info.spelling);
    if (info.optimizer_only) return Leaf();  // no spelling; top-k comes from rank comparisons
    switch (info.kind) {
      case ir::OpKind::kConstant:
      case ir::OpKind::kRef:
      case ir::OpKind::kModel:
        return Leaf();
      case ir::OpKind::kUnary:
        if (info.syntax == ir::Syntax::kPrefix) return "(" + spelling + Expression(depth + 1) + ")";
        return spelling + "(" + Expression(depth + 1) + ")";
      case ir::OpKind::kBinary:
        if (info.syntax == ir::Syntax::kCall) return spelling + "(" + Operands(2, depth) + ")";
        if (!info.call_spelling.empty() && p_.ConsumeBool()) {
          return std::string(info.call_spelling) + "(" + Operands(2, depth) + ")";
        }
        return "(" + Expression(depth + 1) + " " + spelling + " " + Expression(depth + 1) + ")";
      case ir::OpKind::kConditional:
        return spelling + "(" + Operands(3, depth) + ")";
      case ir::OpKind::kNary: {
        int count = p_.ConsumeIntegralInRange(1, 5);
        // Two operands of min/max are the Binary rows (LANGUAGE.md).
        if (count == 2 && (info.op == ir::Op::kNaryMin || info.op == ir::Op::kNaryMax)) count = 3;
        std::string weights;
        if (info.weighted) {
          weights = "[";
          for (int k = 0; k < count; ++k) {
            weights += (k > 0 ? ", " : "") + FormatNumber(ChooseFloat(p_));
          }
          weights += "], ";
        }
        return spelling + "(" + weights + Operands(count, depth) + ")";
      }
      case ir::OpKind::kVector:
        if (vectors_.empty()) return Leaf();
        if (info.lhs_only) return spelling + "(" + VectorName() + ")";
        return spelling + "(" + VectorName() + ", " + VectorName() + ")";
      case ir::OpKind::kAggregate:
        return spelling + "(" + Expression(depth + 1) + ")";
    }
    return Leaf();
  }

  FuzzedDataProvider& p_;
  std::uint32_t vector_dimension_ = 1;
  int budget_ = 0;
  std::vector<Input> inputs_;
  std::vector<std::size_t> item_scalars_, query_scalars_, vectors_;
  std::vector<std::string> definitions_;
};

// Input values: a few chosen by the bytes, the rest from a generator seeded
// by them, in one of several flavours (NaN-rich, small integers, raw bits).
class DataMaker {
 public:
  DataMaker(FuzzedDataProvider& p) : state_(p.ConsumeIntegral<std::uint64_t>()) {
    flavour_ = p.ConsumeIntegralInRange(0, 3);
  }
  float Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const auto low = static_cast<std::uint32_t>(z);
    switch (flavour_) {
      case 0:
        return kSpecials[(z >> 32) % std::size(kSpecials)];
      case 1:
        return static_cast<float>(static_cast<int>(low % 41) - 20) * 0.25f;
      case 2:
        return FromBits(low);
      default:
        return (z >> 60) == 0 ? std::numeric_limits<float>::quiet_NaN()
                              : static_cast<float>(static_cast<int>(low % 2001) - 1000) * 0.01f;
    }
  }

 private:
  std::uint64_t state_;
  int flavour_;
};

struct Outputs {
  std::vector<std::string> names;
  std::vector<std::vector<float>> values;
};

Outputs Run(const Engine& engine, const std::vector<Input>& inputs,
            const std::vector<std::vector<float>>& data, const std::vector<bool>& bound,
            std::size_t items, const std::string& what, const std::string& text) {
  Batch batch(engine);
  batch.SetItemCount(items);
  const Schema& schema = engine.schema();
  for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k].name != schema.inputs[i].name || !bound[k]) continue;
      const Status status = batch.BindInput(i, data[k]);
      if (!status.ok()) Fail(what + ": binding " + inputs[k].name + ": " + status.ToString(), text);
    }
  }
  // Odd outputs into the caller's poisoned buffers, even ones the batch's own.
  std::vector<std::vector<float>> buffers(schema.outputs.size());
  for (std::size_t k = 1; k < schema.outputs.size(); k += 2) {
    buffers[k].assign(items, FromBits(kPoison));
    const Status status = batch.BindOutput(k, buffers[k]);
    if (!status.ok()) Fail(what + ": binding output: " + status.ToString(), text);
  }
  const Status status = engine.Evaluate(batch);
  if (!status.ok()) Fail(what + ": evaluating: " + status.ToString(), text);
  Outputs out;
  out.names = schema.outputs;
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    const std::span<const float> values = batch.Output(k);
    out.values.emplace_back(values.begin(), values.end());
  }
  return out;
}

void Compare(const Outputs& expected, const Outputs& actual, const std::string& what,
             const std::string& text) {
  if (expected.names != actual.names) Fail(what + ": other outputs", text);
  for (std::size_t k = 0; k < expected.values.size(); ++k) {
    if (expected.values[k].size() != actual.values[k].size()) {
      Fail(what + ": output " + expected.names[k] + " has another length", text);
    }
    for (std::size_t i = 0; i < expected.values[k].size(); ++i) {
      const std::uint32_t want = Bits(expected.values[k][i]);
      const std::uint32_t got = Bits(actual.values[k][i]);
      if (want != got || (std::isnan(actual.values[k][i]) && got != kCanonicalNan)) {
        char detail[160];
        std::snprintf(detail, sizeof(detail), ": output %s, item %zu: expected 0x%08X, got 0x%08X",
                      expected.names[k].c_str(), i, want, got);
        Fail(what + detail, text);
      }
    }
  }
}

bool JitWanted() {
  const char* env = std::getenv("CALCJIT_FUZZ_JIT");
  return (env == nullptr || std::strcmp(env, "0") != 0) && IsBackendAvailable(Backend::kJit);
}

const std::vector<std::string> kPasses = {"cse",     "fold",  "simplify", "dce",
                                          "uniform", "reuse", "fuse",     "top_k"};

}  // namespace
}  // namespace calcjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace calcjit;
  using namespace calcjit::fuzz;
  static const bool jit = JitWanted();
  FuzzedDataProvider p(data, size);
  SetWriter writer(p);
  const std::string text = writer.Write();
  const std::vector<Input>& inputs = writer.inputs();

  // Outputs: every definition, or a subset in the order the bytes choose.
  std::vector<std::string> outputs;
  if (p.ConsumeBool()) {
    for (const std::string& name : writer.definitions()) {
      if (p.ConsumeBool()) outputs.push_back(name);
    }
  }
  const std::size_t items = p.PickValueInArray<std::size_t>({0, 1, 2, 7, 8, 9, 17, 64, 255, 1025});
  const std::uint32_t odd_block = p.PickValueInArray<std::uint32_t>({1, 3, 8, 13, 100, 257});
  std::vector<std::string> disabled;
  for (const std::string& pass : kPasses) {
    if (p.ConsumeIntegralInRange(0, 3) == 0) disabled.push_back(pass);
  }
  std::vector<std::vector<float>> values(inputs.size());
  std::vector<bool> bound(inputs.size(), true);
  DataMaker maker(p);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Input& input = inputs[k];
    if (input.has_default && p.ConsumeBool()) bound[k] = false;
    const std::size_t count =
        (input.query ? 1 : items) * (input.dimension > 0 ? input.dimension : 1);
    for (std::size_t i = 0; i < count; ++i) {
      values[k].push_back(p.remaining_bytes() >= 4 && p.ConsumeIntegralInRange(0, 7) == 0
                              ? ChooseFloat(p)
                              : maker.Next());
    }
  }

  const Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  if (!set.ok()) Fail("the generated set does not parse: " + set.status().ToString(), text);
  auto compile = [&](Backend backend, Isa isa, std::uint32_t block,
                     const std::vector<std::string>& off, const std::string& what) {
    EngineOptions options;
    options.backend = backend;
    options.outputs = outputs;
    options.isa = isa;
    options.block_size = block;
    options.disabled_passes = off;
    options.jit_parallel = false;
    Result<Engine> engine = Engine::Compile(*set, options);
    if (!engine.ok()) Fail(what + ": compiling: " + engine.status().ToString(), text);
    return std::move(engine).value();
  };
  const Engine reference = compile(Backend::kReference, Isa::kAuto, 0, {}, "reference");
  const Outputs expected = Run(reference, inputs, values, bound, items, "reference", text);
  for (const std::vector<float>& column : expected.values) {
    for (const float value : column) {
      if (std::isnan(value) && Bits(value) != kCanonicalNan) {
        Fail("the reference interpreter wrote a non-canonical NaN", text);
      }
    }
  }
  std::vector<std::string> vm_off = disabled;
  std::vector<std::string> jit_off = disabled;
  std::erase_if(jit_off, [](const std::string& s) { return s == "reuse" || s == "fuse"; });
  for (const Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsIsaSupported(isa)) continue;
    const std::string tier(IsaName(isa));
    Compare(expected,
            Run(compile(Backend::kVm, isa, 0, {}, "vm " + tier), inputs, values, bound, items,
                "vm " + tier, text),
            "vm " + tier, text);
    const std::string odd = "vm " + tier + " block " + std::to_string(odd_block) + " passes off";
    Compare(expected,
            Run(compile(Backend::kVm, isa, odd_block, vm_off, odd), inputs, values, bound, items,
                odd, text),
            odd, text);
    if (jit) {
      const std::string what = "jit " + tier;
      Compare(expected,
              Run(compile(Backend::kJit, isa, 0, jit_off, what), inputs, values, bound, items, what,
                  text),
              what, text);
    }
  }
  return 0;
}
