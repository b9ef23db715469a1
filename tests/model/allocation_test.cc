// The block evaluator allocates nothing per evaluation: the caller gives the
// scratch memory. An executable of its own, because it replaces the global
// operator new (every form) with one that counts while armed.
#include <cstdlib>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parity_cases.h"

namespace {
thread_local bool armed = false;
thread_local long allocations = 0;

void* Allocate(std::size_t size, std::size_t alignment) {
  if (armed) ++allocations;
  void* p = alignment > alignof(std::max_align_t)
                ? std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment)
                : std::malloc(size == 0 ? 1 : size);
  return p;
}
}  // namespace

void* operator new(std::size_t size) {
  if (void* p = Allocate(size, 0)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (void* p = Allocate(size, static_cast<std::size_t>(alignment))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return operator new(size, alignment);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, 0);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, 0);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace calcjit::model {
namespace {

TEST(AllocationTest, TheCounterCounts) {
  armed = true;
  allocations = 0;
  std::vector<float> v(10);
  armed = false;
  EXPECT_EQ(allocations, 1);
}

TEST(AllocationTest, BlockEvaluatorAllocatesNothing) {
  int models = 0;
  // Every model of the parity data (each model file beside its .cases: JSON
  // and UBJSON alike), of any tree format, its format from its content.
  for (const auto& entry : std::filesystem::directory_iterator(CALCJIT_MODEL_DATA_DIR)) {
    if (entry.path().extension() != ".cases") continue;
    for (const std::string& path :
         testing::ModelFilesOf((entry.path().parent_path() / entry.path().stem()).string())) {
      const std::string bytes = testing::ReadFileBytes(path);
      const std::optional<ModelFormat> format = DetectModelFormat(path, bytes);
      ASSERT_TRUE(format) << path;
      auto model = LoadTreeModel(*format, bytes, path);
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      const PreparedModel& prepared = (*model)->prepared;
      const std::size_t n = 1000;
      std::vector<std::vector<float>> in(prepared.info().num_features, std::vector<float>(n, 0.5f));
      std::vector<std::vector<float>> out(prepared.info().num_outputs, std::vector<float>(n));
      std::vector<const float*> in_ptr;
      for (auto& c : in) in_ptr.push_back(c.data());
      std::vector<float*> out_ptr;
      for (auto& c : out) out_ptr.push_back(c.data());
      std::vector<unsigned char> storage(EvaluateScratchBytes(prepared, n) + 64);
      void* scratch =
          storage.data() + (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64;
      for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
        if (BestIsa() < isa) continue;
        armed = true;
        allocations = 0;
        Evaluate(prepared, in_ptr.data(), n, out_ptr.data(), scratch, isa);
        armed = false;
        EXPECT_EQ(allocations, 0) << path;
      }
      ++models;
    }
  }
  EXPECT_GT(models, 20);
}

}  // namespace
}  // namespace calcjit::model
