// The public lookups of calcjit/model_format.h, over the format table.
#include "model/format_table.h"

#include <algorithm>
#include <array>

namespace calcjit {

namespace {

constexpr std::array<ModelFormat, std::size(model::kFormatRows)> kFormats = [] {
  std::array<ModelFormat, std::size(model::kFormatRows)> formats{};
  for (std::size_t i = 0; i < formats.size(); ++i) formats[i] = model::kFormatRows[i].format;
  return formats;
}();

// Calls `each` with every '|'- or ' '-separated piece of `list` until it returns true.
template <typename Each>
bool AnyPiece(std::string_view list, char separator, Each each) {
  while (!list.empty()) {
    const std::size_t end = list.find(separator);
    const std::string_view piece = list.substr(0, end);
    if (!piece.empty() && each(piece)) return true;
    if (end == std::string_view::npos) break;
    list.remove_prefix(end + 1);
  }
  return false;
}

bool ClaimsExtension(const model::FormatRow& row, std::string_view path) {
  return AnyPiece(row.extensions, ' ', [path](std::string_view extension) {
    return path.size() >= extension.size() && path.ends_with(extension);
  });
}

// Where in the first bytes of a file the earliest of `row`'s signatures is
// (npos: none). A signature deep in the window can be text a file of another
// format happens to hold (a LightGBM feature named "learner"), so the
// earliest signature of all formats decides.
std::size_t SignaturePosition(const model::FormatRow& row, std::string_view bytes) {
  const std::string_view window = bytes.substr(0, model::kSignatureWindow);
  std::size_t earliest = std::string_view::npos;
  AnyPiece(row.signatures, '|', [window, &earliest](std::string_view signature) {
    earliest = std::min(earliest, window.find(signature));
    return false;
  });
  return earliest;
}

}  // namespace

std::span<const ModelFormat> ModelFormats() {
  return kFormats;
}

std::string_view ModelFormatName(ModelFormat format) {
  return model::RowOf(format).text_name;
}

std::optional<ModelFormat> ModelFormatFromName(std::string_view name) {
  for (const model::FormatRow& row : model::kFormatRows) {
    if (row.text_name == name) return row.format;
  }
  return std::nullopt;
}

std::string ModelFormatNameList() {
  std::string list;
  const std::size_t count = std::size(model::kFormatRows);
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) list += i + 1 == count ? " or " : ", ";
    list += "'" + std::string(model::kFormatRows[i].text_name) + "'";
  }
  return list;
}

std::optional<ModelFormat> ModelFormatFromPath(std::string_view path) {
  for (const model::FormatRow& row : model::kFormatRows) {
    if (ClaimsExtension(row, path)) return row.format;
  }
  return std::nullopt;
}

std::optional<ModelFormat> DetectModelFormat(std::string_view path, std::string_view bytes) {
  std::optional<ModelFormat> found;
  std::size_t earliest = std::string_view::npos;
  for (const model::FormatRow& row : model::kFormatRows) {
    const std::size_t position = SignaturePosition(row, bytes);
    if (position < earliest) {
      earliest = position;
      found = row.format;
    }
  }
  return found ? found : ModelFormatFromPath(path);
}

}  // namespace calcjit
