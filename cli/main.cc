// calcjit: the command line. Parses arguments and hands each command its
// options (commands.h); nothing else here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "calcjit/calcjit.h"
#include "calcjit/calcjit.hpp"
#include "cli/commands.h"
#include "cli/csv_input.h"

namespace {

void AddSetArgument(CLI::App* command, calcjit::cli::SetSource* set) {
  command->add_option("set", set->path, "Feature set (.calc, .json, .pb or .binpb)")->required();
  command
      ->add_option("--input-format", set->input_format,
                   "Read SET as this format, whatever its extension")
      ->check(CLI::IsMember({"calc", "json", "pb"}));
  command->add_option("--model-root", set->model_root,
                      "Folder the set's model paths are relative to (default: SET's folder)");
  command->add_flag("--allow-any-model-path", set->allow_any_model_path,
                    "Read model paths that are absolute or leave the model root");
}

// A count: digits only, so that "-1" is an error rather than 2^64 - 1 once
// converted (and "1e9" is no count); `positive`: 0 is refused too. The
// conversion then refuses a count beyond the option's type.
CLI::Validator Count(bool positive) {
  return CLI::Validator(
      [positive](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return positive ? "must be a whole number, 1 or more" : "must be a whole number";
        }
        if (positive && text.find_first_not_of('0') == std::string::npos) {
          return "must be 1 or more";
        }
        return "";
      },
      positive ? "N >= 1" : "N >= 0");
}

// --memory-budget SIZE: bytes, or with a binary unit (512M, 2G, 2GiB).
void AddMemoryBudget(CLI::App* command, std::uint64_t* budget) {
  command
      ->add_option("--memory-budget", *budget,
                   "Memory the CSV input may take (default: half of this machine's memory; "
                   "see docs/CLI.md, Memory)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Validator(
          [](std::string& bytes) -> std::string {  // in bytes, after the unit
            if (std::strtoull(bytes.c_str(), nullptr, 10) < calcjit::cli::MemoryBudget::kMinimum) {
              return "must be at least 16M";
            }
            return "";
          },
          ">= 16M"));
}

// "calcjit 0.1.0 (backends: reference, vm, jit; instruction sets: x86-64,
// avx2, avx512)": what a bug report needs.
std::string VersionText() {
  std::string text = std::string("calcjit ") + calcjit_version_string() + " (backends:";
  const char* separator = " ";
  for (const char* name : {"reference", "vm", "jit"}) {
    if (!calcjit::IsBackendAvailable(*calcjit::BackendFromName(name))) continue;
    text += separator;
    text += name;
    separator = ", ";
  }
  text += "; instruction sets:";
  separator = " ";
  for (const char* name : {"x86-64", "avx2", "avx512"}) {
    if (!calcjit::IsIsaSupported(*calcjit::IsaFromName(name))) continue;
    text += separator;
    text += name;
    separator = ", ";
  }
  return text + ")";
}

// The options and commands a mistyped one may have meant.
std::vector<std::string> KnownNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) {
    names.push_back(command->get_name());
  }
  std::vector<const CLI::App*> scopes = {&app};
  for (const CLI::App* command : app.get_subcommands()) scopes.push_back(command);  // parsed
  for (const CLI::App* scope : scopes) {
    for (const CLI::Option* option : scope->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    }
  }
  return names;
}

// CLI11's message, and for each argument it did not expect the option or
// command that is closest (a typo: "--thread" for "--threads").
void ReportParseError(const CLI::App& app, const CLI::ParseError& error) {
  std::cerr << error.what() << "\n";
  const std::string text = error.what();
  const std::size_t colon = text.find(": ");
  if (colon == std::string::npos) return;
  const std::vector<std::string> known = KnownNames(app);
  std::string word;
  std::istringstream words(text.substr(colon + 2));
  while (words >> word) {
    const std::string name = word.substr(0, word.find('='));
    const std::optional<std::string> closest = calcjit::ClosestName(name, known);
    if (closest) std::cerr << "did you mean '" << *closest << "' for '" << name << "'?\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace calcjit::cli;
  CLI::App app{"calcjit: compiles search-ranking feature sets and evaluates them"};
  app.set_version_flag("--version", VersionText(), "Print calcjit's version and exit");
  app.require_subcommand(1);
  int exit_code = 0;

  CheckOptions check;
  CLI::App* check_command = app.add_subcommand(
      "check", "Validate a feature set: print every error with its place, list implicit inputs");
  AddSetArgument(check_command, &check.set);
  check_command->add_flag("--tiers", check.tiers,
                          "Also compile for the VM and the JIT, time both on one synthetic batch "
                          "and say which tiered serving would choose");
  check_command
      ->add_option("--tier-items", check.tier_items,
                   "With --tiers: items in the batch timed, 1 to 16384 (default 1000)")
      ->check(CLI::Range(std::size_t{1}, calcjit::kMaxTierMeasurementItems));
  check_command->callback([&] { exit_code = RunCheck(check); });

  PrintOptions print;
  CLI::App* print_command = app.add_subcommand("print", "Convert a feature set to another format");
  AddSetArgument(print_command, &print.set);
  print_command->add_option("--format", print.format, "Output format")
      ->check(CLI::IsMember({"text", "calc", "json", "pb"}));
  print_command->add_option("-o,--output", print.output, "Output file (default: stdout)");
  print_command->callback([&] { exit_code = RunPrint(print); });

  EvalOptions eval;
  CLI::App* eval_command = app.add_subcommand("eval", "Evaluate a feature set over a CSV file");
  AddSetArgument(eval_command, &eval.set);
  eval_command->add_option("--input", eval.input, "Input CSV: a header row, one row per item")
      ->required();
  eval_command->add_option("--output", eval.output, "Output CSV ('-': standard output)")
      ->required();
  eval_command->add_option("--backend", eval.backend, "reference, vm, jit or auto");
  eval_command->add_option("--outputs", eval.outputs, "Outputs to compute, in order")
      ->delimiter(',');
  eval_command->add_option("--group-by", eval.group_by,
                           "Column whose runs of equal values form one batch (query) each");
  eval_command->add_option("--keep", eval.keep, "Input columns to copy to the output first")
      ->delimiter(',');
  eval_command
      ->add_option("--chunk-bytes", eval.chunk_bytes,
                   "With --group-by: about how many bytes of rows to read at a time")
      ->check(Count(true))
      ->group("");             // for tests
  long long eval_threads = 0;  // signed: "-1" is an error, not 2^64 - 1
  eval_command
      ->add_option("--threads", eval_threads,
                   "With --group-by: chunks of groups evaluated at once, 1 to " +
                       std::to_string(kMaxThreads) +
                       " (default: every core; output in input order either way)")
      ->check(CLI::Range(1LL, static_cast<long long>(kMaxThreads)));
  AddMemoryBudget(eval_command, &eval.memory_budget);
  eval_command->add_flag("--progress", eval.progress,
                         "Show progress on stderr even when it is not a terminal");
  eval_command->callback([&] {
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    eval.threads =
        eval_threads > 0 ? static_cast<std::size_t>(eval_threads) : std::min(cores, kMaxThreads);
    exit_code = RunEval(eval);
  });

  DumpOptions dump;
  CLI::App* dump_command = app.add_subcommand(
      "dump",
      "Show what the optimizer, the VM and the JIT make of a set: the DAG, each pass, the "
      "program, the LLVM IR, the machine code");
  AddSetArgument(dump_command, &dump.set);
  auto* what = dump_command->add_option_group("what", "What to show (default: --program)");
  what->add_flag_callback(
      "--dag", [&] { dump.what = "dag"; }, "The optimized DAG");
  what->add_flag_callback(
      "--passes", [&] { dump.what = "passes"; }, "The DAG after each optimizer pass, with timings");
  what->add_flag_callback(
      "--program", [&] { dump.what = "program"; }, "The VM program");
  what->add_flag_callback(
      "--ir", [&] { dump.what = "ir"; },
      "The JIT's LLVM IR for each piece (add --optimized: after LLVM's passes)");
  what->add_flag_callback(
      "--asm", [&] { dump.what = "asm"; }, "The JIT's machine code");
  what->add_flag_callback(
      "--tiers", [&] { dump.what = "tiers"; },
      "The VM and the JIT timed on one synthetic batch: which tiered serving would choose");
  dump_command
      ->add_option("--tier-items", dump.tier_items,
                   "With --tiers: items in the batch timed, 1 to 16384 (default 1000)")
      ->check(CLI::Range(std::size_t{1}, calcjit::kMaxTierMeasurementItems));
  dump_command->add_flag("--optimized", dump.optimized, "With --ir: the IR after optimization");
  what->require_option(0, 1);
  dump_command->add_option("--outputs", dump.outputs, "Outputs to compute, in order")
      ->delimiter(',');
  dump_command->add_option("--disable", dump.disabled_passes, "Passes to switch off")
      ->delimiter(',');
  dump_command->add_option("--isa", dump.isa, "auto, x86-64, avx2 or avx512");
  dump_command->add_option("--block-size", dump.block_size, "VM items per block")
      ->check(Count(false));
  dump_command->callback([&] { exit_code = RunDump(dump); });

  GraphOptions graph;
  CLI::App* graph_command = app.add_subcommand(
      "graph", "The feature dependency graph (Graphviz DOT or SVG), features coloured by kind");
  AddSetArgument(graph_command, &graph.set);
  graph_command->add_option("--outputs", graph.outputs, "Only what these outputs need")
      ->delimiter(',');
  graph_command->add_option("--format", graph.format, "dot or svg (SVG needs Graphviz's dot)")
      ->check(CLI::IsMember({"dot", "svg"}));
  graph_command->add_option("-o,--output", graph.output, "Output file (default: stdout)");
  graph_command->callback([&] { exit_code = RunGraph(graph); });

  ExplainOptions explain;
  CLI::App* explain_command = app.add_subcommand(
      "explain", "Every input and intermediate value a feature depends on, for one data row");
  AddSetArgument(explain_command, &explain.set);
  explain_command->add_option("feature", explain.feature, "The feature to explain")->required();
  explain_command->add_option("--input", explain.input, "Input CSV, as for eval")->required();
  explain_command->add_option("--row", explain.row, "The data row, from 1")
      ->required()
      ->check(Count(true));
  explain_command->add_option("--group-by", explain.group_by,
                              "Column whose runs of equal values form one batch (query) each");
  explain_command->add_option("--backend", explain.backend, "reference, vm, jit or auto");
  explain_command
      ->add_option("--trees", explain.trees,
                   "Trees of each model whose path through the row is shown (3)")
      ->check(Count(false));
  AddMemoryBudget(explain_command, &explain.memory_budget);
  explain_command->callback([&] { exit_code = RunExplain(explain); });

  BenchOptions bench;
  CLI::App* bench_command = app.add_subcommand(
      "bench", "Time each backend on a set with generated inputs: ns per query and per item");
  AddSetArgument(bench_command, &bench.set);
  bench_command->add_option("--items", bench.items, "Items per query (default 2000)")
      ->check(Count(false));
  bench_command->add_option("--backends", bench.backends, "evaluated (reference), vm, jit")
      ->delimiter(',');
  bench_command
      ->add_option("--seconds", bench.seconds,
                   "Time per backend, more than 0 and at most 3600 "
                   "(default 0.5)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double seconds = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end != '\0' || !(seconds > 0 && seconds <= 3600)) {
              return "must be more than 0 and at most 3600 seconds";
            }
            return "";
          },
          "SECONDS"));
  bench_command->add_option("--seed", bench.seed, "Seed of the generated inputs");
  bench_command->callback([&] { exit_code = RunBench(bench); });

  DemoOptions demo;
  CLI::App* demo_command = app.add_subcommand(
      "demo", "Rank a generated query with the bundled example feature set on every backend");
  demo_command->add_option("--items", demo.items, "Items in the generated query")
      ->check(Count(false));
  demo_command->add_option("--seed", demo.seed, "Seed of the generated data");
  demo_command->add_option("--repetitions", demo.repetitions, "Timed evaluations per backend");
  demo_command->callback([&] { exit_code = RunDemo(demo); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    ReportParseError(app, e);
    std::cerr << "Run with --help for more information.\n";
    return 1;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    // A mistyped command leaves none: say which was meant.
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      std::vector<std::string> commands;
      for (const CLI::App* command : app.get_subcommands({})) {
        commands.push_back(command->get_name());
      }
      std::cerr << "unknown command '" << argv[1] << "'" << calcjit::DidYouMean(argv[1], commands)
                << "\n";
    }
    return 1;  // every error exits 1
  } catch (const std::length_error&) {
    // A size beyond what a vector can hold at all: as too large for memory.
    std::cerr << "error: out of memory (a size such as --items is too large)\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // The commands run inside parse (as callbacks); what they had open is
    // released on the way out (an output's temporary file is removed).
    std::cerr << "error: out of memory (a size such as --items may be too large for this "
                 "machine)\n";
    return 1;
  }
  return exit_code;
}
