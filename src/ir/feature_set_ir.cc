#include "ir/feature_set_ir.h"

namespace calcjit::ir {

NameId NameTable::Intern(std::string_view name) {
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  const auto id = static_cast<NameId>(names_.size());
  const std::string& stored = names_.emplace_back(name);
  index_.emplace(std::string_view(stored), id);
  return id;
}

std::optional<NameId> NameTable::Find(std::string_view name) const {
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  return std::nullopt;
}

}  // namespace calcjit::ir
