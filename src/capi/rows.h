// Rows as input in the C API (calcjit_session_bind_rows; capi/rows.cc).
#ifndef CALCJIT_CAPI_ROWS_H_
#define CALCJIT_CAPI_ROWS_H_

#include <cstddef>
#include <span>

#include "capi/handles.h"

namespace calcjit::capi {

// Before an evaluation of `item_counts` queries: the bound rows (if any)
// copied into the session's columns and bound to its inputs in order.
Status BindRowsForCall(calcjit_session* session, std::span<const std::size_t> item_counts);

}  // namespace calcjit::capi

#endif  // CALCJIT_CAPI_ROWS_H_
