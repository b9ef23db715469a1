// What a feature set or an engine reads and writes.
#ifndef CALCJIT_SCHEMA_H_
#define CALCJIT_SCHEMA_H_

#include "calcjit/cxx20.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace calcjit {

// Item inputs have a value per item; query inputs one value for the whole
// batch (spec section 1).
enum class Scope : std::uint8_t { kItem = 0, kQuery = 1 };

struct InputInfo {
  std::string name;
  Scope scope = Scope::kItem;
  std::uint32_t dimension = 0;  // 0: a scalar; d > 0: a vector of d floats
  std::optional<float> default_value;
  // False for an implicit input: a name used by a formula that is neither
  // declared nor defined (an item scalar without a default; typos show up here).
  bool declared = true;

  bool is_vector() const { return dimension > 0; }
  // How many floats the caller binds for a batch of `item_count` items.
  std::size_t ValueCount(std::size_t item_count) const {
    const std::size_t width = dimension > 0 ? dimension : 1;
    return scope == Scope::kItem ? item_count * width : width;
  }
};

struct Schema {
  std::vector<InputInfo> inputs;
  std::vector<std::string> outputs;

  std::optional<std::size_t> FindInput(std::string_view name) const;
  std::optional<std::size_t> FindOutput(std::string_view name) const;
};

}  // namespace calcjit

#endif  // CALCJIT_SCHEMA_H_
