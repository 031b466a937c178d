// Ports of a node are written "TAG:index:name", "TAG:name" or "name". A TagMap
// parses one list of such strings (a node's input_stream, say) and assigns
// each entry a dense id, ordered by tag and then index, so that ports can be
// addressed as Tag("IMAGE"), Index(2) or Get("TENSORS", 1).
#ifndef RILL_FRAMEWORK_TAG_MAP_H_
#define RILL_FRAMEWORK_TAG_MAP_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_field.h"

namespace rill {

using CollectionItemId = int;

struct TagIndexName {
  std::string tag;
  int index = 0;
  std::string name;
};

// Parses "TAG:index:name" / "TAG:name" / "name". `explicit_index` reports
// whether an index was written.
absl::Status ParseTagIndexName(absl::string_view text, TagIndexName* out,
                               bool* explicit_index = nullptr);
// Parses "TAG:index" / "TAG" / ":index" (input_stream_info, sync sets).
absl::Status ParseTagIndex(absl::string_view text, std::string* tag,
                           int* index);
bool IsValidTag(absl::string_view tag);
bool IsValidName(absl::string_view name);

class TagMap {
 public:
  static absl::StatusOr<std::shared_ptr<const TagMap>> Create(
      const std::vector<std::string>& entries);
  static absl::StatusOr<std::shared_ptr<const TagMap>> Create(
      const google::protobuf::RepeatedPtrField<std::string>& entries);

  int NumEntries() const { return static_cast<int>(names_.size()); }
  int NumEntries(absl::string_view tag) const;
  bool HasTag(absl::string_view tag) const;
  // -1 when there is no such port.
  CollectionItemId GetId(absl::string_view tag, int index) const {
    if (tag.empty()) {  // Index(i): the most common lookup, no map search
      return index >= 0 && index < untagged_count_ ? untagged_first_ + index
                                                    : -1;
    }
    return GetTaggedId(tag, index);
  }
  std::vector<std::string> Tags() const;
  // First id of a tag; -1 when absent.
  CollectionItemId BeginId(absl::string_view tag) const;

  const std::string& Name(CollectionItemId id) const { return names_[id]; }
  const std::string& Tag(CollectionItemId id) const { return tags_[id]; }
  int Index(CollectionItemId id) const { return indexes_[id]; }
  // "TAG:index:name" as it would be written in a config.
  std::string Canonical(CollectionItemId id) const;
  const std::vector<std::string>& Names() const { return names_; }

 private:
  CollectionItemId GetTaggedId(absl::string_view tag, int index) const;
  CollectionItemId untagged_first_ = 0;
  int untagged_count_ = 0;
  struct TagData {
    CollectionItemId first_id;
    int count;
  };
  std::map<std::string, TagData, std::less<>> tags_data_;
  std::vector<std::string> names_;
  std::vector<std::string> tags_;
  std::vector<int> indexes_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_TAG_MAP_H_
