#include "common/json_text.h"

namespace calcjit {

namespace {

bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

}  // namespace

std::string_view JsonCursor::NumberTextBefore() const {
  const char* end = read_end;
  if (end > begin && !IsNumberChar(end[-1])) --end;
  const char* start = end;
  while (start > begin && IsNumberChar(start[-1])) --start;
  return std::string_view(start, static_cast<std::size_t>(end - start));
}

JsonSpecial JsonCursor::TakeSpecial() {
  // The lexer has read the substituted "0" and at most one character after
  // the file text it stood for.
  if (special == JsonSpecial::kNone || !(read_end == special_end || read_end == special_end + 1)) {
    return JsonSpecial::kNone;
  }
  const JsonSpecial taken = special;
  special = JsonSpecial::kNone;
  special_end = nullptr;
  return taken;
}

JsonTextIterator& JsonTextIterator::operator++() {
  if (!substitute_.empty()) {
    if (++substitute_index_ < substitute_.size()) return *this;
    substitute_ = {};
    substitute_index_ = 0;
    position_ += pending_.consumed;
    if (pending_.special != JsonSpecial::kNone) {
      cursor_->special = pending_.special;
      cursor_->special_end = position_;
    }
  } else {
    const char c = *position_;
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
    } else if (c == '"') {
      in_string_ = true;
    }
    ++position_;
  }
  cursor_->read_end = position_;
  StartToken();
  return *this;
}

void JsonTextIterator::StartToken() {
  if (in_string_ || position_ == end_ || cursor_->substitute == nullptr) return;
  if (cursor_->triggers.find(*position_) == std::string_view::npos) return;
  const JsonSubstitution substitution =
      cursor_->substitute(std::string_view(position_, static_cast<std::size_t>(end_ - position_)));
  if (substitution.consumed == 0 || substitution.text.empty()) return;
  pending_ = substitution;
  substitute_ = substitution.text;
  substitute_index_ = 0;
}

}  // namespace calcjit
