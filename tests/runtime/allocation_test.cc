// No heap allocation per evaluation (include/calcjit/engine.h, class Batch):
// with the VM, once a Batch has evaluated n items, evaluating again with n
// items or fewer allocates nothing, as one query or as many queries in one
// call (Engine::EvaluateQueries, the same path); after SetItemCount(bigger)
// the first evaluation may allocate (owned outputs and scratch grow) and the
// next ones may not.
//
// This binary replaces every global allocation function (operator new and
// delete in all their sized, aligned and nothrow forms, malloc, calloc,
// realloc, free, aligned_alloc, posix_memalign, memalign, valloc and pvalloc)
// with versions that forward to glibc's __libc_* functions and count, per
// thread, while an AllocationCounter is armed. That is why it is an executable
// of its own: the replacements must not reach any other test binary.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "calcjit/engine.h"
#include "calcjit/feature_set.h"
#include "examples/ranking/example_data.h"

// ---------------------------------------------------------------------------
// The counting allocator.

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void* __libc_valloc(std::size_t size);
void* __libc_pvalloc(std::size_t size);
void __libc_free(void* pointer);
}

namespace calcjit::allocation_test {
namespace {

// Per thread, so that nothing another thread does is counted; constant
// initialized, so reading them never allocates (no TLS init function).
thread_local bool counter_armed = false;
thread_local long allocation_count = 0;
thread_local long free_count = 0;

void CountAllocation() {
  if (counter_armed) ++allocation_count;
}

void CountFree(void* pointer) {
  if (counter_armed && pointer != nullptr) ++free_count;
}

}  // namespace
}  // namespace calcjit::allocation_test

namespace {

using calcjit::allocation_test::CountAllocation;
using calcjit::allocation_test::CountFree;

void* AlignedAllocation(std::size_t alignment, std::size_t size) {
  CountAllocation();
  return __libc_memalign(alignment, size);
}

void* NewOrThrow(std::size_t size) {
  CountAllocation();
  void* pointer = __libc_malloc(size == 0 ? 1 : size);
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

void* AlignedNewOrThrow(std::size_t size, std::align_val_t alignment) {
  void* pointer = AlignedAllocation(static_cast<std::size_t>(alignment), size == 0 ? 1 : size);
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

void Release(void* pointer) noexcept {
  CountFree(pointer);
  __libc_free(pointer);
}

}  // namespace

extern "C" {

void* malloc(std::size_t size) noexcept {
  CountAllocation();
  return __libc_malloc(size);
}

void* calloc(std::size_t count, std::size_t size) noexcept {
  CountAllocation();
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, std::size_t size) noexcept {
  CountAllocation();
  return __libc_realloc(pointer, size);
}

void free(void* pointer) noexcept {
  Release(pointer);
}

void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  return AlignedAllocation(alignment, size);
}

void* memalign(std::size_t alignment, std::size_t size) noexcept {
  return AlignedAllocation(alignment, size);
}

int posix_memalign(void** result, std::size_t alignment, std::size_t size) noexcept {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* pointer = AlignedAllocation(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *result = pointer;
  return 0;
}

void* valloc(std::size_t size) noexcept {
  CountAllocation();
  return __libc_valloc(size);
}

void* pvalloc(std::size_t size) noexcept {
  CountAllocation();
  return __libc_pvalloc(size);
}

}  // extern "C"

void* operator new(std::size_t size) {
  return NewOrThrow(size);
}
void* operator new[](std::size_t size) {
  return NewOrThrow(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  CountAllocation();
  return __libc_malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  CountAllocation();
  return __libc_malloc(size == 0 ? 1 : size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return AlignedNewOrThrow(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return AlignedNewOrThrow(size, alignment);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return AlignedAllocation(static_cast<std::size_t>(alignment), size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return AlignedAllocation(static_cast<std::size_t>(alignment), size == 0 ? 1 : size);
}

void operator delete(void* pointer) noexcept {
  Release(pointer);
}
void operator delete[](void* pointer) noexcept {
  Release(pointer);
}
void operator delete(void* pointer, std::size_t) noexcept {
  Release(pointer);
}
void operator delete[](void* pointer, std::size_t) noexcept {
  Release(pointer);
}
void operator delete(void* pointer, std::align_val_t) noexcept {
  Release(pointer);
}
void operator delete[](void* pointer, std::align_val_t) noexcept {
  Release(pointer);
}
void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept {
  Release(pointer);
}
void operator delete[](void* pointer, std::size_t, std::align_val_t) noexcept {
  Release(pointer);
}
void operator delete(void* pointer, const std::nothrow_t&) noexcept {
  Release(pointer);
}
void operator delete[](void* pointer, const std::nothrow_t&) noexcept {
  Release(pointer);
}
void operator delete(void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  Release(pointer);
}
void operator delete[](void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  Release(pointer);
}

namespace calcjit::allocation_test {
namespace {

// Counts this thread's allocations and frees from construction to Stop().
class AllocationCounter {
 public:
  struct Counts {
    long allocations = 0;
    long frees = 0;
  };

  AllocationCounter() {
    allocation_count = 0;
    free_count = 0;
    counter_armed = true;
  }
  ~AllocationCounter() { counter_armed = false; }
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;

  Counts Stop() {
    counter_armed = false;
    return Counts{allocation_count, free_count};
  }
};

// The allocations and frees of one call of `action`.
template <typename Action>
AllocationCounter::Counts CountDuring(Action&& action) {
  AllocationCounter counter;
  action();
  return counter.Stop();
}

// ---------------------------------------------------------------------------
// The counter sees every replaced function (else a zero below proves nothing).
// The results go through volatile pointers so that no allocation is elided.

TEST(AllocationCounter, SeesEveryAllocationFunction) {
  struct alignas(128) Overaligned {
    char bytes[128];
  };
  const struct {
    const char* name;
    void (*action)();
  } kCases[] = {
      {"malloc",
       [] {
         void* volatile p = std::malloc(24);
         std::free(p);
       }},
      {"calloc",
       [] {
         void* volatile p = std::calloc(3, 8);
         std::free(p);
       }},
      {"realloc",
       [] {
         void* volatile p = std::realloc(nullptr, 40);
         std::free(p);
       }},
      {"aligned_alloc",
       [] {
         void* volatile p = std::aligned_alloc(64, 128);
         std::free(p);
       }},
      {"posix_memalign",
       [] {
         void* p = nullptr;
         if (posix_memalign(&p, 64, 100) == 0) {
           void* volatile q = p;
           std::free(q);
         }
       }},
      {"new",
       [] {
         int* volatile p = new int(7);
         delete p;
       }},
      {"new[]",
       [] {
         int* volatile p = new int[9];
         delete[] p;
       }},
      {"new nothrow",
       [] {
         int* volatile p = new (std::nothrow) int(7);
         delete p;
       }},
      {"new[] nothrow",
       [] {
         int* volatile p = new (std::nothrow) int[9];
         delete[] p;
       }},
      {"new aligned",
       [] {
         Overaligned* volatile p = new Overaligned;
         delete p;
       }},
      {"new[] aligned",
       [] {
         Overaligned* volatile p = new Overaligned[3];
         delete[] p;
       }},
      {"new aligned nothrow",
       [] {
         Overaligned* volatile p = new (std::nothrow) Overaligned;
         delete p;
       }},
      {"std::vector",
       [] {
         std::vector<float> v(1000, 1.0f);
         volatile float f = v[999];
         (void)f;
       }},
      {"std::string",
       [] {
         std::string s(200, 'x');
         volatile char c = s[199];
         (void)c;
       }},
  };
  for (const auto& c : kCases) {
    const AllocationCounter::Counts counts = CountDuring(c.action);
    EXPECT_EQ(counts.allocations, 1) << c.name;
    EXPECT_EQ(counts.frees, 1) << c.name;
  }
  // Disarmed, nothing is counted.
  const AllocationCounter::Counts before = CountDuring([] {});
  EXPECT_EQ(before.allocations, 0);
}

// ---------------------------------------------------------------------------
// The sets.

struct SetCase {
  const char* name;
  // The text, or nullptr for examples/ranking/ranking.calc.
  const char* text;
  std::vector<std::string> outputs;  // empty: every definition
  // Inputs with a default that are left unbound (the default applies).
  std::vector<std::string> unbound;
  std::uint32_t block_size = 0;
};

// Every aggregate, aggregates of aggregates, an aggregate inside an if, an
// aggregate of a uniform value, query inputs, an item input with a default.
constexpr char kAggregatesSet[] = R"(
input x;
input w = 0.5;
input q: query = 2;
a_min = batch_min(x);
a_max = batch_max(x);
a_sum = batch_sum(x * q);
a_mean = batch_mean(x);
a_std = batch_std(x);
a_count = batch_count(x > 0.5);
a_rank = rank(x);
a_softmax = softmax(x * 3);
a_scale = min_max_scale(x + w);
a_z = zscore(x);
nested = rank(zscore(softmax(x))) + batch_std(rank(x)) - batch_max(min_max_scale(x));
in_if = if(x > batch_mean(x), rank(x), batch_count(x > 0.25));
of_uniform = batch_sum(q) + rank(q) + zscore(q * 2);
)";

// Every vector operator over item and query vectors of several dimensions.
constexpr char kVectorsSet[] = R"(
input vi: item[17];
input vq: query[17];
input wi: item[8];
input wq: query[8];
input ui: item[9];
input one: item[1];
d = dot(vi, vq);
c = cosine(vi, vq);
l = l2_distance(wi, wq);
n = norm(vi);
nq = norm(vq);
dq = dot(wq, wq);
di = dot(ui, ui);
ci = cosine(wi, wi);
ll = l2_distance(one, one);
mix = d * c + rank(l) - zscore(n) + nq * dq;
)";

// Query inputs (bound and defaulted), an item input left to its default, and
// every element-wise and n-ary operator.
constexpr char kQueryAndDefaultsSet[] = R"(
input price;
input rating = 3;
input boost: query = 1.5;
input bias: query;
input weight: query = 0.25;
f = weighted_sum([0.5, 2, -1], price, rating, bias);
g = mean(price, rating, boost) * product(weight, price, 2);
h = if(rating > 2, sum(price, bias, 1), max(price, rating, 0));
k = min(price, boost, bias) - sigmoid(price * weight) + log1p(abs(price)) + exp(-price)
    + tanh(price) + price ^ 2 + floor(price) + ceil(rating) + round(price) + sign(price)
    + sqrt(abs(price)) + log(price) + !price + is_nan(price) + min(price, 1) + max(price, 1);
m = (price == rating) + (price != bias) + (price < 1) + (price <= 1) + (price > 1)
    + (price >= 1) + (price && rating) + (price || 0) - price / rating;
u = boost * bias + weight;
)";

// A tree ensemble and a neural net inside the set, fed by formulas, an
// aggregate and a query input, their outputs feeding formulas and a rank.
constexpr const char* kModelsSet = R"(
input q: query;
model trees = xgboost("multi_softprob.json");
model net = onnx("two_outputs.onnx");
z = zscore(price);
c0 = model(trees, price, z, q, price * 2, 1)[0];
c2 = model(trees, price, z, q, price * 2, 1)[2];
y = model(net, price, z, q, c0, c2, price, 1, 2, 3, -price)[1];
r = rank(c0 + y);
)";

std::vector<SetCase> SetCases() {
  return {
      {"ranking", nullptr, {}, {}},
      {"ranking_subset",
       nullptr,
       {"score", "relevance", "score_share"},
       {"user_price_pref", "query_hour", "user_segment"}},
      {"ranking_block64", nullptr, {}, {}, 64},
      {"aggregates", kAggregatesSet, {}, {"w"}},
      {"aggregates_bound", kAggregatesSet, {}, {}},
      {"vectors", kVectorsSet, {}, {}},
      {"query_and_defaults", kQueryAndDefaultsSet, {}, {"rating", "boost"}},
      {"models", kModelsSet, {}, {}},
  };
}

// The models of kModelsSet: the model tests' data (an XGBoost and an ONNX file).
LoadOptions ModelRoot() {
  LoadOptions options;
  options.model_root = CALCJIT_MODEL_ROOT;
  return options;
}

FeatureSet LoadSet(const SetCase& set_case) {
  Result<FeatureSet> set = set_case.text == nullptr
                               ? FeatureSet::ReadFile(CALCJIT_EXAMPLE_SET_PATH)
                               : FeatureSet::Parse(set_case.text, Format::kText, ModelRoot());
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return std::move(set).value();
}

constexpr std::size_t kMaxItems = 3000;

// A batch bound to prefixes of one generated query (the first m items of a
// query of n items are those of a query of m items), with the even outputs
// bound to the caller's buffers and the odd ones owned by the batch.
class Bench {
 public:
  Bench(const Engine& engine, const SetCase& set_case)
      : engine_(engine),
        query_(example::GenerateExampleQuery(engine.schema(), kMaxItems, 42)),
        caller_outputs_(engine.schema().outputs.size(), std::vector<float>(kMaxItems)),
        batch_(engine) {
    const Schema& schema = engine.schema();
    for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
      bool unbound = false;
      for (const std::string& name : set_case.unbound)
        unbound = unbound || name == schema.inputs[i].name;
      EXPECT_TRUE(!unbound || schema.inputs[i].default_value) << schema.inputs[i].name;
      bound_.push_back(!unbound);
    }
  }

  // Binds the first n items (by index: nothing to look up, nothing to allocate).
  Status Bind(std::size_t n) {
    const Schema& schema = engine_.schema();
    batch_.SetItemCount(n);
    for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
      if (!bound_[i]) {
        batch_.UnbindInput(i);
        continue;
      }
      const std::span<const float> all(query_.inputs[i]);
      CALCJIT_RETURN_IF_ERROR(batch_.BindInput(i, all.first(schema.inputs[i].ValueCount(n))));
    }
    for (std::size_t k = 0; k < schema.outputs.size(); k += 2) {
      CALCJIT_RETURN_IF_ERROR(batch_.BindOutput(k, std::span(caller_outputs_[k]).first(n)));
    }
    return Status::Ok();
  }

  Status Evaluate() { return engine_.Evaluate(batch_); }
  // The bound items as three queries, the middle one empty (query inputs hold
  // one value for every query).
  Status EvaluateQueries() {
    const std::size_t n = batch_.item_count();
    counts_[0] = n / 3;
    counts_[1] = 0;
    counts_[2] = n - n / 3;
    return engine_.EvaluateQueries(batch_, counts_);
  }
  const Batch& batch() const { return batch_; }

 private:
  const Engine& engine_;
  example::ExampleQuery query_;
  std::vector<std::vector<float>> caller_outputs_;
  std::vector<bool> bound_;
  Batch batch_;
  std::size_t counts_[3] = {};
};

std::string TierName(Isa isa) {
  switch (isa) {
    case Isa::kBaseline:
      return "baseline";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAuto:
      break;
  }
  return "auto";
}

// ---------------------------------------------------------------------------
// The VM and the JIT, on every tier this CPU has.

class Evaluation : public ::testing::TestWithParam<std::tuple<Backend, Isa, SetCase>> {};

TEST_P(Evaluation, AllocatesNothingOnceWarm) {
  const auto& [backend, isa, set_case] = GetParam();
  if (!IsIsaSupported(isa)) {
    GTEST_SKIP() << "this CPU cannot run " << IsaName(isa) << " code: tier not tested";
  }
  const FeatureSet set = LoadSet(set_case);
  EngineOptions options;
  options.backend = backend;
  options.isa = isa;
  options.outputs = set_case.outputs;
  options.block_size = set_case.block_size;
  const Result<Engine> engine = Engine::Compile(set, options);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Bench bench(*engine, set_case);

  // Warm-up: the first evaluation with 1000 items may allocate.
  ASSERT_TRUE(bench.Bind(1000).ok());
  ASSERT_TRUE(bench.Evaluate().ok());

  Status status;
  auto evaluate = [&] { status = bench.Evaluate(); };
  auto expect_none = [&](std::size_t n, const char* what) {
    SCOPED_TRACE(std::string(what) + ", n = " + std::to_string(n));
    AllocationCounter::Counts counts;
    {
      AllocationCounter counter;
      status = bench.Bind(n);
      counts = counter.Stop();
    }
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(counts.allocations, 0) << "binding (by index) allocated";
    counts = CountDuring(evaluate);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(counts.allocations, 0) << "Evaluate allocated " << counts.allocations << " times";
    EXPECT_EQ(counts.frees, 0) << "Evaluate freed memory " << counts.frees << " times";
    counts = CountDuring(evaluate);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(counts.allocations, 0) << "Evaluate allocated again";
    counts = CountDuring([&] { status = bench.EvaluateQueries(); });
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(counts.allocations, 0)
        << "EvaluateQueries allocated " << counts.allocations << " times";
    EXPECT_EQ(counts.frees, 0) << "EvaluateQueries freed memory";
  };
  expect_none(1000, "as many items as the warm-up");
  expect_none(300, "fewer items");
  expect_none(1, "one item");
  expect_none(0, "no items");
  expect_none(999, "fewer items than the warm-up again");

  // More items: the first evaluation may allocate (owned outputs, scratch
  // columns), the next ones may not.
  ASSERT_TRUE(bench.Bind(kMaxItems).ok());
  const AllocationCounter::Counts growing = CountDuring(evaluate);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::cout << "[ info     ] growing to " << kMaxItems << " items: " << growing.allocations
            << " allocations" << std::endl;
  const AllocationCounter::Counts grown = CountDuring(evaluate);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(grown.allocations, 0) << "the evaluation after growing allocated";
  expect_none(kMaxItems, "as many items as the largest batch");
  expect_none(1000, "back to fewer items");
  expect_none(kMaxItems - 1, "one item fewer than the largest batch");
}

std::vector<Isa> Tiers() {
  return {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512};
}

INSTANTIATE_TEST_SUITE_P(
    BackendsTiersAndSets, Evaluation,
    ::testing::Combine(::testing::Values(Backend::kVm, Backend::kJit), ::testing::ValuesIn(Tiers()),
                       ::testing::ValuesIn(SetCases())),
    [](const ::testing::TestParamInfo<std::tuple<Backend, Isa, SetCase>>& param) {
      return std::string(BackendName(std::get<0>(param.param))) + "_" +
             TierName(std::get<1>(param.param)) + "_" + std::get<2>(param.param).name;
    });

// ---------------------------------------------------------------------------
// The reference interpreter allocates by design: each node returns a fresh
// column (docs/DESIGN.md, "the classic design the project replaces"). This
// also shows that the counter sees the library's allocations, so the zeros
// above mean something.

TEST(ReferenceEvaluation, AllocatesByDesign) {
  const SetCase set_case{"ranking", nullptr, {}, {}};
  const FeatureSet set = LoadSet(set_case);
  const Result<Engine> engine = Engine::Compile(set, EngineOptions{Backend::kReference});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Bench bench(*engine, set_case);
  ASSERT_TRUE(bench.Bind(1000).ok());
  ASSERT_TRUE(bench.Evaluate().ok());
  Status status;
  const AllocationCounter::Counts counts = CountDuring([&] { status = bench.Evaluate(); });
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_GT(counts.allocations, 100) << "the reference interpreter allocates a column per node";
  EXPECT_GT(counts.frees, 100);
}

// ---------------------------------------------------------------------------
// A serving session: after its first evaluation on a version (which makes the
// scratch memory for that version's engine), evaluating allocates nothing, one
// query or many per call, before and after the JIT takes over, and again after
// a reload.

TEST(ServingEvaluation, AllocatesNothingOnceWarm) {
  const std::string text =
      "input x; input w: query = 2; f = log1p(abs(x)) * w + batch_mean(x); g = rank(f);";
  ServingOptions options;
  options.measure_tiers = false;  // the JIT takes over whatever its speed
  Result<ServingEngine> engine =
      ServingEngine::Create(*FeatureSet::Parse(text, Format::kText), options);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  std::vector<float> x(500);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17) - 4.0f;
  std::vector<float> g(x.size());
  Session session(*engine);
  session.SetItemCount(x.size());
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.BindOutput("g", g).ok());
  Status status;
  // The one-query call, and the same items as three queries (w for every query).
  const std::size_t item_counts[3] = {200, 0, 300};
  auto evaluate = [&] {
    status = session.Evaluate();
    if (status.ok()) status = session.EvaluateQueries(item_counts);
  };
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "first version" : "after a reload");
    ASSERT_TRUE(session.Evaluate().ok());  // warm-up on this version's first engine
    AllocationCounter::Counts counts = CountDuring(evaluate);
    ASSERT_TRUE(status.ok()) << status.ToString();
    if (engine->Stats().backend == Backend::kVm) {
      EXPECT_EQ(counts.allocations, 0) << "on the VM";
    }
    engine->WaitForJit();
    ASSERT_EQ(engine->Stats().backend, Backend::kJit) << engine->Stats().backend_note;
    ASSERT_TRUE(session.Evaluate().ok());  // warm-up on the JIT's engine
    counts = CountDuring(evaluate);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(counts.allocations, 0) << "on the JIT";
    EXPECT_EQ(counts.frees, 0);
    ASSERT_TRUE(engine->Reload(*FeatureSet::Parse(text + " h = f + 1;", Format::kText)).ok());
    session.Rebind();
    ASSERT_TRUE(session.BindOutput("g", g).ok());
  }
}

}  // namespace
}  // namespace calcjit::allocation_test
