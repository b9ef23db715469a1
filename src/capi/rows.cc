// The C API's rows as input (calcjit_session_bind_rows): the caller's
// row-major matrix is remembered at bind time and, at each evaluation, copied
// into the session's columns (calcjit::MatrixColumns) that are then bound to
// the schema's inputs in order.
#include "capi/rows.h"

#include <numeric>
#include <string>

#include "capi/arguments.h"
#include "capi/errors.h"

using calcjit::Status;
using calcjit::UserError;
using calcjit::capi::Call;
using calcjit::capi::NullArgument;

namespace calcjit::capi {

Status BindRowsForCall(calcjit_session* session, std::span<const std::size_t> item_counts) {
  if (!session->rows) return Status::Ok();
  const Schema& schema = session->session.schema();
  CALCJIT_RETURN_IF_ERROR(CheckMatrixInputs(schema, session->rows->columns));
  const std::size_t items = std::accumulate(item_counts.begin(), item_counts.end(), std::size_t{0});
  if (items > session->rows->rows) {
    return UserError("the call has " + std::to_string(items) + " items but the bound rows hold " +
                     std::to_string(session->rows->rows));
  }
  CALCJIT_RETURN_IF_ERROR(session->columns.Assign(*session->rows, items));
  for (std::size_t j = 0; j < schema.inputs.size(); ++j) {
    CALCJIT_RETURN_IF_ERROR(session->session.BindInput(j, session->columns.column(j)));
  }
  return Status::Ok();
}

}  // namespace calcjit::capi

extern "C" {

calcjit_status calcjit_session_bind_rows(calcjit_session* session, const float* data,
                                         size_t row_capacity, size_t columns, size_t row_stride) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    if (row_stride < columns) {
      return UserError("row_stride " + std::to_string(row_stride) + " is less than the " +
                       std::to_string(columns) + " columns of a row");
    }
    const calcjit::MatrixView view{data, row_capacity, columns, row_stride, 1};
    CALCJIT_RETURN_IF_ERROR(calcjit::CheckMatrix(view));
    CALCJIT_RETURN_IF_ERROR(calcjit::CheckMatrixInputs(session->session.schema(), columns));
    session->rows = view;
    return Status::Ok();
  });
}

}  // extern "C"
