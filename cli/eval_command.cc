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
#include "cli/csv_evaluation.h"

namespace calcjit::cli {

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
