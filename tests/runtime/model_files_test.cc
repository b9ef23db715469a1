// Where a model's bytes come from (spec 6.1): paths under the model root
// only, unless the caller allows any path; no step of a path's resolution may
// leave the root, even while folders and files are swapped for links; regular
// files only; bounded size. Every test runs with the kernel's openat2 and with
// the component-by-component walk that stands in for it on older kernels.
#include "runtime/model_files.h"
#include "runtime/set_file.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace calcjit::internal {
namespace {

namespace fs = std::filesystem;

class ModelFilesTest : public ::testing::TestWithParam<BeneathMethod> {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("calcjit_model_files_" + std::to_string(::getpid()) + "_" +
                                         std::to_string(static_cast<int>(GetParam())));
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
  Result<std::string> Read(std::string_view path, bool any = false,
                           std::uint64_t max_bytes = kMaxModelFileBytes) {
    return ReadModelFile(path, root_.string(), any, max_bytes, GetParam());
  }
  static std::string Message(const Result<std::string>& result) {
    return result.ok() ? "" : result.status().message();
  }
  static bool LeavesTheRoot(const Result<std::string>& result) {
    return !result.ok() && result.status().kind() == ErrorKind::kUser &&
           Message(result).find("leads outside the model root") != std::string::npos;
  }

  fs::path base_, root_;
};

INSTANTIATE_TEST_SUITE_P(Methods, ModelFilesTest,
                         ::testing::Values(BeneathMethod::kKernel, BeneathMethod::kWalk),
                         [](const ::testing::TestParamInfo<BeneathMethod>& method) {
                           return std::string(method.param == BeneathMethod::kKernel ? "Kernel"
                                                                                     : "Walk");
                         });

TEST_P(ModelFilesTest, ReadsAFileUnderTheRoot) {
  const Result<std::string> bytes = Read("models/ranker.json");
  ASSERT_TRUE(bytes.ok()) << Message(bytes);
  EXPECT_EQ(*bytes, "{\"trees\": []}");
  // `..` that stays inside the root is fine, and so are empty names and `.`.
  EXPECT_TRUE(Read("models/../models/ranker.json").ok());
  EXPECT_TRUE(Read("./models//./ranker.json").ok());
}

TEST_P(ModelFilesTest, RefusesPathsThatLeaveTheRoot) {
  const Result<std::string> up = Read("../secret.json");
  EXPECT_TRUE(LeavesTheRoot(up)) << Message(up);
  // A file outside that does not exist is refused the same way: the message
  // does not tell whether it exists.
  const Result<std::string> missing = Read("models/../../no_such_file.json");
  EXPECT_TRUE(LeavesTheRoot(missing)) << Message(missing);
  const std::string absolute = (base_ / "secret.json").string();
  const Result<std::string> abs = Read(absolute);
  ASSERT_FALSE(abs.ok());
  EXPECT_NE(Message(abs).find("is absolute"), std::string::npos) << Message(abs);
  // A symbolic link inside the root that points outside it: absolute...
  fs::create_symlink(base_ / "secret.json", root_ / "models" / "link.json");
  const Result<std::string> link = Read("models/link.json");
  EXPECT_TRUE(LeavesTheRoot(link)) << Message(link);
  EXPECT_NE(Message(link).find("models/link.json"), std::string::npos) << Message(link);
  // ... relative, even one that comes back in through the root's own name ...
  fs::create_symlink("../../secret.json", root_ / "models" / "relative.json");
  EXPECT_TRUE(LeavesTheRoot(Read("models/relative.json")));
  fs::create_symlink("../root/models/ranker.json", root_ / "back_in.json");
  EXPECT_TRUE(LeavesTheRoot(Read("back_in.json")));
  // ... to a folder outside, a link to a link outside, and a link to a file
  // outside that does not exist (refused, not "no such file").
  fs::create_directory_symlink(base_, root_ / "up");
  EXPECT_TRUE(LeavesTheRoot(Read("up/secret.json")));
  fs::create_symlink("link.json", root_ / "models" / "chain.json");
  EXPECT_TRUE(LeavesTheRoot(Read("models/chain.json")));
  fs::create_symlink(base_ / "nothing_here", root_ / "dangling.json");
  EXPECT_TRUE(LeavesTheRoot(Read("dangling.json")));
  // /proc's magic links lead anywhere.
  fs::create_symlink("/proc/self/root/etc/passwd", root_ / "magic.json");
  EXPECT_TRUE(LeavesTheRoot(Read("magic.json")));
}

TEST_P(ModelFilesTest, TheCallerMayAllowAnyPath) {
  EXPECT_EQ(*Read((base_ / "secret.json").string(), true), "outside");
  EXPECT_EQ(*Read("../secret.json", true), "outside");
  fs::create_symlink(base_ / "secret.json", root_ / "link.json");
  EXPECT_EQ(*Read("link.json", true), "outside");
}

TEST_P(ModelFilesTest, LinksThatStayInsideAreFollowed) {
  // Absolute (openat2 refuses those; the walk reads them), relative, to a
  // folder, chained, and through `..` inside the root.
  fs::create_symlink(root_ / "models" / "ranker.json", root_ / "current.json");
  EXPECT_TRUE(Read("current.json").ok()) << Message(Read("current.json"));
  fs::create_symlink("models/ranker.json", root_ / "relative.json");
  EXPECT_TRUE(Read("relative.json").ok());
  fs::create_directory_symlink("models", root_ / "latest");
  EXPECT_TRUE(Read("latest/ranker.json").ok());
  fs::create_symlink("current.json", root_ / "chained.json");
  EXPECT_TRUE(Read("chained.json").ok());
  fs::create_directories(root_ / "a" / "b");
  fs::create_symlink("../../models/ranker.json", root_ / "a" / "b" / "up_and_in.json");
  EXPECT_EQ(*Read("a/b/up_and_in.json"), "{\"trees\": []}");
  // `..` after a link to a folder is the parent of where the link leads.
  fs::create_directory_symlink("a/b", root_ / "deep");
  fs::create_directories(root_ / "a" / "models");
  Write(root_ / "a" / "models" / "ranker.json", "a's");
  EXPECT_EQ(*Read("deep/../models/ranker.json"), "a's");
  // A root given through a link: an absolute link inside it may spell the
  // root as given or as its real path.
  fs::create_directory_symlink(root_, base_ / "root_link");
  fs::create_symlink(base_ / "root_link" / "models" / "ranker.json", root_ / "via_link.json");
  const auto read_via_link = [&](const char* path) {
    return ReadModelFile(path, (base_ / "root_link").string(), false, kMaxModelFileBytes,
                         GetParam());
  };
  EXPECT_TRUE(read_via_link("via_link.json").ok()) << Message(read_via_link("via_link.json"));
  EXPECT_TRUE(read_via_link("current.json").ok()) << Message(read_via_link("current.json"));
}

TEST_P(ModelFilesTest, LoopsAndFilesUsedAsFolders) {
  fs::create_symlink("loop_b", root_ / "loop_a");
  fs::create_symlink("loop_a", root_ / "loop_b");
  const Result<std::string> loop = Read("loop_a");
  ASSERT_FALSE(loop.ok());
  EXPECT_EQ(loop.status().kind(), ErrorKind::kRuntime);
  EXPECT_NE(Message(loop).find("symbolic links"), std::string::npos) << Message(loop);
  const Result<std::string> through_file = Read("models/ranker.json/x");
  ASSERT_FALSE(through_file.ok());
  EXPECT_NE(Message(through_file).find("Not a directory"), std::string::npos)
      << Message(through_file);
}

TEST_P(ModelFilesTest, MissingEmptyAndNonRegularFiles) {
  const Result<std::string> missing = Read("models/nope.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kRuntime);
  EXPECT_NE(Message(missing).find("nope.json"), std::string::npos) << Message(missing);
  EXPECT_FALSE(Read("").ok());
  const Result<std::string> folder = Read("models");
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(Message(folder).find("not a regular file"), std::string::npos) << Message(folder);
  EXPECT_NE(Message(Read("models/..")).find("not a regular file"), std::string::npos);
  // A FIFO with no writer: refused at once, never waited on.
  ASSERT_EQ(::mkfifo((root_ / "pipe").c_str(), 0600), 0);
  const Result<std::string> fifo = Read("pipe");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(Message(fifo).find("not a regular file"), std::string::npos) << Message(fifo);
  // A device, even through a link the caller allows: never read.
  fs::create_symlink("/dev/zero", root_ / "zero.json");
  const Result<std::string> zero = Read("zero.json", true);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(Message(zero).find("not a regular file"), std::string::npos) << Message(zero);
  const Result<std::string> long_path = Read(std::string(5000, 'a'));
  ASSERT_FALSE(long_path.ok());
  EXPECT_NE(Message(long_path).find("5000 bytes"), std::string::npos) << Message(long_path);
  const Result<std::string> nul = Read(std::string_view("a\0b", 3));
  EXPECT_FALSE(nul.ok());
  const Result<std::string> nul_root =
      ReadModelFile("models/ranker.json", root_.string() + std::string("\0/x", 3), false,
                    kMaxModelFileBytes, GetParam());
  ASSERT_FALSE(nul_root.ok());
  EXPECT_NE(Message(nul_root).find("NUL"), std::string::npos) << Message(nul_root);
}

TEST_P(ModelFilesTest, NoRootWithoutAFile) {
  const Result<std::string> bytes = ReadModelFile("ranker.json", "", false);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(Message(bytes).find("no model root"), std::string::npos);
}

TEST_P(ModelFilesTest, TheSizeIsBounded) {
  const Result<std::string> big = Read("models/ranker.json", false, 4);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(Message(big).find("more than the limit of 4"), std::string::npos) << Message(big);
  // The limit holds while reading too: /proc files say they are empty.
  const Result<std::string> proc = ReadModelPath("/proc/self/maps", 16);
  ASSERT_FALSE(proc.ok());
  EXPECT_NE(Message(proc).find("more than the limit of 16"), std::string::npos) << Message(proc);
}

TEST(ModelPathTest, ACallersOwnPathIsReadAsAModelFile) {
  const fs::path folder =
      fs::temp_directory_path() / ("calcjit_model_path_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  std::ofstream(folder / "m.json") << "{}";
  EXPECT_EQ(*ReadModelPath((folder / "m.json").string()), "{}");
  // A FIFO is refused at once (a writer never comes), /dev/zero without
  // reading it, a folder by its kind.
  ASSERT_EQ(::mkfifo((folder / "pipe.json").c_str(), 0600), 0);
  for (const std::string& path : {(folder / "pipe.json").string(), std::string("/dev/zero"),
                                  std::string("/dev/urandom"), folder.string()}) {
    const Result<std::string> read = ReadModelPath(path);
    ASSERT_FALSE(read.ok()) << path;
    EXPECT_NE(read.status().message().find("not a regular file"), std::string::npos)
        << read.status().message();
  }
  fs::remove_all(folder);
}

// How long the race below runs: a few seconds in CI, as long as asked with
// CALCJIT_RACE_SECONDS (the hostile suite runs it for minutes).
double RaceSeconds() {
  const char* seconds = std::getenv("CALCJIT_RACE_SECONDS");
  return seconds != nullptr ? std::atof(seconds) : 1.5;
}

// One name swapped with another atomically (renameat2 RENAME_EXCHANGE), so a
// reader sees one or the other, never neither.
void Exchange(const fs::path& a, const fs::path& b) {
  ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
}

// Regression (issue 26, cause 3): the path was checked with canonical() and
// then opened again by name, so a folder or the file swapped for a link in
// between made calcjit read a file outside the root. Here one thread swaps
// the folder `models` for a link to a folder outside and the file for a link
// to a file outside, back and forth, while this thread loads the model over
// and over: every load reads the inside bytes or is refused, never outside.
TEST_P(ModelFilesTest, SwappingFoldersAndFilesForLinksNeverLeadsOutside) {
  fs::create_directories(base_ / "elsewhere");
  Write(base_ / "elsewhere" / "ranker.json", "outside");
  fs::create_directory_symlink(base_ / "elsewhere", root_ / "models_swap");
  fs::create_symlink(base_ / "secret.json", root_ / "models" / "ranker_swap");
  // A relative link too, out through `..`.
  fs::create_directories(root_ / "rel");
  Write(root_ / "rel" / "ranker.json", "{\"trees\": []}");
  fs::create_symlink("../../elsewhere", root_ / "rel_swap");

  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      Exchange(root_ / "models", root_ / "models_swap");
      Exchange(root_ / "models" / "ranker.json", root_ / "models" / "ranker_swap");
      Exchange(root_ / "rel", root_ / "rel_swap");
      // Back again, in another order.
      Exchange(root_ / "models" / "ranker.json", root_ / "models" / "ranker_swap");
      Exchange(root_ / "rel", root_ / "rel_swap");
      Exchange(root_ / "models", root_ / "models_swap");
    }
  });
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(RaceSeconds());
  std::size_t loads = 0, read_inside = 0, refused = 0;
  while (loads < 2000 || std::chrono::steady_clock::now() < end) {
    for (const char* path : {"models/ranker.json", "rel/ranker.json"}) {
      const Result<std::string> bytes = Read(path);
      ++loads;
      if (bytes.ok()) {
        ASSERT_EQ(*bytes, "{\"trees\": []}")
            << "load " << loads << " of " << path << " read a file outside the root";
        ++read_inside;
      } else {
        ++refused;
      }
    }
    if (loads > 4000 && std::chrono::steady_clock::now() >= end) break;
  }
  stop = true;
  swapper.join();
  // Both outcomes were seen: the race was run, not dodged.
  EXPECT_GT(read_inside, 0u);
  EXPECT_GT(refused, 0u);
  std::printf("%zu loads: %zu read inside, %zu refused\n", loads, read_inside, refused);
}

}  // namespace
}  // namespace calcjit::internal

// Set files (runtime/set_file.h): regular files, pipes and terminals; never
// a device, never a wait for a FIFO's writer.
namespace calcjit::internal {
namespace {

TEST(SetFileTest, PipesAreReadDevicesAndWriterlessFifosAreRefusedAtOnce) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_EQ(::write(ends[1], "f = 1;", 6), 6);
  ::close(ends[1]);
  const Result<std::string> piped =
      ReadSetFile("/proc/self/fd/" + std::to_string(ends[0]), "feature set");
  ::close(ends[0]);
  ASSERT_TRUE(piped.ok()) << piped.status().ToString();
  EXPECT_EQ(*piped, "f = 1;");

  const fs::path fifo =
      fs::temp_directory_path() / ("calcjit_set_fifo_" + std::to_string(::getpid()));
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const Result<std::string> writerless = ReadSetFile(fifo.string(), "feature set");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(writerless.ok());
  EXPECT_NE(writerless.status().message().find("nothing writes to it"), std::string::npos)
      << writerless.status().message();
  fs::remove(fifo);

  for (const char* device : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    const Result<std::string> read = ReadSetFile(device, "feature set");
    ASSERT_FALSE(read.ok()) << device;
    EXPECT_NE(read.status().message().find("is a device"), std::string::npos)
        << read.status().message();
  }
  EXPECT_FALSE(ReadSetFile(std::string("a\0b", 3), "feature set").ok());
}

}  // namespace
}  // namespace calcjit::internal
