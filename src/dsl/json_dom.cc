#include "dsl/json_dom.h"

#include "common/json_text.h"
#include "common/utf8.h"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <iterator>
#include <new>
#include <utility>

#include <nlohmann/json.hpp>

namespace calcjit::dsl {

namespace {

// nlohmann's message without its "[json.exception...] parse error at line x,
// column y: " prefix: the location is given separately, in characters.
std::string CleanParseMessage(std::string what) {
  if (what.rfind("[json.exception.", 0) == 0) {
    const std::size_t close = what.find("] ");
    if (close != std::string::npos) what.erase(0, close + 2);
  }
  constexpr std::string_view kAt = "parse error at line ";
  if (what.rfind(kAt, 0) == 0) {
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos) what.erase(0, colon + 2);
  } else if (what.rfind("parse error: ", 0) == 0) {
    what.erase(0, 13);
  }
  // nlohmann quotes the offending token whole (a 100 KB number): keep its start.
  constexpr std::size_t kMaxMessage = 200;
  if (what.size() > kMaxMessage) what = Excerpt(what, kMaxMessage);
  return what;
}

}  // namespace

// Builds the flat document from nlohmann's SAX events, with an explicit stack
// of open containers.
class JsonDomBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  JsonDomBuilder(JsonDom* dom, std::string_view text, const JsonCursor* cursor)
      : dom_(dom), text_(text), cursor_(cursor) {}

  bool null() override { return Add(JsonType::kNull); }
  bool boolean(bool value) override { return Add(value ? JsonType::kTrue : JsonType::kFalse); }
  bool number_integer(number_integer_t /*value*/) override { return AddNumber(); }
  bool number_unsigned(number_unsigned_t /*value*/) override { return AddNumber(); }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override {
    return AddNumber();
  }
  bool string(string_t& value) override {
    const auto begin = static_cast<std::uint32_t>(dom_->pool_.size());
    dom_->pool_ += value;
    if (!Add(JsonType::kString)) return false;
    dom_->nodes_.back().begin = begin;
    dom_->nodes_.back().size = static_cast<std::uint32_t>(value.size());
    return true;
  }
  bool binary(binary_t& /*value*/) override { return false; }  // not produced by JSON text
  bool start_object(std::size_t /*size*/) override { return Open(JsonType::kObject); }
  bool key(string_t& value) override {
    key_begin_ = static_cast<std::uint32_t>(dom_->pool_.size());
    key_size_ = static_cast<std::uint32_t>(value.size());
    dom_->pool_ += value;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t /*size*/) override { return Open(JsonType::kArray); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    // `position` counts the bytes read, the offending one included.
    const std::size_t offset = position == 0 ? 0 : std::min(position - 1, text_.size());
    error_ = UserError(CleanParseMessage(ex.what()), JsonLineColumn(text_, offset));
    return false;
  }

  Status TakeError() { return std::move(error_); }

 private:
  bool Add(JsonType type) {
    if (dom_->nodes_.empty() && type != JsonType::kObject) return NotAnObject();
    const auto index = static_cast<std::uint32_t>(dom_->nodes_.size());
    JsonNode node;
    node.type = type;
    node.end = index + 1;
    if (!open_.empty()) {
      JsonNode& parent = dom_->nodes_[open_.back()];
      ++parent.size;
      if (parent.type == JsonType::kObject) {
        node.key_begin = key_begin_;
        node.key_size = key_size_;
      }
    }
    dom_->nodes_.push_back(node);
    return true;
  }

  bool AddNumber() {
    if (!Add(JsonType::kNumber)) return false;
    // nlohmann turns "-0" into the integer 0 and rounds decimals itself: the
    // number's exact text, from the shared adapter (common/json_text.h).
    const std::string_view number = cursor_->NumberTextBefore();
    dom_->nodes_.back().begin = static_cast<std::uint32_t>(number.data() - text_.data());
    dom_->nodes_.back().size = static_cast<std::uint32_t>(number.size());
    return true;
  }

  bool Open(JsonType type) {
    if (!Add(type)) return false;
    open_.push_back(static_cast<std::uint32_t>(dom_->nodes_.size() - 1));
    return true;
  }

  bool Close() {
    dom_->nodes_[open_.back()].end = static_cast<std::uint32_t>(dom_->nodes_.size());
    open_.pop_back();
    return true;
  }

  bool NotAnObject() {
    std::size_t offset = 0;
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") offset = 3;  // nlohmann skips a byte order mark
    while (offset < text_.size() && (text_[offset] == ' ' || text_[offset] == '\t' ||
                                     text_[offset] == '\n' || text_[offset] == '\r')) {
      ++offset;
    }
    error_ = UserError("the top level of a FeatureSet must be a JSON object",
                       JsonLineColumn(text_, offset));
    return false;
  }

  JsonDom* dom_;
  std::string_view text_;
  const JsonCursor* cursor_;
  std::vector<std::uint32_t> open_;
  std::uint32_t key_begin_ = 0;
  std::uint32_t key_size_ = 0;
  Status error_;
};

Result<JsonDom> JsonDom::Parse(std::string_view text) {
  if (text.size() >= 0x7FFFFFFFu) return UserError("a JSON FeatureSet must be smaller than 2 GiB");
  JsonDom dom;
  dom.text_ = text;
  JsonCursor cursor;
  cursor.begin = text.data();
  cursor.read_end = text.data();
  JsonDomBuilder builder(&dom, text, &cursor);
  const char* end = text.data() + text.size();
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(JsonTextIterator(text.data(), end, &cursor),
                                       JsonTextIterator(end, end, &cursor), &builder);
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory while parsing JSON");
  } catch (const std::exception& e) {
    return UserError(CleanParseMessage(e.what()));
  }
  if (!parsed) {
    Status error = builder.TakeError();
    if (error.ok()) return InternalError("JSON parser stopped without an error");
    return error;
  }
  return dom;
}

std::string JsonLineColumn(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace calcjit::dsl
