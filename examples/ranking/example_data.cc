#include "examples/ranking/example_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <string>

namespace calcjit::example {

namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();
// The dimension of the example set's embeddings (item_emb, user_emb).
constexpr std::size_t kEmbeddingDimension = 32;

std::uint64_t SplitMix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t RotateLeft(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

// e^x with IEEE arithmetic only (floor and ldexp are exact): x = k ln2 + r,
// |r| <= ln2 / 2, e^r by its Taylor series. Accurate to a few ulps of a double,
// far more than example data needs, and the same bits on every platform.
double PortableExp(double x) {
  constexpr double kLn2 = 0.69314718055994530942;
  const double k = std::floor(x / kLn2 + 0.5);
  const double r = x - k * kLn2;
  double term = 1.0;
  double sum = 1.0;
  for (int i = 1; i <= 18; ++i) {
    term *= r / i;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

double Clamp(double x, double lo, double hi) {
  return std::min(std::max(x, lo), hi);
}

// Rounds to one decimal, as ratings are shown.
double RoundToTenth(double x) {
  return std::floor(x * 10.0 + 0.5) / 10.0;
}

// Shop prices: a whole amount minus a cent ("23.99").
float ShopPrice(double amount) {
  return static_cast<float>(std::floor(amount) + 0.99);
}

void NormalizeInPlace(std::span<float> v) {
  double sum = 0.0;
  for (float x : v) sum += static_cast<double>(x) * x;
  const double norm = std::sqrt(sum);
  if (norm == 0.0) return;
  for (float& x : v) x = static_cast<float>(x / norm);
}

void FillUnitVector(ExampleRng& rng, std::span<float> v) {
  for (float& x : v) x = static_cast<float>(rng.Normal());
  NormalizeInPlace(v);
}

// What the query contributes: the user's and the query's inputs, and the
// price level of the query's category, which the items' prices scatter around.
struct QueryContext {
  double log_price_level = 0.0;
  std::array<float, kEmbeddingDimension> user_emb{};
  float user_price_pref = kMissing;
  float user_price_sensitivity = 0.5f;
  float user_segment = 0.0f;
  float user_is_mobile = 0.0f;
  float query_hour = 12.0f;
  float query_length = 2.0f;
  float query_has_brand = 0.0f;
};

QueryContext GenerateQueryContext(std::uint64_t seed) {
  ExampleRng rng(StreamSeed(seed, "query"));
  QueryContext q;
  // Category price levels from about 10 to about 250.
  q.log_price_level = 2.3 + 3.2 * rng.Uniform();
  FillUnitVector(rng, q.user_emb);
  // Logged-in users with a purchase history have a price preference.
  if (rng.Bernoulli(0.7)) {
    q.user_price_pref =
        static_cast<float>(std::floor(PortableExp(q.log_price_level + 0.5 * rng.Normal())) + 1.0);
  }
  q.user_price_sensitivity = static_cast<float>(RoundToTenth(rng.Uniform()));
  q.user_segment = static_cast<float>(rng.Below(3));
  q.user_is_mobile = rng.Bernoulli(0.6) ? 1.0f : 0.0f;
  q.query_hour = static_cast<float>(rng.Below(24));
  q.query_length = static_cast<float>(1 + rng.Below(6));
  q.query_has_brand = rng.Bernoulli(0.25) ? 1.0f : 0.0f;
  return q;
}

// One item: every scalar input of ranking.calc, and its embedding.
struct Item {
  float price, list_price, shipping_cost;
  float rating, rating_count;
  float delivery_days, stock, fulfilled_by_platform;
  float seller_rating, seller_cancel_rate, seller_late_rate, seller_age_days;
  float impressions_7d, clicks_7d, add_to_carts_7d, orders_7d;
  float impressions_30d, clicks_30d, add_to_carts_30d, orders_30d, returns_30d;
  float bm25, title_match, category_match, brand_match;
  float days_since_listed, days_since_price_change, image_count, is_sponsored;
  std::array<float, kEmbeddingDimension> item_emb;
};

// Draws an item. Three hidden traits drive the observable inputs, so that
// the signals agree as they do in real data: relevance (to this query: text
// match, category, embedding similarity, clicks), quality (reviews, seller,
// returns, conversion) and popularity (traffic and review counts).
Item GenerateItem(ExampleRng& rng, const QueryContext& q) {
  Item it;
  const double relevance = Clamp(0.5 + 0.22 * rng.Normal(), 0.0, 1.0);
  const double quality = Clamp(0.6 + 0.18 * rng.Normal(), 0.0, 1.0);
  const double popularity = rng.Normal();

  // Price: log-normal around the query's level; better items cost a little more.
  const double log_price = q.log_price_level + 0.55 * rng.Normal() + 0.3 * (quality - 0.6);
  const double price = PortableExp(log_price);
  it.price = ShopPrice(price);
  if (rng.Bernoulli(0.02)) {
    // Inflated "was" prices: 75% to 90% off.
    it.list_price = ShopPrice(price / (1.0 - (0.75 + 0.15 * rng.Uniform())));
  } else if (rng.Bernoulli(0.33)) {
    it.list_price = ShopPrice(price / (1.0 - (0.05 + 0.45 * rng.Uniform())));
  } else {
    it.list_price = kMissing;
  }
  static constexpr float kShippingCosts[] = {2.99f, 3.99f, 4.99f, 6.99f, 9.99f};
  it.shipping_cost = rng.Bernoulli(0.55) ? 0.0f : kShippingCosts[rng.Below(5)];

  // Reviews: popular items collect more; no ratings means no mean rating.
  const double count = std::floor(PortableExp(2.5 + 1.3 * popularity + 0.8 * rng.Normal())) - 3.0;
  it.rating_count = static_cast<float>(std::max(count, 0.0));
  it.rating = it.rating_count > 0 ? static_cast<float>(RoundToTenth(
                                        Clamp(2.9 + 2.0 * quality + 0.35 * rng.Normal(), 1.0, 5.0)))
                                  : kMissing;

  // Delivery: items the platform ships arrive in a day or two.
  const bool fulfilled = rng.Bernoulli(0.3);
  it.fulfilled_by_platform = fulfilled ? 1.0f : 0.0f;
  if (rng.Bernoulli(0.05)) {
    it.delivery_days = kMissing;
  } else {
    it.delivery_days = static_cast<float>(fulfilled ? 1 + rng.Below(2) : 2 + rng.Below(11));
  }
  it.stock = rng.Bernoulli(0.08)
                 ? 0.0f
                 : static_cast<float>(std::floor(PortableExp(0.5 + 3.0 * rng.Uniform())));

  // The seller, who tends to be as good as the item.
  it.seller_rating = rng.Bernoulli(0.1) ? kMissing
                                        : static_cast<float>(RoundToTenth(Clamp(
                                              3.4 + 1.4 * quality + 0.3 * rng.Normal(), 1.0, 5.0)));
  it.seller_cancel_rate =
      static_cast<float>(Clamp(0.03 * (1.6 - quality) * std::abs(rng.Normal()), 0.0, 0.4));
  it.seller_late_rate = static_cast<float>(
      Clamp((fulfilled ? 0.02 : 0.08) * (1.6 - quality) * std::abs(rng.Normal()), 0.0, 0.6));
  it.seller_age_days =
      static_cast<float>(Clamp(std::floor(PortableExp(6.0 + 1.2 * rng.Normal())), 1.0, 7000.0));

  // The listing's age first: new items have had little traffic.
  it.days_since_listed = static_cast<float>(std::floor(PortableExp(4.3 + 1.4 * rng.Normal())));
  const double exposure = std::min(static_cast<double>(it.days_since_listed) / 30.0, 1.0);

  // Engagement over 30 days: traffic from popularity; click, add-to-cart and
  // order rates from relevance and quality; the last 7 days are a noisy
  // quarter of the month (noisy, so that trends show).
  const double impressions_30d =
      std::floor(exposure * PortableExp(5.3 + 1.2 * popularity + 0.5 * rng.Normal()));
  const double ctr = Clamp(
      (0.01 + 0.09 * relevance * (0.6 + 0.4 * quality)) * (1.0 + 0.25 * rng.Normal()), 0.0, 1.0);
  const double clicks_30d = std::floor(impressions_30d * ctr + rng.Uniform());
  const double atc_30d = std::floor(
      clicks_30d * Clamp(0.04 + 0.2 * quality + 0.03 * rng.Normal(), 0.0, 1.0) + rng.Uniform());
  const double orders_30d = std::floor(
      atc_30d * Clamp(0.25 + 0.35 * quality + 0.05 * rng.Normal(), 0.0, 1.0) + rng.Uniform());
  const double returns_30d = std::floor(
      orders_30d * Clamp(0.04 + 0.2 * (1.0 - quality) * rng.Uniform(), 0.0, 1.0) + rng.Uniform());
  const double week_share = Clamp(0.25 + 0.08 * rng.Normal(), 0.05, 1.0);
  const double week_clicks_share = Clamp(week_share * (1.0 + 0.3 * rng.Normal()), 0.0, 1.0);
  it.impressions_30d = static_cast<float>(impressions_30d);
  it.clicks_30d = static_cast<float>(clicks_30d);
  it.add_to_carts_30d = static_cast<float>(atc_30d);
  it.orders_30d = static_cast<float>(orders_30d);
  it.returns_30d = static_cast<float>(returns_30d);
  // The week's counts are rounded at random (up with the probability of the
  // fraction), so that they are a quarter of the month's on average, small
  // counts included; and there is a gap in the logs now and then.
  auto week_count = [&rng](double month_count, double share) {
    return static_cast<float>(std::floor(month_count * share + rng.Uniform()));
  };
  it.impressions_7d = week_count(impressions_30d, week_share);
  if (rng.Bernoulli(0.01)) it.impressions_7d = kMissing;
  it.clicks_7d = week_count(clicks_30d, week_clicks_share);
  it.add_to_carts_7d = week_count(atc_30d, week_clicks_share);
  it.orders_7d = week_count(orders_30d, week_clicks_share);

  // Text relevance: BM25, the share of the query's terms in the title, the
  // category classifier, the brand.
  it.bm25 = rng.Bernoulli(0.02)
                ? kMissing
                : static_cast<float>(std::max(3.0 + 16.0 * relevance + 2.5 * rng.Normal(), 0.0));
  const double terms = q.query_length;
  it.title_match = static_cast<float>(
      Clamp(std::floor((relevance + 0.25 * rng.Normal()) * terms + 0.5), 0.0, terms) / terms);
  it.category_match = rng.Bernoulli(0.05)
                          ? kMissing
                          : static_cast<float>(RoundToTenth(
                                Clamp(0.1 + 1.0 * relevance + 0.15 * rng.Normal(), 0.0, 1.0)));
  it.brand_match =
      rng.Bernoulli(q.query_has_brand != 0.0f ? 0.2 + 0.5 * relevance : 0.05) ? 1.0f : 0.0f;

  it.days_since_price_change =
      rng.Bernoulli(0.1) ? kMissing
                         : static_cast<float>(std::floor(PortableExp(2.5 + 1.2 * rng.Normal())));
  it.image_count = static_cast<float>(
      Clamp(std::floor(1.0 + 10.0 * quality * rng.Uniform() + 2.0 * rng.Uniform()), 1.0, 12.0));
  it.is_sponsored = rng.Bernoulli(0.05) ? 1.0f : 0.0f;

  // The embedding: a unit vector whose cosine with the user's vector is
  // about 0.9 * relevance - 0.1; one item in a hundred has none (all zeros).
  if (rng.Bernoulli(0.01)) {
    it.item_emb.fill(0.0f);
  } else {
    std::array<float, kEmbeddingDimension> noise;
    FillUnitVector(rng, noise);
    const double c = Clamp(0.9 * relevance - 0.1 + 0.1 * rng.Normal(), -0.99, 0.99);
    const double s = std::sqrt(1.0 - c * c);
    for (std::size_t k = 0; k < kEmbeddingDimension; ++k) {
      it.item_emb[k] = static_cast<float>(c * q.user_emb[k] + s * noise[k]);
    }
    NormalizeInPlace(it.item_emb);
  }
  return it;
}

using ItemField = float Item::*;

struct KnownItemScalar {
  std::string_view name;
  ItemField field;
};

constexpr KnownItemScalar kItemScalars[] = {
    {"price", &Item::price},
    {"list_price", &Item::list_price},
    {"shipping_cost", &Item::shipping_cost},
    {"rating", &Item::rating},
    {"rating_count", &Item::rating_count},
    {"delivery_days", &Item::delivery_days},
    {"stock", &Item::stock},
    {"fulfilled_by_platform", &Item::fulfilled_by_platform},
    {"seller_rating", &Item::seller_rating},
    {"seller_cancel_rate", &Item::seller_cancel_rate},
    {"seller_late_rate", &Item::seller_late_rate},
    {"seller_age_days", &Item::seller_age_days},
    {"impressions_7d", &Item::impressions_7d},
    {"clicks_7d", &Item::clicks_7d},
    {"add_to_carts_7d", &Item::add_to_carts_7d},
    {"orders_7d", &Item::orders_7d},
    {"impressions_30d", &Item::impressions_30d},
    {"clicks_30d", &Item::clicks_30d},
    {"add_to_carts_30d", &Item::add_to_carts_30d},
    {"orders_30d", &Item::orders_30d},
    {"returns_30d", &Item::returns_30d},
    {"bm25", &Item::bm25},
    {"title_match", &Item::title_match},
    {"category_match", &Item::category_match},
    {"brand_match", &Item::brand_match},
    {"days_since_listed", &Item::days_since_listed},
    {"days_since_price_change", &Item::days_since_price_change},
    {"image_count", &Item::image_count},
    {"is_sponsored", &Item::is_sponsored},
};

const float* KnownQueryScalar(const QueryContext& q, std::string_view name) {
  if (name == "user_price_pref") return &q.user_price_pref;
  if (name == "user_price_sensitivity") return &q.user_price_sensitivity;
  if (name == "user_segment") return &q.user_segment;
  if (name == "user_is_mobile") return &q.user_is_mobile;
  if (name == "query_hour") return &q.query_hour;
  if (name == "query_length") return &q.query_length;
  if (name == "query_has_brand") return &q.query_has_brand;
  return nullptr;
}

// Fills an input with the values of a known name, if it is one and has the
// shape the example set gives it; returns false otherwise.
bool FillKnown(const InputInfo& input, const QueryContext& query, const std::vector<Item>& items,
               std::vector<float>& values) {
  const std::size_t n = items.size();
  if (input.scope == Scope::kItem && input.dimension == 0) {
    for (const KnownItemScalar& known : kItemScalars) {
      if (known.name != input.name) continue;
      for (std::size_t i = 0; i < n; ++i) values[i] = items[i].*known.field;
      return true;
    }
    return false;
  }
  if (input.scope == Scope::kItem && input.name == "item_emb" &&
      input.dimension == kEmbeddingDimension) {
    for (std::size_t i = 0; i < n; ++i) {
      std::copy(items[i].item_emb.begin(), items[i].item_emb.end(),
                values.begin() + static_cast<std::ptrdiff_t>(i * kEmbeddingDimension));
    }
    return true;
  }
  if (input.scope == Scope::kQuery && input.dimension == 0) {
    const float* value = KnownQueryScalar(query, input.name);
    if (value == nullptr) return false;
    values[0] = *value;
    return true;
  }
  if (input.scope == Scope::kQuery && input.name == "user_emb" &&
      input.dimension == kEmbeddingDimension) {
    std::copy(query.user_emb.begin(), query.user_emb.end(), values.begin());
    return true;
  }
  return false;
}

// Any other input: uniform [0, 1) scalars, random unit vectors, from a
// stream of the input's own so that it does not shift the known ones.
void FillGeneric(const InputInfo& input, std::size_t item_count, std::uint64_t seed,
                 std::vector<float>& values) {
  ExampleRng rng(StreamSeed(seed, input.name));
  if (input.dimension == 0) {
    for (float& v : values) v = rng.UniformFloat();
    return;
  }
  const std::size_t rows = input.scope == Scope::kItem ? item_count : 1;
  for (std::size_t i = 0; i < rows; ++i) {
    FillUnitVector(rng, std::span<float>(values).subspan(i * input.dimension, input.dimension));
  }
}

}  // namespace

ExampleRng::ExampleRng(std::uint64_t seed) {
  for (std::uint64_t& word : state_) word = SplitMix64(seed);
}

std::uint64_t ExampleRng::Next() {
  const std::uint64_t result = RotateLeft(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = RotateLeft(state_[3], 45);
  return result;
}

float ExampleRng::UniformFloat() {
  return static_cast<float>(Next() >> 40) * 0x1.0p-24f;
}

float ExampleRng::UniformFloat(float lo, float hi) {
  return lo + (hi - lo) * UniformFloat();
}

double ExampleRng::Uniform() {
  return static_cast<double>(Next() >> 11) * 0x1.0p-53;
}

double ExampleRng::Normal() {
  double sum = 0.0;
  for (int i = 0; i < 12; ++i) sum += Uniform();
  return sum - 6.0;
}

bool ExampleRng::Bernoulli(double p) {
  return Uniform() < p;
}

std::uint64_t ExampleRng::Below(std::uint64_t n) {
  // 53 random bits scaled: exact for the small n of example data (the bias,
  // about n / 2^53, is irrelevant), and portable (no 128-bit multiply).
  const auto value = static_cast<std::uint64_t>(Uniform() * static_cast<double>(n));
  return std::min(value, n - 1);
}

std::uint64_t StreamSeed(std::uint64_t seed, std::string_view name) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (const char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ULL;
  }
  std::uint64_t state = seed ^ hash;
  return SplitMix64(state);
}

ExampleQuery GenerateExampleQuery(const Schema& schema, std::size_t item_count,
                                  std::uint64_t seed) {
  // Every item is drawn in full whatever the schema holds, so that one
  // input's values never depend on which other inputs are asked for.
  const QueryContext query = GenerateQueryContext(seed);
  ExampleRng item_rng(StreamSeed(seed, "items"));
  std::vector<Item> items;
  items.reserve(item_count);
  for (std::size_t i = 0; i < item_count; ++i) items.push_back(GenerateItem(item_rng, query));

  ExampleQuery result;
  result.item_count = item_count;
  result.inputs.reserve(schema.inputs.size());
  for (const InputInfo& input : schema.inputs) {
    std::vector<float> values(input.ValueCount(item_count));
    if (!FillKnown(input, query, items, values)) FillGeneric(input, item_count, seed, values);
    result.inputs.push_back(std::move(values));
  }
  return result;
}

Status BindExampleQuery(const ExampleQuery& query, Batch& batch) {
  batch.SetItemCount(query.item_count);
  for (std::size_t k = 0; k < query.inputs.size(); ++k) {
    CALCJIT_RETURN_IF_ERROR(batch.BindInput(k, query.inputs[k]));
  }
  return Status::Ok();
}

}  // namespace calcjit::example
