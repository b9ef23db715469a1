// The shared list of bad calls (tests/frontends/bad_calls.txt) through the
// C++ API: every line that names "cpp" has a handler here that makes the call
// and returns its Status; the kind and the text the message must contain come
// from the file, so that every frontend asserts the same thing.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"

namespace calcjit {
namespace {

struct BadCall {
  std::string id;
  std::string kind;
  std::set<std::string> frontends;
  std::string contains;
};

std::string Trim(std::string text) {
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const std::size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

// The escapes of the file's "contains" column: \x00 stays as written (the
// message shows it so), nothing else is special.
std::vector<BadCall> ReadBadCalls() {
  std::ifstream file(CALCJIT_BAD_CALLS);
  EXPECT_TRUE(file) << "cannot read " << CALCJIT_BAD_CALLS;
  std::vector<BadCall> calls;
  std::string line;
  while (std::getline(file, line)) {
    if (Trim(line).empty() || line[0] == '#') continue;
    std::vector<std::string> columns;
    std::stringstream stream(line);
    std::string column;
    while (std::getline(stream, column, '|')) columns.push_back(Trim(column));
    EXPECT_EQ(columns.size(), 5u) << line;
    if (columns.size() != 5) continue;
    BadCall call{columns[0], columns[1], {}, columns[3]};
    std::stringstream frontends(columns[2]);
    std::string frontend;
    while (frontends >> frontend) call.frontends.insert(frontend);
    calls.push_back(std::move(call));
  }
  return calls;
}

constexpr char kS1[] = "input x; f = x * 2; g = x + 1;";

FeatureSet Parse(std::string_view text) {
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return std::move(set).value();
}

ServingEngine Serve(std::string_view text) {
  ServingOptions options;
  options.engine.backend = Backend::kVm;
  Result<ServingEngine> engine = ServingEngine::Create(Parse(text), options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return std::move(engine).value();
}

Status ParseStatus(std::string_view text) {
  return FeatureSet::Parse(text, Format::kText).status();
}

Status CompileStatus(std::string_view text, std::vector<std::string> outputs) {
  EngineOptions options;
  options.backend = Backend::kVm;
  options.outputs = std::move(outputs);
  return Engine::Compile(Parse(text), options).status();
}

// tests/frontends/files: sets and models the file-reading lines read.
std::string Files() {
  const std::string list = CALCJIT_BAD_CALLS;
  return list.substr(0, list.rfind('/')) + "/files";
}

std::string ModelSet(const std::string& path) {
  return "model m = xgboost(\"" + path + "\"); f = model(m, a)[0];";
}

Status ParseWithRoot(const std::string& text, const std::string& root) {
  LoadOptions options;
  options.model_root = root;
  return FeatureSet::Parse(text, Format::kText, options).status();
}

const std::map<std::string, std::function<Status()>>& Handlers() {
  static const auto* const kHandlers = new std::map<std::string, std::function<Status()>>{
      {"parse_syntax_error", [] { return ParseStatus("f = ;"); }},
      {"parse_nul_byte", [] { return ParseStatus(std::string_view("f = a \0 b;", 10)); }},
      {"parse_invalid_utf8", [] { return ParseStatus("f = a \xff b;"); }},
      {"parse_bom",
       [] {
         return ParseStatus(
             "\xEF\xBB\xBF"
             "f = 1;");
       }},
      {"unknown_output_option", [] { return CompileStatus(kS1, {"nope"}); }},
      {"astral_names",
       []() -> Status {
         ServingEngine engine = Serve("input `x😀`; `𝑓` = `x😀` * 2;");
         Session session(engine);
         const std::vector<float> x = {1, 2, 3};
         session.SetItemCount(3);
         CALCJIT_RETURN_IF_ERROR(session.BindInput("x😀", x));
         CALCJIT_RETURN_IF_ERROR(session.Evaluate());
         Result<std::span<const float>> f = session.Output("𝑓");
         if (!f.ok()) return f.status();
         EXPECT_EQ(std::vector<float>(f->begin(), f->end()), (std::vector<float>{2, 4, 6}));
         return CompileStatus("input `x😀`; `𝑓` = `x😀` * 2; g = 1;", {"𝑓"});  // by its name
       }},
      {"astral_unknown_input",
       [] {
         ServingEngine engine = Serve(kS1);
         Session session(engine);
         return session.BindInput("😀", std::vector<float>{1});
       }},
      {"bind_unknown_input",
       [] {
         ServingEngine engine = Serve(kS1);
         Session session(engine);
         return session.BindInput("nope", std::vector<float>{1});
       }},
      {"input_too_short",
       [] {
         ServingEngine engine = Serve(kS1);
         Session session(engine);
         const std::vector<float> x = {1, 2};
         session.SetItemCount(3);
         CALCJIT_RETURN_IF_ERROR(session.BindInput("x", x));
         return session.Evaluate();
       }},
      {"missing_input",
       [] {
         ServingEngine engine = Serve(kS1);
         Session session(engine);
         session.SetItemCount(3);
         return session.Evaluate();
       }},
      {"read_unknown_output",
       []() -> Status {
         ServingEngine engine = Serve(kS1);
         Session session(engine);
         const std::vector<float> x = {1, 2, 3};
         session.SetItemCount(3);
         CALCJIT_RETURN_IF_ERROR(session.BindInput("x", x));
         CALCJIT_RETURN_IF_ERROR(session.Evaluate());
         return session.Output("nope").status();
       }},
      {"zero_queries",
       []() -> Status {
         ServingEngine engine = Serve(kS1);
         Session session(engine);
         CALCJIT_RETURN_IF_ERROR(session.EvaluateQueries({}));
         for (const char* output : {"f", "g"}) {
           Result<std::span<const float>> values = session.Output(output);
           if (!values.ok()) return values.status();
           EXPECT_EQ(values->size(), 0u) << output;
         }
         return Status::Ok();
       }},
      {"shadow_bad_fraction",
       [] {
         ServingEngine engine = Serve(kS1);
         ShadowOptions options;
         options.fraction = 1.5;
         return engine.SetShadow(options);
       }},
      {"shadow_needs_unread",
       [] {
         ServingEngine engine = Serve(kS1);
         ShadowOptions options;
         options.fraction = 1;
         options.candidate =
             std::make_shared<const FeatureSet>(Parse("input x; input y; f = x * y;"));
         return engine.SetShadow(options);
       }},
      {"reload_dropped_input",
       []() -> Status {
         ServingEngine engine = Serve(kS1);
         Session session(engine);
         Result<std::uint64_t> version = engine.Reload("input y; f = y;", Format::kText);
         if (!version.ok()) return version.status();
         session.Rebind();
         return session.BindInput("x", std::vector<float>{1});
       }},
      {"model_path_outside", [] { return ParseWithRoot(ModelSet("../m.json"), Files()); }},
      {"model_path_absolute", [] { return ParseWithRoot(ModelSet("/etc/hostname"), Files()); }},
      {"model_link_outside",
       [] { return FeatureSet::ReadFile(Files() + "/link_outside.calc").status(); }},
      {"model_not_regular", [] { return ParseWithRoot(ModelSet("zero"), "/dev"); }},
      {"model_root_nul",
       [] { return ParseWithRoot(ModelSet("m.json"), Files() + std::string("\0x", 2)); }},
      {"set_file_device", [] { return FeatureSet::ReadFile(Files() + "/zero.calc").status(); }},
      {"set_file_location",
       [] { return FeatureSet::ReadFile(Files() + "/syntax_error.calc").status(); }},
      {"path_nul",
       [] {
         return FeatureSet::ReadFile(Files() + "/syntax_error.calc" + std::string("\0x", 2))
             .status();
       }},
      {"model_file_location",
       [] { return FeatureSet::ReadModel(Files() + "/bad_model.json").status(); }},
      {"model_file_device",
       [] { return FeatureSet::ReadModel("/dev/zero", ModelFormat::kXgboostJson).status(); }},
  };
  return *kHandlers;
}

TEST(BadCallsTest, EveryLineForCppGivesItsKindOfError) {
  const std::vector<BadCall> calls = ReadBadCalls();
  ASSERT_FALSE(calls.empty());
  std::set<std::string> ids;
  for (const BadCall& call : calls) {
    ids.insert(call.id);
    if (!call.frontends.contains("cpp")) {
      EXPECT_FALSE(Handlers().contains(call.id)) << call.id << " has a handler but no 'cpp'";
      continue;
    }
    const auto handler = Handlers().find(call.id);
    if (handler == Handlers().end()) {
      ADD_FAILURE() << "no C++ handler for the bad call '" << call.id << "'";
      continue;
    }
    const Status status = handler->second();
    if (call.kind == "ok") {
      EXPECT_TRUE(status.ok()) << call.id << ": " << status.ToString();
      continue;
    }
    ASSERT_TRUE(call.kind == "user" || call.kind == "argument") << call.id << ": " << call.kind;
    EXPECT_FALSE(status.ok()) << call.id;
    EXPECT_EQ(status.kind(), ErrorKind::kUser) << call.id << ": " << status.ToString();
    EXPECT_NE(status.ToString().find(call.contains), std::string::npos)
        << call.id << ": '" << status.ToString() << "' lacks '" << call.contains << "'";
    EXPECT_EQ(status.ToString().find('\0'), std::string::npos) << call.id;
  }
  for (const auto& [id, handler] : Handlers()) {
    EXPECT_TRUE(ids.contains(id)) << "the handler '" << id << "' has no line in the file";
  }
}

}  // namespace
}  // namespace calcjit
