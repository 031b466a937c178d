#include "inference/ir/graph.h"

#include <algorithm>
#include <cstring>

#include "inference/ir/op_registry.h"

namespace rill::inference::ir {

const char* OpTypeName(OpType type) {
  const OpDescriptor* op = FindOp(type);
  return op ? op->name : "UNKNOWN";
}

void Graph::SetConstant(int id, DataType dtype, const Shape& shape, std::vector<uint8_t> bytes) {
  auto blob = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  TensorInfo& t = tensors[id];
  t.dtype = dtype;
  t.shape = shape;
  t.bytes = blob->size();
  // An empty constant still needs a non-null pointer to count as constant.
  static const uint8_t kEmpty[8] = {};
  t.data = blob->empty() ? kEmpty : blob->data();
  t.sparsity.reset();
  Retain(std::move(blob));
}

std::vector<bool> Graph::HeadOf(int output) const {
  // needed[k][t]: graph output k needs tensor t (0: `output`, 1: any other).
  std::vector<std::vector<bool>> needed(2, std::vector<bool>(tensors.size(), false));
  for (size_t k = 0; k < outputs.size(); ++k) needed[static_cast<int>(k) != output][outputs[k]] = true;
  std::vector<bool> head(nodes.size(), false);
  for (int n = static_cast<int>(nodes.size()) - 1; n >= 0; --n) {
    bool uses[2] = {false, false};
    for (int k = 0; k < 2; ++k) {
      for (int id : nodes[n].outputs) uses[k] = uses[k] || needed[k][id];
      if (!uses[k]) continue;
      for (int id : nodes[n].inputs) {
        if (id >= 0) needed[k][id] = true;
      }
    }
    head[n] = uses[0] && !uses[1];
  }
  return head;
}

std::string Graph::NodeContext(const Node& node) const {
  std::string s = source + ": node";
  if (!nodes.empty() && &node >= nodes.data() && &node < nodes.data() + nodes.size()) {
    s += " #" + std::to_string(&node - nodes.data());
  }
  return s + " '" + node.name + "' (" + OpTypeName(node.type) + "): ";
}

namespace {

// Kernels index elements with int: a tensor has at most INT32_MAX of them.
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

bool ShapeIsSane(const Shape& s) {
  if (s.size() > 8) return false;
  int64_t n = 1;
  for (int d : s) {
    if (d < 0 && d != kDynamicDim) return false;
    n *= std::max(d, 1);
    if (n > kMaxElements) return false;
  }
  return true;
}

}  // namespace

Status Graph::Validate() const {
  const int nt = static_cast<int>(tensors.size());
  std::vector<int> producer(nt, -2);  // -2: none, -1: graph input, >=0 node
  for (int id : inputs) {
    if (id < 0 || id >= nt) return InvalidArgumentError(source + ": graph input tensor id " + std::to_string(id) + " out of range");
    if (tensors[id].is_constant()) return InvalidArgumentError(source + ": graph input '" + tensors[id].name + "' is a constant");
    producer[id] = -1;
  }
  for (int i = 0; i < nt; ++i) {
    const TensorInfo& t = tensors[i];
    if (!ShapeIsSane(t.shape)) {
      return InvalidArgumentError(source + ": tensor '" + t.name + "' has invalid shape " + ShapeToString(t.shape));
    }
    if (t.is_constant() && !t.sparsity) {
      const size_t want = static_cast<size_t>(NumElements(t.shape)) * DataTypeSize(t.dtype);
      if (t.bytes != want) {
        return InvalidArgumentError(source + ": constant '" + t.name + "' holds " + std::to_string(t.bytes) +
                                    " bytes, shape " + ShapeToString(t.shape) + " of " + DataTypeName(t.dtype) +
                                    " needs " + std::to_string(want));
      }
    }
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    for (int id : node.inputs) {
      if (id == -1) continue;
      if (id < -1 || id >= nt) return InvalidArgumentError(NodeContext(node) + "input tensor id " + std::to_string(id) + " out of range");
      if (tensors[id].sparsity && node.type != OpType::kDensify) {
        return InvalidArgumentError(NodeContext(node) + "reads sparse constant '" + tensors[id].name +
                                    "' that no DENSIFY expanded");
      }
      if (!tensors[id].is_constant() && producer[id] == -2) {
        return InvalidArgumentError(NodeContext(node) + "input '" + tensors[id].name + "' is used before it is produced");
      }
    }
    for (const Guard& g : node.guards) {
      if (g.tensor < 0 || g.tensor >= nt || (!tensors[g.tensor].is_constant() && producer[g.tensor] == -2)) {
        return InvalidArgumentError(NodeContext(node) + "its guard is not produced before it");
      }
    }
    if (node.outputs.empty()) return InvalidArgumentError(NodeContext(node) + "has no outputs");
    for (int id : node.outputs) {
      if (id < 0 || id >= nt) return InvalidArgumentError(NodeContext(node) + "output tensor id " + std::to_string(id) + " out of range");
      if (tensors[id].is_constant()) return InvalidArgumentError(NodeContext(node) + "writes constant '" + tensors[id].name + "'");
      if (producer[id] != -2) return InvalidArgumentError(NodeContext(node) + "output '" + tensors[id].name + "' is produced twice");
      producer[id] = static_cast<int>(n);
    }
  }
  for (int id : outputs) {
    if (id < 0 || id >= nt) return InvalidArgumentError(source + ": graph output tensor id " + std::to_string(id) + " out of range");
    if (producer[id] == -2 && !tensors[id].is_constant()) {
      return InvalidArgumentError(source + ": graph output '" + tensors[id].name + "' is never produced");
    }
  }
  return Status::Ok();
}

std::vector<Shape> Graph::InitialShapes() const {
  std::vector<Shape> shapes(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) shapes[i] = tensors[i].shape;
  return shapes;
}

Status ReadConstInts(const Graph& g, const Node& node, int input_index, std::vector<int>* values) {
  if (input_index >= static_cast<int>(node.inputs.size()) || node.inputs[input_index] < 0) {
    return InvalidArgumentError(g.NodeContext(node) + "missing input " + std::to_string(input_index));
  }
  const TensorInfo& t = g.tensors[node.inputs[input_index]];
  if (!t.is_constant() || (t.dtype != DataType::kInt32 && t.dtype != DataType::kInt64)) {
    return UnimplementedError(g.NodeContext(node) + "input '" + t.name + "' must be a constant int32 tensor");
  }
  const size_t n = static_cast<size_t>(NumElements(t.shape));
  values->resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (t.dtype == DataType::kInt32) {
      int32_t v;
      std::memcpy(&v, t.data + 4 * i, 4);
      (*values)[i] = v;
    } else {
      int64_t v;
      std::memcpy(&v, t.data + 8 * i, 8);
      (*values)[i] = static_cast<int>(std::clamp<int64_t>(v, -(int64_t{1} << 31), (int64_t{1} << 31) - 1));
    }
  }
  return Status::Ok();
}

}  // namespace rill::inference::ir
