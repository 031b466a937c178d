// InverseMatrixCalculator inverts a 4x4 row-major affine matrix
// (std::array<float, 16>, e.g. ImageToTensorCalculator's MATRIX), as
// MediaPipe's. A matrix that cannot be inverted fails the node naming it.
//
//   node {
//     calculator: "InverseMatrixCalculator"
//     input_stream: "MATRIX:matrix"
//     output_stream: "MATRIX:inverse_matrix"
//   }
#include <array>
#include <cmath>
#include <opencv2/core.hpp>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr char kMatrixTag[] = "MATRIX";

class InverseMatrixCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag(kMatrixTag).Set<std::array<float, 16>>();
    cc->Outputs().Tag(kMatrixTag).Set<std::array<float, 16>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kMatrixTag).IsEmpty()) return absl::OkStatus();
    const auto& m = cc->Inputs().Tag(kMatrixTag).Get<std::array<float, 16>>();
    cv::Matx44d a;
    for (int i = 0; i < 16; ++i) a.val[i] = m[i];
    const double det = cv::determinant(a);
    if (!std::isfinite(det) || std::abs(det) < 1e-12) {
      return absl::InvalidArgumentError(absl::StrCat(
          "InverseMatrixCalculator: the matrix at timestamp ",
          cc->InputTimestamp().DebugString(), " cannot be inverted (det ",
          det, ")"));
    }
    const cv::Matx44d inv = a.inv(cv::DECOMP_LU);
    auto* out = new std::array<float, 16>();
    for (int i = 0; i < 16; ++i) (*out)[i] = static_cast<float>(inv.val[i]);
    cc->Outputs().Tag(kMatrixTag).Add(out, cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(InverseMatrixCalculator);

}  // namespace
}  // namespace rill
