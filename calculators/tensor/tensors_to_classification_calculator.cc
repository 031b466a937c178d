// TensorsToClassificationCalculator turns a classifier's score tensor into a
// ClassificationList, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "TensorsToClassificationCalculator"
//     input_stream: "TENSORS:tensors"
//     output_stream: "CLASSIFICATIONS:classifications"
//     options { [mediapipe.TensorsToClassificationCalculatorOptions.ext] {
//       top_k: 1 label_map_path: "labels.txt" } }
//   }
//
// Labels come from label_map_path (one per line, line i = class i),
// label_items or label_map. binary_classification reads one score p and
// reports both classes (p, 1 - p). Classes below min_score_threshold, in
// ignore_classes or outside allow_classes are dropped; top_k keeps the best
// k (sorted by score); sort_by_descending_score sorts all.
#include <algorithm>
#include <fstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_classification_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/tensor.h"

namespace rill {

class TensorsToClassificationCalculator : public CalculatorBase {
 public:
  using Options = TensorsToClassificationCalculatorOptions;

  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("TENSORS").Set<std::vector<Tensor>>();
    cc->Outputs().Tag("CLASSIFICATIONS").Set<ClassificationList>();
    const auto& o = cc->Options<Options>();
    if (o.ignore_classes_size() > 0 && o.allow_classes_size() > 0) {
      return absl::InvalidArgumentError(
          "TensorsToClassificationCalculatorOptions: ignore_classes and "
          "allow_classes are mutually exclusive");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    o_ = cc->Options<Options>();
    if (!o_.label_map_path().empty()) {
      auto path = cc->ResourcePath(o_.label_map_path(), "label map");
      if (!path.ok()) return path.status();
      std::ifstream f(*path);
      if (!f.good()) {
        return absl::NotFoundError(absl::StrCat(
            "TensorsToClassificationCalculator: cannot read label map \"",
            o_.label_map_path(), "\""));
      }
      std::string line;
      int id = 0;
      while (std::getline(f, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        labels_[id++] = {line, ""};
      }
    } else if (!o_.label_items().empty()) {
      for (const auto& [id, item] : o_.label_items()) {
        labels_[static_cast<int>(id)] = {item.name(), item.display_name()};
      }
    } else {
      for (const auto& e : o_.label_map().entries()) {
        labels_[e.id()] = {e.label(), ""};
      }
    }
    if (o_.binary_classification() && !labels_.empty() && labels_.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToClassificationCalculator: binary_classification needs 2 "
          "labels, the label map has ",
          labels_.size()));
    }
    for (int c : o_.ignore_classes()) ignore_.insert(c);
    for (int c : o_.allow_classes()) allow_.insert(c);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("TENSORS").IsEmpty()) return absl::OkStatus();
    const auto& tensors =
        cc->Inputs().Tag("TENSORS").Get<std::vector<Tensor>>();
    if (tensors.empty() ||
        tensors[0].element_type() != Tensor::ElementType::kFloat32) {
      return absl::InvalidArgumentError(
          "TensorsToClassificationCalculator: expected a float32 tensor");
    }
    const Tensor& t = tensors[0];
    const float* s = t.data<float>();
    const int n = t.num_elements();
    std::vector<std::pair<int, float>> scores;
    if (o_.binary_classification()) {
      if (n != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorsToClassificationCalculator: binary_classification needs "
            "one score, the tensor is ",
            t.shape().DebugString()));
      }
      scores = {{0, s[0]}, {1, 1.0f - s[0]}};
    } else {
      if (!labels_.empty() && static_cast<int>(labels_.size()) != n &&
          !o_.label_map_path().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorsToClassificationCalculator: ", n,
            " scores but the label "
            "map \"",
            o_.label_map_path(), "\" has ", labels_.size(), " labels"));
      }
      for (int i = 0; i < n; ++i) scores.push_back({i, s[i]});
    }
    std::vector<std::pair<int, float>> kept;
    for (const auto& [id, score] : scores) {
      if (!allow_.empty() && !allow_.count(id)) continue;
      if (ignore_.count(id)) continue;
      if (o_.has_min_score_threshold() && score < o_.min_score_threshold())
        continue;
      kept.push_back({id, score});
    }
    if (o_.top_k() > 0 || o_.sort_by_descending_score()) {
      std::stable_sort(
          kept.begin(), kept.end(),
          [](const auto& a, const auto& b) { return a.second > b.second; });
    }
    if (o_.top_k() > 0 && static_cast<int>(kept.size()) > o_.top_k()) {
      kept.resize(o_.top_k());
    }
    ClassificationList list;
    for (const auto& [id, score] : kept) {
      Classification* c = list.add_classification();
      c->set_index(id);
      c->set_score(score);
      auto it = labels_.find(id);
      if (it != labels_.end()) {
        c->set_label(it->second.first);
        if (!it->second.second.empty()) c->set_display_name(it->second.second);
      }
    }
    cc->Outputs()
        .Tag("CLASSIFICATIONS")
        .AddPacket(MakePacket<ClassificationList>(std::move(list))
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  Options o_;
  std::unordered_map<int, std::pair<std::string, std::string>> labels_;
  std::unordered_set<int> ignore_, allow_;
};
REGISTER_CALCULATOR(TensorsToClassificationCalculator);

}  // namespace rill
