// Where a command's output goes, written so that no data is ever lost: every
// command that writes a file (eval --output, print -o, graph -o) goes through
// OutputFile.
//
// What the path names decides how it is written:
//   "-" (or "" where the option is optional)  standard output
//   a regular file, or no file yet      a temporary file in the same folder,
//                                       renamed over the path on Commit: a
//                                       reader never sees half a file, a
//                                       failed run leaves the old file. The
//                                       old file's permission bits are kept;
//                                       a new file gets 0666 & ~umask.
//   a symbolic link                     the same, for the file the link
//                                       resolves to: the link stays a link
//   a FIFO, a character device          written through (opened, never
//   (/dev/stdout, /dev/null, ...)       replaced), on Commit
//   a directory, a socket, ...          refused
// An output that is the same file as one of the command's inputs (the set,
// its model files, the CSV input: same st_dev and st_ino, whatever the
// spelling, through links and hard links) is refused before anything is
// written, and checked again just before the file is replaced.
//
// Nothing reaches the output before Commit: streams (standard output, FIFOs,
// devices) are spooled to an unlinked temporary file first, so an error
// midway writes nothing there either. The temporary file next to a regular
// output is removed on every error, when the object goes away uncommitted,
// and on SIGINT, SIGTERM and SIGHUP (the handler unlinks it and re-raises).
#ifndef CALCJIT_CLI_OUTPUT_FILE_H_
#define CALCJIT_CLI_OUTPUT_FILE_H_

#include <sys/stat.h>

#include <string>
#include <string_view>
#include <vector>

#include "calcjit/status.h"

namespace calcjit::cli {

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // `inputs`: every file the command reads; the output may be none of them.
  Status Open(const std::string& path, const std::vector<std::string>& inputs);
  Status Append(std::string_view contents);
  // Makes the output appear; after an error nothing is left behind.
  Status Commit();

 private:
  void Discard();
  // The input `file` (st_dev, st_ino) is, if any: its name.
  const std::string* InputAt(const struct stat& file) const;

  struct Input {
    std::string path;
    unsigned long long device = 0, inode = 0;
  };
  std::vector<Input> inputs_;  // those that exist, as Open found them

  std::string path_;      // as given, for messages
  std::string target_;    // the file written: the path, or where its links lead
  std::string temp_;      // the temporary next to target_, while open
  bool through_ = false;  // a stream: spooled, then copied to target_ (or stdout)
  bool to_stdout_ = false;
  int fd_ = -1;
  unsigned mode_ = 0;
};

// Open, Append and Commit in one call.
Status WriteOutput(const std::string& path, const std::vector<std::string>& inputs,
                   std::string_view contents);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_OUTPUT_FILE_H_
