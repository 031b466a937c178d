// MIRROR_PAD (MirrorPadOptions: mode, REFLECT = 0 or SYMMETRIC = 1): the
// engine's MIRROR_PAD with the paddings of the constant second input.
#include <memory>
#include <string>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/mirror_pad_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kMirrorPad = 100;

Status MirrorPad(ConverterContext& c) {
  ir::Node& node = c.node();
  if (node.inputs.size() != 2) return c.Invalid("expects the input and the paddings");
  std::vector<int> pads;
  const Status read = ir::ReadConstInts(c.graph(), node, 1, &pads);
  if (!read.ok()) return c.Unsupported("paddings that are not a constant int32 tensor");
  auto a = std::make_shared<ir::MirrorPadAttrs>();
  const int mode = c.Option<int8_t>(0, 0);
  if (mode == 0) a->mode = ir::MirrorPadAttrs::Mode::kReflect;
  else if (mode == 1) a->mode = ir::MirrorPadAttrs::Mode::kSymmetric;
  else return c.UnsupportedAttribute("mode", "mode " + std::to_string(mode));
  for (size_t d = 0; 2 * d + 1 < pads.size(); ++d) {
    a->before.push_back(pads[2 * d]);
    a->after.push_back(pads[2 * d + 1]);
  }
  node.type = ir::MirrorPadOp();
  node.inputs.resize(1);
  node.typed_attrs = std::move(a);
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kMirrorPad}, MirrorPad);

}  // namespace
}  // namespace rill::inference::tflite
