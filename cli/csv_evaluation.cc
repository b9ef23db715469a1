#include "cli/csv_evaluation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>

#include "calcjit/numbers.h"

namespace calcjit::cli {

namespace {

std::string CellLocation(const CsvTable& table, std::size_t row, std::size_t column) {
  return "row " + std::to_string(table.NumberOf(row)) + " (line " +
         std::to_string(table.LineOf(row)) + "), column '" + table.header()[column] + "'";
}

// A cell for a message: a cell of megabytes is shown by its start.
std::string Shown(std::string_view cell) {
  constexpr std::size_t kMax = 64;
  if (cell.size() <= kMax) return std::string(cell);
  return std::string(cell.substr(0, kMax)) + "... (" + std::to_string(cell.size()) + " bytes)";
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
      return UserError("'" + Shown(cell) + "' is beyond the float32 range",
                       CellLocation(table, row, column));
    case NumberParse::kSyntax:
      break;
  }
  return UserError("cannot read '" + Shown(cell) + "' as a number",
                   CellLocation(table, row, column));
}

Status CsvEvaluation::Bind(const EvalOptions& options) {
  for (std::size_t c = 0; c < table_.header().size(); ++c) {
    if (!column_of_.emplace(table_.header()[c], c).second) {
      duplicated_.push_back(table_.header()[c]);
    }
  }
  for (const InputInfo& input : schema_.inputs) {
    Result<InputColumns> columns = ColumnsOf(input);
    if (!columns.ok()) return columns.status();
    inputs_.push_back(std::move(columns).value());
  }
  if (!options.group_by.empty()) {
    Result<std::size_t> column = Column(options.group_by, "--group-by");
    if (!column.ok()) return column.status();
    group_column_ = *column;
  }
  for (const std::string& name : options.keep) {
    Result<std::size_t> column = Column(name, "--keep");
    if (!column.ok()) return column.status();
    keep_.push_back(*column);
  }
  return Status::Ok();
}

void CsvEvaluation::SplitIntoQueries() {
  item_counts_.clear();
  const std::size_t rows = row_count();
  for (std::size_t begin = 0; begin < rows;) {
    std::size_t end = begin + 1;
    while (end < rows && SameBatch(end, begin)) ++end;
    item_counts_.push_back(end - begin);
    begin = end;
  }
}

Status CsvEvaluation::ReadInputs() {
  values_.assign(schema_.inputs.size(), {});
  // Item inputs first, then query inputs (an error names the first bad cell
  // in that order).
  for (const Scope scope : {Scope::kItem, Scope::kQuery}) {
    for (std::size_t slot = 0; slot < schema_.inputs.size(); ++slot) {
      if (schema_.inputs[slot].scope != scope) continue;
      const std::vector<std::size_t>& columns = inputs_[slot].columns;
      const std::size_t width = columns.size();
      std::vector<float>& values = values_[slot];
      // An item input has a value per row; a query input takes its value
      // from the first row of its query.
      const std::size_t count = scope == Scope::kItem ? row_count() : item_counts_.size();
      values.resize(count * width);
      std::size_t row = 0;
      for (std::size_t k = 0; k < count; ++k) {
        for (std::size_t c = 0; c < width; ++c) {
          CALCJIT_RETURN_IF_ERROR(ReadCell(table_, row, columns[c], &values[k * width + c]));
        }
        row += scope == Scope::kItem ? 1 : item_counts_[k];
      }
    }
  }
  return Status::Ok();
}

Status CsvEvaluation::Run(const std::function<void(std::size_t)>& on_rows) {
  SplitIntoQueries();
  CALCJIT_RETURN_IF_ERROR(ReadInputs());
  results_.assign(schema_.outputs.size(), std::vector<float>(row_count()));
  Batch batch(engine_);
  for (std::size_t slot = 0; slot < schema_.inputs.size(); ++slot) {
    if (inputs_[slot].columns.empty()) continue;  // absent: the default applies
    CALCJIT_RETURN_IF_ERROR(batch.BindInput(slot, values_[slot]));
  }
  for (std::size_t k = 0; k < schema_.outputs.size(); ++k) {
    CALCJIT_RETURN_IF_ERROR(batch.BindOutput(k, results_[k]));
  }
  CALCJIT_RETURN_IF_ERROR(engine_.EvaluateQueries(batch, item_counts_));
  if (on_rows) on_rows(row_count());
  return Status::Ok();
}

std::pair<std::size_t, std::size_t> CsvEvaluation::BatchOf(std::size_t row) const {
  if (!group_column_) return {0, table_.row_count()};
  std::size_t first = row;
  while (first > 0 && SameBatch(first - 1, row)) --first;
  std::size_t last = row + 1;
  while (last < table_.row_count() && SameBatch(last, row)) ++last;
  return {first, last};
}

std::string CsvEvaluation::Render(bool header) const {
  std::string out;
  bool first = true;
  auto separator = [&] {
    if (!first) out += ',';
    first = false;
  };
  if (header) {
    for (std::size_t column : keep_) {
      separator();
      out += CsvQuote(table_.header()[column]);
    }
    for (const std::string& name : schema_.outputs) {
      separator();
      out += CsvQuote(name);
    }
    out += '\n';
  }
  char buffer[48];
  for (std::size_t row = 0; row < row_count(); ++row) {
    first = true;
    for (std::size_t column : keep_) {
      separator();
      out += CsvQuote(table_.Field(row, column));
    }
    for (const std::vector<float>& result : results_) {
      separator();
      const float v = result[row];
      if (std::isnan(v)) {
        out += "nan";
      } else if (std::isinf(v)) {
        out += v > 0 ? "inf" : "-inf";
      } else {
        // %.9g reads back to the same float32; -0 prints as "-0".
        std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(v));
        out += buffer;
      }
    }
    out += '\n';
  }
  return out;
}

Result<std::size_t> CsvEvaluation::Column(const std::string& name, std::string_view what) const {
  const auto it = column_of_.find(name);
  if (it == column_of_.end()) {
    return UserError(std::string(what) + " column '" + name + "' is not in the input's header" +
                     DidYouMean(name, table_.header()));
  }
  if (std::find(duplicated_.begin(), duplicated_.end(), name) != duplicated_.end()) {
    return UserError("column '" + name + "' appears more than once in the input's header");
  }
  return it->second;
}

Result<InputColumns> CsvEvaluation::ColumnsOf(const InputInfo& input) const {
  InputColumns result;
  if (input.dimension == 0) {
    if (column_of_.count(input.name) == 0) {
      if (input.default_value) return result;
      return UserError("input '" + input.name +
                       "' has no column in the input file and no default value" +
                       DidYouMean(input.name, table_.header()));
    }
    Result<std::size_t> column = Column(input.name, "input");
    if (!column.ok()) return column.status();
    result.columns.push_back(*column);
    return result;
  }
  std::size_t present = 0;
  for (std::uint32_t k = 0; k < input.dimension; ++k) {
    present += column_of_.count(input.name + "[" + std::to_string(k) + "]");
  }
  if (present == 0) {
    return UserError("vector input '" + input.name + "' needs the columns " + input.name + "[0].." +
                     input.name + "[" + std::to_string(input.dimension - 1) +
                     "] in the input file");
  }
  for (std::uint32_t k = 0; k < input.dimension; ++k) {
    const std::string name = input.name + "[" + std::to_string(k) + "]";
    if (column_of_.count(name) == 0) {
      return UserError("column '" + name + "' is missing (vector input '" + input.name +
                       "' has dimension " + std::to_string(input.dimension) + ")");
    }
    Result<std::size_t> column = Column(name, "input");
    if (!column.ok()) return column.status();
    result.columns.push_back(*column);
  }
  return result;
}

}  // namespace calcjit::cli
