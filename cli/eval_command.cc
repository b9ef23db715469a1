// calcjit eval SET --input items.csv --output out.csv: evaluates a set over a
// CSV file, one batch (query) for the whole file or per run of equal
// --group-by values (a file without rows is zero queries: only the header row
// is written). Where inputs come from is summarized in docs/CLI.md; the
// binding rules are the runtime's. With --group-by the chunks of whole groups
// are evaluated on --threads threads, written in input order.
#include <algorithm>
#include <deque>
#include <future>
#include <new>
#include <optional>

#include "cli/common.h"
#include "cli/csv.h"
#include "cli/csv_evaluation.h"
#include "cli/csv_input.h"
#include "cli/group_chunks.h"
#include "cli/output_file.h"
#include "cli/progress.h"

namespace calcjit::cli {

namespace {

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
// order is the error reported, as with one thread. The text of the chunks in
// flight stays within the memory budget (group_chunks.h): when the reader
// needs room it has the oldest chunk finished first.
Status StreamByGroup(const Engine& engine, const EvalOptions& options, CsvInput& in,
                     const MemoryBudget& budget, OutputFile& out, Progress& progress) {
  std::size_t header_lines = 0;
  Result<std::string> header = ReadHeader(in, budget, &header_lines);
  if (!header.ok()) return header.status();
  const std::optional<std::size_t> group_column = GroupColumn(*header, options.group_by);
  GroupChunkReader reader(in, *header, header_lines, group_column, options.chunk_bytes, budget);
  const std::size_t threads = std::max<std::size_t>(options.threads, 1);
  struct InFlight {
    std::future<ChunkOutput> output;
    std::size_t text_bytes;
    std::uint64_t done_bytes;  // input bytes behind it, for progress
  };
  std::deque<InFlight> in_flight;  // in input order
  std::uint64_t in_flight_bytes = 0;
  auto write = [&](const ChunkOutput& chunk, std::uint64_t done_bytes) -> Status {
    CALCJIT_RETURN_IF_ERROR(chunk.status);
    progress.Add(chunk.rows, done_bytes);
    return out.Append(chunk.csv);
  };
  // Finishes the oldest chunk in flight (the futures left wait in their
  // destructors should it fail).
  auto finish_oldest = [&]() -> Status {
    if (in_flight.empty()) return InternalError("no chunk in flight to make room");
    InFlight oldest = std::move(in_flight.front());
    in_flight.pop_front();
    in_flight_bytes -= oldest.text_bytes;
    return write(oldest.output.get(), oldest.done_bytes);
  };
  while (true) {
    Result<std::optional<GroupChunk>> next = reader.Next(in_flight_bytes, finish_oldest);
    if (!next.ok()) return next.status();
    if (!*next) break;
    GroupChunk& chunk = **next;
    const std::uint64_t done_bytes = in.consumed();
    if (threads == 1) {
      CALCJIT_RETURN_IF_ERROR(write(EvaluateChunk(engine, options, chunk), done_bytes));
      continue;
    }
    // At most `threads` chunks are evaluated at once; this thread waits for
    // the oldest before it reads another.
    while (in_flight.size() >= threads) CALCJIT_RETURN_IF_ERROR(finish_oldest());
    const std::size_t text_bytes = chunk.text.size();
    in_flight_bytes += text_bytes;
    in_flight.push_back({std::async(std::launch::async,
                                    [&engine, &options, owned = std::move(chunk)] {
                                      return EvaluateChunk(engine, options, owned);
                                    }),
                         text_bytes, done_bytes});
  }
  while (!in_flight.empty()) CALCJIT_RETURN_IF_ERROR(finish_oldest());
  return Status::Ok();
}

}  // namespace

int RunEval(const EvalOptions& options) {
  auto fail = [](const Status& status) {
    ReportError(status);
    return 1;
  };
  const MemoryBudget budget{options.memory_budget != 0 ? options.memory_budget
                                                       : DefaultMemoryBudget()};
  EvalOptions chunked = options;
  if (chunked.chunk_bytes == 0) {
    chunked.chunk_bytes = static_cast<std::size_t>(
        std::min<std::uint64_t>(std::uint64_t{16} << 20, budget.text() / 4));
  } else if (chunked.chunk_bytes > budget.text()) {
    return fail(UserError("--chunk-bytes must be at most " + std::to_string(budget.text()) +
                          " (the memory budget's text allowance)"));
  }
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

  // Opened first: an output that is an input (the set, a model, the CSV) is
  // refused before any work.
  OutputFile out;
  if (Status opened = out.Open(options.output, InputFiles(options.set, *set, {options.input}));
      !opened.ok()) {
    return fail(opened);
  }
  CsvInput input;
  if (Status opened = input.Open(options.input); !opened.ok()) return fail(opened);
  Progress progress(options.progress, input.size());
  if (!options.group_by.empty()) {
    Status status = StreamByGroup(*engine, chunked, input, budget, out, progress);
    if (!status.ok()) return fail(WithFileName(status, options.input));
    progress.Finish();
    if (Status committed = out.Commit(); !committed.ok()) return fail(committed);
    return 0;
  }

  // Without --group-by the whole file is one batch: it must fit the budget.
  try {
    std::string contents;
    Result<CsvInput::Read> read = input.ReadAll(&contents, budget.text());
    if (!read.ok()) return fail(WithFileName(read.status(), options.input));
    if (*read == CsvInput::Read::kTooLong) {
      return fail(UserError(
          "'" + options.input + "' is larger than " + ShowBytes(budget.text()) +
          ", the most CSV text one batch may have within the memory budget of " +
          ShowBytes(budget.bytes) +
          " (--memory-budget; parsed and evaluated, text takes up to 16 times its size); with "
          "--group-by COLUMN the file is streamed batch by batch"));
    }
    const Result<CsvTable> table = ParseCsv(contents);
    if (!table.ok()) return fail(WithFileName(table.status(), options.input));
    CsvEvaluation evaluation(*engine, *table);
    Status status = evaluation.Bind(options);
    if (status.ok()) {
      status = evaluation.Run([&](std::size_t n) { progress.Add(n, input.consumed()); });
    }
    if (!status.ok()) return fail(WithFileName(status, options.input));
    progress.Finish();
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
