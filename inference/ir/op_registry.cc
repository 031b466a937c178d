#include "inference/ir/op_registry.h"

#include <map>
#include <mutex>

namespace rill::inference::ir {
namespace {

struct Registry {
  std::mutex mu;
  std::map<int, OpDescriptor> by_id;
  std::map<std::string, int> by_name;
  int next_id = static_cast<int>(OpType::kRegisteredOp) + 1;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;  // never destroyed: static-init safe
  return *registry;
}

}  // namespace

OpType RegisterOp(const OpDescriptor& op) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  int id;
  auto named = r.by_name.find(op.name);
  if (named != r.by_name.end()) {
    id = named->second;
  } else if (op.type == OpType::kRegisteredOp) {
    id = r.next_id++;
  } else {
    id = static_cast<int>(op.type);
  }
  OpDescriptor stored = op;
  stored.type = static_cast<OpType>(id);
  r.by_id[id] = stored;
  r.by_name[op.name] = id;
  return stored.type;
}

bool RegisterOps(std::initializer_list<OpDescriptor> ops) {
  for (const OpDescriptor& op : ops) RegisterOp(op);
  return true;
}

// Descriptors are never removed, and a replaced one keeps its map node, so
// the pointers stay valid.
const OpDescriptor* FindOp(OpType type) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_id.find(static_cast<int>(type));
  return it == r.by_id.end() ? nullptr : &it->second;
}

const OpDescriptor* FindOpByName(const std::string& name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : &r.by_id[it->second];
}

std::vector<OpDescriptor> RegisteredOps() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<OpDescriptor> ops;
  for (const auto& [id, op] : r.by_id) ops.push_back(op);
  return ops;
}

}  // namespace rill::inference::ir
