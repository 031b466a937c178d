// LocalFileContentsCalculator: reads the file each FILE_PATH side packet
// names into the CONTENTS side packet of the same index, as MediaPipe's
// calculator of that name:
//
//   node {
//     calculator: "LocalFileContentsCalculator"
//     input_side_packet: "FILE_PATH:model_path"   # std::string
//     output_side_packet: "CONTENTS:model_blob"   # std::string
//   }
//
// A relative path is looked up under the graph's resource roots; a missing
// file is an error naming the node and every place looked in. text_mode
// reads the same bytes (there is no text/binary distinction on POSIX).
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/core/file_contents.h"
#include "calculators/core/local_file_contents_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/status_util.h"

namespace rill {
namespace {

constexpr char kFilePathTag[] = "FILE_PATH";
constexpr char kContentsTag[] = "CONTENTS";

}  // namespace

class LocalFileContentsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<LocalFileContentsCalculatorOptions>();
    const int paths = cc->InputSidePackets().NumEntries(kFilePathTag);
    const int contents = cc->OutputSidePackets().NumEntries(kContentsTag);
    if (paths == 0 || contents == 0) {
      return absl::InvalidArgumentError(
          "LocalFileContentsCalculator needs FILE_PATH input side packets and "
          "CONTENTS output side packets");
    }
    if (paths != contents) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LocalFileContentsCalculator: ", paths, " FILE_PATH side packets but ",
          contents, " CONTENTS side packets; give one CONTENTS per FILE_PATH"));
    }
    for (int i = 0; i < paths; ++i) {
      cc->InputSidePackets().Get(kFilePathTag, i).Set<std::string>();
      cc->OutputSidePackets().Get(kContentsTag, i).Set<std::string>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const int n = cc->InputSidePackets().NumEntries(kFilePathTag);
    for (int i = 0; i < n; ++i) {
      const std::string& path =
          cc->InputSidePackets().Get(kFilePathTag, i).Get<std::string>();
      absl::StatusOr<std::string> contents = ReadResourceFile(
          *cc, path, absl::StrCat("FILE_PATH:", i, " file"));
      if (!contents.ok()) return contents.status();
      cc->OutputSidePackets()
          .Get(kContentsTag, i)
          .Set(MakePacket<std::string>(std::move(*contents)));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override { return StatusStop(); }
};
REGISTER_CALCULATOR(LocalFileContentsCalculator);

}  // namespace rill
