#include "cli/csv.h"

namespace calcjit::cli {

Result<CsvTable> ParseCsv(std::string_view data, std::size_t rows_before,
                          std::size_t lines_before) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (data.substr(0, kBom.size()) == kBom) data.remove_prefix(kBom.size());
  CsvTable table;
  table.rows_before_ = rows_before;
  table.text_.reserve(data.size());

  std::size_t i = 0;
  std::size_t line = 1;
  bool header_done = false;
  std::vector<std::size_t> row_begin, row_end;  // fields of the current row
  while (i < data.size()) {
    const std::size_t row_line = line;
    row_begin.clear();
    row_end.clear();
    // One record: fields separated by ',', ended by LF, CRLF or the end.
    while (true) {
      const std::size_t begin = table.text_.size();
      if (i < data.size() && data[i] == '"') {
        ++i;
        // Reported where the quote opened: the end of the file says nothing.
        const std::size_t quote_line = line;
        while (true) {
          if (i >= data.size()) {
            return UserError("unterminated quoted field (the quote opened on line " +
                                 std::to_string(quote_line) + " is never closed)",
                             "line " + std::to_string(quote_line));
          }
          const char c = data[i++];
          if (c == '"') {
            if (i < data.size() && data[i] == '"') {
              table.text_ += '"';
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line;
          table.text_ += c;
        }
        if (i < data.size() && data[i] != ',' && data[i] != '\n' &&
            !(data[i] == '\r' && i + 1 < data.size() && data[i + 1] == '\n') &&
            !(data[i] == '\r' && i + 1 == data.size())) {
          return UserError("unexpected character after a closing quote",
                           "line " + std::to_string(line));
        }
      } else {
        while (i < data.size() && data[i] != ',' && data[i] != '\n' &&
               !(data[i] == '\r' && (i + 1 == data.size() || data[i + 1] == '\n'))) {
          table.text_ += data[i++];
        }
      }
      row_begin.push_back(begin);
      row_end.push_back(table.text_.size());
      if (i < data.size() && data[i] == ',') {
        ++i;
        continue;
      }
      if (i < data.size() && data[i] == '\r') ++i;
      if (i < data.size() && data[i] == '\n') {
        ++i;
        ++line;
      }
      break;
    }
    if (!header_done) {
      line += lines_before;
      for (std::size_t f = 0; f < row_begin.size(); ++f) {
        table.header_.emplace_back(table.text_.substr(row_begin[f], row_end[f] - row_begin[f]));
      }
      table.text_.clear();
      header_done = true;
      continue;
    }
    if (row_begin.size() != table.header_.size()) {
      return UserError("row " + std::to_string(rows_before + table.row_line_.size() + 1) + " has " +
                           std::to_string(row_begin.size()) + " fields, but the header has " +
                           std::to_string(table.header_.size()),
                       "line " + std::to_string(row_line));
    }
    table.field_begin_.insert(table.field_begin_.end(), row_begin.begin(), row_begin.end());
    table.field_end_.insert(table.field_end_.end(), row_end.begin(), row_end.end());
    table.row_line_.push_back(row_line);
  }
  if (!header_done) return UserError("the input has no header row");
  return table;
}

std::string CsvQuote(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string quoted = "\"";
  for (char c : field) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  quoted += '"';
  return quoted;
}

std::string_view TrimCell(std::string_view cell) {
  while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
  while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.remove_suffix(1);
  return cell;
}

}  // namespace calcjit::cli
