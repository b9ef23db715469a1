// Unit tests of the float32 transcendental kernels (src/math/transcendental.h).
// The proof over all inputs is tools/ulpcheck; these tests pin special values,
// thresholds, the hardest-to-round inputs of a sampled scan, and the
// agreement of vectorized loops with scalar calls.
//
// The tables of expected bits were computed with MPFR (correct rounding to
// binary32 with subnormals) by tools/mathgen/gen_test_values.cc.
#include "math/transcendental.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace calcjit::math {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kTiny = 0x1p-149f;       // smallest subnormal
constexpr float kMax = 0x1.fffffep127f;  // FLT_MAX
constexpr float kMinNormal = 0x1p-126f;

std::uint32_t Bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}
float FromBits(std::uint32_t b) {
  return std::bit_cast<float>(b);
}

std::string Hex(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a (0x%08X)", static_cast<double>(f), Bits(f));
  return buf;
}

// Same float, bit for bit; any NaN matches any NaN (outputs are canonicalized
// elsewhere).
::testing::AssertionResult SameFloat(float expected, float got) {
  if (std::isnan(expected) && std::isnan(got)) return ::testing::AssertionSuccess();
  if (Bits(expected) == Bits(got)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << Hex(expected) << ", got " << Hex(got);
}

struct BitsCase {
  std::uint32_t x;
  std::uint32_t expected;
};

struct PowCase {
  std::uint32_t x;
  std::uint32_t y;
  std::uint32_t expected;
};

// Exp: {x bits, correctly rounded result bits}
constexpr BitsCase kExpCases[] = {
    {0x00000000, 0x3F800000},  // 0x0p+0 -> 0x1p+0
    {0x80000000, 0x3F800000},  // -0x0p+0 -> 0x1p+0
    {0x00000001, 0x3F800000},  // 0x1p-149 -> 0x1p+0
    {0x80000001, 0x3F800000},  // -0x1p-149 -> 0x1p+0
    {0x00800000, 0x3F800000},  // 0x1p-126 -> 0x1p+0
    {0x80800000, 0x3F800000},  // -0x1p-126 -> 0x1p+0
    {0x7F7FFFFF, 0x7F800000},  // 0x1.fffffep+127 -> inf
    {0xFF7FFFFF, 0x00000000},  // -0x1.fffffep+127 -> 0x0p+0
    {0x3F800000, 0x402DF854},  // 0x1p+0 -> 0x1.5bf0a8p+1
    {0xBF800000, 0x3EBC5AB2},  // -0x1p+0 -> 0x1.78b564p-2
    {0x3F000000, 0x3FD3094C},  // 0x1p-1 -> 0x1.a61298p+0
    {0xBF000000, 0x3F1B4598},  // -0x1p-1 -> 0x1.368b3p-1
    {0x40000000, 0x40EC7326},  // 0x1p+1 -> 0x1.d8e64cp+2
    {0xC0000000, 0x3E0A9555},  // -0x1p+1 -> 0x1.152aaap-3
    {0x41200000, 0x46AC14EE},  // 0x1.4p+3 -> 0x1.5829dcp+14
    {0xC1200000, 0x383E6BCE},  // -0x1.4p+3 -> 0x1.7cd79cp-15
    {0x3DCCCCCD, 0x3F8D763E},  // 0x1.99999ap-4 -> 0x1.1aec7cp+0
    {0xBDCCCCCD, 0x3F67A36D},  // -0x1.99999ap-4 -> 0x1.cf46dap-1
    {0x2EDBE6FF, 0x3F800000},  // 0x1.b7cdfep-34 -> 0x1p+0
    {0xAEDBE6FF, 0x3F800000},  // -0x1.b7cdfep-34 -> 0x1p+0
    {0x40400000, 0x41A0AF2E},  // 0x1.8p+1 -> 0x1.415e5cp+4
    {0x41A00000, 0x4DE75844},  // 0x1.4p+4 -> 0x1.ceb088p+28
    {0xC1A00000, 0x310DA433},  // -0x1.4p+4 -> 0x1.1b4866p-29
    {0x42B00000, 0x7EF882B7},  // 0x1.6p+6 -> 0x1.f1056ep+126
    {0xC2AE0000, 0x00B33687},  // -0x1.5cp+6 -> 0x1.666d0ep-126
    {0x42B17217, 0x7F7FFF84},  // 0x1.62e42ep+6 -> 0x1.ffff08p+127
    {0x42B17218, 0x7F800000},  // 0x1.62e43p+6 -> inf
    {0xC2CFF1B4, 0x00000001},  // -0x1.9fe368p+6 -> 0x1p-149
    {0xC2CFF1B5, 0x00000000},  // -0x1.9fe36ap+6 -> 0x0p+0
    {0xC2AEAC4F, 0x00800026},  // -0x1.5d589ep+6 -> 0x1.00004cp-126
    {0xC2AEAC50, 0x007FFFE6},  // -0x1.5d58ap+6 -> 0x1.ffff98p-127
    {0xB66A001B, 0x3F7FFFC5},  // -0x1.d40036p-19 -> 0x1.ffff8ap-1
    {0xB4900008, 0x3F7FFFFB},  // -0x1.20001p-22 -> 0x1.fffff6p-1
    {0x3BCB1215, 0x3F80CBB4},  // 0x1.96242ap-8 -> 0x1.019768p+0
    {0x3DEAAD41, 0x3F8F8A6A},  // 0x1.d55a82p-4 -> 0x1.1f14d4p+0
    {0xBBCD89EE, 0x3F7E6636},  // -0x1.9b13dcp-8 -> 0x1.fccc6cp-1
    {0xB3BFFFA2, 0x3F7FFFFF},  // -0x1.7fff44p-24 -> 0x1.fffffep-1
    {0xB2FFFE5B, 0x3F800000},  // -0x1.fffcb6p-26 -> 0x1p+0
    {0xBFEB0C89, 0x3E233A87},  // -0x1.d61912p+0 -> 0x1.46750ep-3
    {0xBD06DD7D, 0x3F77B54B},  // -0x1.0dbafap-5 -> 0x1.ef6a96p-1
    {0x3A0F91EF, 0x3F8011F4},  // 0x1.1f23dep-11 -> 0x1.0023e8p+0
    {0xBB566F36, 0x3F7F29EB},  // -0x1.acde6cp-9 -> 0x1.fe53d6p-1
    {0xBD1681F5, 0x3F76C396},  // -0x1.2d03eap-5 -> 0x1.ed872cp-1
};

// Log: {x bits, correctly rounded result bits}
constexpr BitsCase kLogCases[] = {
    {0x00000000, 0xFF800000},  // 0x0p+0 -> -inf
    {0x80000000, 0xFF800000},  // -0x0p+0 -> -inf
    {0x00000001, 0xC2CE8ED0},  // 0x1p-149 -> -0x1.9d1dap+6
    {0x80000001, 0xFFC00000},  // -0x1p-149 -> -nan
    {0x00800000, 0xC2AEAC50},  // 0x1p-126 -> -0x1.5d58ap+6
    {0x80800000, 0xFFC00000},  // -0x1p-126 -> -nan
    {0x7F7FFFFF, 0x42B17218},  // 0x1.fffffep+127 -> 0x1.62e43p+6
    {0xFF7FFFFF, 0xFFC00000},  // -0x1.fffffep+127 -> -nan
    {0x3F800000, 0x00000000},  // 0x1p+0 -> 0x0p+0
    {0xBF800000, 0xFFC00000},  // -0x1p+0 -> -nan
    {0x3F000000, 0xBF317218},  // 0x1p-1 -> -0x1.62e43p-1
    {0xBF000000, 0xFFC00000},  // -0x1p-1 -> -nan
    {0x40000000, 0x3F317218},  // 0x1p+1 -> 0x1.62e43p-1
    {0xC0000000, 0xFFC00000},  // -0x1p+1 -> -nan
    {0x41200000, 0x40135D8E},  // 0x1.4p+3 -> 0x1.26bb1cp+1
    {0xC1200000, 0xFFC00000},  // -0x1.4p+3 -> -nan
    {0x3DCCCCCD, 0xC0135D8E},  // 0x1.99999ap-4 -> -0x1.26bb1cp+1
    {0xBDCCCCCD, 0xFFC00000},  // -0x1.99999ap-4 -> -nan
    {0x2EDBE6FF, 0xC1B834F1},  // 0x1.b7cdfep-34 -> -0x1.7069e2p+4
    {0xAEDBE6FF, 0xFFC00000},  // -0x1.b7cdfep-34 -> -nan
    {0x40400000, 0x3F8C9F54},  // 0x1.8p+1 -> 0x1.193ea8p+0
    {0x41A00000, 0x403FBA14},  // 0x1.4p+4 -> 0x1.7f7428p+1
    {0xC1A00000, 0xFFC00000},  // -0x1.4p+4 -> -nan
    {0x42B00000, 0x408F4658},  // 0x1.6p+6 -> 0x1.1e8cbp+2
    {0xC2AE0000, 0xFFC00000},  // -0x1.5cp+6 -> -nan
    {0x3F7FFFFF, 0xB3800000},  // 0x1.fffffep-1 -> -0x1p-24
    {0x3F800001, 0x33FFFFFF},  // 0x1.000002p+0 -> 0x1.fffffep-24
    {0x00800000, 0xC2AEAC50},  // 0x1p-126 -> -0x1.5d58ap+6
    {0x00000002, 0xC2CD2BEC},  // 0x1p-148 -> -0x1.9a57d8p+6
    {0x40E00000, 0x3FF91395},  // 0x1.cp+2 -> 0x1.f2272ap+0
    {0x7149F2CA, 0x428A27B5},  // 0x1.93e594p+99 -> 0x1.144f6ap+6
    {0x261329B1, 0xC20CD80F},  // 0x1.265362p-51 -> -0x1.19b01ep+5
    {0x44A04098, 0x40E4FF85},  // 0x1.40813p+10 -> 0x1.c9ff0ap+2
    {0x6E3801EB, 0x4281A6B9},  // 0x1.7003d6p+93 -> 0x1.034d72p+6
    {0x0A90D30F, 0xC292B341},  // 0x1.21a61ep-106 -> -0x1.256682p+6
    {0x682084F0, 0x42617C37},  // 0x1.4109ep+81 -> 0x1.c2f86ep+5
    {0x37410490, 0xC135F6C9},  // 0x1.82092p-17 -> -0x1.6bed92p+3
    {0x73CF371A, 0x42912359},  // 0x1.9e6e34p+104 -> 0x1.2246b2p+6
    {0x17945431, 0xC25D37AE},  // 0x1.28a862p-80 -> -0x1.ba6f5cp+5
    {0x52868E95, 0x41D31DCD},  // 0x1.0d1d2ap+38 -> 0x1.a63b9ap+4
    {0x1744DE98, 0xC25EDB8F},  // 0x1.89bd3p-81 -> -0x1.bdb71ep+5
    {0x64C9770F, 0x424EFC64},  // 0x1.92ee1ep+74 -> 0x1.9df8c8p+5
    {0x089361DE, 0xC29835DC},  // 0x1.26c3bcp-110 -> -0x1.306bb8p+6
};

// Log1p: {x bits, correctly rounded result bits}
constexpr BitsCase kLog1pCases[] = {
    {0x00000000, 0x00000000},  // 0x0p+0 -> 0x0p+0
    {0x80000000, 0x80000000},  // -0x0p+0 -> -0x0p+0
    {0x00000001, 0x00000001},  // 0x1p-149 -> 0x1p-149
    {0x80000001, 0x80000001},  // -0x1p-149 -> -0x1p-149
    {0x00800000, 0x00800000},  // 0x1p-126 -> 0x1p-126
    {0x80800000, 0x80800000},  // -0x1p-126 -> -0x1p-126
    {0x7F7FFFFF, 0x42B17218},  // 0x1.fffffep+127 -> 0x1.62e43p+6
    {0xFF7FFFFF, 0xFFC00000},  // -0x1.fffffep+127 -> -nan
    {0x3F800000, 0x3F317218},  // 0x1p+0 -> 0x1.62e43p-1
    {0xBF800000, 0xFF800000},  // -0x1p+0 -> -inf
    {0x3F000000, 0x3ECF991F},  // 0x1p-1 -> 0x1.9f323ep-2
    {0xBF000000, 0xBF317218},  // -0x1p-1 -> -0x1.62e43p-1
    {0x40000000, 0x3F8C9F54},  // 0x1p+1 -> 0x1.193ea8p+0
    {0xC0000000, 0xFFC00000},  // -0x1p+1 -> -nan
    {0x41200000, 0x4019771E},  // 0x1.4p+3 -> 0x1.32ee3cp+1
    {0xC1200000, 0xFFC00000},  // -0x1.4p+3 -> -nan
    {0x3DCCCCCD, 0x3DC331FC},  // 0x1.99999ap-4 -> 0x1.8663f8p-4
    {0xBDCCCCCD, 0xBDD7C741},  // -0x1.99999ap-4 -> -0x1.af8e82p-4
    {0x2EDBE6FF, 0x2EDBE6FF},  // 0x1.b7cdfep-34 -> 0x1.b7cdfep-34
    {0xAEDBE6FF, 0xAEDBE6FF},  // -0x1.b7cdfep-34 -> -0x1.b7cdfep-34
    {0x40400000, 0x3FB17218},  // 0x1.8p+1 -> 0x1.62e43p+0
    {0x41A00000, 0x4042D975},  // 0x1.4p+4 -> 0x1.85b2eap+1
    {0xC1A00000, 0xFFC00000},  // -0x1.4p+4 -> -nan
    {0x42B00000, 0x408FA2E9},  // 0x1.6p+6 -> 0x1.1f45d2p+2
    {0xC2AE0000, 0xFFC00000},  // -0x1.5cp+6 -> -nan
    {0xBF7FFFFF, 0xC1851592},  // -0x1.fffffep-1 -> -0x1.0a2b24p+4
    {0x33800000, 0x33800000},  // 0x1p-24 -> 0x1p-24
    {0xB3800000, 0xB3800000},  // -0x1p-24 -> -0x1p-24
    {0x33000000, 0x33000000},  // 0x1p-25 -> 0x1p-25
    {0x34000000, 0x33FFFFFF},  // 0x1p-23 -> 0x1.fffffep-24
    {0x7149F2CA, 0x428A27B5},  // 0x1.93e594p+99 -> 0x1.144f6ap+6
    {0xBF400000, 0xBFB17218},  // -0x1.8p-1 -> -0x1.62e43p+0
    {0x4EE556F3, 0x41AB054E},  // 0x1.caade6p+30 -> 0x1.560a9cp+4
    {0x6E3801EB, 0x4281A6B9},  // 0x1.7003d6p+93 -> 0x1.034d72p+6
    {0x682084F0, 0x42617C37},  // 0x1.4109ep+81 -> 0x1.c2f86ep+5
    {0x73CF371A, 0x42912359},  // 0x1.9e6e34p+104 -> 0x1.2246b2p+6
    {0xB400000F, 0xB4000010},  // -0x1.00001ep-23 -> -0x1.00002p-23
    {0x64C9770F, 0x424EFC64},  // 0x1.92ee1ep+74 -> 0x1.9df8c8p+5
    {0xBD155A5A, 0xBD1824D8},  // -0x1.2ab4b4p-5 -> -0x1.3049bp-5
    {0x51183CB4, 0x41C377EF},  // 0x1.307968p+35 -> 0x1.86efdep+4
    {0x7C834B97, 0x42A92DC2},  // 0x1.06972ep+122 -> 0x1.525b84p+6
    {0x52868E95, 0x41D31DCD},  // 0x1.0d1d2ap+38 -> 0x1.a63b9ap+4
    {0x3B7E952D, 0x3B7E16EB},  // 0x1.fd2a5ap-9 -> 0x1.fc2dd6p-9
    {0x3BBC4273, 0x3BBBB889},  // 0x1.7884e6p-8 -> 0x1.777112p-8
};

// Sigmoid: {x bits, correctly rounded result bits}
constexpr BitsCase kSigmoidCases[] = {
    {0x00000000, 0x3F000000},  // 0x0p+0 -> 0x1p-1
    {0x80000000, 0x3F000000},  // -0x0p+0 -> 0x1p-1
    {0x00000001, 0x3F000000},  // 0x1p-149 -> 0x1p-1
    {0x80000001, 0x3F000000},  // -0x1p-149 -> 0x1p-1
    {0x00800000, 0x3F000000},  // 0x1p-126 -> 0x1p-1
    {0x80800000, 0x3F000000},  // -0x1p-126 -> 0x1p-1
    {0x7F7FFFFF, 0x3F800000},  // 0x1.fffffep+127 -> 0x1p+0
    {0xFF7FFFFF, 0x00000000},  // -0x1.fffffep+127 -> 0x0p+0
    {0x3F800000, 0x3F3B26A8},  // 0x1p+0 -> 0x1.764d5p-1
    {0xBF800000, 0x3E89B2B1},  // -0x1p+0 -> 0x1.136562p-2
    {0x3F000000, 0x3F1F597F},  // 0x1p-1 -> 0x1.3eb2fep-1
    {0xBF000000, 0x3EC14D03},  // -0x1p-1 -> 0x1.829a06p-2
    {0x40000000, 0x3F617BEB},  // 0x1p+1 -> 0x1.c2f7d6p-1
    {0xC0000000, 0x3DF420A9},  // -0x1p+1 -> 0x1.e84152p-4
    {0x41200000, 0x3F7FFD06},  // 0x1.4p+3 -> 0x1.fffa0cp-1
    {0xC1200000, 0x383E6997},  // -0x1.4p+3 -> 0x1.7cd32ep-15
    {0x3DCCCCCD, 0x3F066509},  // 0x1.99999ap-4 -> 0x1.0cca12p-1
    {0xBDCCCCCD, 0x3EF335EE},  // -0x1.99999ap-4 -> 0x1.e66bdcp-2
    {0x2EDBE6FF, 0x3F000000},  // 0x1.b7cdfep-34 -> 0x1p-1
    {0xAEDBE6FF, 0x3F000000},  // -0x1.b7cdfep-34 -> 0x1p-1
    {0x40400000, 0x3F73DBE6},  // 0x1.8p+1 -> 0x1.e7b7ccp-1
    {0x41A00000, 0x3F800000},  // 0x1.4p+4 -> 0x1p+0
    {0xC1A00000, 0x310DA433},  // -0x1.4p+4 -> 0x1.1b4866p-29
    {0x42B00000, 0x3F800000},  // 0x1.6p+6 -> 0x1p+0
    {0xC2AE0000, 0x00B33687},  // -0x1.5cp+6 -> 0x1.666d0ep-126
    {0x41880000, 0x3F7FFFFF},  // 0x1.1p+4 -> 0x1.fffffep-1
    {0x418C0000, 0x3F800000},  // 0x1.18p+4 -> 0x1p+0
    {0xC2CE0000, 0x00000001},  // -0x1.9cp+6 -> 0x1p-149
    {0xC2D00000, 0x00000000},  // -0x1.ap+6 -> 0x0p+0
    {0xC2B00000, 0x0041EDC4},  // -0x1.6p+6 -> 0x1.07b71p-127
    {0x33000000, 0x3F000000},  // 0x1p-25 -> 0x1p-1
    {0x33800000, 0x3F000000},  // 0x1p-24 -> 0x1p-1
    {0xBB53530C, 0x3EFF9657},  // -0x1.a6a618p-9 -> 0x1.ff2caep-2
    {0xB91C9000, 0x3EFFFB1C},  // -0x1.392p-13 -> 0x1.fff638p-2
    {0xBD073C15, 0x3EFBC638},  // -0x1.0e782ap-5 -> 0x1.f78c7p-2
    {0xC0EE811D, 0x3A17D654},  // -0x1.dd023ap+2 -> 0x1.2faca8p-11
    {0x39432000, 0x3F00030C},  // 0x1.864p-13 -> 0x1.000618p-1
    {0xB37FFF35, 0x3F000000},  // -0x1.fffe6ap-25 -> 0x1p-1
    {0x34C0001D, 0x3F000002},  // 0x1.80003ap-22 -> 0x1.000004p-1
    {0x39823000, 0x3F000411},  // 0x1.046p-12 -> 0x1.000822p-1
    {0x3BBA8121, 0x3F005D41},  // 0x1.750242p-8 -> 0x1.00ba82p-1
    {0xBA934201, 0x3EFFDB30},  // -0x1.268402p-10 -> 0x1.ffb66p-2
    {0xB440007C, 0x3EFFFFFE},  // -0x1.8000f8p-23 -> 0x1.fffffcp-2
    {0x3FFB5D34, 0x3F607F40},  // 0x1.f6ba68p+0 -> 0x1.c0fe8p-1
};

// Tanh: {x bits, correctly rounded result bits}
constexpr BitsCase kTanhCases[] = {
    {0x00000000, 0x00000000},  // 0x0p+0 -> 0x0p+0
    {0x80000000, 0x80000000},  // -0x0p+0 -> -0x0p+0
    {0x00000001, 0x00000001},  // 0x1p-149 -> 0x1p-149
    {0x80000001, 0x80000001},  // -0x1p-149 -> -0x1p-149
    {0x00800000, 0x00800000},  // 0x1p-126 -> 0x1p-126
    {0x80800000, 0x80800000},  // -0x1p-126 -> -0x1p-126
    {0x7F7FFFFF, 0x3F800000},  // 0x1.fffffep+127 -> 0x1p+0
    {0xFF7FFFFF, 0xBF800000},  // -0x1.fffffep+127 -> -0x1p+0
    {0x3F800000, 0x3F42F7D6},  // 0x1p+0 -> 0x1.85efacp-1
    {0xBF800000, 0xBF42F7D6},  // -0x1p+0 -> -0x1.85efacp-1
    {0x3F000000, 0x3EEC9A9F},  // 0x1p-1 -> 0x1.d9353ep-2
    {0xBF000000, 0xBEEC9A9F},  // -0x1p-1 -> -0x1.d9353ep-2
    {0x40000000, 0x3F76CA83},  // 0x1p+1 -> 0x1.ed9506p-1
    {0xC0000000, 0xBF76CA83},  // -0x1p+1 -> -0x1.ed9506p-1
    {0x41200000, 0x3F800000},  // 0x1.4p+3 -> 0x1p+0
    {0xC1200000, 0xBF800000},  // -0x1.4p+3 -> -0x1p+0
    {0x3DCCCCCD, 0x3DCC1EBC},  // 0x1.99999ap-4 -> 0x1.983d78p-4
    {0xBDCCCCCD, 0xBDCC1EBC},  // -0x1.99999ap-4 -> -0x1.983d78p-4
    {0x2EDBE6FF, 0x2EDBE6FF},  // 0x1.b7cdfep-34 -> 0x1.b7cdfep-34
    {0xAEDBE6FF, 0xAEDBE6FF},  // -0x1.b7cdfep-34 -> -0x1.b7cdfep-34
    {0x40400000, 0x3F7EBBE9},  // 0x1.8p+1 -> 0x1.fd77d2p-1
    {0x41A00000, 0x3F800000},  // 0x1.4p+4 -> 0x1p+0
    {0xC1A00000, 0xBF800000},  // -0x1.4p+4 -> -0x1p+0
    {0x42B00000, 0x3F800000},  // 0x1.6p+6 -> 0x1p+0
    {0xC2AE0000, 0xBF800000},  // -0x1.5cp+6 -> -0x1p+0
    {0x3D000000, 0x3CFFEAAD},  // 0x1p-5 -> 0x1.ffd55ap-6
    {0x3CFFFFFF, 0x3CFFEAAC},  // 0x1.fffffep-6 -> 0x1.ffd558p-6
    {0x39800000, 0x39800000},  // 0x1p-12 -> 0x1p-12
    {0x41100000, 0x3F7FFFFF},  // 0x1.2p+3 -> 0x1.fffffep-1
    {0x4111999A, 0x3F800000},  // 0x1.233334p+3 -> 0x1p+0
    {0x39000000, 0x39000000},  // 0x1p-13 -> 0x1p-13
    {0xBCD5EFB3, 0xBCD5E341},  // -0x1.abdf66p-6 -> -0x1.abc682p-6
    {0x3CA49A36, 0x3CA4948A},  // 0x1.49346cp-6 -> 0x1.492914p-6
    {0x3F73041C, 0x3F3D4D18},  // 0x1.e60838p-1 -> 0x1.7a9a3p-1
    {0x3C47A400, 0x3C47A179},  // 0x1.8f48p-7 -> 0x1.8f42f2p-7
    {0x3A71E7B2, 0x3A71E7AD},  // 0x1.e3cf64p-11 -> 0x1.e3cf5ap-11
    {0x3B1F2466, 0x3B1F2452},  // 0x1.3e48ccp-9 -> 0x1.3e48a4p-9
    {0xC08A3EAD, 0xBF7FE8D3},  // -0x1.147d5ap+2 -> -0x1.ffd1a6p-1
    {0xC0C698FD, 0xBF7FFF77},  // -0x1.8d31fap+2 -> -0x1.fffeeep-1
    {0xBA8C2513, 0xBA8C250F},  // -0x1.184a26p-10 -> -0x1.184a1ep-10
    {0xBCB7C28B, 0xBCB7BAA7},  // -0x1.6f8516p-6 -> -0x1.6f754ep-6
    {0xBA46DCBF, 0xBA46DCBD},  // -0x1.8db97ep-11 -> -0x1.8db97ap-11
    {0x3F11D5F4, 0x3F03DEBE},  // 0x1.23abe8p-1 -> 0x1.07bd7cp-1
};

// Pow: {x bits, y bits, correctly rounded result bits}
constexpr PowCase kPowCases[] = {
    {0x40000000, 0x3F000000, 0x3FB504F3},  // pow(0x1p+1, 0x1p-1) -> 0x1.6a09e6p+0
    {0x41200000, 0x3DCCCCCD, 0x3FA12478},  // pow(0x1.4p+3, 0x1.99999ap-4) -> 0x1.4248fp+0
    {0x3E99999A, 0x40F66666, 0x38C573FA},  // pow(0x1.333334p-2, 0x1.ecccccp+2) -> 0x1.8ae7f4p-14
    {0x3F800347, 0x47C35000, 0x46AC4808},  // pow(0x1.00068ep+0, 0x1.86ap+16) -> 0x1.58901p+14
    {0x3F7FF972, 0xC7C35000, 0x46AC742C},  // pow(0x1.fff2e4p-1, -0x1.86ap+16) -> 0x1.58e858p+14
    {0x40400000, 0xC2A00000, 0x0049AB73},  // pow(0x1.8p+1, -0x1.4p+6) -> 0x1.26adccp-127
    {0x40E00000, 0x42360000, 0x7F54FDB5},  // pow(0x1.cp+2, 0x1.6cp+5) -> 0x1.a9fb6ap+127
    {0x1E3CE508, 0x3FD9999A, 0x0704EC29},  // pow(0x1.79ca1p-67, 0x1.b33334p+0) -> 0x1.09d852p-113
    {0x60AD78EC, 0xBE99999A, 0x358637B8},  // pow(0x1.5af1d8p+66, -0x1.333334p-2) -> 0x1.0c6f7p-20
    {0xC0400000, 0x40A00000, 0xC3730000},  // pow(-0x1.8p+1, 0x1.4p+2) -> -0x1.e6p+7
    {0xBF333333, 0xC1300000, 0xC24A4B1A},  // pow(-0x1.666666p-1, -0x1.6p+3) -> -0x1.949634p+5
    {0x40A00000, 0x425C6666, 0x7F754572},  // pow(0x1.4p+2, 0x1.b8ccccp+5) -> 0x1.ea8ae4p+127
    {0x3F000000, 0x43158000, 0x00000001},  // pow(0x1p-1, 0x1.2bp+7) -> 0x1p-149
    {0x40000000, 0x42FFFAE1, 0x7F7E3B37},  // pow(0x1p+1, 0x1.fff5c2p+6) -> 0x1.fc766ep+127
    {0x40000000, 0xC3153333, 0x00000001},  // pow(0x1p+1, -0x1.2a6666p+7) -> 0x1p-149
    {0x00000001, 0x3F000000, 0x1A3504F3},  // pow(0x1p-149, 0x1p-1) -> 0x1.6a09e6p-75
    {0x7F7FFFFF, 0x3F7FBE77, 0x7F6A4401},  // pow(0x1.fffffep+127, 0x1.ff7ceep-1) -> 0x1.d48802p+127
    {0x3FC00000, 0x435AB333, 0x7F74183E},  // pow(0x1.8p+0, 0x1.b56666p+7) -> 0x1.e8307cp+127
    {0x3F800001, 0x4B800000, 0x40EC7324},  // pow(0x1.000002p+0, 0x1p+24) -> 0x1.d8e648p+2
    {0x3F7FFFFF, 0xCC000000, 0x40EC7327},  // pow(0x1.fffffep-1, -0x1p+25) -> 0x1.d8e64ep+2
};

template <std::size_t N>
void CheckTable(float (*f)(float), const BitsCase (&cases)[N]) {
  for (const BitsCase& c : cases) {
    EXPECT_TRUE(SameFloat(FromBits(c.expected), f(FromBits(c.x)))) << "x = " << Hex(FromBits(c.x));
  }
}

TEST(ExpTest, MatchesMpfr) {
  CheckTable(Exp, kExpCases);
}
TEST(LogTest, MatchesMpfr) {
  CheckTable(Log, kLogCases);
}
TEST(Log1pTest, MatchesMpfr) {
  CheckTable(Log1p, kLog1pCases);
}
TEST(SigmoidTest, MatchesMpfr) {
  CheckTable(Sigmoid, kSigmoidCases);
}
TEST(TanhTest, MatchesMpfr) {
  CheckTable(Tanh, kTanhCases);
}

TEST(PowTest, MatchesMpfr) {
  for (const PowCase& c : kPowCases) {
    EXPECT_TRUE(SameFloat(FromBits(c.expected), Pow(FromBits(c.x), FromBits(c.y))))
        << "pow(" << Hex(FromBits(c.x)) << ", " << Hex(FromBits(c.y)) << ")";
  }
}

TEST(ExpTest, SpecialValues) {
  EXPECT_TRUE(std::isnan(Exp(kNan)));
  EXPECT_TRUE(std::isnan(Exp(-kNan)));
  EXPECT_TRUE(SameFloat(kInf, Exp(kInf)));
  EXPECT_TRUE(SameFloat(0.0f, Exp(-kInf)));
  EXPECT_TRUE(SameFloat(1.0f, Exp(0.0f)));
  EXPECT_TRUE(SameFloat(1.0f, Exp(-0.0f)));
  EXPECT_TRUE(SameFloat(1.0f, Exp(kTiny)));
  EXPECT_TRUE(SameFloat(kInf, Exp(kMax)));
  EXPECT_TRUE(SameFloat(0.0f, Exp(-kMax)));
  // The result is never negative zero, even far below the underflow point.
  EXPECT_TRUE(SameFloat(0.0f, Exp(-200.0f)));
}

TEST(LogTest, SpecialValues) {
  EXPECT_TRUE(SameFloat(-kInf, Log(0.0f)));
  EXPECT_TRUE(SameFloat(-kInf, Log(-0.0f)));
  EXPECT_TRUE(std::isnan(Log(-1.0f)));
  EXPECT_TRUE(std::isnan(Log(-kTiny)));
  EXPECT_TRUE(std::isnan(Log(-kInf)));
  EXPECT_TRUE(std::isnan(Log(kNan)));
  EXPECT_TRUE(SameFloat(kInf, Log(kInf)));
  EXPECT_TRUE(SameFloat(0.0f, Log(1.0f)));  // +0, not -0
  // Subnormal inputs are not flushed: log(2^-149) = -149 ln 2.
  EXPECT_TRUE(SameFloat(-0x1.9d1dap6f, Log(kTiny)));
  EXPECT_TRUE(SameFloat(-0x1.5d58ap6f, Log(kMinNormal)));
}

TEST(Log1pTest, SpecialValues) {
  EXPECT_TRUE(SameFloat(-0.0f, Log1p(-0.0f)));
  EXPECT_TRUE(SameFloat(0.0f, Log1p(0.0f)));
  EXPECT_TRUE(SameFloat(-kInf, Log1p(-1.0f)));
  EXPECT_TRUE(std::isnan(Log1p(-1.5f)));
  EXPECT_TRUE(std::isnan(Log1p(-kInf)));
  EXPECT_TRUE(std::isnan(Log1p(kNan)));
  EXPECT_TRUE(SameFloat(kInf, Log1p(kInf)));
  EXPECT_TRUE(SameFloat(kTiny, Log1p(kTiny)));
  EXPECT_TRUE(SameFloat(-kTiny, Log1p(-kTiny)));
  EXPECT_TRUE(SameFloat(0x1p-30f, Log1p(0x1p-30f)));
}

TEST(SigmoidTest, SpecialValues) {
  EXPECT_TRUE(SameFloat(1.0f, Sigmoid(kInf)));
  EXPECT_TRUE(SameFloat(0.0f, Sigmoid(-kInf)));
  EXPECT_TRUE(SameFloat(0.5f, Sigmoid(0.0f)));
  EXPECT_TRUE(SameFloat(0.5f, Sigmoid(-0.0f)));
  EXPECT_TRUE(std::isnan(Sigmoid(kNan)));
  EXPECT_TRUE(SameFloat(1.0f, Sigmoid(kMax)));
  EXPECT_TRUE(SameFloat(0.0f, Sigmoid(-kMax)));
  // Deep in the left tail the result is e^x, subnormal.
  EXPECT_TRUE(SameFloat(Exp(-100.0f), Sigmoid(-100.0f)));
}

TEST(TanhTest, SpecialValues) {
  EXPECT_TRUE(SameFloat(-0.0f, Tanh(-0.0f)));
  EXPECT_TRUE(SameFloat(0.0f, Tanh(0.0f)));
  EXPECT_TRUE(SameFloat(1.0f, Tanh(kInf)));
  EXPECT_TRUE(SameFloat(-1.0f, Tanh(-kInf)));
  EXPECT_TRUE(std::isnan(Tanh(kNan)));
  EXPECT_TRUE(SameFloat(kTiny, Tanh(kTiny)));
  EXPECT_TRUE(SameFloat(-kTiny, Tanh(-kTiny)));
  EXPECT_TRUE(SameFloat(-1.0f, Tanh(-kMax)));
}

TEST(TanhTest, OddSymmetry) {
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) {
    float x = FromBits(rng() & 0x7FFFFFFFu);
    ASSERT_TRUE(SameFloat(-Tanh(x), Tanh(-x))) << Hex(x);
  }
}

TEST(PowTest, ExactResults) {
  EXPECT_TRUE(SameFloat(100.0f, Pow(10.0f, 2.0f)));
  EXPECT_TRUE(SameFloat(0.125f, Pow(2.0f, -3.0f)));
  EXPECT_TRUE(SameFloat(kTiny, Pow(2.0f, -149.0f)));
  EXPECT_TRUE(SameFloat(kTiny, Pow(0.5f, 149.0f)));
  EXPECT_TRUE(SameFloat(0x1p127f, Pow(2.0f, 127.0f)));
  EXPECT_TRUE(SameFloat(3.0f, Pow(9.0f, 0.5f)));
  EXPECT_TRUE(SameFloat(8.0f, Pow(4.0f, 1.5f)));
  EXPECT_TRUE(SameFloat(0.25f, Pow(16.0f, -0.5f)));
  EXPECT_TRUE(SameFloat(-27.0f, Pow(-3.0f, 3.0f)));
  EXPECT_TRUE(SameFloat(81.0f, Pow(-3.0f, 4.0f)));
  EXPECT_TRUE(SameFloat(-0.125f, Pow(-2.0f, -3.0f)));
  EXPECT_TRUE(SameFloat(16777215.0f, Pow(16777215.0f, 1.0f)));
  EXPECT_TRUE(SameFloat(kMax, Pow(kMax, 1.0f)));
  EXPECT_TRUE(SameFloat(0x1p-140f, Pow(0x1p-70f, 2.0f)));      // subnormal result
  EXPECT_TRUE(SameFloat(0x1.2p-145f, Pow(0x1.8p-73f, 2.0f)));  // 9 * 2^-148, subnormal
  EXPECT_TRUE(SameFloat(0x1p-35f, Pow(0x1p-140f, 0.25f)));     // subnormal input
  EXPECT_TRUE(SameFloat(1.0f, Pow(1.0f, 12345.6f)));
}

TEST(PowTest, ExactTiesRoundToEven) {
  // 4097^2 = 2^24 + 2^13 + 1 lies exactly between two floats.
  EXPECT_TRUE(SameFloat(4097.0f * 4097.0f, Pow(4097.0f, 2.0f)));
  // 2^-150 lies exactly between 0 and the smallest subnormal: ties to +0.
  EXPECT_TRUE(SameFloat(0.0f, Pow(2.0f, -150.0f)));
  EXPECT_TRUE(SameFloat(-0.0f, Pow(-0x1p-50f, 3.0f)));
  // 9 * 2^-150 = 4.5 * 2^-149: ties to the even 4 * 2^-149.
  EXPECT_TRUE(SameFloat(0x1p-147f, Pow(0x1.8p-74f, 2.0f)));
  // 257^3 = 16974593 has 25 bits: pow(257^2, 1.5) is a tie as well.
  EXPECT_TRUE(SameFloat(16974592.0f, Pow(66049.0f, 1.5f)));
}

TEST(PowTest, C99SpecialCases) {
  EXPECT_TRUE(SameFloat(1.0f, Pow(kNan, 0.0f)));
  EXPECT_TRUE(SameFloat(1.0f, Pow(kNan, -0.0f)));
  EXPECT_TRUE(SameFloat(1.0f, Pow(1.0f, kNan)));
  EXPECT_TRUE(SameFloat(1.0f, Pow(1.0f, -kInf)));
  EXPECT_TRUE(SameFloat(1.0f, Pow(-1.0f, kInf)));
  EXPECT_TRUE(SameFloat(1.0f, Pow(-1.0f, -kInf)));
  EXPECT_TRUE(std::isnan(Pow(kNan, 1.0f)));
  EXPECT_TRUE(std::isnan(Pow(2.0f, kNan)));
  EXPECT_TRUE(SameFloat(kInf, Pow(0.0f, -1.0f)));
  EXPECT_TRUE(SameFloat(-kInf, Pow(-0.0f, -1.0f)));
  EXPECT_TRUE(SameFloat(kInf, Pow(-0.0f, -2.0f)));
  EXPECT_TRUE(SameFloat(kInf, Pow(-0.0f, -0.5f)));
  EXPECT_TRUE(SameFloat(kInf, Pow(-0.0f, -kInf)));
  EXPECT_TRUE(SameFloat(-0.0f, Pow(-0.0f, 3.0f)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(-0.0f, 4.0f)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(-0.0f, 0.5f)));
  EXPECT_TRUE(SameFloat(kInf, Pow(0.5f, -kInf)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(2.0f, -kInf)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(-0.5f, kInf)));
  EXPECT_TRUE(SameFloat(kInf, Pow(-2.0f, kInf)));
  EXPECT_TRUE(SameFloat(-0.0f, Pow(-kInf, -3.0f)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(-kInf, -2.0f)));
  EXPECT_TRUE(SameFloat(-kInf, Pow(-kInf, 3.0f)));
  EXPECT_TRUE(SameFloat(kInf, Pow(-kInf, 2.5f)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(kInf, -0.5f)));
  EXPECT_TRUE(SameFloat(kInf, Pow(kInf, 0.5f)));
  EXPECT_TRUE(std::isnan(Pow(-8.0f, 1.0f / 3)));
  EXPECT_TRUE(std::isnan(Pow(-2.0f, 0.5f)));
  // Every float of magnitude >= 2^24 is an even integer.
  EXPECT_TRUE(SameFloat(kInf, Pow(-2.0f, 0x1p24f)));
  EXPECT_TRUE(SameFloat(-1.0f, Pow(-1.0f, 0x1.fffffep23f)));
  EXPECT_TRUE(SameFloat(1.0f, Pow(-1.0f, 0x1p24f)));
}

TEST(PowTest, OverflowAndUnderflow) {
  EXPECT_TRUE(SameFloat(kInf, Pow(2.0f, 128.0f)));
  EXPECT_TRUE(SameFloat(-kInf, Pow(-2.0f, 129.0f)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(2.0f, -151.0f)));
  EXPECT_TRUE(SameFloat(-0.0f, Pow(-2.0f, -151.0f)));
  EXPECT_TRUE(SameFloat(kInf, Pow(kMax, kMax)));
  EXPECT_TRUE(SameFloat(0.0f, Pow(kMax, -kMax)));
  EXPECT_TRUE(SameFloat(kInf, Pow(kTiny, -1.0f)));
}

// Loops like the VM's: the element-wise calls must give the scalar bits.
// Scalar references go through non-inlined wrappers.
template <float (*F)(float)>
[[gnu::noinline]] float Scalar(float x) {
  return F(x);
}
[[gnu::noinline]] float ScalarPow(float x, float y) {
  return Pow(x, y);
}

template <float (*F)(float)>
void Loop(const float* in, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = F(in[i]);
}
void LoopPow(const float* a, const float* b, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = Pow(a[i], b[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CALCJIT_TEST_AVX2 1
template <float (*F)(float)>
[[gnu::target("avx2")]] void LoopAvx2(const float* in, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = F(in[i]);
}
[[gnu::target("avx2")]] void LoopPowAvx2(const float* a, const float* b, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = Pow(a[i], b[i]);
}
#endif

// 1003 inputs at an odd offset (unaligned for every vector width): random bit
// patterns, random values in the interesting range, and special values.
std::vector<float> LoopInputs(std::uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::vector<float> v(1 + 1003);
  const float specials[] = {0.0f,   -0.0f, kInf,  -kInf, kNan, kTiny,
                            -kTiny, kMax,  -kMax, 1.0f,  -1.0f};
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (i % 3 == 0) {
      v[i] = FromBits(rng());
    } else if (i % 17 == 0) {
      v[i] = specials[(i / 17) % std::size(specials)];
    } else {
      v[i] = dist(rng);
    }
  }
  return v;
}

template <float (*F)(float)>
void CheckLoop(const char* name, float scale) {
  std::vector<float> in = LoopInputs(42, scale);
  std::vector<float> out(in.size(), 0.0f);
  const int n = 1003;
  Loop<F>(in.data() + 1, out.data() + 1, n);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(Bits(Scalar<F>(in[i + 1])), Bits(out[i + 1])) << name << "(" << Hex(in[i + 1]) << ")";
  }
#ifdef CALCJIT_TEST_AVX2
  if (__builtin_cpu_supports("avx2")) {
    std::vector<float> out2(in.size(), 0.0f);
    LoopAvx2<F>(in.data() + 1, out2.data() + 1, n);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(Bits(Scalar<F>(in[i + 1])), Bits(out2[i + 1]))
          << name << " avx2 (" << Hex(in[i + 1]) << ")";
    }
  }
#endif
}

TEST(VectorLoopTest, UnalignedLoopsMatchScalarCalls) {
  CheckLoop<Exp>("Exp", 100.0f);
  CheckLoop<Log>("Log", 10.0f);
  CheckLoop<Log1p>("Log1p", 2.0f);
  CheckLoop<Sigmoid>("Sigmoid", 30.0f);
  CheckLoop<Tanh>("Tanh", 0.2f);
}

TEST(VectorLoopTest, UnalignedPowLoopMatchesScalarCalls) {
  std::vector<float> a = LoopInputs(1, 10.0f);
  std::vector<float> b = LoopInputs(2, 40.0f);
  // Some negative bases with integer exponents.
  for (std::size_t i = 5; i < b.size(); i += 7) b[i] = std::nearbyint(b[i]);
  std::vector<float> out(a.size(), 0.0f);
  const int n = 1003;
  LoopPow(a.data() + 1, b.data() + 1, out.data() + 1, n);
  for (int i = 1; i <= n; ++i) {
    ASSERT_EQ(Bits(ScalarPow(a[i], b[i])), Bits(out[i]))
        << "pow(" << Hex(a[i]) << ", " << Hex(b[i]) << ")";
  }
#ifdef CALCJIT_TEST_AVX2
  if (__builtin_cpu_supports("avx2")) {
    std::vector<float> out2(a.size(), 0.0f);
    LoopPowAvx2(a.data() + 1, b.data() + 1, out2.data() + 1, n);
    for (int i = 1; i <= n; ++i) {
      ASSERT_EQ(Bits(ScalarPow(a[i], b[i])), Bits(out2[i]))
          << "avx2 pow(" << Hex(a[i]) << ", " << Hex(b[i]) << ")";
    }
  }
#endif
}

}  // namespace
}  // namespace calcjit::math
