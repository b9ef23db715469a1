// calcjit explain SET FEATURE --input items.csv --row K [--group-by COLUMN]:
// for the K-th data row (1-based), the value of every input and intermediate
// feature that FEATURE depends on, computed within that row's batch (query):
// how a data scientist finds out why an item scored what it did.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include "cli/common.h"
#include "cli/csv.h"
#include "cli/csv_evaluation.h"
#include "cli/csv_input.h"
#include "cli/dependencies.h"

namespace calcjit::cli {

namespace {

// "0.25 (0x3E800000)": the value as eval prints it, and its bits.
std::string Describe(float value) {
  char text[64];
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (std::isnan(value)) {
    std::snprintf(text, sizeof text, "nan (0x%08X)", bits);
  } else if (std::isinf(value)) {
    std::snprintf(text, sizeof text, "%s (0x%08X)", value > 0 ? "inf" : "-inf", bits);
  } else {
    std::snprintf(text, sizeof text, "%.9g (0x%08X)", static_cast<double>(value), bits);
  }
  return text;
}

std::string Pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace

int RunExplain(const ExplainOptions& options) {
  auto fail = [&](const Status& status) {
    ReportError(status);
    return 1;
  };
  const Result<FeatureSet> set = LoadSet(options.set);
  if (!set.ok()) return fail(set.status());
  const std::optional<std::size_t> target = set->schema().FindOutput(options.feature);
  if (!target) {
    return fail(UserError("unknown feature '" + options.feature + "': the set does not define it" +
                          DidYouMean(options.feature, set->schema().outputs)));
  }
  const FeatureGraph graph = Analyze(*set, {static_cast<std::uint32_t>(*target)});
  // Every feature FEATURE depends on, in evaluation order, FEATURE last.
  EvalOptions eval;
  eval.set = options.set;
  eval.input = options.input;
  eval.group_by = options.group_by;
  eval.backend = options.backend;
  for (std::size_t f : set->EvaluationOrder()) {
    if (graph.feature_needed[f]) eval.outputs.push_back(set->schema().outputs[f]);
  }
  const std::optional<Backend> backend = BackendFromName(options.backend);
  if (!backend) return fail(UserError("unknown backend '" + options.backend + "'"));
  EngineOptions engine_options;
  engine_options.backend = *backend;
  engine_options.outputs = eval.outputs;
  const Result<Engine> engine = Engine::Compile(*set, engine_options);
  if (!engine.ok()) return fail(engine.status());

  // The whole file is read (the row's batch may be anywhere in it), within
  // the memory budget as for eval without --group-by.
  const MemoryBudget budget{options.memory_budget != 0 ? options.memory_budget
                                                       : DefaultMemoryBudget()};
  CsvInput csv;
  if (Status opened = csv.Open(options.input); !opened.ok()) return fail(opened);
  std::string contents;
  const Result<CsvInput::Read> whole = csv.ReadAll(&contents, budget.text());
  if (!whole.ok()) return fail(whole.status());
  if (*whole == CsvInput::Read::kTooLong) {
    return fail(UserError("'" + options.input + "' is larger than " + ShowBytes(budget.text()) +
                          ", the most CSV text the memory budget of " + ShowBytes(budget.bytes) +
                          " allows (--memory-budget)"));
  }
  const Result<CsvTable> table = ParseCsv(contents);
  if (!table.ok()) return fail(table.status());
  if (options.row < 1 || options.row > table->row_count()) {
    return fail(UserError("--row " + std::to_string(options.row) + " is not a data row of '" +
                          options.input + "' (it has " + std::to_string(table->row_count()) +
                          " rows, numbered from 1)"));
  }
  const std::size_t row = options.row - 1;

  CsvEvaluation evaluation(*engine, *table);
  if (Status bound = evaluation.Bind(eval); !bound.ok()) return fail(bound);
  if (Status ran = evaluation.Run(); !ran.ok()) return fail(ran);

  std::map<std::string, float> row_values;  // scalar inputs and features, by name
  const auto [first, last] = evaluation.BatchOf(row);
  std::cout << ForTerminal(options.feature) << " for row " << options.row << " (line "
            << table->LineOf(row) << ") of " << ForTerminal(options.input)
            << ", computed within its batch: rows " << first + 1 << "-" << last;
  if (!options.group_by.empty()) {
    const std::size_t column =
        std::find(table->header().begin(), table->header().end(), options.group_by) -
        table->header().begin();
    std::cout << " (" << ForTerminal(options.group_by) << " = "
              << ForTerminal(table->Field(row, column)) << ")";
  }
  std::cout << ", backend " << BackendName(engine->backend()) << "\n\ninputs:\n";
  const Schema& schema = engine->schema();
  for (std::size_t slot = 0; slot < schema.inputs.size(); ++slot) {
    const InputInfo& input = schema.inputs[slot];
    const std::vector<std::size_t>& columns = evaluation.input_columns()[slot].columns;
    // A query input takes its value from the first row of the batch.
    const std::size_t from = input.scope == Scope::kQuery ? first : row;
    std::string scope = input.scope == Scope::kQuery ? " (query)" : "";
    if (columns.empty()) {
      std::cout << "  " << Pad(ForTerminal(input.name) + scope, 40)
                << Describe(*input.default_value) << " (default)\n";
      continue;
    }
    for (std::size_t k = 0; k < columns.size(); ++k) {
      float value = 0.0f;
      if (Status read = ReadCell(*table, from, columns[k], &value); !read.ok()) return fail(read);
      const std::string name =
          input.dimension > 0 ? input.name + "[" + std::to_string(k) + "]" : input.name;
      std::cout << "  " << Pad(ForTerminal(name) + scope, 40) << Describe(value) << "\n";
      if (input.dimension == 0) row_values[input.name] = value;
    }
  }
  std::cout << "\nfeatures, in evaluation order:\n";
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    const std::uint32_t f =
        static_cast<std::uint32_t>(*set->schema().FindOutput(schema.outputs[k]));
    const std::string kind = graph.uses[f].aggregate ? " (aggregate)" : "";
    std::cout << "  " << Pad(ForTerminal(schema.outputs[k]) + kind, 40)
              << Describe(evaluation.Results(k)[row]) << "\n";
    row_values[schema.outputs[k]] = evaluation.Results(k)[row];
  }
  // The models whose features (by the names their files give) all have a
  // value in this row: how each decides for it.
  const std::vector<DeclaredModel> models = set->Models();
  for (std::size_t m = 0; m < models.size(); ++m) {
    std::vector<float> features;
    for (const std::string& name : models[m].feature_names) {
      const auto found = row_values.find(name);
      if (found == row_values.end()) break;
      features.push_back(found->second);
    }
    if (models[m].feature_names.empty() || features.size() != models[m].feature_names.size()) {
      continue;
    }
    const Result<std::string> explained = set->ExplainModel(m, features, options.trees);
    if (!explained.ok()) return fail(explained.status());
    std::cout << "\nmodel " << ForTerminal(models[m].name) << " (" << models[m].description
              << "), on this row's values of its features:\n"
              << *explained;
  }
  return 0;
}

}  // namespace calcjit::cli
