#include "cli/group_chunks.h"

#include <algorithm>
#include <utility>

namespace calcjit::cli {

bool ReadCsvRecord(std::istream& in, std::string* record, std::size_t* lines) {
  record->clear();
  *lines = 0;
  std::string line;
  std::size_t quotes = 0;
  while (std::getline(in, line)) {
    ++*lines;
    quotes += static_cast<std::size_t>(std::count(line.begin(), line.end(), '"'));
    *record += line;
    *record += '\n';
    if (quotes % 2 == 0) return true;  // not inside a quoted field
  }
  return *lines > 0;
}

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

GroupChunkReader::GroupChunkReader(std::istream& in, std::string header,
                                   std::optional<std::size_t> group_column, std::size_t chunk_bytes)
    : in_(in),
      header_(std::move(header)),
      group_column_(group_column),
      chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)) {}

bool GroupChunkReader::ReadOne() {
  if (ended_) return false;
  std::string record;
  std::size_t lines = 0;
  if (!ReadCsvRecord(in_, &record, &lines)) {
    ended_ = true;
    return false;
  }
  pending_ = std::move(record);
  pending_lines_ = lines;
  return true;
}

bool GroupChunkReader::SameGroup(const std::string& a, const std::string& b) const {
  // Without the column (an error the chunk's evaluation reports), any cut will do.
  if (!group_column_) return false;
  const std::optional<std::string> key_a = RecordField(a, *group_column_);
  const std::optional<std::string> key_b = RecordField(b, *group_column_);
  // A malformed record fails its chunk's parse whichever chunk it lands in.
  return key_a && key_b && *key_a == *key_b;
}

bool GroupChunkReader::Next(GroupChunk* chunk) {
  if (handed_out_any_ && ended_ && !pending_) return false;
  chunk->text = header_;
  chunk->rows_before = rows_before_;
  chunk->lines_before = lines_before_;
  chunk->first = !handed_out_any_;
  std::size_t bytes = 0;
  std::size_t rows = 0;
  std::size_t lines = 0;
  std::string last;  // the chunk's last record: the next chunk starts at a new key
  while (pending_ || ReadOne()) {
    if (bytes >= chunk_bytes_ && rows > 0 && !SameGroup(last, *pending_)) break;
    bytes += pending_->size();
    chunk->text += *pending_;
    ++rows;
    lines += pending_lines_;
    last = std::move(*pending_);
    pending_.reset();
  }
  rows_before_ += rows;
  lines_before_ += lines;
  handed_out_any_ = true;
  return true;
}

}  // namespace calcjit::cli
