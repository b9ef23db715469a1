#include "calcjit/status.h"

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
