// Calculator options come in two syntaxes, both as in MediaPipe:
//   options { [pkg.XOptions.ext] { ... } }       (proto2 extension)
//   node_options { [type.googleapis.com/pkg.XOptions] { ... } }   (Any)
// NodeOptions finds an options message of a requested type in either place.
// Type names in the `mediapipe.` package resolve to this project's `rill.`
// messages, so MediaPipe graph files load unchanged.
#ifndef RILL_FRAMEWORK_OPTIONS_H_
#define RILL_FRAMEWORK_OPTIONS_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "framework/proto/calculator.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace rill {

// "mediapipe.FooOptions" -> "rill.FooOptions" when only the latter exists.
std::string ResolveProtoTypeName(absl::string_view name);
// The message type named by an Any type_url, after name resolution; nullptr
// when no linked message has that name.
const google::protobuf::Descriptor* FindAnyType(absl::string_view type_url);

// Finds `type` in a node's or graph's options; nullptr when absent. Any
// payloads are parsed into `storage` (which owns them).
const google::protobuf::Message* FindOptions(
    const CalculatorOptions* options,
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& anys,
    const google::protobuf::Descriptor* type,
    std::unique_ptr<google::protobuf::Message>* storage);

// Checks that every Any in node_options names a linked message and parses.
absl::Status ValidateAnyOptions(
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& anys);

class NodeOptions {
 public:
  explicit NodeOptions(const CalculatorGraphConfig::Node* node) : node_(node) {}

  // The options of type T; T's default instance when the node has none.
  template <typename T>
  const T& Get() const {
    const google::protobuf::Message* m = Find(T::descriptor());
    return m ? *static_cast<const T*>(m) : T::default_instance();
  }
  template <typename T>
  bool Has() const {
    return Find(T::descriptor()) != nullptr;
  }
  const google::protobuf::Message* Find(
      const google::protobuf::Descriptor* type) const;

  // Full names of the options messages the node carries (in `options` or
  // `node_options`) whose type nobody has asked for yet: after the
  // calculator's GetContract, options it does not read (a mistyped or
  // misplaced block, or options meant for another calculator).
  std::vector<std::string> UnrequestedTypes() const;

 private:
  const CalculatorGraphConfig::Node* node_;
  mutable std::mutex mu_;
  mutable std::map<const google::protobuf::Descriptor*,
                   std::unique_ptr<google::protobuf::Message>>
      parsed_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_OPTIONS_H_
