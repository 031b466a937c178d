// TfLiteCustomOpResolverCalculator: MediaPipe's source of the OP_RESOLVER
// side packet its graphs give InferenceCalculator (palm_detection_cpu.pbtxt):
//
//   node {
//     calculator: "TfLiteCustomOpResolverCalculator"
//     output_side_packet: "OP_RESOLVER:op_resolver"   # or untagged
//   }
//
// The engine has MediaPipe's custom ops built in, so the packet holds a
// TfLiteOpResolver (op_resolver.h) that InferenceCalculator accepts and
// ignores; the calculator exists so that MediaPipe's graphs load unchanged.
#include <string>

#include "calculators/inference/op_resolver.h"
#include "calculators/inference/tflite_custom_op_resolver_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/status_util.h"

namespace rill {

class TfLiteCustomOpResolverCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TfLiteCustomOpResolverCalculatorOptions>();
    if (cc->OutputSidePackets().HasTag("OP_RESOLVER")) {
      cc->OutputSidePackets().Tag("OP_RESOLVER").Set<TfLiteOpResolver>();
    } else {
      cc->OutputSidePackets().Index(0).Set<TfLiteOpResolver>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    TfLiteOpResolver resolver;
    resolver.use_gpu =
        cc->Options<TfLiteCustomOpResolverCalculatorOptions>().use_gpu();
    OutputSidePacket& out = cc->OutputSidePackets().HasTag("OP_RESOLVER")
                                ? cc->OutputSidePackets().Tag("OP_RESOLVER")
                                : cc->OutputSidePackets().Index(0);
    out.Set(MakePacket<TfLiteOpResolver>(resolver));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override { return StatusStop(); }
};
REGISTER_CALCULATOR(TfLiteCustomOpResolverCalculator);

}  // namespace rill
