// calcjit dump SET [--dag | --passes | --program | --ir [--optimized] | --asm |
// --tiers]: what the optimizer, the VM and the JIT make of a set, for people
// reading it and for golden tests; --tiers times the VM and the JIT (tier
// choice), so its numbers are the machine's, not golden.
#include <iostream>

#include "cli/common.h"

namespace calcjit::cli {

namespace {

Result<std::string> Render(const FeatureSet& set, const DumpOptions& options) {
  const std::optional<Isa> isa = IsaFromName(options.isa);
  if (!isa) return UserError("unknown --isa '" + options.isa + "'");
  if (options.optimized && options.what != "ir") return UserError("--optimized goes with --ir");
  if (options.what == "tiers") {
    EngineOptions engine;
    engine.outputs = options.outputs;
    engine.isa = *isa;
    engine.disabled_passes = options.disabled_passes;
    engine.block_size = options.block_size;
    return TierLines(set, engine, options.tier_items);
  }
  const std::string what =
      options.what == "ir" && options.optimized ? "optimized-ir" : options.what;
  const std::optional<DumpKind> kind = DumpKindFromName(what);
  if (!kind) return UserError("unknown dump '" + options.what + "'");
  EngineOptions engine;
  engine.outputs = options.outputs;
  engine.isa = *isa;
  engine.disabled_passes = options.disabled_passes;
  engine.block_size = options.block_size;
  return Dump(set, *kind, engine);
}

}  // namespace

int RunDump(const DumpOptions& options) {
  const Result<FeatureSet> set = LoadSet(options.set);
  if (!set.ok()) {
    ReportError(set.status());
    return 1;
  }
  const Result<std::string> text = Render(*set, options);
  if (!text.ok()) {
    ReportError(text.status());
    return 1;
  }
  std::cout << *text;
  return 0;
}

}  // namespace calcjit::cli
