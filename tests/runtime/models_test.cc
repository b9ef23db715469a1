// Models inside feature sets through the public API (spec section 6): every
// backend and tier against the library's recorded margins over batches that
// span several blocks and phases; model outputs feeding aggregates and
// aggregates feeding models; the model cache (a reload with unchanged models
// prepares nothing); reloads with changed and broken models; sets made from a
// model alone; and the bytes a set keeps to ship its models.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "runtime/model_loading.h"

namespace calcjit {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Rows of a .cases file: "inputs : outputs" as float32 bits.
struct Rows {
  std::vector<std::vector<float>> inputs;   // by feature
  std::vector<std::vector<float>> outputs;  // by output
};

Rows ReadRows(const fs::path& path) {
  Rows rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    auto words = [](const std::string& text) {
      std::vector<float> values;
      std::istringstream stream(text);
      std::string word;
      while (stream >> word) {
        values.push_back(
            std::bit_cast<float>(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16))));
      }
      return values;
    };
    const std::vector<float> in_row = words(line.substr(0, colon));
    const std::vector<float> out_row = words(line.substr(colon + 1));
    rows.inputs.resize(in_row.size());
    rows.outputs.resize(out_row.size());
    for (std::size_t j = 0; j < in_row.size(); ++j) rows.inputs[j].push_back(in_row[j]);
    for (std::size_t k = 0; k < out_row.size(); ++k) rows.outputs[k].push_back(out_row[k]);
  }
  return rows;
}

std::uint32_t Bits(float value) {
  return std::isnan(value) ? 0x7FC00000u : std::bit_cast<std::uint32_t>(value);
}

// Every backend, and every tier of the VM and the JIT this CPU has.
std::vector<EngineOptions> EveryTarget() {
  std::vector<EngineOptions> targets;
  EngineOptions reference;
  reference.backend = Backend::kReference;
  targets.push_back(reference);
  for (Backend backend : {Backend::kVm, Backend::kJit}) {
    if (!IsBackendAvailable(backend)) continue;
    for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
      if (!IsIsaSupported(isa)) continue;
      EngineOptions options;
      options.backend = backend;
      options.isa = isa;
      targets.push_back(options);
    }
  }
  EngineOptions small_blocks;
  small_blocks.backend = Backend::kVm;
  small_blocks.block_size = 8;
  targets.push_back(small_blocks);
  return targets;
}

std::string Describe(const EngineOptions& options) {
  return std::string(BackendName(options.backend)) + "/" + std::string(IsaName(options.isa)) +
         "/block " + std::to_string(options.block_size);
}

class ModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("calcjit_models_test_" +
               std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
    fs::copy_file(fs::path(CALCJIT_MODEL_DATA_DIR) / "multi_softprob.json", folder_ / "m.json");
    fs::copy_file(fs::path(CALCJIT_MODEL_DATA_DIR) / "reg_squarederror.json", folder_ / "r.json");
  }
  void TearDown() override { fs::remove_all(folder_); }

  Result<FeatureSet> Parse(const std::string& text) {
    LoadOptions options;
    options.model_root = folder_.string();
    return FeatureSet::Parse(text, Format::kText, options);
  }

  fs::path folder_;
};

// The recorded rows repeated to a batch of several blocks and an odd tail.
Rows Repeat(const Rows& rows, std::size_t n) {
  Rows big;
  big.inputs.resize(rows.inputs.size());
  big.outputs.resize(rows.outputs.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = (i * 7) % rows.inputs[0].size();
    for (std::size_t j = 0; j < rows.inputs.size(); ++j) big.inputs[j].push_back(rows.inputs[j][r]);
    for (std::size_t k = 0; k < rows.outputs.size(); ++k)
      big.outputs[k].push_back(rows.outputs[k][r]);
  }
  return big;
}

TEST_F(ModelsTest, EveryBackendAndTierGivesXgboostsMargins) {
  const Rows rows =
      Repeat(ReadRows(fs::path(CALCJIT_MODEL_DATA_DIR) / "multi_softprob.cases"), 2501);
  const Result<FeatureSet> set = Parse(
      "model m = xgboost(\"m.json\");\n"
      "c0 = model(m, a, b, c, d, e)[0];\n"
      "c3 = model(m, a, b, c, d, e)[3];\n"
      // After an aggregate: the model runs in a later phase.
      "best = rank(model(m, a, b, c, d, e)[1]);\n"
      "c2 = model(m, a, b, c, d, e)[2];\n");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const std::size_t n = rows.inputs[0].size();
  std::vector<std::uint32_t> reference_rank;
  ASSERT_GE(EveryTarget().size(), 4u);  // reference, VM and JIT at least at baseline, small blocks
  for (const EngineOptions& target : EveryTarget()) {
    SCOPED_TRACE(Describe(target));
    const Result<Engine> engine = Engine::Compile(*set, target);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Batch batch(*engine);
    batch.SetItemCount(n);
    const char* names[] = {"a", "b", "c", "d", "e"};
    for (std::size_t j = 0; j < 5; ++j) ASSERT_TRUE(batch.BindInput(names[j], rows.inputs[j]).ok());
    const Status evaluated = engine->Evaluate(batch);
    ASSERT_TRUE(evaluated.ok()) << evaluated.ToString();
    const std::pair<const char*, std::size_t> checks[] = {{"c0", 0}, {"c2", 2}, {"c3", 3}};
    for (const auto& [name, k] : checks) {
      const Result<std::span<const float>> output = batch.Output(name);
      ASSERT_TRUE(output.ok());
      const std::span<const float> got = *output;
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(Bits(got[i]), Bits(rows.outputs[k][i])) << name << " item " << i;
      }
    }
    const Result<std::span<const float>> best = batch.Output("best");
    ASSERT_TRUE(best.ok());
    const std::span<const float> rank = *best;
    std::vector<std::uint32_t> rank_bits;
    for (float r : rank) rank_bits.push_back(Bits(r));
    if (reference_rank.empty()) {
      reference_rank = rank_bits;
    } else {
      EXPECT_EQ(rank_bits, reference_rank);
    }
  }
}

TEST_F(ModelsTest, AggregatesAndQueryInputsFeedAModel) {
  const Result<FeatureSet> set = Parse(
      "input q: query;\n"
      "model r = xgboost(\"r.json\");\n"
      "z = zscore(x);\n"
      "s = model(r, z, q, x * 2, 1, -x)[0];\n");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  std::vector<float> x;
  for (int i = 0; i < 777; ++i) x.push_back(i % 13 == 0 ? NAN : static_cast<float>(i % 29) / 7 - 2);
  const float q = 0.25f;
  std::vector<std::uint32_t> reference;
  for (const EngineOptions& target : EveryTarget()) {
    SCOPED_TRACE(Describe(target));
    const Result<Engine> engine = Engine::Compile(*set, target);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Batch batch(*engine);
    batch.SetItemCount(x.size());
    ASSERT_TRUE(batch.BindInput("x", x).ok());
    ASSERT_TRUE(batch.BindInput("q", std::span<const float>(&q, 1)).ok());
    ASSERT_TRUE(engine->Evaluate(batch).ok());
    std::vector<std::uint32_t> bits;
    const Result<std::span<const float>> s = batch.Output("s");
    ASSERT_TRUE(s.ok());
    for (float v : *s) bits.push_back(Bits(v));
    if (reference.empty()) {
      reference = bits;
      // Not a constant: the model sees each item's row.
      EXPECT_NE(std::count(bits.begin(), bits.end(), bits[1]), static_cast<long>(bits.size()));
    } else {
      EXPECT_EQ(bits, reference);
    }
  }
}

TEST_F(ModelsTest, UnchangedModelsAreNotPreparedAgain) {
  const std::string text = "model r = xgboost(\"r.json\");\ns = model(r, a, b, c, d, e)[0];\n";
  const Result<FeatureSet> first = Parse(text);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::uint64_t loads = internal::ModelLoadCount();
  // Another set over the same model bytes, and the same set again.
  ASSERT_TRUE(Parse(text + "t = s + 1;\n").ok());
  ASSERT_TRUE(Parse(text).ok());
  EXPECT_EQ(internal::ModelLoadCount(), loads);
  // Changed bytes (here only a trailing space) are read and prepared again.
  { std::ofstream(folder_ / "r.json", std::ios::app) << ' '; }
  ASSERT_TRUE(Parse(text).ok());
  EXPECT_EQ(internal::ModelLoadCount(), loads + 1);
}

TEST_F(ModelsTest, ReloadsFollowTheModelFiles) {
  const std::string text = "model r = xgboost(\"r.json\");\ns = model(r, a, b, c, d, e)[0];\n";
  LoadOptions load;
  load.model_root = folder_.string();
  Result<ServingEngine> serving = ServingEngine::Load(text, Format::kText, {}, load);
  ASSERT_TRUE(serving.ok()) << serving.status().ToString();
  const std::uint64_t loads = internal::ModelLoadCount();
  ASSERT_TRUE(serving->Reload(text, Format::kText, load).ok());
  EXPECT_EQ(internal::ModelLoadCount(), loads) << "an unchanged model was prepared again";
  // A broken model file: the reload fails naming the file, version 2 serves on.
  { std::ofstream(folder_ / "r.json") << "{\"learner\": "; }
  const Result<std::uint64_t> broken = serving->Reload(text, Format::kText, load);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().ToString().find("r.json"), std::string::npos)
      << broken.status().ToString();
  EXPECT_EQ(serving->version(), 2u);
  // Without a model root, a set from bytes says what is missing.
  const Result<std::uint64_t> rootless = serving->Reload(text, Format::kText);
  ASSERT_FALSE(rootless.ok());
  EXPECT_NE(rootless.status().ToString().find("no model root"), std::string::npos);
  // The model's bytes by name instead of a file.
  const std::string bytes = Slurp(fs::path(CALCJIT_MODEL_DATA_DIR) / "reg_squarederror.json");
  LoadOptions by_bytes;
  by_bytes.model_bytes["r"] = bytes;
  ASSERT_TRUE(serving->Reload(text, Format::kText, by_bytes).ok());
  EXPECT_EQ(serving->version(), 3u);
}

TEST_F(ModelsTest, AModelOnItsOwn) {
  const Result<FeatureSet> set = FeatureSet::ReadModel((folder_ / "m.json").string());
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  std::vector<std::string> outputs;
  for (const std::string& output : set->schema().outputs) outputs.push_back(output);
  EXPECT_EQ(outputs, (std::vector<std::string>{"margin_0", "margin_1", "margin_2", "margin_3"}));
  ASSERT_EQ(set->schema().inputs.size(), 5u);
  EXPECT_EQ(set->schema().inputs[0].name, "f0");
  const Rows rows = ReadRows(fs::path(CALCJIT_MODEL_DATA_DIR) / "multi_softprob.cases");
  const Result<Engine> engine = Engine::Compile(*set);
  ASSERT_TRUE(engine.ok());
  Batch batch(*engine);
  batch.SetItemCount(rows.inputs[0].size());
  for (std::size_t j = 0; j < 5; ++j) ASSERT_TRUE(batch.BindInput(j, rows.inputs[j]).ok());
  ASSERT_TRUE(engine->Evaluate(batch).ok());
  for (std::size_t k = 0; k < 4; ++k) {
    for (std::size_t i = 0; i < rows.inputs[0].size(); ++i) {
      ASSERT_EQ(Bits(batch.Output(k)[i]), Bits(rows.outputs[k][i]));
    }
  }
  // What it declares, and the bytes it keeps to ship the model.
  const std::vector<DeclaredModel> models = set->Models();
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].name, "model");
  EXPECT_EQ(models[0].output_count, 4u);
  EXPECT_EQ(set->ModelBytes(0), Slurp(folder_ / "m.json"));
  EXPECT_TRUE(set->ModelBytes(1).empty());
  // An unknown extension: the content tells (an XGBoost file starts with
  // its learner), or the caller names the format.
  fs::copy_file(folder_ / "m.json", folder_ / "m.model");
  EXPECT_TRUE(FeatureSet::ReadModel((folder_ / "m.model").string()).ok());
  EXPECT_TRUE(
      FeatureSet::ReadModel((folder_ / "m.model").string(), ModelFormat::kXgboostJson).ok());
  { std::ofstream(folder_ / "unknown.bin") << "neither extension nor content says"; }
  Result<FeatureSet> unknown = FeatureSet::ReadModel((folder_ / "unknown.bin").string());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("name it"), std::string::npos)
      << unknown.status().message();
}

// Regression (issue 26, cause 2): a model file of 15 bytes or fewer fits in a
// std::string's own buffer, and a view taken before the string moved pointed
// into a dead stack frame: the reader saw other bytes (wrong messages) and so
// did the model cache's hash. Read from a file, every short prefix of a
// model must give the message its bytes give when handed over directly.
TEST_F(ModelsTest, ShortModelFilesAreReadFromTheirOwnBytes) {
  const std::string xgboost = R"({"learner": {"gradient_booster": 1}})";
  const std::string lightgbm = "tree\nversion=v4\nnum_class=1\n";
  for (const auto& [format, extension, text] :
       {std::tuple{"xgboost", ".json", xgboost}, std::tuple{"lightgbm", ".txt", lightgbm}}) {
    for (std::size_t n = 1; n <= 20; ++n) {
      const std::string bytes = text.substr(0, n);
      const std::string file = std::string("short") + extension;
      std::ofstream(folder_ / file, std::ios::binary) << bytes;
      const std::string set =
          "model m = " + std::string(format) + "(\"" + file + "\");\nf = model(m, a)[0];\n";
      const Result<FeatureSet> from_file = Parse(set);
      LoadOptions given;
      given.model_bytes["m"] = bytes;
      const Result<FeatureSet> from_bytes = FeatureSet::Parse(set, Format::kText, given);
      ASSERT_FALSE(from_file.ok()) << format << " " << n;
      ASSERT_FALSE(from_bytes.ok()) << format << " " << n;
      EXPECT_EQ(from_file.status().ToString(), from_bytes.status().ToString())
          << format << ", the first " << n << " bytes";
    }
  }
}

TEST_F(ModelsTest, ASetReadWithoutModelsPrintsButDoesNotCompile) {
  LoadOptions options;
  options.load_models = false;
  const std::string text = "model r = xgboost(\"nowhere.json\");\ns = model(r, a)[0];\n";
  const Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText, options);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_NE(set->ToText().find("model(r, a)[0]"), std::string::npos);
  const Result<Engine> engine = Engine::Compile(*set);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().ToString().find("not loaded"), std::string::npos);
}

}  // namespace
}  // namespace calcjit
