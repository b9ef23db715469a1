// Cuts a CSV stream into chunks of whole query groups for `calcjit eval
// --group-by`: about `chunk_bytes` of rows each, always ending where the group
// key changes, so that each chunk can be parsed, evaluated and rendered on its
// own (and on any thread). The cut depends only on the bytes and chunk_bytes,
// never on the thread count: `--threads N` gives the same chunks, the same
// output and the same first error as `--threads 1`.
//
// Memory: the text of the chunks in flight (handed out, not yet written) and
// of the chunk being read stays within the budget's text allowance
// (csv_input.h). When the next record would not fit, the reader first asks
// the caller to finish the oldest chunk in flight (`make_room`); a group that
// does not fit alone, or a record longer than the budget's record limit, is
// an error: one group is one batch, evaluated at once.
#ifndef CALCJIT_CLI_GROUP_CHUNKS_H_
#define CALCJIT_CLI_GROUP_CHUNKS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "calcjit/status.h"
#include "cli/csv_input.h"

namespace calcjit::cli {

struct GroupChunk {
  std::string text;              // the header record, then the chunk's records
  std::size_t rows_before = 0;   // data rows before the chunk in the file
  std::size_t lines_before = 0;  // lines before it, after the header
  bool first = false;            // the first chunk writes the header row
};

// The field `column` of one CSV record, unquoted as ParseCsv reads it (the
// record's line end dropped); nullopt when the record has fewer fields.
std::optional<std::string> RecordField(std::string_view record, std::size_t column);

// The header record of `in`, within the budget's record limit; an error for
// an empty input or an endless first line.
Result<std::string> ReadHeader(CsvInput& in, const MemoryBudget& budget, std::size_t* lines);

class GroupChunkReader {
 public:
  // `group_column` is the --group-by column's index in the header, or nullopt
  // when the header lacks it (then the first chunk's Bind reports that).
  // `header_lines`: the lines the header record spans (for line numbers).
  GroupChunkReader(CsvInput& in, std::string header, std::size_t header_lines,
                   std::optional<std::size_t> group_column, std::size_t chunk_bytes,
                   MemoryBudget budget);

  // The next chunk, or nullopt at the end. There is always at least one
  // chunk, perhaps without rows (a file of only a header). `in_flight` is the
  // text of the chunks handed out and not yet finished; `make_room` finishes
  // the oldest of them (and lowers `in_flight`).
  Result<std::optional<GroupChunk>> Next(const std::uint64_t& in_flight,
                                         const std::function<Status()>& make_room);

 private:
  bool SameGroup(const std::string& a, const std::string& b) const;

  CsvInput& in_;
  std::string header_;
  std::size_t header_lines_;
  std::optional<std::size_t> group_column_;
  std::size_t chunk_bytes_;
  MemoryBudget budget_;
  std::size_t rows_before_ = 0;
  std::size_t lines_before_ = 0;
  bool handed_out_any_ = false;
  bool ended_ = false;
  std::optional<std::string> pending_;  // a record read but not yet in a chunk
  std::size_t pending_lines_ = 0;
};

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_GROUP_CHUNKS_H_
