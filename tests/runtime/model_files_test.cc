// Where a model's bytes come from (spec 6.1): paths under the model root
// only, unless the caller allows any path; regular files only; bounded size.
#include "runtime/model_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

namespace calcjit::internal {
namespace {

namespace fs = std::filesystem;

class ModelFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("calcjit_model_files_" + std::to_string(::getpid()));
    fs::remove_all(base_);
    root_ = base_ / "root";
    fs::create_directories(root_ / "models");
    Write(root_ / "models" / "ranker.json", "{\"trees\": []}");
    Write(base_ / "secret.json", "outside");
  }
  void TearDown() override { fs::remove_all(base_); }

  static void Write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  Result<std::string> Read(std::string_view path, bool any = false) {
    return ReadModelFile(path, root_.string(), any);
  }
  static std::string Message(const Result<std::string>& result) {
    return result.ok() ? "" : result.status().message();
  }

  fs::path base_, root_;
};

TEST_F(ModelFilesTest, ReadsAFileUnderTheRoot) {
  const Result<std::string> bytes = Read("models/ranker.json");
  ASSERT_TRUE(bytes.ok()) << Message(bytes);
  EXPECT_EQ(*bytes, "{\"trees\": []}");
  // `..` that stays inside the root is fine.
  EXPECT_TRUE(Read("models/../models/ranker.json").ok());
}

TEST_F(ModelFilesTest, RefusesPathsThatLeaveTheRoot) {
  const Result<std::string> up = Read("../secret.json");
  ASSERT_FALSE(up.ok());
  EXPECT_NE(Message(up).find("leads outside the model root"), std::string::npos) << Message(up);
  // A file outside that does not exist is refused the same way: the message
  // does not tell whether it exists.
  const Result<std::string> missing = Read("models/../../no_such_file.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(Message(missing).find("leads outside the model root"), std::string::npos)
      << Message(missing);
  const std::string absolute = (base_ / "secret.json").string();
  const Result<std::string> abs = Read(absolute);
  ASSERT_FALSE(abs.ok());
  EXPECT_NE(Message(abs).find("is absolute"), std::string::npos) << Message(abs);
  // A symbolic link inside the root that points outside it.
  fs::create_symlink(base_ / "secret.json", root_ / "models" / "link.json");
  const Result<std::string> link = Read("models/link.json");
  ASSERT_FALSE(link.ok());
  EXPECT_NE(Message(link).find("leads outside the model root"), std::string::npos);
  // ... and a link to a folder outside.
  fs::create_directory_symlink(base_, root_ / "up");
  EXPECT_FALSE(Read("up/secret.json").ok());
}

TEST_F(ModelFilesTest, TheCallerMayAllowAnyPath) {
  EXPECT_EQ(*Read((base_ / "secret.json").string(), true), "outside");
  EXPECT_EQ(*Read("../secret.json", true), "outside");
}

TEST_F(ModelFilesTest, AnInsideLinkIsFine) {
  fs::create_symlink(root_ / "models" / "ranker.json", root_ / "current.json");
  EXPECT_TRUE(Read("current.json").ok());
}

TEST_F(ModelFilesTest, MissingEmptyAndNonRegularFiles) {
  const Result<std::string> missing = Read("models/nope.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kRuntime);
  EXPECT_NE(Message(missing).find("nope.json"), std::string::npos) << Message(missing);
  EXPECT_FALSE(Read("").ok());
  const Result<std::string> folder = Read("models");
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(Message(folder).find("not a regular file"), std::string::npos) << Message(folder);
  // A FIFO with no writer: refused at once, never waited on.
  ASSERT_EQ(::mkfifo((root_ / "pipe").c_str(), 0600), 0);
  const Result<std::string> fifo = Read("pipe");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(Message(fifo).find("not a regular file"), std::string::npos) << Message(fifo);
  const Result<std::string> nul = Read(std::string_view("a\0b", 3));
  EXPECT_FALSE(nul.ok());
}

TEST_F(ModelFilesTest, NoRootWithoutAFile) {
  const Result<std::string> bytes = ReadModelFile("ranker.json", "", false);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(Message(bytes).find("no model root"), std::string::npos);
}

TEST_F(ModelFilesTest, TheSizeIsBounded) {
  const Result<std::string> big = ReadModelFile("models/ranker.json", root_.string(), false, 4);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(Message(big).find("more than the limit of 4"), std::string::npos) << Message(big);
}

}  // namespace
}  // namespace calcjit::internal
