// What a name of a set may be (spec 4 and 5): never empty, valid UTF-8 (names
// reach JSON and protobuf strings, Java and Python), at most kMaxNameBytes.
// The readers enforce it on the names a set spells; names that come from
// elsewhere (a model file's feature names) are checked with this before they
// name an input.
#ifndef CALCJIT_IR_NAMES_H_
#define CALCJIT_IR_NAMES_H_

#include <string_view>

#include "common/utf8.h"
#include "ir/limits.h"

namespace calcjit::ir {

// Why `name` cannot name an input or a feature of a set, or nullptr when it can.
inline const char* WhyNotAName(std::string_view name) {
  if (name.empty()) return "a name is never empty";
  if (!IsValidUtf8(name)) return "it is not valid UTF-8";
  if (name.size() > kMaxNameBytes) return "it is longer than 1024 bytes";
  return nullptr;
}

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_NAMES_H_
