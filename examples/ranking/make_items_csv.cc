// Writes examples/ranking/items.csv: a few generated queries of the example
// set's inputs, one row per item, for `calcjit eval ... --group-by query_id`.
//
//   calcjit_make_items_csv [SET] > examples/ranking/items.csv
//   calcjit_make_items_csv [SET] --queries Q --items N > big.csv
//
// The second form writes Q generated queries of N items each (query ids 1..Q,
// seeds 1000 + id, so the first three are those of items.csv when N = 40): a
// large file for `eval --threads` and the Dask benchmarks. SET defaults to the source tree's
// examples/ranking/ranking.calc. Columns: query_id, query_text, item_id, then every declared input
// in the set's order (a vector input as NAME[0]..NAME[d-1]). A query input repeats its value on
// every row of its query (eval reads it from the first row). A missing value (NaN) is an empty
// cell.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>

#include "calcjit/calcjit.hpp"
#include "examples/ranking/example_data.h"

namespace {

// The texts of the first queries (only to make the file readable; the data
// ignores them).
constexpr std::string_view kQueryTexts[] = {"wireless earbuds", "running shoes women",
                                            "espresso machine"};
constexpr std::size_t kItemsPerQuery = 40;

// The shortest text that reads back to the same float32.
std::string Cell(float value) {
  if (std::isnan(value)) return "";
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (error != std::errc()) return "";
  return std::string(buffer, end);
}

// --queries Q --items N after the optional SET; false on anything else.
bool ParseArguments(int argc, char** argv, std::string* path, std::size_t* queries,
                    std::size_t* items) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--queries" || arg == "--items") && i + 1 < argc) {
      const std::string_view value = argv[++i];
      std::size_t n = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (error != std::errc() || end != value.data() + value.size() || n == 0) return false;
      *(arg == "--queries" ? queries : items) = n;
    } else if (i == 1 && !arg.starts_with("--")) {
      *path = arg;
    } else {
      return false;
    }
  }
  return true;
}

std::string QueryText(std::size_t id) {
  if (id <= std::size(kQueryTexts)) return std::string(kQueryTexts[id - 1]);
  return "generated query " + std::to_string(id);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = CALCJIT_EXAMPLE_SET_PATH;
  std::size_t query_count = std::size(kQueryTexts);
  std::size_t items_per_query = kItemsPerQuery;
  if (!ParseArguments(argc, argv, &path, &query_count, &items_per_query)) {
    std::cerr << "usage: calcjit_make_items_csv [SET] [--queries Q] [--items N]\n";
    return 2;
  }
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

  // Item ids: query id * 1000 + item number (1-based), unique also past 999 items.
  const std::size_t id_stride = items_per_query < 1000 ? 1000 : items_per_query + 1;
  // Written a query at a time: a large file never sits in memory whole.
  for (std::size_t id = 1; id <= query_count; ++id) {
    const std::uint64_t seed = 1000 + id;
    const calcjit::example::ExampleQuery data =
        calcjit::example::GenerateExampleQuery(schema, items_per_query, seed);
    const std::string prefix = std::to_string(id) + ',' + QueryText(id) + ',';
    for (std::size_t item = 0; item < items_per_query; ++item) {
      out += prefix + std::to_string(id * id_stride + item + 1);
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
    std::cout << out;
    out.clear();
  }
  return std::cout.good() ? 0 : 1;
}
