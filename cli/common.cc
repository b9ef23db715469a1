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
  LoadOptions options;
  options.model_root = source.model_root;
  options.allow_any_model_path = source.allow_any_model_path;
  options.load_models = source.load_models;
  return FeatureSet::ReadFile(source.path, format, options);
}

std::vector<std::string> InputFiles(const SetSource& source, const FeatureSet& set,
                                    const std::vector<std::string>& more) {
  std::vector<std::string> files = {source.path};
  std::filesystem::path root = source.model_root;
  if (root.empty()) root = std::filesystem::path(source.path).parent_path();
  for (const DeclaredModel& model : set.Models()) {
    const std::filesystem::path path = model.path;
    files.push_back(path.is_absolute() || root.empty() ? path.string() : (root / path).string());
  }
  files.insert(files.end(), more.begin(), more.end());
  return files;
}

std::string ForTerminal(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char byte) {
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = byte == 0xC2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (byte < 0x20 || byte == 0x7F) {
      escape(byte);
    } else if (c1) {
      escape(byte);
      escape(static_cast<unsigned char>(text[++i]));
    } else {
      out += text[i];
    }
  }
  return out;
}

void ReportError(const Status& status) {
  for (const Diagnostic& d : status.diagnostics()) {
    std::cerr << (d.location.empty() ? "" : d.location + ": ") << "error: " << d.message << '\n';
  }
}

void ReportError(std::string_view message) {
  std::cerr << "error: " << message << '\n';
}

Result<std::string> TierLines(const FeatureSet& set, const EngineOptions& options,
                              std::size_t items) {
  Result<TierMeasurement> tiers = MeasureTiers(set, options, items);
  if (!tiers.ok()) return tiers.status();
  std::string text = "tiers: " + tiers->note + "\n";
  if (tiers->measured) {
    text +=
        "  served with tier choice (auto): the " + std::string(BackendName(tiers->chosen)) + "\n";
  }
  return text;
}

}  // namespace calcjit::cli
