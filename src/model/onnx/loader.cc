#include "model/onnx/loader.h"

#include <new>
#include <utility>

#include "model/onnx/reader.h"

namespace calcjit::model {

Result<std::shared_ptr<const LoadedOnnxModel>> LoadOnnxModel(std::string_view bytes,
                                                             std::string_view file_name) {
  Result<OnnxNet> net = ReadOnnx(bytes, file_name);
  if (!net.ok()) return net.status();
  try {
    auto shared = std::make_shared<const OnnxNet>(std::move(net).value());
    Result<PreparedNet> prepared = PreparedNet::Prepare(shared);
    if (!prepared.ok()) return prepared.status();
    auto model = std::make_shared<LoadedOnnxModel>(LoadedOnnxModel{
        shared, std::move(prepared).value(), HashModelBytes(bytes), DescribeNet(*shared)});
    return std::shared_ptr<const LoadedOnnxModel>(std::move(model));
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory preparing the model", std::string(file_name));
  }
}

}  // namespace calcjit::model
