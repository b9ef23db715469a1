#include "dsl/model_declarations.h"

#include <optional>
#include <utility>

#include "ir/model_format.h"

namespace calcjit::dsl {

Status AddModel(std::string_view name, std::string_view model_path, std::int64_t format,
                const std::string& path, ir::IrBuilder* builder) {
  if (name.empty()) return UserError("model name is empty", path + ".name");
  if (format == 0) {
    return UserError("model format is FORMAT_UNSPECIFIED (not set)", path + ".format");
  }
  const std::optional<ir::ModelFormat> known = ir::ModelFormatFromNumber(format);
  if (!known) return UserError("unknown Format value " + std::to_string(format), path + ".format");
  if (model_path.find('\n') != std::string_view::npos) {
    return UserError("a model path cannot contain a line break", path + ".path");
  }
  builder->AddModel(
      ir::ModelDecl{builder->Intern(name), std::string(model_path), *known, ir::TextPos{}});
  return Status::Ok();
}

}  // namespace calcjit::dsl
