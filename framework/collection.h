// A Collection holds one item per port of a TagMap (a node's inputs, say) and
// addresses them by tag and index. Looking up a port the node does not have
// returns a shared placeholder item and records the miss, so that contracts
// can name required ports without crashing and the graph builder can report
// "calculator X needs input FOO, which node Y does not connect".
#ifndef RILL_FRAMEWORK_COLLECTION_H_
#define RILL_FRAMEWORK_COLLECTION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "framework/tag_map.h"

namespace rill {

template <typename T>
class Collection {
 public:
  Collection() : tag_map_(EmptyTagMap()), items_(1) {}
  explicit Collection(std::shared_ptr<const TagMap> tag_map)
      : tag_map_(std::move(tag_map)), items_(tag_map_->NumEntries() + 1) {}

  T& Tag(absl::string_view tag) { return Get(tag, 0); }
  T& Index(int index) { return Get("", index); }
  T& Get(absl::string_view tag, int index) {
    const CollectionItemId id = tag_map_->GetId(tag, index);
    if (id < 0) {
      misses_.emplace_back(std::string(tag), index);
      return items_.back();
    }
    return items_[id];
  }
  const T& Tag(absl::string_view tag) const { return Get(tag, 0); }
  const T& Index(int index) const { return Get("", index); }
  const T& Get(absl::string_view tag, int index) const {
    const CollectionItemId id = tag_map_->GetId(tag, index);
    return id < 0 ? items_.back() : items_[id];
  }
  T& Get(CollectionItemId id) { return items_[id]; }
  const T& Get(CollectionItemId id) const { return items_[id]; }

  bool HasTag(absl::string_view tag) const { return tag_map_->HasTag(tag); }
  int NumEntries() const { return tag_map_->NumEntries(); }
  int NumEntries(absl::string_view tag) const {
    return tag_map_->NumEntries(tag);
  }
  CollectionItemId GetId(absl::string_view tag, int index) const {
    return tag_map_->GetId(tag, index);
  }
  CollectionItemId BeginId() const { return 0; }
  CollectionItemId EndId() const { return tag_map_->NumEntries(); }
  CollectionItemId BeginId(absl::string_view tag) const {
    return tag_map_->BeginId(tag);
  }
  CollectionItemId EndId(absl::string_view tag) const {
    const CollectionItemId b = tag_map_->BeginId(tag);
    return b < 0 ? -1 : b + tag_map_->NumEntries(tag);
  }
  const std::shared_ptr<const class TagMap>& GetTagMap() const {
    return tag_map_;
  }

  // Ports asked for that the node does not have: (tag, index).
  const std::vector<std::pair<std::string, int>>& Misses() const {
    return misses_;
  }
  // The placeholder returned for missing ports.
  T& Placeholder() { return items_.back(); }

  // Iterates the real items (not the placeholder).
  typename std::vector<T>::iterator begin() { return items_.begin(); }
  typename std::vector<T>::iterator end() { return items_.end() - 1; }
  typename std::vector<T>::const_iterator begin() const {
    return items_.begin();
  }
  typename std::vector<T>::const_iterator end() const {
    return items_.end() - 1;
  }

 private:
  static std::shared_ptr<const class TagMap> EmptyTagMap() {
    static const auto* empty = new std::shared_ptr<const class TagMap>(
        *TagMap::Create(std::vector<std::string>{}));
    return *empty;
  }

  std::shared_ptr<const class TagMap> tag_map_;
  std::vector<T> items_;
  std::vector<std::pair<std::string, int>> misses_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_COLLECTION_H_
