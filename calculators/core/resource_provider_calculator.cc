// ResourceProviderCalculator: reads the resources (files) named by the
// RESOURCE_ID side packets, or else by the options' resource_id list, into
// the RESOURCE side packets of the same index, as MediaPipe's calculator of
// that name (MediaPipe's model loaders use it):
//
//   node {
//     calculator: "ResourceProviderCalculator"
//     input_side_packet: "RESOURCE_ID:model_path"     # std::string
//     output_side_packet: "RESOURCE:model_resource"   # std::string (bytes)
//   }
//
// MediaPipe's RESOURCE holds a mediapipe::Resource; here it holds the bytes
// as a std::string, which TfLiteModelCalculator's MODEL_RESOURCE takes. A
// relative id is looked up under the graph's resource roots; a missing file
// is an error naming the node and every place looked in.
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/core/file_contents.h"
#include "calculators/core/resource_provider_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/status_util.h"

namespace rill {
namespace {

constexpr char kIdTag[] = "RESOURCE_ID";
constexpr char kResourceTag[] = "RESOURCE";

}  // namespace

class ResourceProviderCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const auto& options = cc->Options<ResourceProviderCalculatorOptions>();
    const int ids = cc->InputSidePackets().NumEntries(kIdTag);
    const int resources = cc->OutputSidePackets().NumEntries(kResourceTag);
    if (resources == 0) {
      return absl::InvalidArgumentError(
          "ResourceProviderCalculator needs at least one RESOURCE output side "
          "packet");
    }
    if ((ids > 0) == (options.resource_id_size() > 0)) {
      return absl::InvalidArgumentError(
          "ResourceProviderCalculator: name the resources either by "
          "RESOURCE_ID side packets or by the options' resource_id, not both "
          "or neither");
    }
    const int given = ids > 0 ? ids : options.resource_id_size();
    if (given != resources) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ResourceProviderCalculator: ", given, " resource ids but ",
          resources, " RESOURCE side packets; give one RESOURCE per id"));
    }
    for (int i = 0; i < ids; ++i) {
      cc->InputSidePackets().Get(kIdTag, i).Set<std::string>();
    }
    for (int i = 0; i < resources; ++i) {
      cc->OutputSidePackets().Get(kResourceTag, i).Set<std::string>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<ResourceProviderCalculatorOptions>();
    const bool from_side_packets = cc->InputSidePackets().HasTag(kIdTag);
    const int n = cc->OutputSidePackets().NumEntries(kResourceTag);
    for (int i = 0; i < n; ++i) {
      const std::string id =
          from_side_packets
              ? cc->InputSidePackets().Get(kIdTag, i).Get<std::string>()
              : options.resource_id(i);
      absl::StatusOr<std::string> contents =
          ReadResourceFile(*cc, id, absl::StrCat("resource ", i));
      if (!contents.ok()) return contents.status();
      cc->OutputSidePackets()
          .Get(kResourceTag, i)
          .Set(MakePacket<std::string>(std::move(*contents)));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override { return StatusStop(); }
};
REGISTER_CALCULATOR(ResourceProviderCalculator);

}  // namespace rill
