// The reader on valid files: what it takes from them (the info `calcjit
// check` prints, the steps), the forms exporters write (initializers listed
// as graph inputs, float_data or raw_data, Gemm's C broadcast), and the
// content hash.
#include <gtest/gtest.h>

#include <string>

#include "model/content_hash.h"
#include "model/onnx/net_model.h"
#include "model/onnx/reader.h"
#include "tests/model/onnx/net_cases.h"

namespace calcjit::model::testing {
namespace {

Result<OnnxNet> ReadData(const std::string& file) {
  return ReadOnnx(ReadFileBytes(DataDir() + "/" + file), file);
}

TEST(OnnxReaderTest, ReadsTheRankingMlpExportedByPyTorch) {
  Result<OnnxNet> net = ReadData("ranking_mlp.onnx");
  ASSERT_TRUE(net.ok()) << net.status().ToString();
  const NetInfo& info = net->info;
  EXPECT_EQ(info.num_features, 64u);
  EXPECT_EQ(info.num_outputs, 1u);
  EXPECT_EQ(info.num_parameters, 16641u);
  EXPECT_EQ(info.opset, 13);
  EXPECT_EQ(info.producer.rfind("pytorch", 0), 0u) << info.producer;
  EXPECT_EQ(info.input_name, "x");
  EXPECT_EQ(info.output_name, "y");
  EXPECT_FALSE(info.names_from_file);
  ASSERT_EQ(info.feature_names.size(), 64u);
  EXPECT_EQ(info.feature_names[63], "f63");
  EXPECT_EQ(DescribeNet(*net), "onnx: 64 -> 128 relu -> 64 relu -> 1, 16,641 parameters");
  // Gemm, Relu, Gemm, Relu, Gemm: five steps, biases from C.
  ASSERT_EQ(net->steps.size(), 5u);
  EXPECT_EQ(net->steps[0].kind, NetStepKind::kLinear);
  EXPECT_TRUE(net->steps[0].has_bias);
  EXPECT_EQ(net->steps[0].op_type, "Gemm");
  EXPECT_EQ(net->steps[1].kind, NetStepKind::kActivation);
  EXPECT_EQ(net->steps[4].out_width, 1u);
}

TEST(OnnxReaderTest, TakesInitializersListedAsGraphInputs) {
  // torch.onnx.export(..., keep_initializers_as_inputs=True) at opset 9.
  Result<OnnxNet> net = ReadData("opset9.onnx");
  ASSERT_TRUE(net.ok()) << net.status().ToString();
  EXPECT_EQ(net->info.num_features, 5u);
  EXPECT_EQ(net->info.opset, 9);
}

TEST(OnnxReaderTest, ReadsFloatDataAndBroadcastsAScalarBias) {
  Result<OnnxNet> net = ReadData("gemm_forms.onnx");
  ASSERT_TRUE(net.ok()) << net.status().ToString();
  // Flatten and Identity leave no step; Gemm(C = [0.25]) has the bias
  // repeated across its 9 outputs.
  ASSERT_FALSE(net->steps.empty());
  const NetStep& first = net->steps[0];
  EXPECT_EQ(first.kind, NetStepKind::kLinear);
  ASSERT_EQ(first.bias.size(), 9u);
  for (float b : first.bias) EXPECT_EQ(b, 0.25f);
  // The Gemm without C keeps no bias; the two Adds after it stay two steps.
  EXPECT_FALSE(net->steps[2].has_bias);
  EXPECT_EQ(net->steps[3].kind, NetStepKind::kAddBias);
  EXPECT_EQ(net->steps[4].kind, NetStepKind::kAddBias);
  EXPECT_EQ(DescribeNet(*net), "onnx: 6 -> 9 relu -> 4 +bias sigmoid, 99 parameters");
}

TEST(OnnxReaderTest, TransposesAGemmsBWithTransB) {
  // wide_outputs: Gemm(transB = 1) with B [40, 9]: W[k][j] = B[j][k].
  const std::string bytes = ReadFileBytes(DataDir() + "/wide_outputs.onnx");
  Result<OnnxNet> net = ReadOnnx(bytes, "wide_outputs.onnx");
  ASSERT_TRUE(net.ok()) << net.status().ToString();
  const NetStep& step = net->steps[0];
  EXPECT_EQ(step.in_width, 9u);
  EXPECT_EQ(step.out_width, 40u);
  EXPECT_EQ(step.weights.size(), 360u);
}

TEST(OnnxReaderTest, AnIdentityNetHasNoSteps) {
  Result<OnnxNet> net = ReadData("identity_only.onnx");
  ASSERT_TRUE(net.ok()) << net.status().ToString();
  EXPECT_TRUE(net->steps.empty());
  EXPECT_EQ(net->info.num_outputs, 4u);
  EXPECT_EQ(DescribeNet(*net), "onnx: 4 (identity), 0 parameters");
}

TEST(OnnxReaderTest, LoaderPreparesAndHashes) {
  const std::string bytes = ReadFileBytes(DataDir() + "/ranking_mlp.onnx");
  auto loaded = LoadOnnxModel(bytes, "ranking_mlp.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->hash, HashModelBytes(bytes));
  EXPECT_EQ((*loaded)->prepared.multiply_adds(), 64u * 128 + 128 * 64 + 64);
  EXPECT_EQ((*loaded)->description, "onnx: 64 -> 128 relu -> 64 relu -> 1, 16,641 parameters");
}

TEST(ContentHashTest, EqualBytesEqualHashAnyByteChangesIt) {
  const std::string bytes = ReadFileBytes(DataDir() + "/two_outputs.onnx");
  const ContentHash hash = HashModelBytes(bytes);
  EXPECT_EQ(hash, HashModelBytes(std::string(bytes)));
  for (std::size_t i = 0; i < bytes.size(); i += 97) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 1);
    EXPECT_NE(HashModelBytes(changed), hash) << "byte " << i;
  }
  EXPECT_NE(HashModelBytes(bytes.substr(0, bytes.size() - 1)), hash);
}

}  // namespace
}  // namespace calcjit::model::testing
