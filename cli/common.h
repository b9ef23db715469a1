// What the commands share: reading a SET argument, reporting errors.
#ifndef CALCJIT_CLI_COMMON_H_
#define CALCJIT_CLI_COMMON_H_

#include <fstream>
#include <string>
#include <string_view>

#include "calcjit/calcjit.hpp"
#include "cli/commands.h"

namespace calcjit::cli {

Result<FeatureSet> LoadSet(const SetSource& source);

// Opens a CSV input for reading; a directory (which the stream would read as
// empty) is refused by name.
Status OpenInput(const std::string& path, std::ifstream* file);

// Prints every diagnostic to stderr, one per line, prefixed with "error: ".
void ReportError(const Status& status);
void ReportError(std::string_view message);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_COMMON_H_
