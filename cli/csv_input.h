// A CSV input of `calcjit eval` and `calcjit explain`, read within a memory
// budget (docs/CLI.md, "Memory"): no input, however long, endless or
// malformed, makes the command use more than the budget.
//
// What can be read: a regular file, a FIFO or pipe (`--input <(generate)`,
// `--input /dev/stdin`), or a terminal, read as a stream. A directory, a
// socket and any other device (/dev/zero, /dev/urandom, /dev/null: none of
// them holds rows, and some never end) are refused by name before a byte is
// read.
//
// The budget: the CSV text held in memory at once is at most budget / 20
// (the "text allowance"): a row of text takes up to about 16 times its size
// once it is read, parsed, bound, evaluated and rendered (15.5 measured on
// rows of 1-byte fields, the worst case; docs/CLI.md), so the whole stays
// within the budget with a margin. Without --group-by the whole file is that
// text; with it, the chunks being evaluated and the one being read. One
// record (a line, or lines joined by a quoted line break) is at most an
// eighth of the allowance (budget / 160).
#ifndef CALCJIT_CLI_CSV_INPUT_H_
#define CALCJIT_CLI_CSV_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calcjit/status.h"

namespace calcjit::cli {

struct MemoryBudget {
  // The text allowance is this share of the budget, a record that share of it.
  static constexpr std::uint64_t kTextShare = 20;
  static constexpr std::uint64_t kRecordShare = 8;
  static constexpr std::uint64_t kMinimum = std::uint64_t{16} << 20;  // 16 MiB

  std::uint64_t bytes = 0;

  std::uint64_t text() const { return bytes / kTextShare; }
  std::uint64_t record() const { return text() / kRecordShare; }
};

// Half of this machine's physical memory, at least 256 MiB.
std::uint64_t DefaultMemoryBudget();

// "1.5 GiB", "64 MiB", "900 bytes".
std::string ShowBytes(std::uint64_t bytes);

class CsvInput {
 public:
  CsvInput() = default;
  CsvInput(const CsvInput&) = delete;
  CsvInput& operator=(const CsvInput&) = delete;
  ~CsvInput();

  // Opens `path` (see above for what is refused).
  Status Open(const std::string& path);

  // The file's size when it is a regular file (for progress): else nullopt.
  std::optional<std::uint64_t> size() const { return size_; }
  // Bytes handed out so far (records and whole reads).
  std::uint64_t consumed() const { return consumed_; }

  enum class Read { kOk, kEnd, kTooLong };

  // One record: a line with its line end, and more lines while a quote is
  // open (quotes counted as CSV counts them); `lines` is how many lines it
  // spans. kEnd when nothing is left; kTooLong when it reaches `max_bytes`
  // first (then `record` holds what was read so far). A read error is a
  // Status.
  Result<Read> ReadRecord(std::string* record, std::size_t* lines, std::uint64_t max_bytes);

  // The rest of the input, if it is at most `max_bytes` (kTooLong, with
  // nothing kept, if it is more).
  Result<Read> ReadAll(std::string* out, std::uint64_t max_bytes);

  const std::string& path() const { return path_; }

 private:
  // Refills the buffer; false at the end.
  Result<bool> Fill();

  std::string path_;
  int fd_ = -1;
  std::optional<std::uint64_t> size_;
  std::uint64_t consumed_ = 0;
  std::vector<char> buffer_ = std::vector<char>(std::size_t{1} << 16);
  std::size_t begin_ = 0, end_ = 0;  // unread bytes of buffer_
  bool ended_ = false;
};

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_CSV_INPUT_H_
