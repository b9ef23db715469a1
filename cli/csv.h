// RFC 4180 CSV, as `calcjit eval` reads and writes it: quoted fields with ""
// escapes, an optional UTF-8 byte order mark, LF or CRLF line ends, a header
// row of names.
#ifndef CALCJIT_CLI_CSV_H_
#define CALCJIT_CLI_CSV_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/status.h"

namespace calcjit::cli {

class CsvTable {
 public:
  const std::vector<std::string>& header() const { return header_; }
  std::size_t row_count() const { return row_line_.size(); }
  // The field as written, unquoted (not trimmed).
  std::string_view Field(std::size_t row, std::size_t column) const {
    const std::size_t index = row * header_.size() + column;
    return std::string_view(text_).substr(field_begin_[index],
                                          field_end_[index] - field_begin_[index]);
  }
  // The 1-based line on which a row starts (rows are 0-based).
  std::size_t LineOf(std::size_t row) const { return row_line_[row]; }
  // The 1-based number of a row in the whole file (a chunk of a streamed file
  // starts after the rows of the chunks before it).
  std::size_t NumberOf(std::size_t row) const { return rows_before_ + row + 1; }

 private:
  friend Result<CsvTable> ParseCsv(std::string_view data, std::size_t rows_before,
                                   std::size_t lines_before);
  std::size_t rows_before_ = 0;
  std::vector<std::string> header_;
  std::string text_;  // every field's unquoted text, back to back
  std::vector<std::size_t> field_begin_;
  std::vector<std::size_t> field_end_;
  std::vector<std::size_t> row_line_;
};

// Every row must have as many fields as the header. For a chunk of a larger
// file (its header, then some of its rows): `rows_before` data rows and
// `lines_before` lines precede the chunk's first row in the file, after the
// header, so that rows and lines are numbered as in the file.
Result<CsvTable> ParseCsv(std::string_view data, std::size_t rows_before = 0,
                          std::size_t lines_before = 0);

// A field as RFC 4180 writes it: quoted (with "" for ") when it holds a
// comma, a quote, CR or LF.
std::string CsvQuote(std::string_view field);

// Leading and trailing spaces and tabs removed.
std::string_view TrimCell(std::string_view cell);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_CSV_H_
