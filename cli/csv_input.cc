#include "cli/csv_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace calcjit::cli {

namespace {

std::string Quoted(const std::string& path) {
  return "'" + path + "'";
}

}  // namespace

std::uint64_t DefaultMemoryBudget() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  constexpr std::uint64_t kFloor = std::uint64_t{256} << 20;
  if (pages <= 0 || page_size <= 0) return kFloor;
  return std::max(kFloor,
                  static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / 2);
}

std::string ShowBytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
  return text;
}

CsvInput::~CsvInput() {
  if (fd_ >= 0) ::close(fd_);
}

Status CsvInput::Open(const std::string& path) {
  path_ = path;
  if (path.find('\0') != std::string::npos) {
    return UserError("the input " + Quoted(path) + " contains a NUL character");
  }
  // A FIFO is opened as `cat` opens it, waiting for its writer (a signal
  // ends the wait); anything else with O_NONBLOCK, so that a device is
  // looked at (fstat below) before it is used.
  struct stat named {};
  const bool fifo = ::stat(path.c_str(), &named) == 0 && S_ISFIFO(named.st_mode);
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | (fifo ? 0 : O_NONBLOCK));
  if (fd_ < 0) return RuntimeError("cannot open " + Quoted(path) + ": " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    return UserError("the input " + Quoted(path) + " is a directory, not a CSV file");
  }
  const bool terminal = S_ISCHR(info.st_mode) && ::isatty(fd_) == 1;
  if (S_ISCHR(info.st_mode) && !terminal) {
    return UserError("the input " + Quoted(path) +
                     " is a device, not a CSV file (a regular file, a pipe or a terminal)");
  }
  if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode) && !terminal) {
    return UserError("the input " + Quoted(path) +
                     " is not a file rows can be read from (a regular file, a pipe or a "
                     "terminal)");
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  }
  if (S_ISREG(info.st_mode)) size_ = static_cast<std::uint64_t>(info.st_size);
  return Status::Ok();
}

Result<bool> CsvInput::Fill() {
  if (ended_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  while (true) {
    const ssize_t got = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return RuntimeError("cannot read " + Quoted(path_) + ": " + std::strerror(errno));
    if (got == 0) {
      ended_ = true;
      return false;
    }
    end_ += static_cast<std::size_t>(got);
    return true;
  }
}

Result<CsvInput::Read> CsvInput::ReadRecord(std::string* record, std::size_t* lines,
                                            std::uint64_t max_bytes) {
  record->clear();
  *lines = 0;
  // Where a record ends is where ParseCsv ends a row: a line end outside a
  // quoted field. A quote opens a quoted field only at the start of a field
  // (inside an unquoted one it is a character), and "" inside one is a
  // quote; counting quotes per line instead once joined `a"b` to the next
  // row and so cut a --group-by batch in two.
  enum class At { kFieldStart, kUnquoted, kQuoted, kQuoteInQuoted };
  At at = At::kFieldStart;
  while (true) {
    if (begin_ == end_) {
      Result<bool> more = Fill();
      if (!more.ok()) return more.status();
      if (!*more) break;
    }
    const char* start = buffer_.data() + begin_;
    const std::size_t available = end_ - begin_;
    std::size_t take = 0;
    bool ended = false;
    while (take < available && !ended) {
      const char c = start[take++];
      switch (at) {
        case At::kFieldStart:
        case At::kUnquoted:
        case At::kQuoteInQuoted:
          if (c == '\n') {
            ended = true;
          } else if (c == ',') {
            at = At::kFieldStart;
          } else if (c == '"') {
            at = at == At::kQuoteInQuoted ? At::kQuoted  // "" inside quotes
                 : at == At::kFieldStart  ? At::kQuoted
                                          : At::kUnquoted;
          } else {
            at = At::kUnquoted;
          }
          break;
        case At::kQuoted:
          if (c == '"') at = At::kQuoteInQuoted;
          break;
      }
      if (c == '\n') ++*lines;
    }
    if (record->size() + take > max_bytes) {
      const std::size_t fits = static_cast<std::size_t>(max_bytes - record->size());
      record->append(start, fits);
      begin_ += fits;
      consumed_ += fits;
      return Read::kTooLong;
    }
    record->append(start, take);
    begin_ += take;
    consumed_ += take;
    if (ended) return Read::kOk;
  }
  if (record->empty()) return Read::kEnd;
  // The last line without a line end (or an open quote: ParseCsv reports it).
  if (record->back() != '\n') {
    record->push_back('\n');
    ++*lines;
  }
  return Read::kOk;
}

Result<CsvInput::Read> CsvInput::ReadAll(std::string* out, std::uint64_t max_bytes) {
  out->clear();
  if (size_ && *size_ > max_bytes) return Read::kTooLong;
  if (size_) out->reserve(static_cast<std::size_t>(*size_));
  while (true) {
    if (begin_ == end_) {
      Result<bool> more = Fill();
      if (!more.ok()) return more.status();
      if (!*more) break;
    }
    const std::size_t take = end_ - begin_;
    if (out->size() + take > max_bytes) {
      out->clear();
      out->shrink_to_fit();
      return Read::kTooLong;
    }
    out->append(buffer_.data() + begin_, take);
    begin_ += take;
    consumed_ += take;
  }
  return Read::kOk;
}

}  // namespace calcjit::cli
