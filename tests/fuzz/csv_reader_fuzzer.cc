// libFuzzer target: the CSV reader of `calcjit eval` (cli/csv.cc) and its
// cell reading (ReadCell, calcjit::ParseNumber) on any bytes. Neither
// crashes, leaks or hits undefined behaviour, and what they accept
// round-trips:
//  - the table written back with CsvQuote (after a byte order mark, which the
//    reader skips, so that a first field starting with one survives) reads as
//    the same header and fields;
//  - a cell read as a number prints (calcjit::FormatNumber) as text that
//    reads back as the same float32 bits (any NaN as a NaN).
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "calcjit/numbers.h"
#include "cli/csv.h"
#include "cli/csv_evaluation.h"
#include "tests/fuzz/round_trip.h"

namespace calcjit::fuzz {
namespace {

std::string WriteTable(const cli::CsvTable& table) {
  std::string out = "\xEF\xBB\xBF";
  const std::size_t columns = table.header().size();
  for (std::size_t c = 0; c < columns; ++c) {
    out += (c > 0 ? "," : "") + cli::CsvQuote(table.header()[c]);
  }
  out += '\n';
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    for (std::size_t c = 0; c < columns; ++c) {
      out += (c > 0 ? "," : "") + cli::CsvQuote(table.Field(r, c));
    }
    out += '\n';
  }
  return out;
}

void CheckSameTable(const cli::CsvTable& a, const cli::CsvTable& b, const std::string& written) {
  if (a.header() != b.header() || a.row_count() != b.row_count()) {
    Fail("csv: the table written back has another header or row count", written);
  }
  for (std::size_t r = 0; r < a.row_count(); ++r) {
    for (std::size_t c = 0; c < a.header().size(); ++c) {
      if (a.Field(r, c) != b.Field(r, c)) {
        Fail("csv: field (" + std::to_string(r) + ", " + std::to_string(c) + ") differs", written);
      }
    }
  }
}

void CheckNumber(float value) {
  const std::string text = FormatNumber(value);
  float again = 0.0f;
  if (ParseNumber(text, &again) != NumberParse::kOk) Fail("number: does not read back", text);
  const bool same = std::isnan(value) ? std::isnan(again)
                                      : std::bit_cast<std::uint32_t>(value) ==
                                            std::bit_cast<std::uint32_t>(again);
  if (!same) Fail("number: reads back as another float32", text);
}

}  // namespace
}  // namespace calcjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace calcjit;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Result<cli::CsvTable> table = cli::ParseCsv(bytes);
  if (!table.ok()) return 0;
  for (std::size_t r = 0; r < table->row_count(); ++r) {
    for (std::size_t c = 0; c < table->header().size(); ++c) {
      float value = 0.0f;
      if (cli::ReadCell(*table, r, c, &value).ok()) fuzz::CheckNumber(value);
    }
  }
  const std::string written = fuzz::WriteTable(*table);
  Result<cli::CsvTable> again = cli::ParseCsv(written);
  if (!again.ok()) fuzz::Fail("csv: the table written back does not read", written);
  fuzz::CheckSameTable(*table, *again, written);
  return 0;
}
