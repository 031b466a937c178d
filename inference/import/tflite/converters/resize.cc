// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR; the output size is the second
// input.
#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

// ResizeBilinearOptions: two deprecated fields, align_corners,
// half_pixel_centers.
Status ResizeBilinear(ConverterContext& c) {
  c.node().type = ir::OpType::kResizeBilinear;
  c.node().attrs.align_corners = c.Option<uint8_t>(2, 0) != 0;
  c.node().attrs.half_pixel_centers = c.Option<uint8_t>(3, 0) != 0;
  return Status::Ok();
}

// ResizeNearestNeighborOptions: align_corners, half_pixel_centers.
Status ResizeNearest(ConverterContext& c) {
  c.node().type = ir::OpType::kResizeNearest;
  c.node().attrs.align_corners = c.Option<uint8_t>(0, 0) != 0;
  c.node().attrs.half_pixel_centers = c.Option<uint8_t>(1, 0) != 0;
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kResizeBilinear}, ResizeBilinear) &&
                         RegisterTfLiteConverter({kResizeNearest}, ResizeNearest);

}  // namespace
}  // namespace rill::inference::tflite
