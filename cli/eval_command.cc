// calcjit eval SET --input items.csv --output out.csv: evaluates a set over a
// CSV file, one batch (query) for the whole file or per run of equal
// --group-by values (a file without rows is zero queries: only the header row
// is written). Where inputs come from is summarized in docs/CLI.md; the
// binding rules are the runtime's.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "cli/common.h"
#include "cli/csv.h"
#include "cli/csv_evaluation.h"
#include "cli/output_file.h"

namespace calcjit::cli {

namespace {

// "items per second" on stderr while evaluating, when stderr is a terminal
// (redirected output and tests see nothing).
class Progress {
 public:
  Progress() : enabled_(isatty(STDERR_FILENO) == 1), start_(Clock::now()), last_(start_) {}

  void Add(std::size_t items) {
    items_ += items;
    if (!enabled_) return;
    const Clock::time_point now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    Print('\r');
  }

  void Finish() {
    if (enabled_ && last_ != start_) Print('\n');
  }

 private:
  using Clock = std::chrono::steady_clock;

  void Print(char end) const {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    std::fprintf(stderr, "calcjit eval: %zu items, %.2f M items/s   %c", items_,
                 seconds > 0 ? static_cast<double>(items_) / seconds / 1e6 : 0.0, end);
    std::fflush(stderr);
  }

  bool enabled_;
  Clock::time_point start_;
  Clock::time_point last_;
  std::size_t items_ = 0;
};

// One CSV record (a row, with quoted line breaks inside it) and the number of
// lines it spans; false at the end of the stream.
bool ReadRecord(std::istream& in, std::string* record, std::size_t* lines) {
  record->clear();
  *lines = 0;
  std::string line;
  std::size_t quotes = 0;
  while (std::getline(in, line)) {
    ++*lines;
    quotes += static_cast<std::size_t>(std::count(line.begin(), line.end(), '"'));
    *record += line;
    *record += '\n';
    if (quotes % 2 == 0) return true;  // not inside a quoted field
  }
  return *lines > 0;
}

Status WithFileName(const Status& status, const std::string& file) {
  std::vector<Diagnostic> diagnostics = status.diagnostics();
  for (Diagnostic& d : diagnostics) {
    d.location = file + (d.location.empty() ? "" : ": " + d.location);
  }
  return Status::Errors(status.kind(), std::move(diagnostics));
}

// With --group-by: the file is read a chunk of rows at a time (about
// --chunk-bytes, 16 MiB, always whole batches), so files larger than memory stream through; the
// output is written as it goes (to a temporary file renamed at the end).
Status StreamByGroup(const Engine& engine, const EvalOptions& options, std::istream& in,
                     OutputFile& out, Progress& progress) {
  const std::size_t kChunkBytes = std::max<std::size_t>(options.chunk_bytes, 1);
  std::string header;
  std::size_t header_lines = 0;
  if (!ReadRecord(in, &header, &header_lines)) return UserError("the input has no header row");
  std::vector<std::string> records;  // the rows of the current chunk
  std::vector<std::size_t> record_lines;
  std::size_t rows_before = 0;
  std::size_t lines_before = 0;
  bool first_chunk = true;
  bool more = true;
  std::string record;
  std::size_t lines = 0;
  std::size_t limit = kChunkBytes;
  while (more || !records.empty()) {
    std::size_t bytes = 0;
    for (const std::string& r : records) bytes += r.size();
    while (more && bytes < limit) {
      more = ReadRecord(in, &record, &lines);
      if (!more) break;
      bytes += record.size();
      records.push_back(record);
      record_lines.push_back(lines);
    }
    if (in.bad()) return RuntimeError("cannot read '" + options.input + "'");
    std::string text = header;
    for (const std::string& r : records) text += r;
    Result<CsvTable> table = ParseCsv(text, rows_before, lines_before);
    if (!table.ok()) return table.status();
    // Keep the last batch for the next chunk unless the file ended: its rows
    // may go on there. A chunk that is all one batch grows until it ends.
    CsvEvaluation evaluation(engine, *table);
    CALCJIT_RETURN_IF_ERROR(evaluation.Bind(options));
    std::size_t take = table->row_count();
    if (more && take > 0) {
      const std::size_t last_batch = evaluation.BatchOf(take - 1).first;
      if (last_batch == 0) {
        limit *= 2;
        continue;
      }
      take = last_batch;
      limit = kChunkBytes;
    }
    evaluation.LimitRows(take);
    CALCJIT_RETURN_IF_ERROR(evaluation.Run([&](std::size_t n) { progress.Add(n); }));
    CALCJIT_RETURN_IF_ERROR(out.Append(evaluation.Render(first_chunk)));
    first_chunk = false;
    rows_before += take;
    for (std::size_t k = 0; k < take; ++k) lines_before += record_lines[k];
    records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(take));
    record_lines.erase(record_lines.begin(),
                       record_lines.begin() + static_cast<std::ptrdiff_t>(take));
    if (!more && take == 0) break;
  }
  return Status::Ok();
}

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

  // Opened first: an output that is an input is refused before any work.
  OutputFile out;
  if (Status opened = out.Open(options.output, {options.set.path, options.input}); !opened.ok()) {
    return fail(opened);
  }
  std::ifstream file;
  if (Status opened = OpenInput(options.input, &file); !opened.ok()) return fail(opened);
  Progress progress;
  if (!options.group_by.empty()) {
    Status status = StreamByGroup(*engine, options, file, out, progress);
    progress.Finish();
    if (!status.ok()) return fail(WithFileName(status, options.input));
    if (Status committed = out.Commit(); !committed.ok()) return fail(committed);
    return 0;
  }

  // Without --group-by the whole file is one batch: it must fit in memory.
  try {
    std::ostringstream contents;
    contents << file.rdbuf();
    const Result<CsvTable> table = ParseCsv(contents.str());
    if (!table.ok()) return fail(WithFileName(table.status(), options.input));
    CsvEvaluation evaluation(*engine, *table);
    Status status = evaluation.Bind(options);
    if (status.ok()) status = evaluation.Run([&](std::size_t n) { progress.Add(n); });
    progress.Finish();
    if (!status.ok()) return fail(WithFileName(status, options.input));
    Status written = out.Append(evaluation.Render());
    if (written.ok()) written = out.Commit();
    if (!written.ok()) return fail(written);
  } catch (const std::bad_alloc&) {
    return fail(RuntimeError("'" + options.input +
                             "' does not fit in memory as one batch; with --group-by COLUMN "
                             "the file is streamed batch by batch"));
  }
  return 0;
}

}  // namespace calcjit::cli
