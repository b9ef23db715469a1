// Evaluating a feature set over a CSV table, as `calcjit eval` and `calcjit
// explain` do: the binding rules (docs/CLI.md), batches per run of equal
// --group-by values, results kept per output for rendering.
#ifndef CALCJIT_CLI_CSV_EVALUATION_H_
#define CALCJIT_CLI_CSV_EVALUATION_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "cli/commands.h"
#include "cli/csv.h"

namespace calcjit::cli {

// Reads one cell: trimmed, empty is NaN, else a number (text-syntax grammar
// with an optional sign) or an optionally signed nan / inf / infinity.
Status ReadCell(const CsvTable& table, std::size_t row, std::size_t column, float* value);

// Where an engine input's values come from: one column for a scalar, d
// columns for a vector of dimension d, none when the default applies.
struct InputColumns {
  std::vector<std::size_t> columns;
};

class CsvEvaluation {
 public:
  CsvEvaluation(const Engine& engine, const CsvTable& table)
      : engine_(engine), table_(table), schema_(engine.schema()) {}

  Status Bind(const EvalOptions& options) {
    for (std::size_t c = 0; c < table_.header().size(); ++c) {
      if (!column_of_.emplace(table_.header()[c], c).second)
        duplicated_.push_back(table_.header()[c]);
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

  // Evaluates every batch; `on_batch` (if set) hears each batch's item count.
  Status Run(const std::function<void(std::size_t)>& on_batch = nullptr) {
    const std::size_t rows = row_count();
    CALCJIT_RETURN_IF_ERROR(ReadItemInputs());
    results_.assign(schema_.outputs.size(), std::vector<float>(rows));
    Batch batch(engine_);
    std::vector<std::vector<float>> query_values(schema_.inputs.size());
    std::size_t begin = 0;
    do {
      std::size_t end = rows;
      if (group_column_) {
        end = begin + 1;
        while (end < rows &&
               table_.Field(end, *group_column_) == table_.Field(begin, *group_column_)) {
          ++end;
        }
      }
      const std::size_t n = end - begin;
      batch.Clear();
      batch.SetItemCount(n);
      for (std::size_t slot = 0; slot < schema_.inputs.size(); ++slot) {
        const InputInfo& input = schema_.inputs[slot];
        if (inputs_[slot].columns.empty()) continue;  // absent: the default applies
        const std::size_t width = inputs_[slot].columns.size();
        std::span<const float> values;
        if (input.scope == Scope::kItem) {
          values = std::span<const float>(item_values_[slot]).subspan(begin * width, n * width);
        } else if (n > 0) {
          // A query input takes its value from the first row of the batch.
          std::vector<float>& value = query_values[slot];
          value.resize(width);
          for (std::size_t k = 0; k < width; ++k) {
            CALCJIT_RETURN_IF_ERROR(ReadCell(table_, begin, inputs_[slot].columns[k], &value[k]));
          }
          values = value;
        } else {
          continue;  // no rows: nothing to read; evaluation of n = 0 reads no input
        }
        CALCJIT_RETURN_IF_ERROR(batch.BindInput(slot, values));
      }
      for (std::size_t k = 0; k < schema_.outputs.size(); ++k) {
        CALCJIT_RETURN_IF_ERROR(
            batch.BindOutput(k, std::span<float>(results_[k]).subspan(begin, n)));
      }
      CALCJIT_RETURN_IF_ERROR(BindAbsentQueryInputsForEmptyBatch(batch, n));
      CALCJIT_RETURN_IF_ERROR(engine_.Evaluate(batch));
      if (on_batch) on_batch(n);
      begin = end;
    } while (begin < rows);
    return Status::Ok();
  }

  // Evaluates and renders only the first `rows` rows (whole batches: a
  // streamed chunk keeps its last, perhaps unfinished, batch for the next).
  void LimitRows(std::size_t rows) { row_limit_ = rows; }
  std::size_t row_count() const { return std::min(row_limit_, table_.row_count()); }

  // After Run: an output's value for every row.
  const std::vector<float>& Results(std::size_t output) const { return results_[output]; }
  // Where each engine input is read from (by slot).
  const std::vector<InputColumns>& input_columns() const { return inputs_; }
  // The rows [first, last) of the batch (query) that holds `row`.
  std::pair<std::size_t, std::size_t> BatchOf(std::size_t row) const {
    if (!group_column_) return {0, table_.row_count()};
    std::size_t first = row;
    while (first > 0 &&
           table_.Field(first - 1, *group_column_) == table_.Field(row, *group_column_))
      --first;
    std::size_t last = row + 1;
    while (last < table_.row_count() &&
           table_.Field(last, *group_column_) == table_.Field(row, *group_column_))
      ++last;
    return {first, last};
  }

  // The CSV text of the results (with the header row when `header`).
  std::string Render(bool header = true) const {
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

 private:
  Result<std::size_t> Column(const std::string& name, std::string_view what) const {
    const auto it = column_of_.find(name);
    if (it == column_of_.end()) {
      return UserError(std::string(what) + " column '" + name + "' is not in the input's header");
    }
    if (std::find(duplicated_.begin(), duplicated_.end(), name) != duplicated_.end()) {
      return UserError("column '" + name + "' appears more than once in the input's header");
    }
    return it->second;
  }

  Result<InputColumns> ColumnsOf(const InputInfo& input) const {
    InputColumns result;
    if (input.dimension == 0) {
      if (column_of_.count(input.name) == 0) {
        if (input.default_value) return result;
        return UserError("input '" + input.name +
                         "' has no column in the input file and no default value");
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
      return UserError("vector input '" + input.name + "' needs the columns " + input.name +
                       "[0].." + input.name + "[" + std::to_string(input.dimension - 1) +
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

  // Item inputs are read whole, row-major for vectors; query inputs are read
  // per batch (only the first row of each batch is used, so only it is parsed).
  Status ReadItemInputs() {
    item_values_.resize(schema_.inputs.size());
    for (std::size_t slot = 0; slot < schema_.inputs.size(); ++slot) {
      if (schema_.inputs[slot].scope != Scope::kItem) continue;
      const std::vector<std::size_t>& columns = inputs_[slot].columns;
      std::vector<float>& values = item_values_[slot];
      values.resize(row_count() * columns.size());
      for (std::size_t row = 0; row < row_count(); ++row) {
        for (std::size_t k = 0; k < columns.size(); ++k) {
          CALCJIT_RETURN_IF_ERROR(
              ReadCell(table_, row, columns[k], &values[row * columns.size() + k]));
        }
      }
    }
    return Status::Ok();
  }

  // A header-only file is one batch of n = 0 items: a query input then has
  // no first row to take its value from; bind NaN so the batch is complete
  // (nothing is computed from it).
  Status BindAbsentQueryInputsForEmptyBatch(Batch& batch, std::size_t n) {
    if (n != 0) return Status::Ok();
    for (std::size_t slot = 0; slot < schema_.inputs.size(); ++slot) {
      const InputInfo& input = schema_.inputs[slot];
      if (input.scope != Scope::kQuery || inputs_[slot].columns.empty()) continue;
      empty_query_values_.assign(input.ValueCount(0), std::numeric_limits<float>::quiet_NaN());
      CALCJIT_RETURN_IF_ERROR(batch.BindInput(slot, empty_query_values_));
    }
    return Status::Ok();
  }

  const Engine& engine_;
  const CsvTable& table_;
  const Schema& schema_;
  std::unordered_map<std::string, std::size_t> column_of_;
  std::vector<std::string> duplicated_;
  std::vector<InputColumns> inputs_;  // by engine input slot
  std::optional<std::size_t> group_column_;
  std::vector<std::size_t> keep_;
  std::vector<std::vector<float>> item_values_;  // by slot (item inputs only)
  std::vector<std::vector<float>> results_;      // by output
  std::vector<float> empty_query_values_;
  std::size_t row_limit_ = static_cast<std::size_t>(-1);
};

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_CSV_EVALUATION_H_
