// calcjit eval SET --input items.csv --output out.csv: evaluates a set over a
// CSV file, one batch (query) for the whole file or per run of equal
// --group-by values. The binding rules are those of the issue that defines
// the command, summarized in docs/CLI.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "cli/common.h"
#include "cli/csv.h"
#include "dsl/float_text.h"

namespace calcjit::cli {

namespace {

// Where an engine input's values come from: one column for a scalar, d
// columns for a vector of dimension d, none when the default applies.
struct InputColumns {
  std::vector<std::size_t> columns;
};

std::string CellLocation(const CsvTable& table, std::size_t row, std::size_t column) {
  return "row " + std::to_string(row + 1) + " (line " + std::to_string(table.LineOf(row)) +
         "), column '" + table.header()[column] + "'";
}

// Reads one cell: trimmed, empty is NaN, else a number (text-syntax grammar
// with an optional sign) or an optionally signed nan / inf / infinity.
Status ReadCell(const CsvTable& table, std::size_t row, std::size_t column, float* value) {
  const std::string_view cell = TrimCell(table.Field(row, column));
  if (cell.empty()) {
    *value = std::numeric_limits<float>::quiet_NaN();
    return Status::Ok();
  }
  switch (dsl::ParseFloatCell(cell, value)) {
    case dsl::FloatParse::kOk:
      return Status::Ok();
    case dsl::FloatParse::kOverflow:
      return UserError("'" + std::string(cell) + "' is beyond the float32 range",
                       CellLocation(table, row, column));
    case dsl::FloatParse::kSyntax:
      break;
  }
  return UserError("cannot read '" + std::string(cell) + "' as a number",
                   CellLocation(table, row, column));
}

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

  Status Run() {
    const std::size_t rows = table_.row_count();
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
      begin = end;
    } while (begin < rows);
    return Status::Ok();
  }

  std::string Render() const {
    std::string out;
    bool first = true;
    auto separator = [&] {
      if (!first) out += ',';
      first = false;
    };
    for (std::size_t column : keep_) {
      separator();
      out += CsvQuote(table_.header()[column]);
    }
    for (const std::string& name : schema_.outputs) {
      separator();
      out += CsvQuote(name);
    }
    out += '\n';
    char buffer[48];
    for (std::size_t row = 0; row < table_.row_count(); ++row) {
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
      values.resize(table_.row_count() * columns.size());
      for (std::size_t row = 0; row < table_.row_count(); ++row) {
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
};

}  // namespace

int RunEval(const EvalOptions& options) {
  auto fail = [](const Status& status) {
    ReportError(status);
    return 1;
  };
  const Result<FeatureSet> set = LoadSet(options.set);
  if (!set.ok()) return fail(set.status());
  const std::optional<Backend> backend = BackendFromName(options.backend);
  if (!backend) {
    return fail(
        UserError("unknown backend '" + options.backend + "' (reference, vm, jit or auto)"));
  }
  EngineOptions engine_options;
  engine_options.backend = *backend;
  engine_options.outputs = options.outputs;
  const Result<Engine> engine = Engine::Compile(*set, engine_options);
  if (!engine.ok()) return fail(engine.status());

  std::ifstream file(options.input, std::ios::binary);
  if (!file) return fail(RuntimeError("cannot open '" + options.input + "'"));
  std::ostringstream contents;
  contents << file.rdbuf();
  const Result<CsvTable> table = ParseCsv(contents.str());
  if (!table.ok()) {
    std::vector<Diagnostic> diagnostics = table.status().diagnostics();
    for (Diagnostic& d : diagnostics) d.location = options.input + ": " + d.location;
    return fail(Status::Errors(ErrorKind::kUser, std::move(diagnostics)));
  }

  CsvEvaluation evaluation(*engine, *table);
  Status status = evaluation.Bind(options);
  if (status.ok()) status = evaluation.Run();
  if (!status.ok()) {
    std::vector<Diagnostic> diagnostics = status.diagnostics();
    for (Diagnostic& d : diagnostics) {
      d.location = options.input + (d.location.empty() ? "" : ": " + d.location);
    }
    return fail(Status::Errors(status.kind(), std::move(diagnostics)));
  }
  const Status written = WriteFileAtomically(options.output, evaluation.Render());
  if (!written.ok()) return fail(written);
  return 0;
}

}  // namespace calcjit::cli
