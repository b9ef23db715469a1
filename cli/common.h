// What the commands share: reading a SET argument, reporting errors.
#ifndef CALCJIT_CLI_COMMON_H_
#define CALCJIT_CLI_COMMON_H_

#include <string>
#include <string_view>

#include "calcjit/calcjit.hpp"
#include "cli/commands.h"

namespace calcjit::cli {

Result<FeatureSet> LoadSet(const SetSource& source);

// Prints every diagnostic to stderr, one per line, prefixed with "error: ".
void ReportError(const Status& status);
void ReportError(std::string_view message);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_COMMON_H_
