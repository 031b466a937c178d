#include "framework/tag_map.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rill {

bool IsValidTag(absl::string_view tag) {
  if (tag.empty()) return false;
  if (!(absl::ascii_isupper(tag[0]) || tag[0] == '_')) return false;
  for (char c : tag) {
    if (!(absl::ascii_isupper(c) || absl::ascii_isdigit(c) || c == '_')) {
      return false;
    }
  }
  return true;
}

bool IsValidName(absl::string_view name) {
  if (name.empty()) return false;
  if (!(absl::ascii_islower(name[0]) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_')) {
      return false;
    }
  }
  return true;
}

namespace {

absl::Status ParseIndex(absl::string_view text, absl::string_view whole,
                        int* index) {
  if (text.empty() || !absl::SimpleAtoi(text, index) || *index < 0 ||
      !absl::ascii_isdigit(text[0])) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", whole, "\": index \"", text,
        "\" is not a non-negative integer (expected TAG:index:name)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseTagIndexName(absl::string_view text, TagIndexName* out,
                               bool* explicit_index) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  out->tag.clear();
  out->index = 0;
  if (explicit_index) *explicit_index = false;
  absl::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    out->tag = std::string(parts[0]);
    name = parts[1];
  } else if (parts.size() == 3) {
    out->tag = std::string(parts[0]);
    absl::Status s = ParseIndex(parts[1], text, &out->index);
    if (!s.ok()) return s;
    if (explicit_index) *explicit_index = true;
    name = parts[2];
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\" has too many ':' (expected TAG:index:name)"));
  }
  if (parts.size() > 1 && !IsValidTag(out->tag)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\": tag \"", out->tag,
        "\" must match [A-Z_][A-Z0-9_]* (expected TAG:index:name)"));
  }
  if (!IsValidName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\": name \"", name,
                     "\" must match [a-z_][a-z0-9_]*"));
  }
  out->name = std::string(name);
  return absl::OkStatus();
}

absl::Status ParseTagIndex(absl::string_view text, std::string* tag,
                           int* index) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  *index = 0;
  tag->clear();
  if (parts.size() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not TAG:index"));
  }
  *tag = std::string(parts[0]);
  if (!tag->empty() && !IsValidTag(*tag)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\": tag \"", *tag, "\" must match [A-Z_][A-Z0-9_]*"));
  }
  if (parts.size() == 2) return ParseIndex(parts[1], text, index);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const TagMap>> TagMap::Create(
    const google::protobuf::RepeatedPtrField<std::string>& entries) {
  return Create(std::vector<std::string>(entries.begin(), entries.end()));
}

absl::StatusOr<std::shared_ptr<const TagMap>> TagMap::Create(
    const std::vector<std::string>& entries) {
  struct Parsed {
    TagIndexName tin;
    bool explicit_index;
  };
  std::map<std::string, std::vector<Parsed>> by_tag;
  for (const std::string& e : entries) {
    Parsed p;
    absl::Status s = ParseTagIndexName(e, &p.tin, &p.explicit_index);
    if (!s.ok()) return s;
    by_tag[p.tin.tag].push_back(p);
  }
  auto map = std::make_shared<TagMap>();
  for (auto& [tag, list] : by_tag) {
    const bool any_explicit = list[0].explicit_index;
    std::vector<std::string> slot(list.size());
    std::vector<bool> filled(list.size(), false);
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].explicit_index != any_explicit) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tag \"", tag,
            "\" mixes entries with and without an explicit index"));
      }
      const int index = any_explicit ? list[i].tin.index : static_cast<int>(i);
      if (index >= static_cast<int>(list.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tag \"", tag, "\" has index ", index, " but only ", list.size(),
            " entries (indexes must be 0..", list.size() - 1, ")"));
      }
      if (filled[index]) {
        return absl::InvalidArgumentError(
            absl::StrCat("tag \"", tag, "\" uses index ", index, " twice"));
      }
      filled[index] = true;
      slot[index] = list[i].tin.name;
    }
    map->tags_data_[tag] = {static_cast<int>(map->names_.size()),
                            static_cast<int>(list.size())};
    for (size_t i = 0; i < slot.size(); ++i) {
      map->names_.push_back(slot[i]);
      map->tags_.push_back(tag);
      map->indexes_.push_back(static_cast<int>(i));
    }
  }
  auto untagged = map->tags_data_.find("");
  if (untagged != map->tags_data_.end()) {
    map->untagged_first_ = untagged->second.first_id;
    map->untagged_count_ = untagged->second.count;
  }
  return std::shared_ptr<const TagMap>(std::move(map));
}

int TagMap::NumEntries(absl::string_view tag) const {
  auto it = tags_data_.find(tag);
  return it == tags_data_.end() ? 0 : it->second.count;
}

bool TagMap::HasTag(absl::string_view tag) const {
  return tags_data_.find(tag) != tags_data_.end();
}

CollectionItemId TagMap::GetTaggedId(absl::string_view tag, int index) const {
  auto it = tags_data_.find(tag);
  if (it == tags_data_.end() || index < 0 || index >= it->second.count) {
    return -1;
  }
  return it->second.first_id + index;
}

CollectionItemId TagMap::BeginId(absl::string_view tag) const {
  auto it = tags_data_.find(tag);
  return it == tags_data_.end() ? -1 : it->second.first_id;
}

std::vector<std::string> TagMap::Tags() const {
  std::vector<std::string> tags;
  for (const auto& [tag, data] : tags_data_) tags.push_back(tag);
  return tags;
}

std::string TagMap::Canonical(CollectionItemId id) const {
  if (tags_[id].empty()) return names_[id];
  return absl::StrCat(tags_[id], ":", indexes_[id], ":", names_[id]);
}

}  // namespace rill
