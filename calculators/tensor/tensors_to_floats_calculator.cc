// TensorsToFloatsCalculator reads the values of a (small) output tensor, as
// MediaPipe's calculator of the same name: FLOATS (std::vector<float>, all
// values of tensors[0]) and/or FLOAT (float; the tensor must hold exactly
// one), optionally through a sigmoid. Used for scores such as hand presence.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_floats_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/tensor.h"

namespace rill {

class TensorsToFloatsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TensorsToFloatsCalculatorOptions>();
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("TENSORS").Set<std::vector<Tensor>>();
    const bool one = cc->Outputs().HasTag("FLOAT");
    const bool many = cc->Outputs().HasTag("FLOATS");
    if (!one && !many) {
      return absl::InvalidArgumentError(
          "TensorsToFloatsCalculator needs a FLOAT or FLOATS output");
    }
    if (one) cc->Outputs().Tag("FLOAT").Set<float>();
    if (many) cc->Outputs().Tag("FLOATS").Set<std::vector<float>>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("TENSORS").IsEmpty()) return absl::OkStatus();
    const auto& tensors =
        cc->Inputs().Tag("TENSORS").Get<std::vector<Tensor>>();
    if (tensors.empty() ||
        tensors[0].element_type() != Tensor::ElementType::kFloat32) {
      return absl::InvalidArgumentError(
          "TensorsToFloatsCalculator: expected a float32 tensor");
    }
    const Tensor& t = tensors[0];
    const bool sigmoid =
        cc->Options<TensorsToFloatsCalculatorOptions>().activation() ==
        TensorsToFloatsCalculatorOptions::SIGMOID;
    std::vector<float> values(t.data<float>(),
                              t.data<float>() + t.num_elements());
    if (sigmoid) {
      for (float& v : values) v = 1.0f / (1.0f + std::exp(-v));
    }
    if (cc->Outputs().HasTag("FLOAT")) {
      if (values.size() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("TensorsToFloatsCalculator: FLOAT needs a tensor of "
                         "one value, got ",
                         t.shape().DebugString()));
      }
      cc->Outputs().Tag("FLOAT").AddPacket(
          MakePacket<float>(values[0]).At(cc->InputTimestamp()));
    }
    if (cc->Outputs().HasTag("FLOATS")) {
      cc->Outputs().Tag("FLOATS").AddPacket(
          MakePacket<std::vector<float>>(std::move(values))
              .At(cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TensorsToFloatsCalculator);

}  // namespace rill
