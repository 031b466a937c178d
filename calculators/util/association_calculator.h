// AssociationCalculator<T> merges vectors of boxes (MediaPipe's association
// calculators): every input stream carries a std::vector<T>; streams later
// in the node's list have priority. Going through the streams in order, each
// element replaces the elements already kept that overlap it with an IoU
// above min_similarity_threshold (and takes the id of the last of those
// that had one). An optional PREV stream (the previous frame's result) does
// not add elements: a kept element overlapping a PREV element takes that
// element's id. One untagged output, the kept elements in order, at every
// timestamp where any input has a packet.
//
// AssociationNormRectCalculator (NormalizedRect; rects have no id here, as
// in MediaPipe, and rotation is ignored) and AssociationDetectionCalculator
// (Detection with a relative bounding box; the id is detection_id) are the
// registered instances.
#ifndef RILL_CALCULATORS_UTIL_ASSOCIATION_CALCULATOR_H_
#define RILL_CALCULATORS_UTIL_ASSOCIATION_CALCULATOR_H_

#include <list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/association_calculator.pb.h"
#include "calculators/util/rect_util.h"
#include "framework/calculator_base.h"

namespace rill {

template <typename T>
class AssociationCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<AssociationCalculatorOptions>();
    const std::string where =
        absl::StrCat(cc->GetNodeConfig().calculator(), " node \"",
                     cc->GetNodeName(), "\"");
    const int prev = cc->Inputs().NumEntries("PREV");
    if (prev > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " takes at most one PREV input stream"));
    }
    if (prev == 1 && cc->Inputs().NumEntries() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " needs an input stream besides PREV to associate"));
    }
    if (cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " needs one untagged output stream"));
    }
    for (CollectionItemId id = cc->Inputs().BeginId();
         id < cc->Inputs().EndId(); ++id) {
      cc->Inputs().Get(id).template Set<std::vector<T>>();
    }
    cc->Outputs().Index(0).template Set<std::vector<T>>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    where_ = absl::StrCat(cc->CalculatorType(), " node \"", cc->NodeName(),
                          "\": ");
    options_ = cc->Options<AssociationCalculatorOptions>();
    if (options_.min_similarity_threshold() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "min_similarity_threshold must be >= 0, is ",
                       options_.min_similarity_threshold()));
    }
    if (cc->Inputs().HasTag("PREV")) {
      prev_id_ = cc->Inputs().GetId("PREV", 0);
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    std::list<T> kept;
    for (CollectionItemId id = cc->Inputs().BeginId();
         id < cc->Inputs().EndId(); ++id) {
      if (id == prev_id_ || cc->Inputs().Get(id).IsEmpty()) continue;
      for (const T& element :
           cc->Inputs().Get(id).template Get<std::vector<T>>()) {
        RILL_RETURN_IF_ERROR(Add(element, &kept));
      }
    }
    if (prev_id_ >= 0 && !cc->Inputs().Get(prev_id_).IsEmpty()) {
      RILL_RETURN_IF_ERROR(TakeIdsFromPrevious(
          cc->Inputs().Get(prev_id_).template Get<std::vector<T>>(), &kept));
    }
    cc->Outputs().Index(0).AddPacket(
        MakePacket<std::vector<T>>(kept.begin(), kept.end())
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 protected:
  // The element's axis-aligned box, in whatever units all elements share.
  virtual absl::StatusOr<Box> GetBox(const T& element) = 0;
  // {has an id, the id}.
  virtual std::pair<bool, int> GetId(const T& element) { return {false, -1}; }
  virtual void SetId(T* element, int id) {}

  std::string where_;

 private:
  // Adds `element`, dropping the kept elements it overlaps.
  absl::Status Add(T element, std::list<T>* kept) {
    RILL_ASSIGN_OR_RETURN(const Box box, GetBox(element));
    bool change_id = false;
    int new_id = -1;
    for (auto it = kept->begin(); it != kept->end();) {
      RILL_ASSIGN_OR_RETURN(const Box other, GetBox(*it));
      if (BoxIou(box, other) > options_.min_similarity_threshold()) {
        const std::pair<bool, int> id = GetId(*it);
        if (id.first) {
          change_id = true;
          new_id = id.second;
        }
        it = kept->erase(it);
      } else {
        ++it;
      }
    }
    if (change_id) SetId(&element, new_id);
    kept->push_back(std::move(element));
    return absl::OkStatus();
  }

  // Each kept element takes the id of the last PREV element it overlaps.
  absl::Status TakeIdsFromPrevious(const std::vector<T>& prev,
                                   std::list<T>* kept) {
    for (T& element : *kept) {
      RILL_ASSIGN_OR_RETURN(const Box box, GetBox(element));
      bool change_id = false;
      int new_id = -1;
      for (const T& p : prev) {
        RILL_ASSIGN_OR_RETURN(const Box other, GetBox(p));
        if (BoxIou(box, other) > options_.min_similarity_threshold()) {
          const std::pair<bool, int> id = GetId(p);
          if (id.first) {
            change_id = true;
            new_id = id.second;
          }
        }
      }
      if (change_id) SetId(&element, new_id);
    }
    return absl::OkStatus();
  }

  AssociationCalculatorOptions options_;
  CollectionItemId prev_id_ = -1;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_UTIL_ASSOCIATION_CALCULATOR_H_
