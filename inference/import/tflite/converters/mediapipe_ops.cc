// MediaPipe's custom ops of face_landmark_with_attention
// (inference/ir/ops/mediapipe_ops.h): Landmarks2TransformMatrix,
// TransformLandmarks and TransformTensorBilinear, version 2 (the version the
// models ship; version 1 kernels differ and are not supported). Their
// options are a FlexBuffers map in custom_options.
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inference/import/tflite/flexbuffer_reader.h"
#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/mediapipe_ops.h"

namespace rill::inference::tflite {
namespace {

Status NeedVersion2(ConverterContext& c) {
  if (c.opcode().version == 2) return Status::Ok();
  return c.Unsupported("version " + std::to_string(c.opcode().version) + " of the custom op (only version 2)");
}

// The root map of the custom options, read with `flex`.
class Options {
 public:
  explicit Options(ConverterContext& c) : c_(c), v_(c.CustomOptions()), flex_(c.reader().BytesOf(v_), v_.size) {}

  Status Open() {
    if (!c_.reader().ok()) return c_.Corrupt("reading custom options");
    if (!v_.valid || v_.size == 0) return c_.Invalid("custom options are missing");
    root_ = flex_.Root();
    if (flex_.ok() && root_.type != FlexBufferReader::kMap) return c_.Invalid("custom options are not a map");
    flex_.Keys(root_);  // reads (and so checks) every key once, before any lookup
    return Check();
  }
  Status Int(const char* key, int* out) {
    const FlexBufferReader::Ref r = Find(key);
    if (!r.valid) return Missing(key);
    const int64_t v = flex_.AsInt(r);
    RILL_INF_RETURN_IF_ERROR(Check());
    if (v < -(int64_t{1} << 31) || v >= (int64_t{1} << 31)) return c_.Invalid(std::string(key) + " out of range");
    *out = static_cast<int>(v);
    return Status::Ok();
  }
  Status Float(const char* key, float* out) {
    const FlexBufferReader::Ref r = Find(key);
    if (!r.valid) return Missing(key);
    *out = static_cast<float>(flex_.AsDouble(r));
    RILL_INF_RETURN_IF_ERROR(Check());
    if (!std::isfinite(*out)) return c_.Invalid(std::string(key) + " is not finite");
    return Status::Ok();
  }
  Status Ints(const char* key, std::vector<int64_t>* out) {
    const FlexBufferReader::Ref r = Find(key);
    if (!r.valid) return Missing(key);
    if (!flex_.IsNumberVector(r)) {
      RILL_INF_RETURN_IF_ERROR(Check());
      return c_.Invalid(std::string(key) + " is not a vector of numbers");
    }
    *out = flex_.AsInts(r);
    return Check();
  }

 private:
  FlexBufferReader::Ref Find(const char* key) { return flex_.Find(root_, key); }
  Status Missing(const char* key) {
    RILL_INF_RETURN_IF_ERROR(Check());
    return c_.Invalid("custom option '" + std::string(key) + "' is missing");
  }
  Status Check() { return flex_.ok() ? Status::Ok() : c_.Corrupt("custom options: " + flex_.error()); }

  ConverterContext& c_;
  ConverterContext::Vector v_;
  FlexBufferReader flex_;
  FlexBufferReader::Ref root_;
};

Status Landmarks2TransformMatrix(ConverterContext& c) {
  ir::Node& node = c.node();
  node.type = ir::Landmarks2TransformMatrixOp();
  RILL_INF_RETURN_IF_ERROR(NeedVersion2(c));
  Options o(c);
  RILL_INF_RETURN_IF_ERROR(o.Open());
  auto a = std::make_shared<ir::Landmarks2TransformMatrixAttrs>();
  std::vector<int64_t> subset;
  RILL_INF_RETURN_IF_ERROR(o.Ints("subset_idxs", &subset));
  RILL_INF_RETURN_IF_ERROR(o.Int("left_rotation_idx", &a->left_rotation_idx));
  RILL_INF_RETURN_IF_ERROR(o.Int("right_rotation_idx", &a->right_rotation_idx));
  RILL_INF_RETURN_IF_ERROR(o.Float("target_rotation_radians", &a->target_rotation_radians));
  RILL_INF_RETURN_IF_ERROR(o.Int("output_height", &a->output_height));
  RILL_INF_RETURN_IF_ERROR(o.Int("output_width", &a->output_width));
  RILL_INF_RETURN_IF_ERROR(o.Float("scale_x", &a->scale_x));
  RILL_INF_RETURN_IF_ERROR(o.Float("scale_y", &a->scale_y));
  if (subset.empty()) return c.Invalid("subset_idxs is empty");
  for (int64_t i : subset) {
    if (i < 0 || i >= (int64_t{1} << 24)) return c.Invalid("subset_idxs value " + std::to_string(i) + " out of range");
  }
  // Pairs; an odd last index pairs with itself.
  for (size_t i = 0; i < subset.size(); i += 2) {
    const int first = static_cast<int>(subset[i]);
    a->subset_idxs.emplace_back(first, i + 1 < subset.size() ? static_cast<int>(subset[i + 1]) : first);
  }
  if (a->left_rotation_idx < 0 || a->right_rotation_idx < 0) return c.Invalid("negative rotation landmark index");
  if (a->output_height <= 0 || a->output_width <= 0) return c.Invalid("output_height and output_width must be > 0");
  if (a->scale_x <= 0 || a->scale_y <= 0) return c.Invalid("scale_x and scale_y must be > 0");
  node.typed_attrs = std::move(a);
  return Status::Ok();
}

Status TransformLandmarks(ConverterContext& c) {
  c.node().type = ir::TransformLandmarksOp();
  return NeedVersion2(c);
}

Status TransformTensorBilinear(ConverterContext& c) {
  ir::Node& node = c.node();
  node.type = ir::TransformTensorBilinearOp();
  RILL_INF_RETURN_IF_ERROR(NeedVersion2(c));
  Options o(c);
  RILL_INF_RETURN_IF_ERROR(o.Open());
  auto a = std::make_shared<ir::TransformTensorBilinearAttrs>();
  RILL_INF_RETURN_IF_ERROR(o.Int("output_height", &a->output_height));
  RILL_INF_RETURN_IF_ERROR(o.Int("output_width", &a->output_width));
  if (a->output_height <= 0 || a->output_width <= 0 || a->output_height > 65536 || a->output_width > 65536) {
    return c.Invalid("output_height and output_width must be in 1..65536");
  }
  node.typed_attrs = std::move(a);
  return Status::Ok();
}

const bool kRegistered =
    RegisterTfLiteCustomConverter({"Landmarks2TransformMatrix"}, Landmarks2TransformMatrix) &&
    RegisterTfLiteCustomConverter({"TransformLandmarks"}, TransformLandmarks) &&
    RegisterTfLiteCustomConverter({"TransformTensorBilinear"}, TransformTensorBilinear);

}  // namespace
}  // namespace rill::inference::tflite
