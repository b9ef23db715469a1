// A character iterator over JSON text for nlohmann-json's SAX parser: the
// position adapter every JSON reader of calcjit shares (sets in JSON, model
// files).
//
// It records how far the lexer has read. nlohmann's SAX callbacks do not say
// where a value is, but a reader needs a number's exact text (nlohmann turns
// "-0" into the integer 0 and rounds decimals to double itself): the lexer
// reads a number and at most one character after it before the callback, so
// the text is the run of number characters that ends at or one before the
// read position (NumberTextBefore).
//
// It can also hand the lexer other text than the file's, at the start of a
// token outside strings, through a reader's Substitute function: XGBoost
// writes the non-JSON tokens NaN, Infinity and -Infinity, which its own
// reader accepts, and a reader may skip a large array it does not need. A
// substitution that stands for a special number hands the lexer "0" and marks
// where it ended (JsonCursor::special_end); the number callback that follows
// asks TakeSpecial, so no text a file may hold can be mistaken for it.
#ifndef CALCJIT_COMMON_JSON_TEXT_H_
#define CALCJIT_COMMON_JSON_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace calcjit {

// A number that JSON cannot spell, as XGBoost writes it: NaN, Infinity,
// -Infinity (and -NaN, which XGBoost's reader refuses).
enum class JsonSpecial : std::uint8_t { kNone, kNan, kNegativeNan, kInfinity, kNegativeInfinity };

struct JsonSubstitution {
  std::string_view text;     // handed to the lexer instead of...
  std::size_t consumed = 0;  // ...this many bytes of the file (0: no substitution)
  JsonSpecial special = JsonSpecial::kNone;
};

// What the begin and end iterators share (the parser copies iterators): the
// caller owns it and reads it from its SAX callbacks.
struct JsonCursor {
  const char* begin = nullptr;     // the whole text
  const char* read_end = nullptr;  // one past the last character the lexer has read
  // The last substitution for a special number: where its file text ended.
  const char* special_end = nullptr;
  JsonSpecial special = JsonSpecial::kNone;
  // Called at each token start outside strings whose first character is one
  // of `triggers`, with the rest of the file; nullptr for none.
  JsonSubstitution (*substitute)(std::string_view rest) = nullptr;
  std::string_view triggers;

  // The exact text of the number the lexer has just read ("" if none).
  std::string_view NumberTextBefore() const;
  // The special number the lexer has just read, if the number the current
  // callback reports was a substitution (and forgets it).
  JsonSpecial TakeSpecial();
};

class JsonTextIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  JsonTextIterator(const char* position, const char* end, JsonCursor* cursor)
      : position_(position), end_(end), cursor_(cursor) {
    StartToken();
  }
  reference operator*() const {
    return substitute_.empty() ? *position_ : substitute_[substitute_index_];
  }
  JsonTextIterator& operator++();
  JsonTextIterator operator++(int) {
    JsonTextIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const JsonTextIterator& other) const {
    return position_ == other.position_ && substitute_index_ == other.substitute_index_ &&
           substitute_.size() == other.substitute_.size();
  }
  bool operator!=(const JsonTextIterator& other) const { return !(*this == other); }

 private:
  void StartToken();

  const char* position_;
  const char* end_;
  JsonCursor* cursor_;
  JsonSubstitution pending_;     // the substitution being handed over
  std::string_view substitute_;  // == pending_.text while it is
  std::size_t substitute_index_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

}  // namespace calcjit

#endif  // CALCJIT_COMMON_JSON_TEXT_H_
