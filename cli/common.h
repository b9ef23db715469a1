// What the commands share: reading a SET argument, reporting errors.
#ifndef CALCJIT_CLI_COMMON_H_
#define CALCJIT_CLI_COMMON_H_

#include <string>
#include <string_view>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "cli/commands.h"

namespace calcjit::cli {

Result<FeatureSet> LoadSet(const SetSource& source);

// Every file a command reads, for OutputFile to protect: the set file, the
// model files its declarations name (under the model root, as the library
// resolves them; read or not: print and graph must not replace them
// either), then `more` (a CSV input).
std::vector<std::string> InputFiles(const SetSource& source, const FeatureSet& set,
                                    const std::vector<std::string>& more = {});

// A name or field for a terminal: C0 and C1 control characters (a NUL, an
// ESC that starts a terminal escape sequence, U+009B) as \xNN, so that a
// name in a set cannot rewrite the user's screen. Status messages are
// escaped by the library already; this is for what the commands print.
std::string ForTerminal(std::string_view text);

// The VM and the JIT of the set timed on one synthetic batch (MeasureTiers),
// as lines for `check --tiers` and `dump --tiers`.
Result<std::string> TierLines(const FeatureSet& set, const EngineOptions& options,
                              std::size_t items);

// Prints every diagnostic to stderr, one per line, prefixed with "error: ".
void ReportError(const Status& status);
void ReportError(std::string_view message);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_COMMON_H_
