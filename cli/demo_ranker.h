// `calcjit demo`'s second part: the bundled ranker on top of the example set.
#ifndef CALCJIT_CLI_DEMO_RANKER_H_
#define CALCJIT_CLI_DEMO_RANKER_H_

#include <string_view>

#include "cli/commands.h"

namespace calcjit::cli {

// Ranks the demo's generated query with the bundled ranker
// (examples/ranking/ranker/ranker.ubj, compiled into the binary) called on the
// example set's features, on every backend, and prints the time per query of
// the features alone, of the model alone (on the features' columns) and of
// the whole set, against a ranking service's 10 ms budget. False when a
// backend fails or its ranking scores are not the reference's bits.
bool RunRankerDemo(std::string_view example_set_text, const DemoOptions& options);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_DEMO_RANKER_H_
