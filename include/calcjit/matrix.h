// A matrix of rows as input: each row an item, each column an item scalar
// input (numpy's X, a Java buffer of rows, a C array), as data scientists hold
// the rows they give a model's predict(). The engine reads its inputs as
// columns; MatrixColumns makes columns of a matrix, read in place when they
// already are (Fortran order) and copied out otherwise (docs/PERFORMANCE.md,
// "Rows as input", measures the copy against evaluating from columns).
#ifndef CALCJIT_MATRIX_H_
#define CALCJIT_MATRIX_H_

#include <cstddef>
#include <span>
#include <vector>

#include "calcjit/schema.h"
#include "calcjit/status.h"

namespace calcjit {

// Element (i, j), item i's value of column j, is data[i * row_stride + j *
// column_stride] (strides in floats). A C-order (row-major) matrix has
// column_stride 1 and row_stride >= columns; a Fortran-order one row_stride 1
// and column_stride >= rows.
struct MatrixView {
  const float* data = nullptr;
  std::size_t rows = 0;
  std::size_t columns = 0;
  std::size_t row_stride = 0;
  std::size_t column_stride = 1;
};

// Copies the first `rows` rows of `matrix` (rows <= matrix.rows; a view
// CheckMatrix accepts) into columns: column j to out[j * rows ...], rows
// floats. Block by block, so that a block of rows stays in the cache while
// each of its columns is gathered.
void CopyMatrixColumns(const MatrixView& matrix, std::size_t rows, float* out);

// A user error when the view cannot be read: no data for a non-empty matrix,
// or the last element's offset beyond what memory can address.
Status CheckMatrix(const MatrixView& matrix);

// An error unless every input of `schema` is an item scalar and there is one
// column per input: the columns of a matrix bind the schema's inputs in
// order (for a model on its own, FeatureSet::FromModel, its features).
Status CheckMatrixInputs(const Schema& schema, std::size_t columns);

// The columns of a matrix, each `rows` contiguous floats, for binding to
// inputs. Owns the buffer it copies into and reuses it: assigning a matrix no
// larger than before allocates nothing. Not thread-safe; one per caller.
class MatrixColumns {
 public:
  // Takes the first `rows` rows of `matrix` (rows <= matrix.rows): columns
  // that are contiguous (row_stride 1) are read in place, which the caller's
  // matrix must outlive; other matrices are copied, block by block.
  Status Assign(const MatrixView& matrix, std::size_t rows);
  Status Assign(const MatrixView& matrix) { return Assign(matrix, matrix.rows); }

  std::size_t rows() const { return rows_; }
  std::size_t columns() const { return columns_.size(); }
  std::span<const float> column(std::size_t j) const { return {columns_[j], rows_}; }

 private:
  std::vector<float> buffer_;
  std::vector<const float*> columns_;
  std::size_t rows_ = 0;
};

}  // namespace calcjit

#endif  // CALCJIT_MATRIX_H_
