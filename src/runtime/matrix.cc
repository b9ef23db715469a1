// Rows as input (calcjit/matrix.h): the checks, and the copy of a row-major
// matrix into the engine's columns.
#include "calcjit/matrix.h"

#include <xmmintrin.h>

#include <algorithm>
#include <limits>
#include <new>
#include <string>

namespace calcjit {

namespace {

// Rows copied together: a block of a 40-column matrix is 10 KiB, so it stays
// in the L1 cache while each of its columns is gathered from it, and each
// column's part of the block is written as one contiguous run.
constexpr std::size_t kBlockRows = 64;

}  // namespace

void CopyMatrixColumns(const MatrixView& m, std::size_t rows, float* out) {
  for (std::size_t first = 0; first < rows; first += kBlockRows) {
    const std::size_t count = std::min(kBlockRows, rows - first);
    const float* block = m.data + first * m.row_stride;
    std::size_t j = 0;
    if (m.column_stride == 1) {
      // C order: 4 x 4 tiles, each four rows loaded and stored as four
      // column pieces (SSE, in every x86-64): three times faster than
      // gathering element by element (docs/PERFORMANCE.md, "Rows as input").
      // Loads and stores move bits: NaN payloads and signs stay as they are.
      const std::size_t count4 = count & ~std::size_t{3};
      for (; j + 4 <= m.columns; j += 4) {
        float* column = out + j * rows + first;
        for (std::size_t i = 0; i < count4; i += 4) {
          const float* in = block + i * m.row_stride + j;
          __m128 r0 = _mm_loadu_ps(in), r1 = _mm_loadu_ps(in + m.row_stride);
          __m128 r2 = _mm_loadu_ps(in + 2 * m.row_stride), r3 = _mm_loadu_ps(in + 3 * m.row_stride);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          _mm_storeu_ps(column + i, r0);
          _mm_storeu_ps(column + rows + i, r1);
          _mm_storeu_ps(column + 2 * rows + i, r2);
          _mm_storeu_ps(column + 3 * rows + i, r3);
        }
        for (std::size_t i = count4; i < count; ++i) {
          for (std::size_t k = 0; k < 4; ++k)
            column[k * rows + i] = block[i * m.row_stride + j + k];
        }
      }
    }
    // Any other strides, and the columns after the last tile.
    for (; j < m.columns; ++j) {
      const float* in = block + j * m.column_stride;
      float* column = out + j * rows + first;
      for (std::size_t i = 0; i < count; ++i) column[i] = in[i * m.row_stride];
    }
  }
}

Status CheckMatrix(const MatrixView& matrix) {
  if (matrix.rows == 0 || matrix.columns == 0) return Status::Ok();
  if (matrix.data == nullptr) {
    return UserError("the matrix's data is NULL but it has " + std::to_string(matrix.rows) +
                     " rows and " + std::to_string(matrix.columns) + " columns");
  }
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max() / sizeof(float);
  const std::size_t last_row = matrix.rows - 1, last_column = matrix.columns - 1;
  if ((matrix.row_stride != 0 && last_row > kMax / matrix.row_stride) ||
      (matrix.column_stride != 0 && last_column > kMax / matrix.column_stride) ||
      last_row * matrix.row_stride > kMax - last_column * matrix.column_stride) {
    return UserError("the matrix's strides address beyond the memory a process has");
  }
  return Status::Ok();
}

Status CheckMatrixInputs(const Schema& schema, std::size_t columns) {
  for (const InputInfo& input : schema.inputs) {
    if (input.scope != Scope::kItem || input.is_vector()) {
      return UserError(
          "a matrix's columns bind the inputs in order, each an item scalar, but "
          "input '" +
              input.name + "' is a " + (input.scope == Scope::kItem ? "vector" : "query input") +
              ": bind the inputs by name instead",
          input.name);
    }
  }
  if (columns != schema.inputs.size()) {
    return UserError("the matrix has " + std::to_string(columns) + " columns but the engine has " +
                     std::to_string(schema.inputs.size()) +
                     " inputs (its columns bind the inputs in order)");
  }
  return Status::Ok();
}

Status MatrixColumns::Assign(const MatrixView& matrix, std::size_t rows) {
  CALCJIT_RETURN_IF_ERROR(CheckMatrix(matrix));
  if (rows > matrix.rows) {
    return UserError("the call has " + std::to_string(rows) + " items but the matrix has " +
                     std::to_string(matrix.rows) + " rows");
  }
  try {
    columns_.resize(matrix.columns);
    rows_ = rows;
    if (rows == 0) {
      std::fill(columns_.begin(), columns_.end(), nullptr);
      return Status::Ok();
    }
    if (matrix.row_stride == 1 || rows == 1) {
      // Fortran order (or a single row): each column is already contiguous.
      for (std::size_t j = 0; j < matrix.columns; ++j) {
        columns_[j] = matrix.data + j * matrix.column_stride;
      }
      return Status::Ok();
    }
    if (matrix.columns > 0 && rows > buffer_.max_size() / matrix.columns) {
      return RuntimeError("a matrix of " + std::to_string(rows) + " rows and " +
                          std::to_string(matrix.columns) + " columns does not fit in memory");
    }
    if (buffer_.size() < rows * matrix.columns) buffer_.resize(rows * matrix.columns);
    CopyMatrixColumns(matrix, rows, buffer_.data());
    for (std::size_t j = 0; j < matrix.columns; ++j) columns_[j] = buffer_.data() + j * rows;
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory copying a matrix into columns");
  }
  return Status::Ok();
}

}  // namespace calcjit
