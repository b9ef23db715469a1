// Many queries per call, zero items and zero queries, and every binding rule
// with its message (docs/LANGUAGE.md, "Evaluating"), through both C++ entry
// points (Engine::EvaluateQueries with a Batch, Session::EvaluateQueries) on
// every backend. Each rule has one home (src/runtime/bindings.cc); the C, Java,
// Python and CLI tests check that their frontends reach it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

using testing_util::Bits;
using testing_util::ParseText;

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

// The two ways C++ evaluates, behind one interface so that every test runs
// on both: an Engine with a Batch, and a ServingEngine with a Session.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual const Schema& schema() const = 0;
  virtual Status BindInput(std::string_view name, std::span<const float> values,
                           Extent extent = Extent::kExact) = 0;
  virtual Status BindOutput(std::string_view name, std::span<float> values,
                            Extent extent = Extent::kExact) = 0;
  virtual void Clear() = 0;
  virtual Status Evaluate(std::span<const std::size_t> item_counts,
                          const CancelCheck& cancelled = nullptr) = 0;
  // One query of `n` items through the single-query entry point.
  virtual Status EvaluateOne(std::size_t n) = 0;
  virtual std::span<const float> Output(std::size_t k) const = 0;
  std::vector<float> OutputCopy(std::size_t k) const {
    const std::span<const float> out = Output(k);
    return {out.begin(), out.end()};
  }
};

class BatchEvaluator : public Evaluator {
 public:
  BatchEvaluator(const FeatureSet& set, Backend backend)
      : engine_(*Engine::Compile(set, EngineOptions{backend})), batch_(engine_) {}
  const Schema& schema() const override { return engine_.schema(); }
  Status BindInput(std::string_view name, std::span<const float> values, Extent extent) override {
    return batch_.BindInput(name, values, extent);
  }
  Status BindOutput(std::string_view name, std::span<float> values, Extent extent) override {
    return batch_.BindOutput(name, values, extent);
  }
  void Clear() override { batch_.Clear(); }
  Status Evaluate(std::span<const std::size_t> item_counts, const CancelCheck& cancelled) override {
    return engine_.EvaluateQueries(batch_, item_counts, cancelled);
  }
  Status EvaluateOne(std::size_t n) override {
    batch_.SetItemCount(n);
    return engine_.Evaluate(batch_);
  }
  std::span<const float> Output(std::size_t k) const override { return batch_.Output(k); }

 private:
  Engine engine_;
  Batch batch_;
};

class SessionEvaluator : public Evaluator {
 public:
  SessionEvaluator(const FeatureSet& set, Backend backend)
      : serving_(ServingEngine::Create(set, ServingOptions{EngineOptions{backend}}).value()),
        session_(serving_) {}
  const Schema& schema() const override { return session_.schema(); }
  Status BindInput(std::string_view name, std::span<const float> values, Extent extent) override {
    return session_.BindInput(name, values, extent);
  }
  Status BindOutput(std::string_view name, std::span<float> values, Extent extent) override {
    return session_.BindOutput(name, values, extent);
  }
  void Clear() override { session_.Clear(); }
  Status Evaluate(std::span<const std::size_t> item_counts, const CancelCheck& cancelled) override {
    return session_.EvaluateQueries(item_counts, cancelled);
  }
  Status EvaluateOne(std::size_t n) override {
    session_.SetItemCount(n);
    return session_.Evaluate();
  }
  std::span<const float> Output(std::size_t k) const override { return session_.Output(k); }
  ServingEngine& serving() { return serving_; }
  Session& session() { return session_; }

 private:
  ServingEngine serving_;
  Session session_;
};

enum class Via { kBatch, kSession };

std::unique_ptr<Evaluator> Make(Via via, const FeatureSet& set, Backend backend) {
  if (via == Via::kBatch) return std::make_unique<BatchEvaluator>(set, backend);
  return std::make_unique<SessionEvaluator>(set, backend);
}

std::string ViaName(Via via) {
  return via == Via::kBatch ? "Batch" : "Session";
}

const std::vector<Backend>& AllBackends() {
  static const std::vector<Backend> backends = {Backend::kReference, Backend::kVm, Backend::kJit,
                                                Backend::kAuto};
  return backends;
}

// ---------------------------------------------------------------------------
// Zero items and zero queries: every input kind, every backend, both ways.

struct InputKind {
  const char* name;
  const char* text;  // the input is x; outputs f and g
  Scope scope;
  std::size_t width;
  bool has_default;
};

const std::vector<InputKind>& InputKinds() {
  static const std::vector<InputKind> kinds = {
      {"item_scalar", "input x; f = x * 2; g = rank(x);", Scope::kItem, 1, false},
      {"item_scalar_default", "input x = 1.5; f = x * 2; g = rank(x);", Scope::kItem, 1, true},
      {"query_scalar", "input x: query; f = x * 2 + batch_count(1); g = rank(f);", Scope::kQuery, 1,
       false},
      {"query_scalar_default", "input x: query = 4; f = x * 2; g = rank(f);", Scope::kQuery, 1,
       true},
      {"item_vector", "input x: item[3]; f = norm(x); g = rank(f);", Scope::kItem, 3, false},
      {"query_vector", "input x: query[3]; f = norm(x) + batch_count(1); g = rank(f);",
       Scope::kQuery, 3, false},
  };
  return kinds;
}

class EmptyCalls : public ::testing::TestWithParam<std::tuple<InputKind, Backend, Via>> {
 protected:
  void SetUp() override {
    const auto& [kind, backend, via] = GetParam();
    evaluator_ = Make(via, ParseText(kind.text), backend);
  }

  // Evaluates and expects success with every output empty.
  void ExpectEmpty(std::span<const std::size_t> item_counts) {
    SCOPED_TRACE(std::to_string(item_counts.size()) + " queries");
    const Status status = evaluator_->Evaluate(item_counts);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(evaluator_->Output(0).size(), 0u);
    EXPECT_EQ(evaluator_->Output(1).size(), 0u);
  }

  std::unique_ptr<Evaluator> evaluator_;
  const std::size_t no_items_[3] = {0, 0, 0};
  const std::span<const std::size_t> one_query_{no_items_, 1};
  const std::span<const std::size_t> three_queries_{no_items_, 3};
  const std::span<const std::size_t> zero_queries_{};
  const float values_[6] = {1, 2, 3, 4, 5, 6};
};

TEST_P(EmptyCalls, NothingBound) {
  const InputKind& kind = std::get<0>(GetParam());
  if (kind.has_default) {
    ExpectEmpty(one_query_);
    ASSERT_TRUE(evaluator_->EvaluateOne(0).ok());
  } else {
    // One query of 0 items checks its bindings as any query does.
    for (const Status& status : {evaluator_->Evaluate(one_query_), evaluator_->EvaluateOne(0),
                                 evaluator_->Evaluate(three_queries_)}) {
      ASSERT_FALSE(status.ok());
      EXPECT_EQ(status.message(), "input 'x' is not bound and has no default value");
      EXPECT_EQ(status.location(), "x");
    }
  }
  // Zero queries read nothing: an input without a value is no error.
  ExpectEmpty(zero_queries_);
}

TEST_P(EmptyCalls, BoundForNoItems) {
  const InputKind& kind = std::get<0>(GetParam());
  // An item input has 0 floats for 0 items; a query input one value (for
  // every query).
  const std::size_t bound = kind.scope == Scope::kItem ? 0 : kind.width;
  ASSERT_TRUE(evaluator_->BindInput("x", std::span(values_).first(bound)).ok());
  ExpectEmpty(one_query_);
  ExpectEmpty(three_queries_);
  ExpectEmpty(zero_queries_);
  ASSERT_TRUE(evaluator_->EvaluateOne(0).ok());
  // Outputs in the caller's memory: 0 floats (no memory at all).
  ASSERT_TRUE(evaluator_->BindOutput("f", std::span<float>()).ok());
  ASSERT_TRUE(evaluator_->BindOutput("g", std::span<float>()).ok());
  ExpectEmpty(one_query_);
  ExpectEmpty(zero_queries_);
  if (kind.scope == Scope::kQuery) {
    // One value per query: none for zero queries; three queries need three.
    ASSERT_TRUE(evaluator_->BindInput("x", std::span<const float>()).ok());
    ExpectEmpty(zero_queries_);
    ASSERT_TRUE(evaluator_->BindInput("x", std::span(values_).first(2 * kind.width)).ok());
    const Status status = evaluator_->Evaluate(three_queries_);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("for 3 queries"), std::string::npos) << status.message();
  }
}

TEST_P(EmptyCalls, LengthsAreStillChecked) {
  const InputKind& kind = std::get<0>(GetParam());
  const std::size_t bound = kind.scope == Scope::kItem ? 0 : kind.width;
  ASSERT_TRUE(evaluator_->BindInput("x", std::span(values_).first(bound + 1)).ok());
  for (const auto& counts : {one_query_, zero_queries_}) {
    const Status status = evaluator_->Evaluate(counts);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.location(), "x");
  }
  ASSERT_TRUE(evaluator_->BindInput("x", std::span(values_).first(bound)).ok());
  float one[1] = {-7};
  ASSERT_TRUE(evaluator_->BindOutput("g", one).ok());
  const Status status = evaluator_->Evaluate(zero_queries_);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "output 'g' needs 0 floats for 0 items in 0 queries, got 1");
  EXPECT_EQ(one[0], -7.0f);
  // Buffers whose prefix is used may be longer.
  ASSERT_TRUE(evaluator_->BindOutput("g", one, Extent::kPrefix).ok());
  ASSERT_TRUE(evaluator_->BindInput("x", values_, Extent::kPrefix).ok());
  ExpectEmpty(one_query_);
  ExpectEmpty(zero_queries_);
  EXPECT_EQ(one[0], -7.0f);
}

INSTANTIATE_TEST_SUITE_P(
    KindsBackendsAndWays, EmptyCalls,
    ::testing::Combine(::testing::ValuesIn(InputKinds()), ::testing::ValuesIn(AllBackends()),
                       ::testing::Values(Via::kBatch, Via::kSession)),
    [](const ::testing::TestParamInfo<std::tuple<InputKind, Backend, Via>>& param) {
      return std::string(std::get<0>(param.param).name) + "_" +
             std::string(BackendName(std::get<1>(param.param))) + "_" +
             ViaName(std::get<2>(param.param));
    });

// ---------------------------------------------------------------------------
// Many queries in one call: the same bits as one call per query.

// Item and query inputs of every kind, aggregates that see one query, and an
// item input and a query input left to their defaults.
constexpr char kManySet[] = R"(
input x;
input y = 0.25;
input v: item[3];
input q: query;
input r: query = -2;
input u: query[3];
a = x * q + y - r;
b = rank(x) + batch_mean(x * q) - zscore(dot(v, u));
c = softmax(x) * batch_count(x > 0) + min_max_scale(norm(v) + norm(u));
d = if(x > batch_mean(x), cosine(v, u), l2_distance(v, u)) + batch_std(x) / (1 + q * q);
)";

// Values with NaN, signed zeros, infinities and subnormals among ordinary ones.
std::vector<float> Values(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           0.0f,
                           -0.0f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           1e-40f,
                           -3e-39f};
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = rng() % 11 == 0 ? special[rng() % std::size(special)] : normal(rng);
  }
  return values;
}

class ManyQueries : public ::testing::TestWithParam<std::tuple<Backend, Via>> {};

// Queries of 0, 1, a vector width's worth plus one, more than a VM block
// (1024 items) and not a multiple of any width.
const std::vector<std::size_t> kItemCounts = {0, 1, 7, 1025, 0, 9, 3, 1000, 1};

TEST_P(ManyQueries, EqualOneCallPerQueryBitForBit) {
  const auto& [backend, via] = GetParam();
  const FeatureSet set = ParseText(kManySet);
  std::size_t total = 0;
  for (std::size_t n : kItemCounts) total += n;
  const std::size_t queries = kItemCounts.size();
  const std::vector<float> x = Values(total, 1);
  const std::vector<float> v = Values(3 * total, 2);
  const std::vector<float> q = Values(queries, 3);
  const std::vector<float> u = Values(3 * queries, 4);

  for (const bool shared_query_inputs : {false, true}) {
    SCOPED_TRACE(shared_query_inputs ? "query inputs for every query" : "query inputs per query");
    const std::unique_ptr<Evaluator> many = Make(via, set, backend);
    const std::size_t outputs = many->schema().outputs.size();
    std::vector<float> caller_a(total, -1.0f);  // one output in the caller's memory
    ASSERT_TRUE(many->BindInput("x", x).ok());
    ASSERT_TRUE(many->BindInput("v", v).ok());
    ASSERT_TRUE(many->BindInput("q", shared_query_inputs ? std::span(q).first(1) : q).ok());
    ASSERT_TRUE(many->BindInput("u", shared_query_inputs ? std::span(u).first(3) : u).ok());
    ASSERT_TRUE(many->BindOutput("a", caller_a).ok());
    const Status status = many->Evaluate(kItemCounts);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_EQ(many->Output(0).data(), caller_a.data());

    const std::unique_ptr<Evaluator> one = Make(via, set, backend);
    std::size_t first = 0;
    for (std::size_t query = 0; query < queries; ++query) {
      const std::size_t n = kItemCounts[query];
      const std::size_t k = shared_query_inputs ? 0 : query;
      ASSERT_TRUE(one->BindInput("x", std::span(x).subspan(first, n)).ok());
      ASSERT_TRUE(one->BindInput("v", std::span(v).subspan(3 * first, 3 * n)).ok());
      ASSERT_TRUE(one->BindInput("q", std::span(q).subspan(k, 1)).ok());
      ASSERT_TRUE(one->BindInput("u", std::span(u).subspan(3 * k, 3)).ok());
      ASSERT_TRUE(one->EvaluateOne(n).ok());
      for (std::size_t out = 0; out < outputs; ++out) {
        ASSERT_EQ(many->Output(out).size(), total);
        const std::span<const float> alone = one->Output(out);
        ASSERT_EQ(alone.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(Bits(many->Output(out)[first + i]), Bits(alone[i]))
              << many->schema().outputs[out] << " of query " << query << ", item " << i;
        }
      }
      first += n;
    }
  }
}

// Every backend gives the bits of the reference interpreter over many queries.
TEST_P(ManyQueries, EveryBackendAgreesWithTheReference) {
  const auto& [backend, via] = GetParam();
  const FeatureSet set = ParseText(kManySet);
  std::size_t total = 0;
  for (std::size_t n : kItemCounts) total += n;
  const std::vector<float> x = Values(total, 5);
  const std::vector<float> v = Values(3 * total, 6);
  const std::vector<float> q = Values(kItemCounts.size(), 7);
  const std::vector<float> u = Values(3 * kItemCounts.size(), 8);
  std::vector<std::vector<float>> results;
  for (const Backend b : {Backend::kReference, backend}) {
    const std::unique_ptr<Evaluator> evaluator = Make(via, set, b);
    ASSERT_TRUE(evaluator->BindInput("x", x).ok());
    ASSERT_TRUE(evaluator->BindInput("v", v).ok());
    ASSERT_TRUE(evaluator->BindInput("q", q).ok());
    ASSERT_TRUE(evaluator->BindInput("u", u).ok());
    ASSERT_TRUE(evaluator->Evaluate(kItemCounts).ok());
    std::vector<float> all;
    for (std::size_t k = 0; k < evaluator->schema().outputs.size(); ++k) {
      const std::vector<float> out = evaluator->OutputCopy(k);
      all.insert(all.end(), out.begin(), out.end());
    }
    results.push_back(std::move(all));
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (std::size_t i = 0; i < results[0].size(); ++i) {
    ASSERT_EQ(Bits(results[1][i]), Bits(results[0][i])) << "value " << i;
  }
}

// Cancelling between queries: the queries done are written, the others not.
TEST_P(ManyQueries, ACancelledCallStopsBetweenQueries) {
  const auto& [backend, via] = GetParam();
  const std::unique_ptr<Evaluator> evaluator = Make(via, ParseText("f = x + 1;"), backend);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<float> f(6, -1.0f);
  ASSERT_TRUE(evaluator->BindInput("x", x).ok());
  ASSERT_TRUE(evaluator->BindOutput("f", f).ok());
  const std::size_t counts[3] = {2, 3, 1};
  int asked = 0;
  const Status status = evaluator->Evaluate(counts, [&] { return ++asked == 2; });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), ErrorKind::kRuntime);
  EXPECT_EQ(status.message(), "cancelled after 2 of 3 queries");
  EXPECT_EQ(f, (std::vector<float>{2, 3, 4, 5, 6, -1}));
  // Asked between queries only: never for one query.
  ASSERT_TRUE(evaluator->BindInput("x", std::span(x).first(2)).ok());
  ASSERT_TRUE(evaluator->BindOutput("f", std::span(f).first(2)).ok());
  asked = 0;
  ASSERT_TRUE(evaluator->Evaluate(std::span(counts).first(1), [&] { return ++asked > 0; }).ok());
  EXPECT_EQ(asked, 0);
}

INSTANTIATE_TEST_SUITE_P(BackendsAndWays, ManyQueries,
                         ::testing::Combine(::testing::ValuesIn(AllBackends()),
                                            ::testing::Values(Via::kBatch, Via::kSession)),
                         [](const ::testing::TestParamInfo<std::tuple<Backend, Via>>& param) {
                           return std::string(BackendName(std::get<0>(param.param))) + "_" +
                                  ViaName(std::get<1>(param.param));
                         });

// ---------------------------------------------------------------------------
// The binding rules, one message each (the same for a Batch and a Session,
// except the owner each names).

class BindingRules : public ::testing::TestWithParam<Via> {
 protected:
  // Expects the evaluation to fail with exactly `message` at `location`.
  static void ExpectError(Evaluator& evaluator, std::span<const std::size_t> counts,
                          const std::string& message, const std::string& location) {
    const Status status = evaluator.Evaluate(counts);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.kind(), ErrorKind::kUser);
    EXPECT_EQ(status.message(), message);
    EXPECT_EQ(status.location(), location);
  }
};

TEST_P(BindingRules, InputLengths) {
  const std::unique_ptr<Evaluator> e =
      Make(GetParam(),
           ParseText("input v: item[3]; input q: query; input u: query[2];"
                     "f = x + q + norm(v) + norm(u);"),
           Backend::kVm);
  const std::vector<float> data(64, 1.0f);
  const auto bind = [&](std::size_t x, std::size_t v, std::size_t q, std::size_t u,
                        Extent extent = Extent::kExact) {
    ASSERT_TRUE(e->BindInput("x", std::span(data).first(x), extent).ok());
    ASSERT_TRUE(e->BindInput("v", std::span(data).first(v), extent).ok());
    ASSERT_TRUE(e->BindInput("q", std::span(data).first(q), extent).ok());
    ASSERT_TRUE(e->BindInput("u", std::span(data).first(u), extent).ok());
  };
  const std::size_t one[1] = {4};
  const std::size_t three[3] = {4, 0, 1};
  bind(4, 12, 1, 2);
  ASSERT_TRUE(e->Evaluate(one).ok());
  bind(3, 12, 1, 2);
  ExpectError(*e, one, "input 'x' needs 4 floats for 4 items, got 3", "x");
  bind(3, 15, 1, 2);
  ExpectError(*e, three, "input 'x' needs 5 floats for 5 items in 3 queries, got 3", "x");
  bind(4, 11, 1, 2);
  ExpectError(*e, one,
              "input 'v' needs 12 floats for 4 items (an item vector of dimension 3), got 11", "v");
  bind(4, 12, 2, 2);
  ExpectError(*e, one, "input 'q' needs 1 float (a query scalar), got 2", "q");
  bind(5, 15, 2, 2);
  ExpectError(*e, three,
              "input 'q' needs 3 floats for 3 queries (one per query) or 1 (the same for every "
              "query), got 2",
              "q");
  bind(4, 12, 1, 3);
  ExpectError(*e, one, "input 'u' needs 2 floats (a query vector of dimension 2), got 3", "u");
  bind(5, 15, 3, 4);
  ExpectError(*e, three,
              "input 'u' needs 6 floats for 3 queries (a vector of dimension 2 per query) or 2 "
              "(the same for every query), got 4",
              "u");
  bind(5, 15, 3, 6);
  ASSERT_TRUE(e->Evaluate(three).ok());
  bind(5, 15, 1, 2);
  ASSERT_TRUE(e->Evaluate(three).ok());
  // Buffers whose prefix is used: longer is fine, shorter names the buffer; a
  // query input holds one value per query.
  bind(64, 64, 64, 64, Extent::kPrefix);
  ASSERT_TRUE(e->Evaluate(three).ok());
  bind(4, 64, 64, 64, Extent::kPrefix);
  ExpectError(*e, three, "input 'x' needs 5 floats for 5 items in 3 queries, got a buffer of 4",
              "x");
  bind(64, 64, 2, 64, Extent::kPrefix);
  ExpectError(*e, three,
              "input 'q' needs 3 floats for 3 queries (one per query), got a buffer of 2", "q");
  ASSERT_TRUE(e->Evaluate(one).ok());  // one query needs one value
}

TEST_P(BindingRules, InputLengthsThatOverflow) {
  const std::unique_ptr<Evaluator> e =
      Make(GetParam(), ParseText("input v: item[3]; f = norm(v) + x;"), Backend::kVm);
  const std::vector<float> data(8, 1.0f);
  ASSERT_TRUE(e->BindInput("v", std::span(data).first(3)).ok());
  ASSERT_TRUE(e->BindInput("x", std::span(data).first(1)).ok());
  const std::size_t huge[2] = {kMax / 2, 1};
  ExpectError(*e, huge,
              "input 'v' needs more floats than fit in memory for " + std::to_string(kMax / 2 + 1) +
                  " items in 2 queries (an item vector of dimension 3), got 3",
              "v");
  const std::size_t too_many[2] = {kMax, 1};
  ExpectError(*e, too_many,
              "the item counts of the 2 queries add up to more than " + std::to_string(kMax), "");
}

TEST_P(BindingRules, OutputLengths) {
  const std::unique_ptr<Evaluator> e = Make(GetParam(), ParseText("f = x; g = x;"), Backend::kVm);
  const std::vector<float> x(5, 1.0f);
  std::vector<float> f(8, -1.0f);
  ASSERT_TRUE(e->BindInput("x", x).ok());
  const std::size_t two[2] = {2, 3};
  ASSERT_TRUE(e->BindOutput("f", std::span(f).first(4)).ok());
  ExpectError(*e, two, "output 'f' needs 5 floats for 5 items in 2 queries, got 4", "f");
  ASSERT_TRUE(e->BindOutput("f", std::span(f).first(4), Extent::kPrefix).ok());
  ExpectError(*e, two, "output 'f' needs 5 floats for 5 items in 2 queries, got a buffer of 4",
              "f");
  EXPECT_EQ(f, std::vector<float>(8, -1.0f)) << "an error must leave the outputs untouched";
  ASSERT_TRUE(e->BindOutput("f", f, Extent::kPrefix).ok());
  ASSERT_TRUE(e->Evaluate(two).ok());
  EXPECT_EQ(f, (std::vector<float>{1, 1, 1, 1, 1, -1, -1, -1}));
  EXPECT_EQ(e->Output(0).size(), 5u);
  EXPECT_EQ(e->Output(0).data(), f.data());
}

TEST_P(BindingRules, MissingAndUnknownNames) {
  const std::unique_ptr<Evaluator> e =
      Make(GetParam(), ParseText("input d = 1; input q: query; f = x * q + d;"), Backend::kVm);
  const std::string owner = GetParam() == Via::kBatch ? "the engine's outputs do not read it"
                                                      : "version 1 does not read it";
  Status status = e->BindInput("nope", {});
  EXPECT_EQ(status.message(), "unknown input 'nope': " + owner);
  EXPECT_EQ(status.location(), "nope");
  status = e->BindOutput("nope", {});
  EXPECT_EQ(status.message(), std::string("unknown output 'nope': ") +
                                  (GetParam() == Via::kBatch ? "the engine does not compute it"
                                                             : "version 1 does not compute it"));
  // The first input in schema order (d, q, then the implicit x) that lacks one.
  const std::size_t one[1] = {0};
  ExpectError(*e, one, "input 'q' is not bound and has no default value", "q");
  const float q = 2;
  ASSERT_TRUE(e->BindInput("q", std::span(&q, 1)).ok());
  ExpectError(*e, one, "input 'x' is not bound and has no default value", "x");
  ASSERT_TRUE(e->BindInput("x", {}).ok());
  ASSERT_TRUE(e->Evaluate(one).ok());  // d takes its default
  e->Clear();
  ExpectError(*e, one, "input 'q' is not bound and has no default value", "q");
}

TEST_P(BindingRules, OutputsShareNoMemory) {
  const std::unique_ptr<Evaluator> e =
      Make(GetParam(), ParseText("input x; f = x * 2; g = x + 1;"), Backend::kVm);
  std::vector<float> memory(12, 1.0f);
  const std::size_t two[2] = {1, 3};
  ASSERT_TRUE(e->BindInput("x", std::span<const float>(memory).first(4)).ok());
  ASSERT_TRUE(e->BindOutput("f", std::span(memory).subspan(3, 4)).ok());
  ExpectError(*e, two,
              "output 'f' shares memory with input 'x'; each output needs a buffer of its own",
              "f");
  ASSERT_TRUE(e->BindOutput("f", std::span(memory).subspan(4, 4)).ok());
  ASSERT_TRUE(e->BindOutput("g", std::span(memory).subspan(7, 4)).ok());
  ExpectError(*e, two,
              "output 'g' shares memory with output 'f'; each output needs a buffer of its own",
              "g");
  EXPECT_EQ(memory, std::vector<float>(12, 1.0f));
  // A buffer whose prefix is used overlaps only through the floats it uses.
  ASSERT_TRUE(e->BindOutput("f", std::span(memory).subspan(4, 8), Extent::kPrefix).ok());
  ASSERT_TRUE(e->BindOutput("g", std::span(memory).subspan(8, 4)).ok());
  ASSERT_TRUE(e->Evaluate(two).ok());
  EXPECT_EQ(memory[4], 2.0f);
  EXPECT_EQ(memory[8], 2.0f);
}

TEST_P(BindingRules, NothingIsBoundToAnOwnBuffer) {
  const std::unique_ptr<Evaluator> e =
      Make(GetParam(), ParseText("input x; f = x * 2; g = x + 1;"), Backend::kVm);
  const std::string noun = GetParam() == Via::kBatch ? "batch" : "session";
  const std::vector<float> x = {1, 2, 3};
  ASSERT_TRUE(e->BindInput("x", x).ok());
  const std::size_t one[1] = {3};
  ASSERT_TRUE(e->Evaluate(one).ok());
  // The results of f, in the evaluator's own buffer, fed back as the input:
  // the next evaluation would overwrite them while reading them.
  const std::span<const float> f = e->Output(0);
  ASSERT_TRUE(e->BindInput("x", f).ok());
  ExpectError(*e, one,
              "input 'x' is bound to the " + noun +
                  "'s own buffer of output 'f', which evaluating overwrites; copy the values first",
              "x");
  ASSERT_TRUE(e->BindInput("x", x).ok());
  ASSERT_TRUE(e->BindOutput("g", std::span(const_cast<float*>(f.data()), f.size())).ok());
  ExpectError(*e, one,
              "output 'g' is bound to the " + noun +
                  "'s own buffer of output 'f'; each output needs a buffer of its own",
              "g");
  // Copied, the values are fine.
  const std::vector<float> copy(f.begin(), f.end());
  std::vector<float> g(3);
  ASSERT_TRUE(e->BindOutput("g", g).ok());
  ASSERT_TRUE(e->BindInput("x", copy).ok());
  ASSERT_TRUE(e->Evaluate(one).ok());
  EXPECT_EQ(g, (std::vector<float>{3, 5, 7}));
  // After the own buffers grew (and moved), the new ones are found too.
  e->Clear();
  const std::vector<float> more(1000, 0.5f);
  ASSERT_TRUE(e->BindInput("x", more).ok());
  const std::size_t thousand[1] = {1000};
  ASSERT_TRUE(e->Evaluate(thousand).ok());
  ASSERT_TRUE(e->BindInput("x", e->Output(1).subspan(999, 1)).ok());
  const std::size_t single[1] = {1};
  ExpectError(*e, single,
              "input 'x' is bound to the " + noun +
                  "'s own buffer of output 'g', which evaluating overwrites; copy the values first",
              "x");
}

// Many buffers take the sorted path of the overlap check: the same answers,
// own buffers included.
TEST_P(BindingRules, OverlapsAmongManyBuffers) {
  std::string text = "input x;";
  for (int k = 0; k < 20; ++k)
    text += " f" + std::to_string(k) + " = x + " + std::to_string(k) + ";";
  const std::unique_ptr<Evaluator> e = Make(GetParam(), ParseText(text), Backend::kVm);
  const std::vector<float> x = {1, 2, 3, 4};
  const std::size_t one[1] = {4};
  ASSERT_TRUE(e->BindInput("x", x).ok());
  ASSERT_TRUE(e->Evaluate(one).ok());  // every output in an own buffer
  const std::span<const float> f5 = e->Output(5);
  ASSERT_TRUE(e->BindInput("x", f5.subspan(1, 3), Extent::kPrefix).ok());
  const std::size_t three[1] = {3};
  const std::string noun = GetParam() == Via::kBatch ? "batch" : "session";
  ExpectError(
      *e, three,
      "input 'x' is bound to the " + noun +
          "'s own buffer of output 'f5', which evaluating overwrites; copy the values first",
      "x");
}

TEST_P(BindingRules, IndicesOutOfRange) {
  const FeatureSet set = ParseText("f = x;");
  Result<Engine> engine = Engine::Compile(set, EngineOptions{Backend::kVm});
  ASSERT_TRUE(engine.ok());
  Batch batch(*engine);
  const float x[1] = {1};
  EXPECT_EQ(batch.BindInput(7, x).message(), "input index 7 is out of range (1 input)");
  float f[1];
  EXPECT_EQ(batch.BindOutput(2, f).message(), "output index 2 is out of range (1 output)");
  const Result<ServingEngine> serving = ServingEngine::Create(set);
  ASSERT_TRUE(serving.ok());
  Session session(*serving);
  EXPECT_EQ(session.BindInput(1, x).message(), "input index 1 is out of range (1 input)");
}

// A call with the bindings and item counts of the last accepted one is not
// checked again (bindings.h, CallPlan): every change between calls must still
// be seen, and a refused or many-query call must leave nothing stale behind.
TEST_P(BindingRules, CheckedBindingsAreReusedOnlyWhileUnchanged) {
  for (const Backend backend : AllBackends()) {
    SCOPED_TRACE(BackendName(backend));
    const std::unique_ptr<Evaluator> e =
        Make(GetParam(), ParseText("input x; input q: query; f = x * q; g = x + 1;"), backend);
    std::vector<float> x = {1, 2, 3, 4};
    std::vector<float> other_x = {10, 20, 30, 40};
    const std::vector<float> q = {2, 3};
    std::vector<float> f(4, -1.0f);
    std::vector<float> other_f(4, -1.0f);
    const std::size_t one[1] = {4};
    const std::size_t two[2] = {1, 3};
    ASSERT_TRUE(e->BindInput("x", x).ok());
    ASSERT_TRUE(e->BindInput("q", std::span(q).first(1)).ok());
    ASSERT_TRUE(e->BindOutput("f", f).ok());
    ASSERT_TRUE(e->Evaluate(one).ok());
    EXPECT_EQ(f, (std::vector<float>{2, 4, 6, 8}));
    // New values in the same buffer: read again.
    x[0] = 5;
    ASSERT_TRUE(e->Evaluate(one).ok());
    EXPECT_EQ(f[0], 10.0f);
    // Another input buffer, then another output buffer.
    ASSERT_TRUE(e->BindInput("x", other_x).ok());
    ASSERT_TRUE(e->Evaluate(one).ok());
    EXPECT_EQ(f, (std::vector<float>{20, 40, 60, 80}));
    ASSERT_TRUE(e->BindOutput("f", other_f).ok());
    ASSERT_TRUE(e->Evaluate(one).ok());
    EXPECT_EQ(other_f, (std::vector<float>{20, 40, 60, 80}));
    EXPECT_EQ(f, (std::vector<float>{20, 40, 60, 80})) << "the old output is left alone";
    // A refused call (5 items for a buffer of 4) between two equal ones.
    const std::size_t five[1] = {5};
    EXPECT_FALSE(e->Evaluate(five).ok());
    other_x[3] = 50;
    ASSERT_TRUE(e->Evaluate(one).ok());
    EXPECT_EQ(other_f, (std::vector<float>{20, 40, 60, 100}));
    // Two queries, twice: the second call reads the first query's items
    // from the start again, with one q per query.
    ASSERT_TRUE(e->BindInput("q", q).ok());
    ASSERT_TRUE(e->Evaluate(two).ok());
    EXPECT_EQ(other_f, (std::vector<float>{20, 60, 90, 150}));
    std::fill(other_f.begin(), other_f.end(), -1.0f);
    ASSERT_TRUE(e->Evaluate(two).ok());
    EXPECT_EQ(other_f, (std::vector<float>{20, 60, 90, 150}));
    // A binding that breaks a rule after accepted calls is still refused.
    ASSERT_TRUE(e->BindOutput("g", std::span(other_f)).ok());
    ExpectError(*e, two,
                "output 'g' shares memory with output 'f'; each output needs a buffer of its own",
                "g");
    EXPECT_EQ(other_f, (std::vector<float>{20, 60, 90, 150}));
    // Cleared: nothing is bound any more.
    e->Clear();
    EXPECT_FALSE(e->Evaluate(two).ok());
  }
}

// A reload that keeps the schema's shape but changes a default: the same
// bindings and item counts, yet the new version's default must apply.
TEST(SessionQueries, ANewVersionsDefaultAppliesWithUnchangedBindings) {
  Result<ServingEngine> serving = ServingEngine::Create(
      ParseText("input x; input w = 2; y = x * w;"), ServingOptions{{Backend::kVm}});
  ASSERT_TRUE(serving.ok());
  Session session(*serving);
  const std::vector<float> x = {1, 2, 3};
  std::vector<float> y(3);
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.BindOutput("y", y).ok());
  session.SetItemCount(3);
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(y, (std::vector<float>{2, 4, 6}));
  ASSERT_TRUE(serving->Reload(ParseText("input x; input w = 5; y = x * w;")).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(session.version(), 2u);
  EXPECT_EQ(y, (std::vector<float>{5, 10, 15}));
}

INSTANTIATE_TEST_SUITE_P(Ways, BindingRules, ::testing::Values(Via::kBatch, Via::kSession),
                         [](const ::testing::TestParamInfo<Via>& param) {
                           return ViaName(param.param);
                         });

// ---------------------------------------------------------------------------
// A session's many-query call runs on one version, and counts per query.

TEST(SessionQueries, ACallRunsOnTheVersionServingWhenItStarts) {
  Result<ServingEngine> serving =
      ServingEngine::Create(ParseText("input x; y = x * 2;"), ServingOptions{{Backend::kVm}});
  ASSERT_TRUE(serving.ok());
  Session session(*serving);
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> y(4);
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.BindOutput("y", y).ok());
  const std::size_t counts[4] = {1, 1, 1, 1};
  // A reload between the first two queries, from the cancel check.
  bool reloaded = false;
  const Status status = session.EvaluateQueries(counts, [&] {
    if (!reloaded) {
      reloaded = serving->Reload(ParseText("input x; y = x * 3;")).ok();
    }
    return false;
  });
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_TRUE(reloaded);
  EXPECT_EQ(session.version(), 1u);
  EXPECT_EQ(y, (std::vector<float>{2, 4, 6, 8})) << "every query on version 1";
  ASSERT_TRUE(session.EvaluateQueries(counts).ok());
  EXPECT_EQ(session.version(), 2u);
  EXPECT_EQ(y, (std::vector<float>{3, 6, 9, 12}));
}

TEST(SessionQueries, StatisticsCountQueriesAndRefusedCalls) {
  Result<ServingEngine> serving =
      ServingEngine::Create(ParseText("input x; y = x * 2;"), ServingOptions{{Backend::kVm}});
  ASSERT_TRUE(serving.ok());
  Session session(*serving);
  const std::vector<float> x = {1, 2, 3, 4, 5};
  ASSERT_TRUE(session.BindInput("x", x).ok());
  const std::size_t counts[3] = {2, 0, 3};
  ASSERT_TRUE(session.EvaluateQueries(counts).ok());
  ASSERT_FALSE(session.EvaluateQueries(std::span(counts).first(2)).ok());
  ASSERT_TRUE(session.BindInput("x", {}).ok());
  ASSERT_TRUE(session.EvaluateQueries({}).ok());  // zero queries: nothing counted
  EXPECT_EQ(session.version(), 1u);
  const VersionStats stats = serving->Stats();
  EXPECT_EQ(stats.evaluations, 3u);
  EXPECT_EQ(stats.items, 5u);
  EXPECT_EQ(stats.errors, 1u);
}

TEST(SessionQueries, ShadowSamplesEachQuery) {
  Result<ServingEngine> serving = ServingEngine::Create(
      ParseText("input x; input q: query; y = rank(x) * q;"), ServingOptions{{Backend::kVm}});
  ASSERT_TRUE(serving.ok());
  ShadowOptions shadow;
  shadow.fraction = 1.0;
  shadow.candidate = std::make_shared<const FeatureSet>(
      ParseText("input x; input q: query; y = rank(x) * q + (q > 2);"));
  ASSERT_TRUE(serving->SetShadow(shadow).ok());
  Session session(*serving);
  const std::vector<float> x = {1, 2, 3, 4, 5};
  const std::vector<float> q = {1, 3};
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.BindInput("q", q).ok());
  const std::size_t counts[2] = {2, 3};
  ASSERT_TRUE(session.EvaluateQueries(counts).ok());
  serving->DrainShadow();
  const VersionStats stats = serving->Stats();
  EXPECT_EQ(stats.shadow_evaluations, 2u);
  // Only the second query (q = 3) differs: its three items, numbered within it.
  const std::vector<Mismatch> mismatches = serving->Mismatches();
  ASSERT_EQ(mismatches.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(mismatches[i].item, i);
}

}  // namespace
}  // namespace calcjit
