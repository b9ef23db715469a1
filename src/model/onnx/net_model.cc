#include "model/onnx/net_model.h"

#include <charconv>
#include <cmath>
#include <new>
#include <utility>
#include <vector>

#include "math/fp_env.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/reference_evaluator.h"

namespace calcjit::model {

namespace {

std::string FloatText(float value) {
  if (std::isnan(value)) return "nan";
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

class NetModel final : public Model {
 public:
  explicit NetModel(std::shared_ptr<const LoadedOnnxModel> loaded)
      : Model(SummaryOf(*loaded), loaded->hash), loaded_(std::move(loaded)) {}

  const std::shared_ptr<const LoadedOnnxModel>& loaded() const { return loaded_; }

  void EvaluateReference(const float* const* features, std::size_t n,
                         float* const* outputs) const override {
    model::EvaluateReference(*loaded_->net, features, n, outputs);
  }
  std::size_t ScratchBytes(std::size_t n) const override {
    return EvaluateScratchBytes(loaded_->prepared, n);
  }
  void Evaluate(Isa tier, const float* const* features, std::size_t n, float* const* outputs,
                void* scratch) const override {
    NetEvaluatorFor(tier)(loaded_->prepared, features, n, outputs, scratch);
  }

  std::string Explain(const float* row, std::size_t /*max_trees*/) const override {
    const OnnxNet& net = *loaded_->net;
    std::vector<float> out(net.info.num_outputs);
    {
      const math::ScopedFpEnv fp_env;
      EvaluateReferenceRow(net, row, out.data());
    }
    std::string text = loaded_->description + "\noutputs:";
    for (float v : out) text += " " + FloatText(v);
    return text + "\n";
  }

 private:
  static ModelSummary SummaryOf(const LoadedOnnxModel& loaded) {
    ModelSummary summary;
    summary.format = ModelFormat::kOnnx;
    summary.feature_count = loaded.info().num_features;
    summary.output_count = loaded.info().num_outputs;
    summary.names_from_file = loaded.info().names_from_file;
    if (summary.names_from_file) summary.feature_names = loaded.info().feature_names;
    summary.description = loaded.description;
    return summary;
  }

  std::shared_ptr<const LoadedOnnxModel> loaded_;
};

}  // namespace

Result<std::shared_ptr<const Model>> MakeNetModel(OnnxNet net, ContentHash hash,
                                                  std::string_view file_name) {
  try {
    auto shared = std::make_shared<const OnnxNet>(std::move(net));
    Result<PreparedNet> prepared = PreparedNet::Prepare(shared);
    if (!prepared.ok()) return prepared.status();
    auto loaded = std::make_shared<const LoadedOnnxModel>(
        LoadedOnnxModel{shared, std::move(prepared).value(), hash, DescribeNet(*shared)});
    return std::shared_ptr<const Model>(std::make_shared<const NetModel>(std::move(loaded)));
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory preparing the model", std::string(file_name));
  }
}

Result<std::shared_ptr<const LoadedOnnxModel>> LoadOnnxModel(std::string_view bytes,
                                                             std::string_view file_name) {
  Result<std::shared_ptr<const Model>> model = LoadModel(ModelFormat::kOnnx, bytes, file_name);
  if (!model.ok()) return model.status();
  return dynamic_cast<const NetModel&>(**model).loaded();
}

}  // namespace calcjit::model
