// No allocation per evaluation: once a net is loaded and the caller holds
// EvaluateScratchBytes of scratch, Evaluate allocates nothing, on every tier
// and for every n.
//
// This binary replaces malloc and its relatives (operator new and delete
// reach them in libstdc++) with counting versions that forward to glibc's
// __libc_* functions while a counter is armed on the calling thread; hence
// an executable of its own.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <vector>

#include "calcjit/cpu.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/net_model.h"
#include "tests/model/onnx/net_cases.h"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* pointer);
}

namespace {
thread_local bool armed = false;
thread_local long allocations = 0;
void Count() {
  if (armed) ++allocations;
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) noexcept {
  Count();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  Count();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) noexcept {
  Count();
  return __libc_realloc(pointer, size);
}
void free(void* pointer) noexcept {
  __libc_free(pointer);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  Count();
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** result, std::size_t alignment, std::size_t size) noexcept {
  Count();
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *result = pointer;
  return 0;
}
}  // extern "C"

namespace calcjit::model::testing {
namespace {

// Escapes so that the compiler cannot elide the allocation.
std::vector<float>* volatile escaped = nullptr;

TEST(OnnxAllocationTest, TheCounterSeesAllocations) {
  armed = true;
  allocations = 0;
  escaped = new std::vector<float>(100);
  armed = false;
  delete escaped;
  EXPECT_GE(allocations, 2);
}

TEST(OnnxAllocationTest, EvaluateAllocatesNothing) {
  const std::string bytes = ReadFileBytes(DataDir() + "/ranking_mlp.onnx");
  auto loaded = LoadOnnxModel(bytes, "ranking_mlp.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const PreparedNet& net = (*loaded)->prepared;
  const std::size_t n = 2000;
  std::vector<std::vector<float>> columns(64, std::vector<float>(n, 0.25f));
  std::vector<const float*> inputs;
  for (auto& column : columns) inputs.push_back(column.data());
  std::vector<float> output(n);
  float* outputs[] = {output.data()};
  std::vector<unsigned char> scratch(EvaluateScratchBytes(net, n));
  for (Isa isa : {Isa::kAuto, Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    for (std::size_t count : {n, std::size_t{1999}, std::size_t{17}, std::size_t{0}}) {
      armed = true;
      allocations = 0;
      Evaluate(net, inputs.data(), count, outputs, scratch.data(), isa);
      armed = false;
      EXPECT_EQ(allocations, 0) << IsaName(isa) << " n=" << count;
    }
  }
}

}  // namespace
}  // namespace calcjit::model::testing
