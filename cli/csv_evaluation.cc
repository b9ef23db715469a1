#include "cli/csv_evaluation.h"

#include <limits>

#include "calcjit/numbers.h"

namespace calcjit::cli {

namespace {

std::string CellLocation(const CsvTable& table, std::size_t row, std::size_t column) {
  return "row " + std::to_string(table.NumberOf(row)) + " (line " +
         std::to_string(table.LineOf(row)) + "), column '" + table.header()[column] + "'";
}

}  // namespace

Status ReadCell(const CsvTable& table, std::size_t row, std::size_t column, float* value) {
  const std::string_view cell = TrimCell(table.Field(row, column));
  if (cell.empty()) {
    *value = std::numeric_limits<float>::quiet_NaN();
    return Status::Ok();
  }
  switch (ParseNumber(cell, value)) {
    case NumberParse::kOk:
      return Status::Ok();
    case NumberParse::kOverflow:
      return UserError("'" + std::string(cell) + "' is beyond the float32 range",
                       CellLocation(table, row, column));
    case NumberParse::kSyntax:
      break;
  }
  return UserError("cannot read '" + std::string(cell) + "' as a number",
                   CellLocation(table, row, column));
}

}  // namespace calcjit::cli
