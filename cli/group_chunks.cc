#include "cli/group_chunks.h"

#include <algorithm>
#include <utility>

namespace calcjit::cli {

std::optional<std::string> RecordField(std::string_view record, std::size_t column) {
  // The line end, as ParseCsv ends a record: LF, CRLF or the end.
  if (!record.empty() && record.back() == '\n') record.remove_suffix(1);
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
  std::size_t i = 0;
  for (std::size_t field = 0;; ++field) {
    std::string value;
    if (i < record.size() && record[i] == '"') {
      ++i;
      while (true) {
        if (i >= record.size()) return std::nullopt;  // unterminated: ParseCsv will say so
        const char c = record[i++];
        if (c == '"') {
          if (i < record.size() && record[i] == '"') {
            value += '"';
            ++i;
            continue;
          }
          break;
        }
        value += c;
      }
      if (i < record.size() && record[i] != ',') return std::nullopt;  // malformed
    } else {
      const std::size_t end = std::min(record.find(',', i), record.size());
      value.assign(record.substr(i, end - i));
      i = end;
    }
    if (field == column) return value;
    if (i >= record.size()) return std::nullopt;  // fewer fields
    ++i;                                          // the comma
  }
}

Result<std::string> ReadHeader(CsvInput& in, const MemoryBudget& budget, std::size_t* lines) {
  std::string header;
  Result<CsvInput::Read> read = in.ReadRecord(&header, lines, budget.record());
  if (!read.ok()) return read.status();
  if (*read == CsvInput::Read::kEnd) return UserError("the input has no header row");
  if (*read == CsvInput::Read::kTooLong) {
    return UserError("the header row is longer than " + ShowBytes(budget.record()) +
                         ", the longest record the memory budget of " + ShowBytes(budget.bytes) +
                         " allows (--memory-budget)",
                     "line 1");
  }
  return header;
}

GroupChunkReader::GroupChunkReader(CsvInput& in, std::string header, std::size_t header_lines,
                                   std::optional<std::size_t> group_column, std::size_t chunk_bytes,
                                   MemoryBudget budget)
    : in_(in),
      header_(std::move(header)),
      header_lines_(header_lines),
      group_column_(group_column),
      chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)),
      budget_(budget) {}

bool GroupChunkReader::SameGroup(const std::string& a, const std::string& b) const {
  // Without the column (an error the chunk's evaluation reports), any cut will do.
  if (!group_column_) return false;
  const std::optional<std::string> key_a = RecordField(a, *group_column_);
  const std::optional<std::string> key_b = RecordField(b, *group_column_);
  // A malformed record fails its chunk's parse whichever chunk it lands in.
  return key_a && key_b && *key_a == *key_b;
}

Result<std::optional<GroupChunk>> GroupChunkReader::Next(const std::uint64_t& in_flight,
                                                         const std::function<Status()>& make_room) {
  if (handed_out_any_ && ended_ && !pending_) return std::optional<GroupChunk>();
  GroupChunk chunk;
  chunk.text = header_;
  chunk.rows_before = rows_before_;
  chunk.lines_before = lines_before_;
  chunk.first = !handed_out_any_;
  const std::uint64_t allowance = budget_.text();
  std::size_t bytes = 0;
  std::size_t rows = 0;
  std::size_t lines = 0;
  std::string last;  // the chunk's last record: the next chunk starts at a new key
  while (true) {
    if (!pending_ && !ended_) {
      // Room for the longest record first: the chunks in flight are finished,
      // oldest first, until the next record fits whatever its length.
      while (in_flight > 0 && in_flight + chunk.text.size() + budget_.record() > allowance) {
        CALCJIT_RETURN_IF_ERROR(make_room());
      }
      const std::uint64_t held = in_flight + chunk.text.size();
      const std::uint64_t limit =
          held < allowance ? std::min(budget_.record(), allowance - held) : 0;
      std::string record;
      std::size_t record_lines = 0;
      Result<CsvInput::Read> read = in_.ReadRecord(&record, &record_lines, limit);
      if (!read.ok()) return read.status();
      if (*read == CsvInput::Read::kEnd) {
        ended_ = true;
      } else if (*read == CsvInput::Read::kTooLong) {
        const std::string where =
            "line " + std::to_string(header_lines_ + lines_before_ + lines + 1);
        if (limit == budget_.record()) {
          return UserError("a record is longer than " + ShowBytes(budget_.record()) +
                               ", the longest the memory budget of " + ShowBytes(budget_.bytes) +
                               " allows (--memory-budget)",
                           where);
        }
        return UserError("the batch (--group-by group) that goes on here is larger than " +
                             ShowBytes(allowance) + " of CSV text, the most the memory budget of " +
                             ShowBytes(budget_.bytes) +
                             " allows at once (--memory-budget); one batch is evaluated at once",
                         where);
      } else {
        pending_ = std::move(record);
        pending_lines_ = record_lines;
      }
    }
    if (!pending_) break;
    if (bytes >= chunk_bytes_ && rows > 0 && !SameGroup(last, *pending_)) break;
    bytes += pending_->size();
    chunk.text += *pending_;
    ++rows;
    lines += pending_lines_;
    last = std::move(*pending_);
    pending_.reset();
  }
  rows_before_ += rows;
  lines_before_ += lines;
  handed_out_any_ = true;
  return std::optional<GroupChunk>(std::move(chunk));
}

}  // namespace calcjit::cli
