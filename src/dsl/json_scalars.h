// JSON values of the proto3 scalar types, converted the way protobuf's JSON
// parsers convert them (proto3 JSON mapping). Each function returns "" on
// success, or what is wrong (the caller adds the field path).
#ifndef CALCJIT_DSL_JSON_SCALARS_H_
#define CALCJIT_DSL_JSON_SCALARS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "dsl/json_dom.h"

namespace calcjit::dsl {

// A float: a JSON number, a string holding one (in JSON number syntax), or
// the strings "NaN", "Infinity", "-Infinity".
//
// Like protobuf's parsers, the decimal is first rounded to the nearest double
// and that double to the nearest float32 (so, rarely, a decimal exactly
// between two floats can round differently than a direct conversion would).
// A double whose float32 rounding overflows is an error; values that round to
// FLT_MAX are accepted. That is the rule of protobuf's newer parsers (Go,
// C#, C++ since 22): libprotobuf 3.21 rejected everything above FLT_MAX, even
// "3.4028235e+38", the shortest text of FLT_MAX, which its own printer and
// ours write. Values too small for a float round to (signed) zero. The JSON
// number -0 is -0.0f (libprotobuf 3.21 reads it as the integer 0, so +0, and
// loses the sign that its own printer writes; the contract tells them apart).
std::string JsonToFloat(const JsonDom& dom, const JsonNode& node, float* value);

// An integer in [min, max]: a JSON number or a string holding one, which
// must have an integral value ("64", "6.4e1", "64.0"; not "64.5").
std::string JsonToInteger(const JsonDom& dom, const JsonNode& node, std::int64_t min,
                          std::int64_t max, std::int64_t* value);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_JSON_SCALARS_H_
