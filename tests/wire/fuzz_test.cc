// Random and mutated inputs: the readers never crash, and on bytes they agree
// with libprotobuf (which bytes are malformed, and what a well-formed message
// means, down to the location of semantic errors). Seeds are fixed, so a
// failure reproduces.
#include <gtest/gtest.h>

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/json_util.h>

#include <cstdint>
#include <random>
#include <string>

#include "calcjit/v1/feature_set.pb.h"
#include "dsl/json_reader.h"
#include "dsl/json_writer.h"
#include "dsl/proto_reader.h"
#include "dsl/proto_writer.h"
#include "wire_test_util.h"

namespace calcjit {
namespace {

using wire_test::DumpIr;

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xF];
    out += ' ';
  }
  return out;
}

// ReadProto and libprotobuf (+ the reference semantics) agree on `bytes`.
void CheckBytes(const std::string& bytes) {
  v1::FeatureSet message;
  const bool parsed = message.ParseFromString(bytes);
  Result<ir::FeatureSetIr> ours = dsl::ReadProto(bytes);
  const bool malformed = !ours.ok() && ours.status().location().rfind("byte ", 0) == 0;
  ASSERT_EQ(parsed, !malformed) << Hex(bytes) << "\nours: " << ours.status().ToString();
  if (!ours.ok()) {
    ASSERT_EQ(ours.status().kind(), ErrorKind::kUser) << ours.status().ToString();
  }
  if (!parsed) return;
  Result<ir::FeatureSetIr> expected = wire_test::IrFromMessage(message);
  ASSERT_EQ(ours.ok(), expected.ok()) << Hex(bytes) << "\nours: " << ours.status().ToString()
                                      << "\nexpected: " << expected.status().ToString();
  if (!ours.ok()) {
    ASSERT_EQ(ours.status().location(), expected.status().location()) << Hex(bytes);
    return;
  }
  ASSERT_EQ(DumpIr(*ours), DumpIr(*expected)) << Hex(bytes);
  Result<ir::FeatureSetIr> again = dsl::ReadProto(dsl::WriteProto(*ours));
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(DumpIr(*again), DumpIr(*ours));
}

std::string Mutate(std::string bytes, std::mt19937& rng, const std::string& other) {
  const unsigned rounds = 1 + rng() % 3;
  for (unsigned r = 0; r < rounds; ++r) {
    const std::size_t size = bytes.size();
    const std::size_t at = size == 0 ? 0 : rng() % size;
    switch (rng() % 8) {
      case 0:  // flip bits
        if (size > 0) bytes[at] = static_cast<char>(bytes[at] ^ (1u << (rng() % 8)));
        break;
      case 1:  // set a byte
        if (size > 0) bytes[at] = static_cast<char>(rng());
        break;
      case 2:  // insert a byte
        bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng()));
        break;
      case 3:  // delete a byte
        if (size > 0) bytes.erase(at, 1);
        break;
      case 4:  // truncate
        bytes.resize(at);
        break;
      case 5:  // duplicate a slice
        if (size > 0) bytes.insert(at, bytes.substr(at, 1 + rng() % (size - at)));
        break;
      case 6:  // append another message: protobuf merges them
        bytes += other;
        break;
      default:  // splice another message in
        bytes.insert(at, other.substr(0, other.empty() ? 0 : rng() % other.size()));
        break;
    }
  }
  return bytes;
}

// Well-framed but otherwise random bytes: fields of random numbers (mostly
// the schema's) and wire types (mostly the expected ones), nested messages,
// groups, strings that are sometimes not UTF-8. They exercise merging, oneof
// switching, wrong wire types and unknown fields far more than random bytes.
std::string RandomWire(std::mt19937& rng, int depth) {
  static const std::uint32_t kNumbers[] = {1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 4095};
  std::string out;
  const unsigned fields = rng() % 5;
  for (unsigned f = 0; f < fields; ++f) {
    const std::uint32_t number = kNumbers[rng() % std::size(kNumbers)];
    const unsigned roll = rng() % 16;
    if (roll < 7 && depth < 7) {
      out += wire_test::LenField(number, RandomWire(rng, depth + 1));
    } else if (roll < 9) {
      std::string text = rng() % 8 == 0 ? "\xc3(" : "ab";
      if (rng() % 4 == 0) text.clear();
      out += wire_test::LenField(number, text);
    } else if (roll < 12) {
      out += wire_test::VarintField(number, rng() % 4 == 0 ? rng() : rng() % 20);
    } else if (roll < 14) {
      out += wire_test::Fixed32Field(number, static_cast<float>(rng() % 7));
    } else if (roll < 15) {
      out += wire_test::Tag(number, 1) + "01234567";
    } else if (depth < 7) {
      out += wire_test::Tag(number, 3) + RandomWire(rng, depth + 1) + wire_test::Tag(number, 4);
    }
  }
  return out;
}

class FuzzTest : public testing::Test {
 protected:
  // libprotobuf logs every invalid UTF-8 string it rejects.
  google::protobuf::LogSilencer silence_;
};

TEST_F(FuzzTest, RandomBytesAgreeWithLibprotobuf) {
  std::mt19937 rng(20240611);
  // Tags of the schema's fields, group tags, varint edge bytes.
  static const unsigned char kInteresting[] = {
      0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x10, 0x12, 0x18, 0x1a,
      0x1d, 0x22, 0x25, 0x2a, 0x32, 0x3a, 0x42, 0x4a, 0x7f, 0x80, 0xff, 0xc3, 0xe2, 0xf0};
  for (int i = 0; i < 4000; ++i) {
    std::string bytes;
    const std::size_t size = rng() % 48;
    for (std::size_t k = 0; k < size; ++k) {
      bytes += rng() % 2 ? static_cast<char>(kInteresting[rng() % std::size(kInteresting)])
                         : static_cast<char>(rng() % 16);
    }
    ASSERT_NO_FATAL_FAILURE(CheckBytes(bytes));
  }
}

TEST_F(FuzzTest, RandomlyFramedBytesAgreeWithLibprotobuf) {
  std::mt19937 rng(23);
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string bytes = RandomWire(rng, 0);
    ASSERT_NO_FATAL_FAILURE(CheckBytes(bytes));
    valid += dsl::ReadProto(bytes).ok() ? 1 : 0;
  }
  EXPECT_GT(valid, 5000);
}

TEST_F(FuzzTest, RandomMessagesAgreeWithTheReference) {
  std::mt19937 rng(7);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    const v1::FeatureSet message = wire_test::RandomMessage(rng);
    const std::string bytes = message.SerializeAsString();
    ASSERT_NO_FATAL_FAILURE(CheckBytes(bytes));
    errors += dsl::ReadProto(bytes).ok() ? 0 : 1;
  }
  // Both valid and invalid sets were tried.
  EXPECT_GT(errors, 300);
  EXPECT_LT(errors, 2700);
}

TEST_F(FuzzTest, MutatedMessagesAgreeWithLibprotobuf) {
  std::mt19937 rng(11);
  for (int i = 0; i < 4000; ++i) {
    const bool break_rules = i % 2 == 0;
    const std::string bytes = wire_test::RandomMessage(rng, break_rules).SerializeAsString();
    const std::string other = wire_test::RandomMessage(rng, break_rules).SerializeAsString();
    ASSERT_NO_FATAL_FAILURE(CheckBytes(Mutate(bytes, rng, other)));
  }
}

TEST_F(FuzzTest, ConcatenatedMessagesMergeLikeLibprotobuf) {
  std::mt19937 rng(13);
  for (int i = 0; i < 1000; ++i) {
    std::string bytes;
    const unsigned parts = 2 + rng() % 3;
    for (unsigned p = 0; p < parts; ++p) {
      bytes += wire_test::RandomMessage(rng, /*break_rules=*/i % 4 == 0).SerializeAsString();
    }
    ASSERT_NO_FATAL_FAILURE(CheckBytes(bytes));
  }
}

TEST_F(FuzzTest, RandomMessagesAsJsonAgreeWithTheReference) {
  std::mt19937 rng(17);
  for (int i = 0; i < 2000; ++i) {
    const v1::FeatureSet message = wire_test::RandomMessage(rng);
    std::string json;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(message, &json).ok());
    Result<ir::FeatureSetIr> ours = dsl::ReadJson(json);
    Result<ir::FeatureSetIr> expected = wire_test::IrFromMessage(message);
    ASSERT_EQ(ours.ok(), expected.ok()) << json << "\nours: " << ours.status().ToString()
                                        << "\nexpected: " << expected.status().ToString();
    if (ours.ok()) {
      ASSERT_EQ(DumpIr(*ours), DumpIr(*expected)) << json;
    } else {
      ASSERT_EQ(ours.status().location(), expected.status().location()) << json;
    }
  }
}

TEST_F(FuzzTest, MutatedJsonNeverCrashes) {
  std::mt19937 rng(19);
  static const char kPieces[][12] = {"{",    "}",    "[",     "]",      ",",       ":",
                                     "\"",   "null", "1e400", "-0",     "\"NaN\"", "\\u00",
                                     "\xc3", "\xff", " ",     "\"x\":", "{}"};
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::mt19937 choice_rng(rng());
    std::vector<std::uint32_t> values(64);
    for (auto& v : values) v = static_cast<std::uint32_t>(choice_rng());
    wire_test::Choices choices(values);
    std::string json = dsl::WriteJson(wire_test::RandomIr(choices, 4, /*allow_nan=*/true));
    const unsigned edits = 1 + rng() % 3;
    for (unsigned e = 0; e < edits; ++e) {
      const std::size_t at = json.empty() ? 0 : rng() % json.size();
      switch (rng() % 3) {
        case 0:
          json.erase(at, 1 + rng() % 4);
          break;
        case 1:
          json.insert(at, kPieces[rng() % std::size(kPieces)]);
          break;
        default:
          if (!json.empty()) json[at] = static_cast<char>(rng());
          break;
      }
    }
    Result<ir::FeatureSetIr> result = dsl::ReadJson(json);
    if (!result.ok()) {
      ASSERT_EQ(result.status().kind(), ErrorKind::kUser) << result.status().ToString();
      ASSERT_FALSE(result.status().location().empty()) << json;
      continue;
    }
    ++accepted;
    Result<ir::FeatureSetIr> again = dsl::ReadJson(dsl::WriteJson(*result));
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    ASSERT_EQ(DumpIr(*again), DumpIr(*result));
  }
  EXPECT_GT(accepted, 30);
}

}  // namespace
}  // namespace calcjit
