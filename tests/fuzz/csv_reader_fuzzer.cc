// libFuzzer target: the CSV reader of `calcjit eval` (cli/csv.cc) and its
// cell reading (ReadCell, calcjit::ParseNumber) on any bytes. Neither
// crashes, leaks or hits undefined behaviour, and what they accept
// round-trips:
//  - the table written back with CsvQuote (after a byte order mark, which the
//    reader skips, so that a first field starting with one survives) reads as
//    the same header and fields;
//  - a cell read as a number prints (calcjit::FormatNumber) as text that
//    reads back as the same float32 bits (any NaN as a NaN);
//  - streamed as `calcjit eval --group-by` streams a file (cli/csv_input.h,
//    cli/group_chunks.h: records, then chunks of whole groups keyed by the
//    first column, of a size the first byte picks), the chunks parse to the
//    same header and rows, with the same row and line numbers, and every cut
//    falls where the key changes: a batch is never split.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <sys/mman.h>
#include <unistd.h>

#include "calcjit/numbers.h"
#include "cli/csv.h"
#include "cli/csv_evaluation.h"
#include "cli/csv_input.h"
#include "cli/group_chunks.h"
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

// The bytes as a file (a memfd), read back the way eval reads its input.
void CheckStreamed(std::string_view bytes, const cli::CsvTable& whole) {
  const int fd = memfd_create("csv", MFD_CLOEXEC);
  if (fd < 0) return;
  const std::string text(bytes);
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    close(fd);
    return;
  }
  cli::CsvInput input;
  const Status opened = input.Open("/proc/self/fd/" + std::to_string(fd));
  close(fd);
  if (!opened.ok()) return;
  const cli::MemoryBudget budget{std::uint64_t{1} << 30};
  std::size_t header_lines = 0;
  Result<std::string> header = cli::ReadHeader(input, budget, &header_lines);
  if (!header.ok()) Fail("stream: no header where ParseCsv found one", text);
  const std::size_t chunk_bytes = bytes.empty() ? 1 : 1 + static_cast<unsigned char>(bytes[0]) % 64;
  cli::GroupChunkReader reader(input, *header, header_lines, 0, chunk_bytes, budget);
  const std::uint64_t in_flight = 0;
  std::size_t row = 0;
  while (true) {
    Result<std::optional<cli::GroupChunk>> chunk =
        reader.Next(in_flight, [] { return InternalError("nothing in flight"); });
    if (!chunk.ok()) Fail("stream: " + chunk.status().ToString(), text);
    if (!*chunk) break;
    if ((*chunk)->rows_before != row) Fail("stream: rows_before is off", text);
    Result<cli::CsvTable> part =
        cli::ParseCsv((*chunk)->text, (*chunk)->rows_before, (*chunk)->lines_before);
    if (!part.ok()) Fail("stream: a chunk does not parse: " + part.status().ToString(), text);
    if (part->header() != whole.header()) Fail("stream: a chunk has another header", text);
    if (row > 0 && part->row_count() > 0 && whole.Field(row - 1, 0) == whole.Field(row, 0)) {
      Fail("stream: a cut splits the batch of row " + std::to_string(row), text);
    }
    for (std::size_t r = 0; r < part->row_count(); ++r, ++row) {
      if (row >= whole.row_count()) Fail("stream: more rows than the whole file", text);
      if (part->LineOf(r) != whole.LineOf(row) || part->NumberOf(r) != row + 1) {
        Fail("stream: row " + std::to_string(row) + " is numbered otherwise", text);
      }
      for (std::size_t c = 0; c < whole.header().size(); ++c) {
        if (part->Field(r, c) != whole.Field(row, c)) {
          Fail("stream: field (" + std::to_string(row) + ", " + std::to_string(c) + ") differs",
               text);
        }
      }
    }
  }
  if (row != whole.row_count()) Fail("stream: fewer rows than the whole file", text);
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
  fuzz::CheckStreamed(bytes, *table);
  return 0;
}
