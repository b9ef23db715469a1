// calcjit check SET [--tiers]: every error with its place, and the implicit
// inputs; with --tiers, the VM and the JIT timed (tier choice).
#include <iostream>

#include "cli/common.h"

namespace calcjit::cli {

int RunCheck(const CheckOptions& options) {
  const Result<FeatureSet> set = LoadSet(options.set);
  if (!set.ok()) {
    ReportError(set.status());
    std::cerr << set.status().diagnostics().size() << " error(s) in " << options.set.path << '\n';
    return 1;
  }
  const Schema& schema = set->schema();
  const std::vector<std::string> implicit = set->ImplicitInputs();
  std::cout << ForTerminal(options.set.path) << ": ok: " << schema.outputs.size() << " features, "
            << schema.inputs.size() - implicit.size() << " declared inputs, " << implicit.size()
            << " implicit inputs\n";
  if (!implicit.empty()) {
    std::cout << "implicit inputs (used, but neither declared nor defined; item scalars without "
                 "a default):\n";
    for (const std::string& name : implicit) std::cout << "  " << ForTerminal(name) << '\n';
  }
  const std::vector<DeclaredModel> models = set->Models();
  if (!models.empty()) std::cout << "models:\n";
  for (const DeclaredModel& model : models) {
    std::cout << "  " << model.name << " = " << model.path << ": " << model.description << '\n';
  }
  if (options.tiers) {
    const Result<std::string> tiers = TierLines(*set, EngineOptions{}, options.tier_items);
    if (!tiers.ok()) {
      ReportError(tiers.status());
      return 1;
    }
    std::cout << *tiers;
  }
  return 0;
}

}  // namespace calcjit::cli
