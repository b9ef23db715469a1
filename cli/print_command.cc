// calcjit print SET --format text|json|pb [-o FILE]: converts a set.
#include "cli/common.h"
#include "cli/output_file.h"

namespace calcjit::cli {

int RunPrint(const PrintOptions& options) {
  SetSource source = options.set;
  source.load_models = false;  // converting or drawing a set reads no model file
  const Result<FeatureSet> set = LoadSet(source);
  if (!set.ok()) {
    ReportError(set.status());
    return 1;
  }
  const std::optional<Format> format = FormatFromName(options.format);
  if (!format) {
    ReportError("unknown --format '" + options.format + "' (text, json or pb)");
    return 1;
  }
  const std::string contents = set->Serialize(*format);
  const Status written = WriteOutput(options.output, InputFiles(options.set, *set), contents);
  if (!written.ok()) {
    ReportError(written);
    return 1;
  }
  return 0;
}

}  // namespace calcjit::cli
