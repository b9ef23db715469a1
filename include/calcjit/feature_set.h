// A feature set: read from any of the three formats, checked, immutable.
#ifndef CALCJIT_FEATURE_SET_H_
#define CALCJIT_FEATURE_SET_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/schema.h"
#include "calcjit/status.h"

namespace calcjit {

namespace internal {
struct LoadedSet;
}  // namespace internal

// The three formats of a set (spec sections 2 and 4).
enum class Format : unsigned char {
  kText,   // .calc
  kJson,   // .json, the proto3 JSON mapping
  kProto,  // .pb / .binpb, binary protobuf
};

// "calc", "json", "pb" (also "binpb", "text", "proto").
std::optional<Format> FormatFromName(std::string_view name);
// By file extension: .calc, .json, .pb, .binpb.
std::optional<Format> FormatFromPath(std::string_view path);
std::string_view FormatName(Format format);

// What one definition's formula reads directly.
struct DefinitionUses {
  std::vector<std::size_t> features;  // other definitions (schema().outputs indices), ascending
  std::vector<std::size_t> inputs;    // schema().inputs indices, ascending
  bool aggregate = false;             // it applies an aggregate (a per-batch operator)
};

// Immutable and cheap to copy (copies share the parsed set); safe to use
// from many threads at once.
class FeatureSet {
 public:
  // Reads and checks a set. On failure, the Status lists every problem found,
  // each with its location (spec section 5).
  static Result<FeatureSet> Parse(std::string_view data, Format format);
  // Reads a file; the format comes from the extension unless given.
  static Result<FeatureSet> ReadFile(const std::string& path,
                                     std::optional<Format> format = std::nullopt);

  // Inputs (declared in order, then implicit ones in order of first use) and
  // outputs (every definition in order).
  const Schema& schema() const;
  // The implicit inputs: names that are used but neither declared nor defined.
  std::vector<std::string> ImplicitInputs() const;

  // For every definition, in schema().outputs order: what it reads.
  std::vector<DefinitionUses> Uses() const;
  // Every definition (schema().outputs index), each after those it uses.
  std::vector<std::size_t> EvaluationOrder() const;

  // Writes the set in a format: text (shortest floats, minimal parentheses),
  // protobuf JSON (original field names, enum names) or binary protobuf.
  std::string Serialize(Format format) const;
  std::string ToText() const { return Serialize(Format::kText); }

  // For the library's own stages.
  const internal::LoadedSet& loaded() const { return *loaded_; }
  std::shared_ptr<const internal::LoadedSet> shared_loaded() const { return loaded_; }

 private:
  explicit FeatureSet(std::shared_ptr<const internal::LoadedSet> loaded)
      : loaded_(std::move(loaded)) {}
  std::shared_ptr<const internal::LoadedSet> loaded_;
};

}  // namespace calcjit

#endif  // CALCJIT_FEATURE_SET_H_
