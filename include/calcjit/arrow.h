// Arrow data as calcjit inputs: a column in the Arrow C Data Interface
// (struct ArrowArray / ArrowSchema, declared in calcjit/calcjit.h) read as the
// floats an input binds. The C API (calcjit_session_bind_input_arrow) and the
// Python module (pyarrow and polars tables) bind Arrow columns through it, so
// which layouts are read in place and how the others convert is decided here
// once.
#ifndef CALCJIT_ARROW_H_
#define CALCJIT_ARROW_H_

#include "calcjit/cxx20.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "calcjit/calcjit.h"
#include "calcjit/status.h"

namespace calcjit {

struct ArrowFloats {
  // The column's floats (rows * max(dimension, 1) of them, row-major): the
  // Arrow buffer itself, or the memory `allocate` gave, filled.
  std::span<const float> values;
  bool copied = false;
};

// Gives writable memory for `count` floats when a column must be converted.
using FloatAllocator = std::function<std::span<float>(std::size_t count)>;

// Reads an Arrow column for an input named `name` (for messages): a scalar
// per row when `dimension` is 0, else a fixed-size list of `dimension`
// numbers per row. float32 without nulls (for a vector: a fixed-size list
// whose float32 child has no nulls, and no null rows) at an aligned address
// is read in place; every other numeric column is converted once into
// memory from `allocate`, a null (a row or an element) becoming NaN; float64
// values beyond the float32 range, and non-numeric formats, are user errors.
// Borrows `array` and `schema`: never moves or releases them.
Result<ArrowFloats> ReadArrowFloats(const ArrowArray& array, const ArrowSchema& schema,
                                    std::uint32_t dimension, std::string_view name,
                                    const FloatAllocator& allocate);

}  // namespace calcjit

#endif  // CALCJIT_ARROW_H_
