// calcjit eval SET --input items.csv --output out.csv: evaluates a set over a
// CSV file, one batch (query) for the whole file or per run of equal
// --group-by values (a file without rows is zero queries: only the header row
// is written). Where inputs come from is summarized in docs/CLI.md; the
// binding rules are the runtime's. With --group-by the chunks of whole groups
// are evaluated on --threads threads, written in input order.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <future>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "cli/common.h"
#include "cli/csv.h"
#include "cli/csv_evaluation.h"
#include "cli/group_chunks.h"
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

Status WithFileName(const Status& status, const std::string& file) {
  std::vector<Diagnostic> diagnostics = status.diagnostics();
  for (Diagnostic& d : diagnostics) {
    d.location = file + (d.location.empty() ? "" : ": " + d.location);
  }
  return Status::Errors(status.kind(), std::move(diagnostics));
}

// One chunk of whole query groups, parsed, evaluated and rendered: the work a
// thread does; the rows are counted for the progress line.
struct ChunkOutput {
  Status status;
  std::string csv;
  std::size_t rows = 0;
};

ChunkOutput EvaluateChunk(const Engine& engine, const EvalOptions& options,
                          const GroupChunk& chunk) {
  ChunkOutput result;
  Result<CsvTable> table = ParseCsv(chunk.text, chunk.rows_before, chunk.lines_before);
  if (!table.ok()) {
    result.status = table.status();
    return result;
  }
  CsvEvaluation evaluation(engine, *table);
  result.status = evaluation.Bind(options);
  if (result.status.ok()) result.status = evaluation.Run();
  if (!result.status.ok()) return result;
  result.rows = table->row_count();
  result.csv = evaluation.Render(chunk.first);
  return result;
}

// The --group-by column's index in the header (nullopt when absent or
// duplicated: the first chunk's Bind reports that).
std::optional<std::size_t> GroupColumn(const std::string& header, const std::string& name) {
  const Result<CsvTable> table = ParseCsv(header);
  if (!table.ok()) return std::nullopt;
  const std::vector<std::string>& names = table->header();
  if (std::count(names.begin(), names.end(), name) != 1) return std::nullopt;
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

// With --group-by: the file is read a chunk of rows at a time (about
// --chunk-bytes, 16 MiB, always whole groups), so files larger than memory
// stream through. With several threads each chunk is parsed, evaluated and
// rendered on a thread of its own while this thread reads the next ones; the
// chunks are written in input order, and the first failing chunk in input
// order is the error reported, as with one thread.
Status StreamByGroup(const Engine& engine, const EvalOptions& options, std::istream& in,
                     OutputFile& out, Progress& progress) {
  std::string header;
  std::size_t header_lines = 0;
  if (!ReadCsvRecord(in, &header, &header_lines)) {
    return UserError("the input has no header row");
  }
  const std::optional<std::size_t> group_column = GroupColumn(header, options.group_by);
  GroupChunkReader reader(in, header, group_column, options.chunk_bytes);
  const std::size_t threads = std::max<std::size_t>(options.threads, 1);
  auto write = [&](const ChunkOutput& chunk) -> Status {
    CALCJIT_RETURN_IF_ERROR(chunk.status);
    progress.Add(chunk.rows);
    return out.Append(chunk.csv);
  };
  std::deque<std::future<ChunkOutput>> in_flight;  // in input order
  GroupChunk chunk;
  while (true) {
    const bool more = reader.Next(&chunk);
    if (in.bad()) return RuntimeError("cannot read '" + options.input + "'");
    if (!more) break;
    if (threads == 1) {
      CALCJIT_RETURN_IF_ERROR(write(EvaluateChunk(engine, options, chunk)));
      continue;
    }
    // At most `threads` chunks are evaluated at once; this thread waits for
    // the oldest before it reads another (memory stays a few chunks).
    while (in_flight.size() >= threads) {
      const ChunkOutput done = in_flight.front().get();
      in_flight.pop_front();
      CALCJIT_RETURN_IF_ERROR(write(done));  // the futures left wait in their destructors
    }
    in_flight.push_back(
        std::async(std::launch::async, [&engine, &options, owned = std::move(chunk)] {
          return EvaluateChunk(engine, options, owned);
        }));
    chunk = GroupChunk();
  }
  while (!in_flight.empty()) {
    const ChunkOutput done = in_flight.front().get();
    in_flight.pop_front();
    CALCJIT_RETURN_IF_ERROR(write(done));
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
