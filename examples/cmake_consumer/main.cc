// Uses the installed C++ API: f = x * 2 + 1 over three items.
#include <cstdio>
#include <vector>

#include "calcjit/calcjit.hpp"

int main() {
  calcjit::Result<calcjit::FeatureSet> set =
      calcjit::FeatureSet::Parse("input x; f = x * 2 + 1;", calcjit::Format::kText);
  if (!set.ok()) return 1;
  calcjit::Result<calcjit::Engine> engine = calcjit::Engine::Compile(*set);
  if (!engine.ok()) return 1;
  std::vector<float> x = {1, 2, 3};
  calcjit::Batch batch(*engine);
  batch.SetItemCount(x.size());
  if (!batch.BindInput("x", x).ok() || !engine->Evaluate(batch).ok()) return 1;
  std::printf("%g %g %g\n", batch.Output(0)[0], batch.Output(0)[1], batch.Output(0)[2]);
  return 0;
}
