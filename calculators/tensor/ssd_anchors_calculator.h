// The anchor layout of SsdAnchorsCalculator, callable without a graph.
#ifndef RILL_CALCULATORS_TENSOR_SSD_ANCHORS_CALCULATOR_H_
#define RILL_CALCULATORS_TENSOR_SSD_ANCHORS_CALCULATOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "calculators/tensor/anchor.pb.h"
#include "calculators/tensor/ssd_anchors_calculator.pb.h"

namespace rill {

absl::StatusOr<std::vector<Anchor>> GenerateSsdAnchors(
    const SsdAnchorsCalculatorOptions& options);

}  // namespace rill

#endif  // RILL_CALCULATORS_TENSOR_SSD_ANCHORS_CALCULATOR_H_
