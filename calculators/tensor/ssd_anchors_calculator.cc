// SsdAnchorsCalculator lays out the anchor boxes an SSD-style detector's
// outputs are relative to, as MediaPipe does, and emits them once as a side
// packet (std::vector<Anchor>) for TensorsToDetectionsCalculator:
//
//   node {
//     calculator: "SsdAnchorsCalculator"
//     output_side_packet: "anchors"
//     options { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
//       num_layers: 4 strides: [8, 16, 16, 16] input_size_width: 128 ... } }
//   }
//
// Consecutive layers of equal stride share one feature map; each cell of a
// map gets one anchor per (layer, aspect ratio) plus, unless
// interpolated_scale_aspect_ratio is 0, one of the interpolated scale.
#include "calculators/tensor/ssd_anchors_calculator.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/anchor.pb.h"
#include "calculators/tensor/ssd_anchors_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

float LayerScale(float min_scale, float max_scale, int layer, int num_layers) {
  if (num_layers == 1) return (min_scale + max_scale) * 0.5f;
  return min_scale + (max_scale - min_scale) * layer / (num_layers - 1.0f);
}

}  // namespace

absl::StatusOr<std::vector<Anchor>> GenerateSsdAnchors(
    const SsdAnchorsCalculatorOptions& options) {
  const int num_layers = options.num_layers();
  if (num_layers <= 0) {
    return absl::InvalidArgumentError(
        "SsdAnchorsCalculatorOptions.num_layers must be positive");
  }
  const bool by_feature_map = options.feature_map_height_size() > 0;
  if (by_feature_map) {
    if (options.feature_map_height_size() < num_layers ||
        options.feature_map_width_size() < num_layers) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SsdAnchorsCalculatorOptions: ", num_layers,
          " layers need as many feature_map_width/height entries"));
    }
  } else {
    if (options.strides_size() < num_layers) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SsdAnchorsCalculatorOptions: num_layers is ", num_layers, " but ",
          options.strides_size(), " strides are given"));
    }
    if (options.input_size_width() <= 0 || options.input_size_height() <= 0) {
      return absl::InvalidArgumentError(
          "SsdAnchorsCalculatorOptions: input_size_width and "
          "input_size_height must be positive");
    }
    for (int s : options.strides()) {
      if (s <= 0) {
        return absl::InvalidArgumentError(
            "SsdAnchorsCalculatorOptions: strides must be positive");
      }
    }
  }
  if (options.aspect_ratios_size() == 0 &&
      options.interpolated_scale_aspect_ratio() <= 0 &&
      !options.reduce_boxes_in_lowest_layer()) {
    return absl::InvalidArgumentError(
        "SsdAnchorsCalculatorOptions: no aspect_ratios and no interpolated "
        "anchor: every cell would get zero anchors");
  }

  std::vector<Anchor> anchors;
  const int num_strides = options.strides_size();
  int layer = 0;
  while (layer < num_layers) {
    std::vector<float> ratios, scales;
    // Layers of the same stride go on the same feature map.
    int last = layer;
    while (last < num_layers &&
           (by_feature_map ? last == layer
                           : options.strides(last) == options.strides(layer))) {
      const float scale =
          LayerScale(options.min_scale(), options.max_scale(), last,
                     num_strides > 0 ? num_strides : num_layers);
      if (last == 0 && options.reduce_boxes_in_lowest_layer()) {
        ratios.insert(ratios.end(), {1.0f, 2.0f, 0.5f});
        scales.insert(scales.end(), {0.1f, scale, scale});
      } else {
        for (float r : options.aspect_ratios()) {
          ratios.push_back(r);
          scales.push_back(scale);
        }
        if (options.interpolated_scale_aspect_ratio() > 0) {
          const int n = num_strides > 0 ? num_strides : num_layers;
          const float next = last == n - 1
                                 ? 1.0f
                                 : LayerScale(options.min_scale(),
                                              options.max_scale(), last + 1, n);
          scales.push_back(std::sqrt(scale * next));
          ratios.push_back(options.interpolated_scale_aspect_ratio());
        }
      }
      ++last;
    }
    std::vector<float> widths, heights;
    for (size_t i = 0; i < ratios.size(); ++i) {
      const float root = std::sqrt(ratios[i]);
      heights.push_back(scales[i] / root);
      widths.push_back(scales[i] * root);
    }
    int fm_h, fm_w;
    if (by_feature_map) {
      fm_h = options.feature_map_height(layer);
      fm_w = options.feature_map_width(layer);
    } else {
      const int stride = options.strides(layer);
      fm_h = (options.input_size_height() + stride - 1) / stride;
      fm_w = (options.input_size_width() + stride - 1) / stride;
    }
    for (int y = 0; y < fm_h; ++y) {
      for (int x = 0; x < fm_w; ++x) {
        for (size_t k = 0; k < ratios.size(); ++k) {
          Anchor a;
          a.set_x_center((x + options.anchor_offset_x()) / fm_w);
          a.set_y_center((y + options.anchor_offset_y()) / fm_h);
          if (options.fixed_anchor_size()) {
            a.set_w(1.0f);
            a.set_h(1.0f);
          } else {
            a.set_w(widths[k]);
            a.set_h(heights[k]);
          }
          anchors.push_back(a);
        }
      }
    }
    layer = last;
  }
  return anchors;
}

class SsdAnchorsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<SsdAnchorsCalculatorOptions>();
    cc->OutputSidePackets().Index(0).Set<std::vector<Anchor>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    auto anchors =
        GenerateSsdAnchors(cc->Options<SsdAnchorsCalculatorOptions>());
    if (!anchors.ok()) return anchors.status();
    cc->OutputSidePackets().Index(0).Set(
        MakePacket<std::vector<Anchor>>(std::move(*anchors)));
    return absl::OkStatus();
  }

  // Nothing to do per packet: the anchors are a side packet.
  absl::Status Process(CalculatorContext* cc) override { return StatusStop(); }
};
REGISTER_CALCULATOR(SsdAnchorsCalculator);

}  // namespace rill
