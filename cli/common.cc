#include "cli/common.h"

#include <iostream>

namespace calcjit::cli {

Result<FeatureSet> LoadSet(const SetSource& source) {
  std::optional<Format> format;
  if (!source.input_format.empty()) {
    format = FormatFromName(source.input_format);
    if (!format) return UserError("unknown --input-format '" + source.input_format + "'");
  }
  return FeatureSet::ReadFile(source.path, format);
}

void ReportError(const Status& status) {
  for (const Diagnostic& d : status.diagnostics()) {
    std::cerr << (d.location.empty() ? "" : d.location + ": ") << "error: " << d.message << '\n';
  }
}

void ReportError(std::string_view message) {
  std::cerr << "error: " << message << '\n';
}

}  // namespace calcjit::cli
