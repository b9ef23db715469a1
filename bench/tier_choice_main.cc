// calcjit_tier_choice: is a served set ever slower after tiering than before?
// (issue 27, docs/PERFORMANCE.md run U2). Two ServingEngines of one set: one
// pinned to the VM (what serves before tiering), one `auto` after its JIT was
// compiled and timed (tier choice on: what serves after). Each answers the
// same QUERIES queries of ITEMS items (example data), in alternating rounds
// of 100 queries, timed in this thread's CPU time; prints the tier `auto`
// chose, its measurement, and the total time of each.
//
//   calcjit_tier_choice SET [ITEMS] [QUERIES]      (defaults 2000, 10000)
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/bench_support.h"
#include "calcjit/calcjit.hpp"
#include "examples/ranking/example_data.h"

namespace {

using calcjit::bench::ThreadCpuMs;

int Fail(const std::string& message) {
  std::fprintf(stderr, "calcjit_tier_choice: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Fail("usage: calcjit_tier_choice SET [ITEMS] [QUERIES]");
  const std::size_t items = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2000;
  const long queries = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 10000;
  const calcjit::Result<calcjit::FeatureSet> set = calcjit::FeatureSet::ReadFile(argv[1]);
  if (!set.ok()) return Fail(set.status().ToString());
  calcjit::ServingOptions before_options;
  before_options.engine.backend = calcjit::Backend::kVm;
  calcjit::Result<calcjit::ServingEngine> before =
      calcjit::ServingEngine::Create(*set, before_options);
  calcjit::Result<calcjit::ServingEngine> after = calcjit::ServingEngine::Create(*set);
  if (!before.ok() || !after.ok()) return Fail("cannot serve the set");
  const calcjit::example::ExampleQuery query =
      calcjit::example::GenerateExampleQuery(before->schema(), items, 42);
  calcjit::Session before_session(*before);
  calcjit::Session after_session(*after);
  for (calcjit::Session* session : {&before_session, &after_session}) {
    session->SetItemCount(items);
    for (std::size_t k = 0; k < query.inputs.size(); ++k) {
      if (!session->BindInput(k, query.inputs[k]).ok()) return Fail("cannot bind");
    }
    if (!session->Evaluate().ok()) return Fail("evaluation failed");
  }
  after->WaitForJit();  // compiled and timed, at the traffic's batch size
  const calcjit::VersionStats stats = after->Stats();
  double before_ms = 0.0, after_ms = 0.0;
  for (long done = 0; done < queries; done += 100) {
    for (int side = 0; side < 2; ++side) {
      calcjit::Session& session = side == 0 ? before_session : after_session;
      const double start = ThreadCpuMs();
      for (int q = 0; q < 100; ++q) {
        if (!session.Evaluate().ok()) return Fail("evaluation failed");
      }
      (side == 0 ? before_ms : after_ms) += ThreadCpuMs() - start;
    }
  }
  std::printf("%s, %ld queries of %zu items: auto serves the %s (%s)\n", argv[1], queries, items,
              std::string(calcjit::BackendName(stats.backend)).c_str(), stats.tiers.note.c_str());
  std::printf(
      "  before tiering (vm) %9.1f ms\n  after tiering       %9.1f ms\n  after/before %.3f\n",
      before_ms, after_ms, after_ms / before_ms);
  return 0;
}
