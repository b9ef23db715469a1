// libFuzzer target: XGBoost's UBJSON model files (save_model("*.ubj"), the
// default since XGBoost 2.1): the reader of xgboost_reader
// (src/model/tree/xgboost_reader.cc), which tells the encoding from the first
// bytes, then the tree checks, the block layout and the evaluation of what it
// accepts (model_check.h). Inputs that are not UBJSON by that rule are
// skipped, so that the mutations stay on the binary parser: markers, typed
// and counted containers, lengths, float32 and float64 values, the budget of
// callbacks per byte.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/tree/xgboost_reader.h"
#include "tests/fuzz/model_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (calcjit::model::XgboostEncodingOf(bytes) != calcjit::model::XgboostEncoding::kUbjson) {
    return 0;
  }
  return calcjit::fuzz::CheckModelFile(calcjit::ir::ModelFormat::kXgboostJson, data, size,
                                       "fuzz.ubj");
}
