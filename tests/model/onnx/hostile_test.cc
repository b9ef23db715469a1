// Files the reader must refuse, each with a clear error that names the file
// and where in it, and never a crash: the committed hostile files
// (make_nets.py writes them and the expected location and message), every
// truncation of valid files, random byte changes, and bytes built here to
// attack the parser's bounds (nesting, object counts, sizes).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/mman.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "calcjit/cpu.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/net_model.h"
#include "model/onnx/reader.h"
#include "tests/model/onnx/net_cases.h"

namespace calcjit::model::testing {
namespace {

// A protobuf field: tag, then the payload of a length-delimited one.
std::string Varint(std::uint64_t value) {
  std::string bytes;
  while (value >= 0x80) {
    bytes.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  bytes.push_back(static_cast<char>(value));
  return bytes;
}
std::string LengthDelimited(int field, const std::string& payload) {
  return Varint(static_cast<std::uint64_t>(field) << 3 | 2) + Varint(payload.size()) + payload;
}

void ExpectRefused(std::string_view bytes, const std::string& file, const std::string& location,
                   const std::string& message) {
  Result<OnnxNet> net = ReadOnnx(bytes, file);
  ASSERT_FALSE(net.ok()) << file << " was accepted";
  EXPECT_EQ(net.status().kind(), ErrorKind::kUser) << net.status().ToString();
  EXPECT_NE(net.status().location().find(location), std::string::npos)
      << file << ": location " << net.status().location() << ", want " << location;
  EXPECT_NE(net.status().message().find(message), std::string::npos)
      << file << ": message " << net.status().message() << ", want " << message;
  EXPECT_EQ(net.status().location().rfind(file, 0), 0u) << "the location names the file first";
}

TEST(HostileFilesTest, EachIsRefusedWithItsLocationAndMessage) {
  std::ifstream manifest(DataDir() + "/hostile/hostile.txt");
  std::string line;
  int count = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, location, message;
    std::getline(fields, file, '\t');
    std::getline(fields, location, '\t');
    std::getline(fields, message, '\t');
    SCOPED_TRACE(file);
    const std::string bytes = ReadFileBytes(DataDir() + "/hostile/" + file);
    ExpectRefused(bytes, file, location, message);
    // The loader passes the reader's error on unchanged.
    auto loaded = LoadOnnxModel(bytes, file);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().ToString(), ReadOnnx(bytes, file).status().ToString());
    ++count;
  }
  EXPECT_EQ(count, 38);  // every case make_nets.py writes
}

TEST(HostileFilesTest, SomeExactMessages) {
  const auto read = [](const std::string& file) {
    return ReadOnnx(ReadFileBytes(DataDir() + "/hostile/" + file), file).status().ToString();
  };
  EXPECT_EQ(read("unsupported_op.onnx"),
            "unsupported_op.onnx: graph.node[1] (Softmax 'act'): operator 'Softmax' is not "
            "supported; a net may use only Gemm, MatMul, Add, Relu, LeakyRelu, Sigmoid, Tanh, "
            "Identity and Flatten");
  EXPECT_EQ(read("branch.onnx"),
            "branch.onnx: graph.node[1] (Relu 'act'): reads 'x' is the graph input; only a chain "
            "is supported, where each node reads the value the previous one computed ('h')");
  EXPECT_EQ(read("external_data.onnx"),
            "external_data.onnx: graph.initializer[0] 'w': the initializer keeps its data in an "
            "external file in 'weights.bin'; calcjit needs the weights inside the model file "
            "(save with onnx.save_model(model, path, save_as_external_data=False)) (used by "
            "graph.node[0] (Gemm 'fc'))");
}

TEST(HostileBytesTest, EveryTruncationOfASmallNetIsAnError) {
  const std::string bytes = ReadFileBytes(DataDir() + "/opset13.onnx");
  ASSERT_TRUE(ReadOnnx(bytes, "opset13.onnx").ok());
  int located = 0;
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    Result<OnnxNet> net = ReadOnnx(std::string_view(bytes).substr(0, size), "cut.onnx");
    ASSERT_FALSE(net.ok()) << "a prefix of " << size << " bytes was accepted";
    ASSERT_FALSE(net.status().message().empty());
    ASSERT_EQ(net.status().location().rfind("cut.onnx", 0), 0u);
    located += net.status().location().find(": byte ") != std::string::npos;
  }
  // Most cuts fall inside a field (an offset); the others end the message
  // at a field boundary and fail a check of the content instead.
  EXPECT_GT(located, static_cast<int>(bytes.size()) * 9 / 10);
}

TEST(HostileBytesTest, TruncationsOfTheRankingMlpAreErrors) {
  const std::string bytes = ReadFileBytes(DataDir() + "/ranking_mlp.onnx");
  for (std::size_t size = 0; size < bytes.size(); size += 257) {
    ASSERT_FALSE(ReadOnnx(std::string_view(bytes).substr(0, size), "cut.onnx").ok()) << size;
  }
}

TEST(HostileBytesTest, ATruncatedLengthSaysWhereAndHowMuch) {
  const std::string bytes = ReadFileBytes(DataDir() + "/ranking_mlp.onnx");
  Result<OnnxNet> net = ReadOnnx(std::string_view(bytes).substr(0, bytes.size() / 2), "cut.onnx");
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("truncated: a length of"), std::string::npos)
      << net.status().ToString();
  EXPECT_NE(net.status().message().find("(in graph"), std::string::npos) << net.status().ToString();
}

// Changed bytes: whatever the reader says, it says it without crashing, and
// a net it accepts evaluates on every tier.
TEST(HostileBytesTest, RandomByteChangesNeverCrash) {
  const std::string original = ReadFileBytes(DataDir() + "/two_outputs.onnx");
  std::mt19937_64 rng(20240601);
  int accepted = 0;
  std::vector<float> column(40, 0.5f);
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = original;
    const int changes = 1 + static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    auto loaded = LoadOnnxModel(bytes, "changed.onnx");
    if (!loaded.ok()) {
      ASSERT_FALSE(loaded.status().message().empty());
      continue;
    }
    ++accepted;
    const LoadedOnnxModel& model = **loaded;
    std::vector<const float*> inputs(model.info().num_features, column.data());
    std::vector<std::vector<float>> outputs(model.info().num_outputs, std::vector<float>(40));
    std::vector<float*> output_pointers;
    for (auto& output : outputs) output_pointers.push_back(output.data());
    std::vector<unsigned char> scratch(EvaluateScratchBytes(model.prepared, 40));
    for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
      Evaluate(model.prepared, inputs.data(), 40, output_pointers.data(), scratch.data(), isa);
    }
  }
  // Most changes hit weights (raw_data) and leave a valid net.
  EXPECT_GT(accepted, 0);
}

TEST(HostileBytesTest, DeepNestingIsRefusedBeforeParsing) {
  // graph.node[0].attribute[0].g.node[0].attribute[0].g... 2,000 levels.
  std::string inner;
  for (int level = 0; level < 2000; ++level) {
    const std::string attribute = LengthDelimited(onnx::AttributeProto::kGFieldNumber, inner);
    const std::string node = LengthDelimited(onnx::NodeProto::kAttributeFieldNumber, attribute);
    inner = LengthDelimited(onnx::GraphProto::kNodeFieldNumber, node);
  }
  const std::string bytes = LengthDelimited(onnx::ModelProto::kGraphFieldNumber, inner);
  ExpectRefused(bytes, "deep.onnx", "deep.onnx: byte ", "messages nested deeper than 32");
}

TEST(HostileBytesTest, MillionsOfEmptyNodesAreRefusedBeforeParsing) {
  // 2.2 MB of `node {}`: parsed, 1.1 million NodeProto objects.
  std::string nodes;
  const std::string empty_node = LengthDelimited(onnx::GraphProto::kNodeFieldNumber, "");
  for (int i = 0; i < 1'100'000; ++i) nodes += empty_node;
  const std::string bytes = LengthDelimited(onnx::ModelProto::kGraphFieldNumber, nodes);
  ExpectRefused(bytes, "nodes.onnx", "nodes.onnx: byte ", "more than 1048576 messages and strings");
}

TEST(HostileBytesTest, HugeCountsOfPackedNumbersAreRefusedBeforeParsing) {
  // dims packed with 2^25 + 1 one-byte varints: 32 MiB of bytes, 256 MiB once parsed.
  const std::string dims((std::size_t{1} << 25) + 1, '\x01');
  const std::string tensor = LengthDelimited(onnx::TensorProto::kDimsFieldNumber, dims);
  const std::string graph = LengthDelimited(onnx::GraphProto::kInitializerFieldNumber, tensor);
  const std::string bytes = LengthDelimited(onnx::ModelProto::kGraphFieldNumber, graph);
  ExpectRefused(bytes, "dims.onnx", "dims.onnx: byte ", "more than 33554432 numbers");
}

TEST(HostileBytesTest, AFileOf2GiBIsRefusedUnread) {
  // Address space that faults if touched: the size check comes first.
  const std::size_t size = std::size_t{1} << 31;
  void* pages = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  const std::string_view bytes(static_cast<const char*>(pages), size);
  ExpectRefused(bytes, "big.onnx", "big.onnx",
                "model file of 2,147,483,648 bytes; the limit is 2 GiB");
  munmap(pages, size);
}

TEST(HostileBytesTest, GarbageIsRefused) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::string bytes(1 + rng() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    Result<OnnxNet> net = ReadOnnx(bytes, "garbage.onnx");
    ASSERT_FALSE(net.ok());
    ASSERT_FALSE(net.status().message().empty());
  }
  ExpectRefused("\x08", "varint.onnx", "varint.onnx: byte 0", "truncated or malformed varint");
  ExpectRefused(std::string("\x00\x01", 2), "zero.onnx", "zero.onnx: byte 0", "field number 0");
  ExpectRefused("\x0f", "wire.onnx", "wire.onnx: byte 0", "invalid wire type 7");
  ExpectRefused("\x0c", "group.onnx", "group.onnx: byte 0", "an end-group tag outside any group");
}

TEST(HostileBytesTest, AHugeNameIsCutInMessages) {
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(ReadFileBytes(DataDir() + "/opset13.onnx")));
  model.mutable_graph()->mutable_node(0)->set_op_type("Conv");
  model.mutable_graph()->mutable_node(0)->set_name(std::string(1'000'000, 'n'));
  Result<OnnxNet> net = ReadOnnx(model.SerializeAsString(), "long.onnx");
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().location().find("nnn...' (1000000 characters))"), std::string::npos);
  EXPECT_LT(net.status().ToString().size(), 600u);
}

TEST(HostileBytesTest, AValidMessageThatIsNoNet) {
  // ir_version only: protobuf parses it; the checks refuse it.
  ExpectRefused(Varint(onnx::ModelProto::kIrVersionFieldNumber << 3) + Varint(7), "bare.onnx",
                "bare.onnx: opset_import", "no opset for the default ONNX domain");
  ExpectRefused(Varint(onnx::ModelProto::kIrVersionFieldNumber << 3) + Varint(2), "old.onnx",
                "old.onnx: ir_version", "IR version 2 is not supported (3 to 10)");
}

}  // namespace
}  // namespace calcjit::model::testing
