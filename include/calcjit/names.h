// "Did you mean": the name a user most likely meant, for messages about an
// unknown output, input, column or option. A typo (a letter missing, extra,
// changed or two swapped) or a difference of case is a likely meaning; a
// name that is only somewhat alike is not suggested.
#ifndef CALCJIT_NAMES_H_
#define CALCJIT_NAMES_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace calcjit {

// The candidate closest to `name`: equal but for case first, else the
// fewest edits (insertions, deletions, substitutions, adjacent swaps), at most
// 1 for a name of up to 4 bytes, 2 up to 8, 3 beyond, and fewer than the
// longer name's length (so that something of it is kept); the first of
// equals in candidate order. None for an empty name or one longer than 256 bytes (a
// message must not cost quadratic time).
std::optional<std::string> ClosestName(std::string_view name,
                                       std::span<const std::string> candidates);

// " (did you mean 'x'?)", or "" when no candidate is close: to append to a
// message.
std::string DidYouMean(std::string_view name, std::span<const std::string> candidates);

}  // namespace calcjit

#endif  // CALCJIT_NAMES_H_
