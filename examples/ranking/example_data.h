// Generated data for the example ranking set (examples/ranking/ranking.calc):
// one search query's items with plausible, correlated values, for the demo,
// the benchmarks, the tests and examples/ranking/items.csv.
//
// Deterministic everywhere: the generator uses its own PRNG and only IEEE
// arithmetic and square roots (no std::*_distribution, whose algorithms
// differ between standard libraries, and no libm transcendental function,
// whose last bits differ between libms), so a seed gives the same floats on
// every platform and compiler.
#ifndef CALCJIT_EXAMPLES_RANKING_EXAMPLE_DATA_H_
#define CALCJIT_EXAMPLES_RANKING_EXAMPLE_DATA_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "calcjit/calcjit.hpp"

namespace calcjit::example {

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: fast, good
// statistical quality, and fully specified, unlike the std engines'
// distributions.
class ExampleRng {
 public:
  explicit ExampleRng(std::uint64_t seed);

  std::uint64_t Next();
  // Uniform in [0, 1), with 24 random bits (every value is a float32).
  float UniformFloat();
  // Uniform in [lo, hi), computed in float32: lo + (hi - lo) * u.
  float UniformFloat(float lo, float hi);
  // Uniform in [0, 1), with 53 random bits.
  double Uniform();
  // Approximately standard normal: the Irwin-Hall sum of 12 uniforms minus
  // 6 (bounded to [-6, 6], which is all the example data needs).
  double Normal();
  // True with probability p.
  bool Bernoulli(double p);
  // Uniform integer in [0, n), n > 0.
  std::uint64_t Below(std::uint64_t n);

 private:
  std::uint64_t state_[4];
};

// A seed for a named stream derived from a base seed: FNV-1a of the name,
// mixed with the seed by splitmix64.
std::uint64_t StreamSeed(std::uint64_t seed, std::string_view name);

// The data of one query: inputs[k] holds schema.inputs[k].ValueCount(n)
// floats for the schema it was generated for (row-major for item vectors).
// NaN means missing, as in the set.
struct ExampleQuery {
  std::size_t item_count = 0;
  std::vector<std::vector<float>> inputs;
};

// Fills every input of `schema` for a query of `item_count` items.
//
// The inputs of ranking.calc get plausible, correlated values: each item has
// hidden relevance, quality and popularity that drive its text and
// embedding similarity, its reviews, seller and engagement counts; prices are
// log-normal around a level drawn per query; ratings, list prices, delivery
// times and a few other inputs are sometimes missing (NaN); embeddings are
// unit vectors; query inputs get one value. Any other name gets uniform
// [0, 1) values (a scalar) or a random unit vector (a vector) from a stream
// of its own.
//
// The value of an input depends only on (seed, its name, its shape, the item
// index), not on the other inputs of the schema, so an engine that computes
// only some outputs (a smaller schema) sees the same data; and the first m
// items of a query of n > m items are those of a query of m items.
ExampleQuery GenerateExampleQuery(const Schema& schema, std::size_t item_count, std::uint64_t seed);

// Sets the batch's item count and binds every input of `query` by index: the
// batch's engine must have the schema `query` was generated for.
Status BindExampleQuery(const ExampleQuery& query, Batch& batch);

}  // namespace calcjit::example

#endif  // CALCJIT_EXAMPLES_RANKING_EXAMPLE_DATA_H_
