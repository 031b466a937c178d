#include "framework/options.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"

namespace rill {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::MessageFactory;

std::string ResolveProtoTypeName(absl::string_view name) {
  const DescriptorPool* pool = DescriptorPool::generated_pool();
  if (absl::StartsWith(name, "mediapipe.")) {
    std::string ours = absl::StrCat("rill.", name.substr(10));
    if (pool->FindMessageTypeByName(ours) != nullptr ||
        pool->FindExtensionByName(ours) != nullptr ||
        pool->FindMessageTypeByName(std::string(name)) == nullptr) {
      return ours;
    }
  }
  return std::string(name);
}

const Descriptor* FindAnyType(absl::string_view type_url) {
  const size_t slash = type_url.rfind('/');
  absl::string_view name =
      slash == absl::string_view::npos ? type_url : type_url.substr(slash + 1);
  return DescriptorPool::generated_pool()->FindMessageTypeByName(
      ResolveProtoTypeName(name));
}

const Message* FindOptions(
    const CalculatorOptions* options,
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& anys,
    const Descriptor* type, std::unique_ptr<Message>* storage) {
  if (options != nullptr) {
    const auto* reflection = options->GetReflection();
    std::vector<const FieldDescriptor*> fields;
    reflection->ListFields(*options, &fields);
    for (const FieldDescriptor* f : fields) {
      if (f->is_extension() &&
          f->type() == FieldDescriptor::TYPE_MESSAGE &&
          f->message_type() == type && !f->is_repeated()) {
        return &reflection->GetMessage(*options, f);
      }
    }
  }
  for (const google::protobuf::Any& any : anys) {
    if (FindAnyType(any.type_url()) != type) continue;
    const Message* prototype =
        MessageFactory::generated_factory()->GetPrototype(type);
    if (prototype == nullptr) return nullptr;
    storage->reset(prototype->New());
    if (!(*storage)->ParseFromString(any.value())) return nullptr;
    return storage->get();
  }
  return nullptr;
}

absl::Status ValidateAnyOptions(
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& anys) {
  for (const google::protobuf::Any& any : anys) {
    const Descriptor* type = FindAnyType(any.type_url());
    if (type == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("options type \"", any.type_url(),
                       "\" is not a known message (is the calculator or "
                       "plugin that defines it linked?)"));
    }
    std::unique_ptr<Message> m(
        MessageFactory::generated_factory()->GetPrototype(type)->New());
    if (!m->ParseFromString(any.value())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "options of type ", type->full_name(), " do not parse"));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> NodeOptions::UnrequestedTypes() const {
  std::vector<const Descriptor*> present;
  if (node_->has_options()) {
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    node_->options().GetReflection()->ListFields(node_->options(), &fields);
    for (const auto* f : fields) {
      if (f->message_type() != nullptr) present.push_back(f->message_type());
    }
  }
  for (const auto& any : node_->node_options()) {
    const Descriptor* d = FindAnyType(any.type_url());
    if (d != nullptr) present.push_back(d);
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> unread;
  for (const Descriptor* d : present) {
    if (parsed_.count(d) == 0) unread.push_back(d->full_name());
  }
  return unread;
}

const Message* NodeOptions::Find(const Descriptor* type) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = parsed_.find(type);
  if (it != parsed_.end()) return it->second.get();
  std::unique_ptr<Message> storage;
  const Message* found =
      FindOptions(node_->has_options() ? &node_->options() : nullptr,
                  node_->node_options(), type, &storage);
  if (found == nullptr) {
    parsed_[type] = nullptr;
    return nullptr;
  }
  if (storage == nullptr) {
    storage.reset(found->New());
    storage->CopyFrom(*found);
  }
  const Message* result = storage.get();
  parsed_[type] = std::move(storage);
  return result;
}

}  // namespace rill
