// What every feature-set reader target checks on an input the reader and the
// checker accept (spec sections 2 and 4): written in each of the three
// formats, the set reads back, passes the checker again, and is the same IR;
// writing it again gives the same bytes (each writer's output is a fixed
// point). A failure prints both dumps and aborts, which libFuzzer reports as
// a crash and keeps the input.
#ifndef CALCJIT_TESTS_FUZZ_ROUND_TRIP_H_
#define CALCJIT_TESTS_FUZZ_ROUND_TRIP_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "dsl/json_reader.h"
#include "dsl/json_writer.h"
#include "dsl/proto_reader.h"
#include "dsl/proto_writer.h"
#include "dsl/text_parser.h"
#include "dsl/text_printer.h"
#include "ir/checked_set.h"
#include "ir/feature_set_ir.h"
#include "tests/fuzz/ir_dump.h"

namespace calcjit::fuzz {

[[noreturn]] inline void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz check failed: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// A set in one format, the reader and writer of that format, and what the
// format cannot carry (ir_dump.h).
struct WireFormat {
  const char* name;
  Result<ir::FeatureSetIr> (*read)(std::string_view);
  std::string (*write)(const ir::FeatureSetIr&);
  unsigned fold;
};

inline const WireFormat kFormats[] = {
    {"text", dsl::ReadText, dsl::WriteText, kNanIsNan | kTwoOperandMinMax},
    {"json", dsl::ReadJson, dsl::WriteJson, kNanIsNan},
    {"proto", dsl::ReadProto, dsl::WriteProto, kExact},
};

// `set` was read from a format that carries what `source_fold` says.
inline void CheckRoundTrips(const ir::FeatureSetIr& set, unsigned source_fold) {
  for (const WireFormat& format : kFormats) {
    const unsigned fold = source_fold | format.fold;
    const std::string written = format.write(set);
    Result<ir::FeatureSetIr> again = format.read(written);
    if (!again.ok()) {
      Fail(std::string(format.name) +
               ": the written set does not read back: " + again.status().ToString(),
           written);
    }
    const std::string expected = DumpIr(set, fold);
    const std::string actual = DumpIr(*again, fold);
    if (expected != actual) {
      Fail(std::string(format.name) + ": the set read back differs",
           "--- written:\n" + written + "\n--- read first:\n" + expected + "--- read back:\n" +
               actual);
    }
    const std::string rewritten = format.write(*again);
    if (rewritten != written) {
      Fail(std::string(format.name) + ": writing the set read back gives other bytes",
           "--- first:\n" + written + "\n--- second:\n" + rewritten);
    }
    Result<ir::CheckedSet> checked = ir::Check(std::move(again).value());
    if (!checked.ok()) {
      Fail(std::string(format.name) +
               ": the set read back fails the checker: " + checked.status().ToString(),
           written);
    }
  }
}

// The whole target for one reader: read, check, and round-trip what passes.
inline void ReadCheckRoundTrip(Result<ir::FeatureSetIr> (*read)(std::string_view),
                               std::string_view bytes, unsigned source_fold) {
  Result<ir::FeatureSetIr> read_ir = read(bytes);
  if (!read_ir.ok()) {
    if (read_ir.status().ToString().empty()) Fail("an error without a message", bytes);
    return;
  }
  Result<ir::CheckedSet> checked = ir::Check(std::move(read_ir).value());
  if (!checked.ok()) return;
  CheckRoundTrips(checked->ir, source_fold);
}

}  // namespace calcjit::fuzz

#endif  // CALCJIT_TESTS_FUZZ_ROUND_TRIP_H_
