// libFuzzer target: the JSON reader (src/dsl/json_dom, json_scalars, json_reader) and the checker
// on any bytes. They never crash, leak or hit undefined behaviour; a set they accept round-trips
// through the three writers (round_trip.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  calcjit::fuzz::ReadCheckRoundTrip(calcjit::dsl::ReadJson, bytes, calcjit::fuzz::kExact);
  return 0;
}
