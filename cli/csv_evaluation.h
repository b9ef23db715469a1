// Evaluating a feature set over a CSV table, as `calcjit eval` and `calcjit
// explain` do: where each input's values come from (docs/CLI.md), one query
// per run of equal --group-by values (or the whole table; a table without
// rows is zero queries), evaluated in one call of the runtime's many-query
// path, results kept per output for rendering.
#ifndef CALCJIT_CLI_CSV_EVALUATION_H_
#define CALCJIT_CLI_CSV_EVALUATION_H_

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
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

  // Finds each input's columns, the --group-by and --keep columns.
  Status Bind(const EvalOptions& options);

  // Reads the cells and evaluates every query in one call; `on_rows` (if set)
  // hears how many rows were evaluated.
  Status Run(const std::function<void(std::size_t)>& on_rows = nullptr);

  // Evaluates and renders only the first `rows` rows (whole batches: a
  // streamed chunk keeps its last, perhaps unfinished, batch for the next).
  void LimitRows(std::size_t rows) { row_limit_ = rows; }
  std::size_t row_count() const { return std::min(row_limit_, table_.row_count()); }

  // After Run: an output's value for every row.
  const std::vector<float>& Results(std::size_t output) const { return results_[output]; }
  // Where each engine input is read from (by slot).
  const std::vector<InputColumns>& input_columns() const { return inputs_; }
  // The rows [first, last) of the batch (query) that holds `row`.
  std::pair<std::size_t, std::size_t> BatchOf(std::size_t row) const;

  // The CSV text of the results (with the header row when `header`).
  std::string Render(bool header = true) const;

 private:
  Result<std::size_t> Column(const std::string& name, std::string_view what) const;
  Result<InputColumns> ColumnsOf(const InputInfo& input) const;
  // Whether rows `a` and `b` are in the same batch.
  bool SameBatch(std::size_t a, std::size_t b) const {
    return !group_column_ || table_.Field(a, *group_column_) == table_.Field(b, *group_column_);
  }
  // The item counts of the queries of the first row_count() rows.
  void SplitIntoQueries();
  // Item inputs are read whole, row-major for vectors; query inputs from the
  // first row of each query (only those rows are parsed).
  Status ReadInputs();

  const Engine& engine_;
  const CsvTable& table_;
  const Schema& schema_;
  std::unordered_map<std::string, std::size_t> column_of_;
  std::vector<std::string> duplicated_;
  std::vector<InputColumns> inputs_;  // by engine input slot
  std::optional<std::size_t> group_column_;
  std::vector<std::size_t> keep_;
  std::vector<std::size_t> item_counts_;     // by query
  std::vector<std::vector<float>> values_;   // by slot: every row's, or every query's
  std::vector<std::vector<float>> results_;  // by output
  std::size_t row_limit_ = std::numeric_limits<std::size_t>::max();
};

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_CSV_EVALUATION_H_
