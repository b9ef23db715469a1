// Writes examples/ranking/items.csv: a few generated queries of the example
// set's inputs, one row per item, for `calcjit eval ... --group-by query_id`.
//
//   calcjit_make_items_csv [SET] > examples/ranking/items.csv
//
// SET defaults to the source tree's examples/ranking/ranking.calc. Columns:
// query_id, query_text, item_id, then every declared input in the set's
// order (a vector input as NAME[0]..NAME[d-1]). A query input repeats its
// value on every row of its query (eval reads it from the first row). A
// missing value (NaN) is an empty cell.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>

#include "calcjit/calcjit.hpp"
#include "examples/ranking/example_data.h"

namespace {

struct QuerySpec {
  int id;
  std::string_view text;  // only to make the file readable; the data ignores it
  std::uint64_t seed;
};

constexpr QuerySpec kQueries[] = {
    {1, "wireless earbuds", 1001},
    {2, "running shoes women", 1002},
    {3, "espresso machine", 1003},
};
constexpr std::size_t kItemsPerQuery = 40;

// The shortest text that reads back to the same float32.
std::string Cell(float value) {
  if (std::isnan(value)) return "";
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (error != std::errc()) return "";
  return std::string(buffer, end);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : CALCJIT_EXAMPLE_SET_PATH;
  const calcjit::Result<calcjit::FeatureSet> set = calcjit::FeatureSet::ReadFile(path);
  if (!set.ok()) {
    std::cerr << path << ": " << set.status().ToString() << '\n';
    return 1;
  }
  const calcjit::Schema& schema = set->schema();

  std::string out = "query_id,query_text,item_id";
  for (const calcjit::InputInfo& input : schema.inputs) {
    if (input.dimension == 0) {
      out += ',' + input.name;
      continue;
    }
    for (std::uint32_t k = 0; k < input.dimension; ++k) {
      out += ',' + input.name + '[' + std::to_string(k) + ']';
    }
  }
  out += '\n';

  for (const QuerySpec& query : kQueries) {
    const calcjit::example::ExampleQuery data =
        calcjit::example::GenerateExampleQuery(schema, kItemsPerQuery, query.seed);
    for (std::size_t item = 0; item < kItemsPerQuery; ++item) {
      out += std::to_string(query.id) + ',' + std::string(query.text) + ',' +
             std::to_string(query.id * 1000 + static_cast<int>(item) + 1);
      for (std::size_t slot = 0; slot < schema.inputs.size(); ++slot) {
        const calcjit::InputInfo& input = schema.inputs[slot];
        const std::size_t width = input.dimension == 0 ? 1 : input.dimension;
        const std::size_t row = input.scope == calcjit::Scope::kItem ? item : 0;
        for (std::size_t k = 0; k < width; ++k) {
          out += ',' + Cell(data.inputs[slot][row * width + k]);
        }
      }
      out += '\n';
    }
  }
  std::cout << out;
  return std::cout.good() ? 0 : 1;
}
