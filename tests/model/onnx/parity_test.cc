// The committed nets (tests/model/onnx/data, written by make_nets.py) against
// the bits the contract fixes, computed there by an independent numpy
// evaluator: the reference evaluator, then every tier of the block evaluator
// this CPU runs, at every n from 0 to the whole set of items (so every
// remainder of a block), on columns that start misaligned, with poisoned
// scratch, with outputs left out, and with the bytes around the outputs
// checked untouched.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "calcjit/cpu.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/net_model.h"
#include "model/onnx/reference_evaluator.h"
#include "tests/model/onnx/net_cases.h"

namespace calcjit::model::testing {
namespace {

constexpr float kCanary = 1234.5f;

std::vector<Isa> SupportedTiers() {
  std::vector<Isa> tiers;
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (IsIsaSupported(isa)) tiers.push_back(isa);
  }
  return tiers;
}

// Items [first, first + n) of the cases as columns starting `offset` floats
// into their buffers (so the evaluator sees misaligned columns).
struct Columns {
  std::vector<std::vector<float>> storage;
  std::vector<const float*> pointers;

  Columns(const NetCases& cases, std::size_t first, std::size_t n, std::size_t offset) {
    for (std::size_t k = 0; k < cases.features; ++k) {
      std::vector<float> column(offset + n + 1, kCanary);
      for (std::size_t i = 0; i < n; ++i) {
        column[offset + i] = cases.inputs[(first + i) * cases.features + k];
      }
      storage.push_back(std::move(column));
    }
    for (std::size_t k = 0; k < cases.features; ++k) pointers.push_back(storage[k].data() + offset);
  }
};

struct Outputs {
  std::size_t offset;
  std::size_t n;
  std::vector<std::vector<float>> storage;
  std::vector<float*> pointers;

  Outputs(std::size_t outputs, std::size_t n_items, std::size_t offset_floats,
          std::size_t skip = ~0u)
      : offset(offset_floats), n(n_items) {
    for (std::size_t j = 0; j < outputs; ++j) storage.emplace_back(offset + n + 2, kCanary);
    for (std::size_t j = 0; j < outputs; ++j) {
      pointers.push_back(j == skip ? nullptr : storage[j].data() + offset);
    }
  }
};

class NetParityTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    cases_ = ReadNetCases(GetParam());
    ASSERT_FALSE(cases_.name.empty()) << "malformed cases file " << GetParam();
    const std::string bytes = ReadFileBytes(DataDir() + "/" + cases_.model_file);
    auto loaded = LoadOnnxModel(bytes, cases_.model_file);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    model_ = *loaded;
  }

  // Every real output of [first, first + n) against the expected bits, and
  // the canaries around it untouched.
  void ExpectBits(const Outputs& outputs, std::size_t first, const std::string& what) const {
    for (std::size_t j = 0; j < cases_.outputs; ++j) {
      const std::vector<float>& column = outputs.storage[j];
      if (outputs.pointers[j] == nullptr) {
        for (float value : column) ASSERT_EQ(ToBits(value), ToBits(kCanary)) << what;
        continue;
      }
      for (std::size_t i = 0; i < outputs.offset; ++i)
        ASSERT_EQ(ToBits(column[i]), ToBits(kCanary));
      for (std::size_t i = 0; i < outputs.n; ++i) {
        const std::uint32_t want = cases_.expected[(first + i) * cases_.outputs + j];
        ASSERT_EQ(ToBits(column[outputs.offset + i]), want)
            << what << ": item " << first + i << " output " << j << ", got "
            << column[outputs.offset + i] << ", want " << FromBits(want);
      }
      for (std::size_t i = outputs.offset + outputs.n; i < column.size(); ++i) {
        ASSERT_EQ(ToBits(column[i]), ToBits(kCanary)) << what << ": wrote past n";
      }
    }
  }

  NetCases cases_;
  std::shared_ptr<const LoadedOnnxModel> model_;
};

TEST_P(NetParityTest, DescribesTheNetAsCheckPrintsIt) {
  EXPECT_EQ(model_->description, cases_.description);
  EXPECT_EQ(model_->info().num_features, cases_.features);
  EXPECT_EQ(model_->info().num_outputs, cases_.outputs);
}

TEST_P(NetParityTest, ReferenceGivesTheContractsBits) {
  const std::size_t n = cases_.items();
  Columns columns(cases_, 0, n, 0);
  Outputs outputs(cases_.outputs, n, 0);
  EvaluateReference(*model_->net, columns.pointers.data(), n, outputs.pointers.data());
  ExpectBits(outputs, 0, "reference");

  std::vector<float> row_out(cases_.outputs);
  for (std::size_t i = 0; i < n; ++i) {
    EvaluateReferenceRow(*model_->net, &cases_.inputs[i * cases_.features], row_out.data());
    for (std::size_t j = 0; j < cases_.outputs; ++j) {
      ASSERT_EQ(ToBits(row_out[j]), cases_.expected[i * cases_.outputs + j]) << "row " << i;
    }
  }
}

TEST_P(NetParityTest, EveryTierGivesTheContractsBitsForEveryN) {
  const std::size_t total = cases_.items();
  const std::size_t scratch_bytes = EvaluateScratchBytes(model_->prepared, total);
  for (Isa isa : SupportedTiers()) {
    // Poisoned scratch: nothing may depend on what the caller left there.
    std::vector<unsigned char> scratch(scratch_bytes + 64, 0xFF);
    for (std::size_t n = 0; n <= total; ++n) {
      const std::size_t first = (total - n) / 2;
      const std::size_t offset = n % 3;  // misaligned columns for most n
      Columns columns(cases_, first, n, offset);
      Outputs outputs(cases_.outputs, n, (n + 1) % 2);
      Evaluate(model_->prepared, columns.pointers.data(), n, outputs.pointers.data(),
               scratch.data() + (n % 2) * 4, isa);
      ExpectBits(outputs, first, std::string(IsaName(isa)) + " n=" + std::to_string(n));
      if (HasFatalFailure()) return;
    }
  }
}

TEST_P(NetParityTest, AnOutputLeftOutIsNotWritten) {
  const std::size_t n = cases_.items();
  Columns columns(cases_, 0, n, 0);
  std::vector<unsigned char> scratch(EvaluateScratchBytes(model_->prepared, n));
  for (Isa isa : SupportedTiers()) {
    Outputs outputs(cases_.outputs, n, 0, /*skip=*/0);
    Evaluate(model_->prepared, columns.pointers.data(), n, outputs.pointers.data(), scratch.data(),
             isa);
    ExpectBits(outputs, 0, std::string(IsaName(isa)) + " without output 0");
  }
}

// A prepared net is immutable: threads share it, each with its own scratch.
TEST_P(NetParityTest, ThreadsShareOnePreparedNet) {
  const std::size_t n = cases_.items();
  Columns columns(cases_, 0, n, 0);
  std::vector<Outputs> outputs;
  for (int t = 0; t < 4; ++t) outputs.emplace_back(cases_.outputs, n, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<unsigned char> scratch(EvaluateScratchBytes(model_->prepared, n));
      for (int round = 0; round < 50; ++round) {
        Evaluate(model_->prepared, columns.pointers.data(), n, outputs[t].pointers.data(),
                 scratch.data());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) ExpectBits(outputs[t], 0, "thread " + std::to_string(t));
}

std::vector<std::string> AllCases() {
  return CasesFiles();
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  return std::filesystem::path(info.param).stem().string();
}

INSTANTIATE_TEST_SUITE_P(Nets, NetParityTest, ::testing::ValuesIn(AllCases()), CaseName);

TEST(NetCasesTest, EveryCommittedNetHasCases) {
  // make_nets.py writes 19 nets; a missing file would silently shrink the suite.
  EXPECT_EQ(CasesFiles().size(), 19u);
}

}  // namespace
}  // namespace calcjit::model::testing
