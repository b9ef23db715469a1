#include "cli/common.h"

#include <filesystem>
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

Status OpenInput(const std::string& path, std::ifstream* file) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return UserError("the input '" + path + "' is a directory, not a CSV file");
  }
  file->open(path, std::ios::binary);
  if (!*file) return RuntimeError("cannot open '" + path + "'");
  return Status::Ok();
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
