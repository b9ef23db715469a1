// A compact, flat JSON document for the JSON reader: nlohmann-json's SAX
// parser (which is iterative) fills one array of nodes in document order, so
// neither parsing, walking nor destroying a document recurses per nesting
// level (nlohmann's own json value does all three recursively).
#ifndef CALCJIT_DSL_JSON_DOM_H_
#define CALCJIT_DSL_JSON_DOM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/status.h"

namespace calcjit::dsl {

enum class JsonType : std::uint8_t { kNull, kFalse, kTrue, kNumber, kString, kArray, kObject };

struct JsonNode {
  JsonType type = JsonType::kNull;
  // One past the last node of this value: the next sibling, if any.
  std::uint32_t end = 0;
  // kString: the text in the string pool; kNumber: the number as written, in
  // the input; kArray, kObject: `size` is the number of elements or members.
  std::uint32_t begin = 0;
  std::uint32_t size = 0;
  // Object members: the key, in the string pool.
  std::uint32_t key_begin = 0;
  std::uint32_t key_size = 0;
};

class JsonDom {
 public:
  // Parses a whole document whose top level is an object. Syntax errors (and
  // a top level that is not an object) are user errors at "line:column",
  // 1-based, the column counted in characters (UTF-8 code points).
  static Result<JsonDom> Parse(std::string_view text);

  // The top-level object is node 0. The elements or members of a container
  // `c` are c + 1, then nodes[previous].end, ..., up to c.end.
  const JsonNode& node(std::uint32_t index) const { return nodes_[index]; }
  std::string_view Key(const JsonNode& node) const {
    return std::string_view(pool_).substr(node.key_begin, node.key_size);
  }
  std::string_view String(const JsonNode& node) const {
    return std::string_view(pool_).substr(node.begin, node.size);
  }
  // The number exactly as written (JSON number syntax).
  std::string_view Number(const JsonNode& node) const {
    return text_.substr(node.begin, node.size);
  }

 private:
  friend class JsonDomBuilder;

  std::string_view text_;  // the parsed text; must outlive the document
  std::vector<JsonNode> nodes_;
  std::string pool_;  // decoded strings and keys
};

// "line:column" of the byte at `offset` in `text` (1-based; columns count
// UTF-8 code points; a line ends at '\n', so "\r\n" is one line break).
std::string JsonLineColumn(std::string_view text, std::size_t offset);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_JSON_DOM_H_
