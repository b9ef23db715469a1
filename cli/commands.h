// The calcjit commands, each a plain function over its parsed options (only
// main.cc knows the command-line parser). Each returns the process exit code:
// 0 on success, 1 on any error (after printing it to stderr).
#ifndef CALCJIT_CLI_COMMANDS_H_
#define CALCJIT_CLI_COMMANDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace calcjit::cli {

// How a SET argument is read: the format comes from the extension unless
// --input-format names it.
struct SetSource {
  std::string path;
  std::string input_format;  // "", "calc", "json" or "pb"
  std::string model_root;    // "": the set file's folder
  bool allow_any_model_path = false;
  // print and graph need no model files: they convert and draw the set.
  bool load_models = true;
};

struct CheckOptions {
  SetSource set;
  // Also compile the set for the VM and the JIT and time both (tier choice).
  bool tiers = false;
  std::size_t tier_items = 0;  // items in the batch timed; 0: 1,000
};

struct PrintOptions {
  SetSource set;
  std::string format = "text";  // text | json | pb
  std::string output;           // "" or "-": stdout
};

struct EvalOptions {
  SetSource set;
  std::string input;   // CSV
  std::string output;  // CSV; "-": standard output
  std::string backend = "auto";
  std::vector<std::string> outputs;
  std::string group_by;
  std::vector<std::string> keep;
  // With group_by: rows read at a time (whole batches; tests make it small).
  // 0: 16 MiB, or a quarter of the budget's text allowance when that is less.
  std::size_t chunk_bytes = 0;
  // With group_by: chunks evaluated at once, 1 to kMaxThreads.
  std::size_t threads = 1;
  // The memory the input may take (cli/csv_input.h); 0: DefaultMemoryBudget().
  std::uint64_t memory_budget = 0;
  // Show progress on stderr even when it is not a terminal.
  bool progress = false;
};

// The most --threads: a chunk each in flight (their memory is within the
// budget whatever the count; more threads than this only cost stacks).
inline constexpr std::size_t kMaxThreads = 256;

struct DumpOptions {
  SetSource set;
  std::string what = "program";  // dag | passes | program | ir | asm | tiers
  std::size_t tier_items = 0;    // with tiers: items in the batch timed; 0: 1,000
  bool optimized = false;        // with ir: after LLVM's optimizer
  std::vector<std::string> outputs;
  std::vector<std::string> disabled_passes;
  std::string isa = "auto";
  std::uint32_t block_size = 0;
};

struct GraphOptions {
  SetSource set;
  std::vector<std::string> outputs;
  std::string format = "dot";  // dot | svg
  std::string output;          // "" or "-": stdout
};

struct ExplainOptions {
  SetSource set;
  std::string feature;
  std::string input;    // CSV
  std::size_t row = 0;  // 1-based data row
  std::string group_by;
  std::string backend = "auto";
  std::size_t trees = 3;            // trees of each model whose path is shown
  std::uint64_t memory_budget = 0;  // as for eval
};

struct BenchOptions {
  SetSource set;
  std::size_t items = 2000;
  std::vector<std::string> backends = {"evaluated", "vm", "jit"};
  double seconds = 0.5;  // per backend
  unsigned seed = 42;
};

struct DemoOptions {
  std::size_t items = 2000;
  unsigned seed = 42;
  int repetitions = 20;
};

int RunCheck(const CheckOptions& options);
int RunPrint(const PrintOptions& options);
int RunEval(const EvalOptions& options);
int RunDemo(const DemoOptions& options);
int RunDump(const DumpOptions& options);
int RunGraph(const GraphOptions& options);
int RunExplain(const ExplainOptions& options);
int RunBench(const BenchOptions& options);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_COMMANDS_H_
