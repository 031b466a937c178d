// TfLiteModelCalculator: parses a model from bytes in a side packet into the
// loaded model InferenceCalculator takes on its MODEL side packet, as
// MediaPipe's calculator of that name (its model loaders end with it):
//
//   node {
//     calculator: "TfLiteModelCalculator"
//     input_side_packet: "MODEL_RESOURCE:model_resource"  # or MODEL_BLOB
//     output_side_packet: "MODEL:model"                   # or SHARED_MODEL
//   }
//
// MODEL_BLOB is a std::string of the file's bytes (LocalFileContents'
// CONTENTS); MODEL_RESOURCE is ResourceProviderCalculator's RESOURCE (the
// bytes as a std::string here); MODEL_SPAN an absl::Span<const uint8_t>
// that must outlive the graph's Open. MODEL and SHARED_MODEL both hold a
// std::shared_ptr<const inference::Model> (MediaPipe's MODEL is a
// TfLiteModelPtr, its SHARED_MODEL a shared pointer; one type serves both
// here). MODEL_FD (a file descriptor) is not supported. The engine tells
// .tflite from .onnx by content.
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/status_util.h"
#include "rill/inference/inference.h"

namespace rill {
namespace {

constexpr char kModelResourceTag[] = "MODEL_RESOURCE";
constexpr char kModelBlobTag[] = "MODEL_BLOB";
constexpr char kModelSpanTag[] = "MODEL_SPAN";
constexpr char kModelFdTag[] = "MODEL_FD";
constexpr char kModelTag[] = "MODEL";
constexpr char kSharedModelTag[] = "SHARED_MODEL";

}  // namespace

class TfLiteModelCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    auto& in = cc->InputSidePackets();
    if (in.HasTag(kModelFdTag)) {
      return absl::UnimplementedError(
          "TfLiteModelCalculator: MODEL_FD (a file descriptor) is not "
          "supported; give the bytes as MODEL_BLOB or MODEL_RESOURCE");
    }
    const int sources = in.HasTag(kModelBlobTag) + in.HasTag(kModelResourceTag) +
                        in.HasTag(kModelSpanTag);
    if (sources != 1) {
      return absl::InvalidArgumentError(
          "TfLiteModelCalculator needs exactly one of the input side packets "
          "MODEL_BLOB, MODEL_RESOURCE and MODEL_SPAN");
    }
    if (in.HasTag(kModelBlobTag)) in.Tag(kModelBlobTag).Set<std::string>();
    if (in.HasTag(kModelResourceTag)) {
      in.Tag(kModelResourceTag).Set<std::string>();
    }
    if (in.HasTag(kModelSpanTag)) {
      in.Tag(kModelSpanTag).Set<absl::Span<const uint8_t>>();
    }
    auto& out = cc->OutputSidePackets();
    if (out.HasTag(kModelTag) == out.HasTag(kSharedModelTag)) {
      return absl::InvalidArgumentError(
          "TfLiteModelCalculator needs one of the output side packets MODEL "
          "and SHARED_MODEL");
    }
    out.Tag(out.HasTag(kModelTag) ? kModelTag : kSharedModelTag)
        .Set<std::shared_ptr<const inference::Model>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& in = cc->InputSidePackets();
    const char* tag = in.HasTag(kModelBlobTag)       ? kModelBlobTag
                      : in.HasTag(kModelResourceTag) ? kModelResourceTag
                                                     : kModelSpanTag;
    const Packet& packet = in.Tag(tag);
    const void* data = nullptr;
    size_t size = 0;
    if (packet.Holds<std::string>()) {
      data = packet.Get<std::string>().data();
      size = packet.Get<std::string>().size();
    } else {
      const auto& span = packet.Get<absl::Span<const uint8_t>>();
      data = span.data();
      size = span.size();
    }
    // The name the engine's errors and InferenceCalculator's report use.
    const std::string name = absl::StrCat(tag, " of node ", cc->NodeName(),
                                          " (", size, " bytes)");
    auto model = inference::Model::FromBuffer(data, size, name);
    if (!model.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TfLiteModelCalculator: cannot load the model in ", tag, ": ",
          model.status().message()));
    }
    auto& out = cc->OutputSidePackets();
    out.Tag(out.HasTag(kModelTag) ? kModelTag : kSharedModelTag)
        .Set(MakePacket<std::shared_ptr<const inference::Model>>(*model));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override { return StatusStop(); }
};
REGISTER_CALCULATOR(TfLiteModelCalculator);

}  // namespace rill
