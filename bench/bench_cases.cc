#include "bench/bench_cases.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "bench/manual.h"

namespace calcjit::bench {

namespace {

// The mode name of each backend: "evaluated" is what the original study
// called the reference interpreter. A new backend is one more row.
struct BackendMode {
  Backend backend;
  const char* mode;
};
constexpr BackendMode kBackendModes[] = {
    {Backend::kReference, "evaluated"},
    {Backend::kVm, "vm"},
    {Backend::kJit, "jit"},
};

bool SameBits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

std::string DescribeMismatch(const char* what, std::size_t item, float expected, float actual) {
  char buffer[200];
  std::snprintf(buffer, sizeof(buffer), "%s, item %zu: %.9g (0x%08x) instead of %.9g (0x%08x)",
                what, item, static_cast<double>(actual), std::bit_cast<std::uint32_t>(actual),
                static_cast<double>(expected), std::bit_cast<std::uint32_t>(expected));
  return buffer;
}

std::vector<float> UniformColumn(const UniformInput& input, std::size_t n) {
  example::ExampleRng rng(example::StreamSeed(kDataSeed, input.name));
  std::vector<float> column(n);
  // lo + (hi - lo) * u can round up to hi; keep the range half-open.
  const float below_hi = std::nextafter(input.hi, input.lo);
  for (float& v : column) v = std::min(rng.UniformFloat(input.lo, input.hi), below_hi);
  return column;
}

// A seed formula, its inputs generated once; the manual loop's output is the
// expected result of every mode.
class SeedWorkload final : public Workload {
 public:
  SeedWorkload(const SeedCase& seed_case, std::size_t n) : case_(seed_case), n_(n) {
    for (const UniformInput& input : seed_case.inputs) {
      columns_.push_back(UniformColumn(input, n));
      pointers_.push_back(columns_.back().data());
    }
    output_.assign(n, 0.0f);
    expected_.assign(n, 0.0f);
    case_.manual(pointers_, expected_.data(), n);
  }

  Status Bind(const Mode& mode) {
    if (!mode.backend) {
      loop_ = mode.name == "native" ? case_.native : case_.manual;
      return Status::Ok();
    }
    Result<FeatureSet> set = FeatureSet::Parse(case_.text, Format::kText);
    if (!set.ok()) return set.status();
    EngineOptions options;
    options.backend = *mode.backend;
    options.outputs = {case_.output};
    Result<Engine> engine = Engine::Compile(*set, options);
    if (!engine.ok()) return engine.status();
    engine_.emplace(std::move(engine).value());
    batch_.emplace(*engine_);
    batch_->SetItemCount(n_);
    for (std::size_t k = 0; k < columns_.size(); ++k) {
      CALCJIT_RETURN_IF_ERROR(batch_->BindInput(case_.inputs[k].name, columns_[k]));
    }
    return batch_->BindOutput(case_.output, output_);
  }

  Status Run() override {
    if (!engine_) {
      loop_(pointers_, output_.data(), n_);
      return Status::Ok();
    }
    return engine_->Evaluate(*batch_);
  }

  std::string Check() override {
    for (std::size_t i = 0; i < n_; ++i) {
      if (!SameBits(expected_[i], output_[i])) {
        return DescribeMismatch(case_.output, i, expected_[i], output_[i]);
      }
    }
    return "";
  }

  std::size_t item_count() const override { return n_; }

 private:
  const SeedCase& case_;
  // The hand-written loop a manual mode runs.
  void (*loop_)(std::span<const float* const>, float*, std::size_t) = nullptr;
  std::size_t n_;
  std::vector<std::vector<float>> columns_;
  std::vector<const float*> pointers_;
  std::vector<float> output_;
  std::vector<float> expected_;
  std::optional<Engine> engine_;
  std::optional<Batch> batch_;
};

// A feature set of the source tree, read at run time (so that editing it
// needs no rebuild).
struct SetCase {
  const char* path;  // or, when null, `text`
  // The largest share of non-finite values, over every output and item,
  // that the reference interpreter may give; 1 checks nothing. The large
  // set is generated to be finite except for a few features that hold NaN
  // for "missing" on purpose, so a larger share means the set or the data
  // generator broke and the benchmark would time NaN arithmetic.
  double max_non_finite_share;
  const char* text = nullptr;
};

constexpr SetCase kRankingSet = {CALCJIT_EXAMPLE_SET_PATH, 1.0};
constexpr SetCase kLargeSet = {CALCJIT_LARGE_SET_PATH, 0.01};
constexpr SetCase kRankingLike30Set = {CALCJIT_RANKING_LIKE_30_PATH, 1.0};
// The statistics the example set takes of its columns, six of them over one
// column; x is the example data's generic input (uniform in [0, 1)).
constexpr SetCase kStatisticsSet = {nullptr, 1.0,
                                    "input x;\n"
                                    "x_mean = batch_mean(x);\n"
                                    "x_std = batch_std(x);\n"
                                    "x_z = zscore(x);\n"
                                    "x_mm = min_max_scale(x);\n"
                                    "x_min = batch_min(x);\n"
                                    "x_max = batch_max(x);\n"};

// A set, every output, on one generated query; outputs stay in the batch's
// own buffers (reused across evaluations).
class SetWorkload final : public Workload {
 public:
  static Result<std::unique_ptr<Workload>> Make(const SetCase& set_case, Backend backend,
                                                std::size_t n,
                                                std::vector<std::string> disabled_passes = {}) {
    Result<FeatureSet> set = set_case.path != nullptr
                                 ? FeatureSet::ReadFile(set_case.path, Format::kText)
                                 : FeatureSet::Parse(set_case.text, Format::kText);
    if (!set.ok()) return set.status();
    EngineOptions options;
    options.backend = backend;
    options.disabled_passes = std::move(disabled_passes);
    Result<Engine> engine = Engine::Compile(*set, options);
    if (!engine.ok()) return engine.status();
    auto workload = std::unique_ptr<SetWorkload>(
        new SetWorkload(set_case, std::move(engine).value(), n, backend == Backend::kReference));
    CALCJIT_RETURN_IF_ERROR(example::BindExampleQuery(workload->query_, workload->batch_));
    if (backend != Backend::kReference) {
      // The expected bits: the reference interpreter on the same data.
      options.backend = Backend::kReference;
      Result<Engine> reference = Engine::Compile(*set, options);
      if (!reference.ok()) return reference.status();
      Batch batch(*reference);
      CALCJIT_RETURN_IF_ERROR(example::BindExampleQuery(workload->query_, batch));
      CALCJIT_RETURN_IF_ERROR(reference->Evaluate(batch));
      for (std::size_t k = 0; k < reference->schema().outputs.size(); ++k) {
        const std::span<const float> column = batch.Output(k);
        workload->expected_.emplace_back(column.begin(), column.end());
      }
    }
    return std::unique_ptr<Workload>(std::move(workload));
  }

  Status Run() override { return engine_.Evaluate(batch_); }

  std::string Check() override {
    const Schema& schema = engine_.schema();
    if (is_reference_ && case_.path == nullptr) return "";  // nothing known to check
    if (is_reference_) {
      const std::optional<std::size_t> score = schema.FindOutput("score");
      if (!score) return std::string(case_.path) + " has no output 'score'";
      const std::span<const float> values = batch_.Output(*score);
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!(values[i] >= 0.0f && values[i] <= 1.0f)) {
          return DescribeMismatch("score is not in [0, 1]", i, 0.5f, values[i]);
        }
      }
      return CheckFinite();
    }
    for (std::size_t k = 0; k < expected_.size(); ++k) {
      const std::span<const float> values = batch_.Output(k);
      for (std::size_t i = 0; i < values.size(); ++i) {
        // The contract's NaN is always 0x7FC00000, so bits compare NaNs too.
        if (!SameBits(expected_[k][i], values[i])) {
          return DescribeMismatch(schema.outputs[k].c_str(), i, expected_[k][i], values[i]);
        }
      }
    }
    return "";
  }

  std::size_t item_count() const override { return query_.item_count; }

 private:
  SetWorkload(const SetCase& set_case, Engine engine, std::size_t n, bool is_reference)
      : case_(set_case),
        engine_(std::move(engine)),
        batch_(engine_),
        query_(example::GenerateExampleQuery(engine_.schema(), n, kDataSeed)),
        is_reference_(is_reference) {}

  std::string CheckFinite() const {
    if (case_.max_non_finite_share >= 1.0) return "";
    std::size_t non_finite = 0;
    std::size_t total = 0;
    const std::size_t outputs = engine_.schema().outputs.size();
    for (std::size_t k = 0; k < outputs; ++k) {
      const std::span<const float> values = batch_.Output(k);
      for (const float value : values) non_finite += std::isfinite(value) ? 0 : 1;
      total += values.size();
    }
    const double share =
        total == 0 ? 0.0 : static_cast<double>(non_finite) / static_cast<double>(total);
    if (share <= case_.max_non_finite_share) return "";
    char buffer[160];
    std::snprintf(buffer, sizeof(buffer),
                  "%zu of %zu output values (%.2f%%) are NaN or infinite; at most %.2f%% allowed",
                  non_finite, total, 100.0 * share, 100.0 * case_.max_non_finite_share);
    return buffer;
  }

  const SetCase& case_;
  Engine engine_;
  Batch batch_;
  example::ExampleQuery query_;
  bool is_reference_;
  std::vector<std::vector<float>> expected_;  // by output; backends other than the reference
};

}  // namespace

std::vector<Mode> AvailableModes() {
  std::vector<Mode> modes = {Mode{"manual", std::nullopt}, Mode{"native", std::nullopt}};
  for (const BackendMode& row : kBackendModes) {
    if (IsBackendAvailable(row.backend)) modes.push_back(Mode{row.mode, row.backend});
  }
  return modes;
}

std::optional<Mode> FindMode(std::string_view name) {
  for (const Mode& mode : AvailableModes()) {
    if (mode.name == name) return mode;
  }
  return std::nullopt;
}

std::vector<float> RankColumn(std::string_view shape, std::size_t n) {
  std::vector<float> column(n);
  example::ExampleRng rng(7);
  for (float& value : column) {
    const float uniform = rng.UniformFloat();
    if (shape == "prices") {
      value = 1.0f + 999.0f * uniform * uniform;
    } else if (shape == "counts") {
      value = static_cast<float>(static_cast<int>(uniform * 50.0f));
    } else {  // "signed_nan": a tenth missing
      value = uniform < 0.1f ? std::numeric_limits<float>::quiet_NaN() : (uniform - 0.55f) * 3.0f;
    }
  }
  return column;
}

const std::vector<SeedCase>& SeedCases() {
  static const std::vector<SeedCase> cases = {
      {"Qux",
       "f_qux",
       "input f_foo;\n"
       "input f_bar;\n"
       "input f_baz;\n"
       "f_qux = f_foo / (f_bar + f_baz);\n",
       {{"f_foo", 1.0f, 100.0f}, {"f_bar", 1.0f, 10.0f}, {"f_baz", 20.0f, 30.0f}},
       &baseline::Qux,
       &native::Qux},
      {"Sum10",
       "s",
       "input x0; input x1; input x2; input x3; input x4;\n"
       "input x5; input x6; input x7; input x8; input x9;\n"
       "s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9;\n",
       {{"x0", 0.0f, 1.0f},
        {"x1", 0.0f, 1.0f},
        {"x2", 0.0f, 1.0f},
        {"x3", 0.0f, 1.0f},
        {"x4", 0.0f, 1.0f},
        {"x5", 0.0f, 1.0f},
        {"x6", 0.0f, 1.0f},
        {"x7", 0.0f, 1.0f},
        {"x8", 0.0f, 1.0f},
        {"x9", 0.0f, 1.0f}},
       &baseline::Sum10,
       &native::Sum10},
  };
  return cases;
}

const SeedCase* FindSeedCase(std::string_view name) {
  for (const SeedCase& seed_case : SeedCases()) {
    if (seed_case.name == name) return &seed_case;
  }
  return nullptr;
}

Result<std::unique_ptr<Workload>> MakeSeedWorkload(const SeedCase& seed_case, const Mode& mode,
                                                   std::size_t n) {
  auto workload = std::make_unique<SeedWorkload>(seed_case, n);
  CALCJIT_RETURN_IF_ERROR(workload->Bind(mode));
  return std::unique_ptr<Workload>(std::move(workload));
}

Result<std::unique_ptr<Workload>> MakeRankingWorkload(const Mode& mode, std::size_t n) {
  if (!mode.backend) return UserError("the ranking set has no manual version");
  return SetWorkload::Make(kRankingSet, *mode.backend, n);
}

Result<std::unique_ptr<Workload>> MakeRankingWorkloadUnshared(const Mode& mode, std::size_t n) {
  if (!mode.backend) return UserError("the ranking set has no manual version");
  return SetWorkload::Make(kRankingSet, *mode.backend, n, {"statistics"});
}

Result<std::unique_ptr<Workload>> MakeStatisticsWorkload(const Mode& mode, std::size_t n,
                                                         bool share_statistics) {
  if (!mode.backend) return UserError("the statistics set has no manual version");
  std::vector<std::string> off;
  if (!share_statistics) off.push_back("statistics");
  return SetWorkload::Make(kStatisticsSet, *mode.backend, n, std::move(off));
}

Result<std::unique_ptr<Workload>> MakeLargeWorkload(const Mode& mode, std::size_t n) {
  if (!mode.backend) return UserError("the large set has no manual version");
  return SetWorkload::Make(kLargeSet, *mode.backend, n);
}

Result<std::unique_ptr<Workload>> MakeRankingLike30Workload(const Mode& mode, std::size_t n) {
  if (!mode.backend) return UserError("ranking_like_30 has no manual version");
  return SetWorkload::Make(kRankingLike30Set, *mode.backend, n);
}

namespace {

Result<std::string> ReadText(const char* path) {
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open()) return UserError(std::string("cannot open ") + path);
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) return UserError(std::string("cannot read ") + path);
  return text.str();
}

}  // namespace

Result<std::string> ReadLargeSetText() {
  return ReadText(kLargeSet.path);
}
Result<std::string> ReadRankingSetText() {
  return ReadText(kRankingSet.path);
}

}  // namespace calcjit::bench
