#include "calcjit/status.h"

#include "common/utf8.h"

namespace calcjit {

namespace {
const std::string& EmptyString() {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}
const std::vector<Diagnostic>& NoDiagnostics() {
  static const std::vector<Diagnostic>* const kNone = new std::vector<Diagnostic>();
  return *kNone;
}
// Messages and locations quote names and source text, which may hold any
// byte: control characters (a NUL would cut a C caller's message, a newline
// forge a line of output) and bytes that are not UTF-8 (Java and Python
// strings must decode) are shown as \xNN instead of carried raw.
std::string Printable(std::string text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = Utf8SequenceLength(std::string_view(text).substr(i));
    const auto byte = static_cast<unsigned char>(text[i]);
    if (length == 0 || byte < 0x20 || byte == 0x7F) break;
    i += length;
  }
  if (i == text.size()) return text;  // the common case: nothing to escape
  std::string out = text.substr(0, i);
  static constexpr char kHex[] = "0123456789abcdef";
  while (i < text.size()) {
    const std::size_t length = Utf8SequenceLength(std::string_view(text).substr(i));
    const auto byte = static_cast<unsigned char>(text[i]);
    if (length == 0 || byte < 0x20 || byte == 0x7F) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}
}  // namespace

std::string Diagnostic::ToString() const {
  if (location.empty()) return message;
  return location + ": " + message;
}

Status Status::Error(ErrorKind kind, std::string message, std::string location) {
  std::vector<Diagnostic> diagnostics;
  diagnostics.push_back(Diagnostic{std::move(location), std::move(message)});
  return Errors(kind, std::move(diagnostics));
}

Status Status::Errors(ErrorKind kind, std::vector<Diagnostic> diagnostics) {
  Status status;
  if (kind == ErrorKind::kOk) kind = ErrorKind::kInternal;  // an error is never "ok"
  if (diagnostics.empty()) diagnostics.push_back(Diagnostic{"", "unknown error"});
  for (Diagnostic& d : diagnostics) {
    d.location = Printable(std::move(d.location));
    d.message = Printable(std::move(d.message));
    // The last defence against a message that quotes megabytes of input.
    // (Locations are not cut: a field path 10,000 levels deep is the answer.)
    constexpr std::size_t kMaxMessage = 64 * 1024;
    if (d.message.size() > kMaxMessage) d.message = Excerpt(d.message, kMaxMessage);
  }
  status.rep_ = std::make_shared<const Rep>(Rep{kind, std::move(diagnostics)});
  return status;
}

const std::string& Status::message() const {
  return rep_ ? rep_->diagnostics.front().message : EmptyString();
}

const std::string& Status::location() const {
  return rep_ ? rep_->diagnostics.front().location : EmptyString();
}

const std::vector<Diagnostic>& Status::diagnostics() const {
  return rep_ ? rep_->diagnostics : NoDiagnostics();
}

std::string Status::ToString() const {
  if (!rep_) return "ok";
  std::string out;
  for (const Diagnostic& d : rep_->diagnostics) {
    if (!out.empty()) out += '\n';
    out += d.ToString();
  }
  return out;
}

}  // namespace calcjit
