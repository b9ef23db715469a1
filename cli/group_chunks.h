// Cuts a CSV stream into chunks of whole query groups for `calcjit eval
// --group-by`: about `chunk_bytes` of rows each, always ending where the group
// key changes, so that each chunk can be parsed, evaluated and rendered on its
// own (and on any thread). The cut depends only on the bytes and chunk_bytes,
// never on the thread count: `--threads N` gives the same chunks, the same
// output and the same first error as `--threads 1`.
#ifndef CALCJIT_CLI_GROUP_CHUNKS_H_
#define CALCJIT_CLI_GROUP_CHUNKS_H_

#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

class GroupChunkReader {
 public:
  // `group_column` is the --group-by column's index in the header, or nullopt
  // when the header lacks it (then the first chunk's Bind reports that).
  GroupChunkReader(std::istream& in, std::string header, std::optional<std::size_t> group_column,
                   std::size_t chunk_bytes);

  // The next chunk; false at the end. There is always at least one chunk,
  // perhaps without rows (a file of only a header). The caller checks the
  // stream's bad() after each call.
  bool Next(GroupChunk* chunk);

 private:
  bool ReadOne();  // into pending_; false at the end of the stream
  bool SameGroup(const std::string& a, const std::string& b) const;

  std::istream& in_;
  std::string header_;
  std::optional<std::size_t> group_column_;
  std::size_t chunk_bytes_;
  std::size_t rows_before_ = 0;
  std::size_t lines_before_ = 0;
  bool handed_out_any_ = false;
  bool ended_ = false;
  std::optional<std::string> pending_;  // a record read but not yet in a chunk
  std::size_t pending_lines_ = 0;
};

// Reads one CSV record (quoted line breaks stay inside it) with its line end,
// and the number of lines it spans; false at the end of the stream.
bool ReadCsvRecord(std::istream& in, std::string* record, std::size_t* lines);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_GROUP_CHUNKS_H_
