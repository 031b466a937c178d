// Small helpers the optimizer passes share: who reads and who writes each
// tensor, and the removal of nodes marked dead.
#ifndef RILL_INFERENCE_OPTIMIZE_GRAPH_EDIT_H_
#define RILL_INFERENCE_OPTIMIZE_GRAPH_EDIT_H_

#include <string>
#include <utility>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::optimize {

// How many nodes read each tensor; graph outputs count as one more reader.
inline std::vector<int> ReaderCounts(const ir::Graph& g) {
  std::vector<int> readers(g.tensors.size(), 0);
  for (const ir::Node& n : g.nodes) {
    for (int id : n.inputs) {
      if (id >= 0) ++readers[id];
    }
  }
  for (int id : g.outputs) ++readers[id];
  return readers;
}

// Index of the node producing each tensor (-1 if none).
inline std::vector<int> Producers(const ir::Graph& g) {
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (int id : g.nodes[i].outputs) producer[id] = static_cast<int>(i);
  }
  return producer;
}

// Removes nodes marked dead, keeping order.
inline void Sweep(ir::Graph* g, const std::vector<bool>& dead) {
  std::vector<ir::Node> kept;
  kept.reserve(g->nodes.size());
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    if (!dead[i]) kept.push_back(std::move(g->nodes[i]));
  }
  g->nodes = std::move(kept);
}

// A new activation tensor (no data) named `name`; its id.
inline int AddActivation(ir::Graph* g, const std::string& name, const Shape& shape,
                         DataType dtype = DataType::kFloat32) {
  ir::TensorInfo t;
  t.name = name;
  t.dtype = dtype;
  t.shape = shape;
  g->tensors.push_back(t);
  return static_cast<int>(g->tensors.size()) - 1;
}

}  // namespace rill::inference::optimize

#endif  // RILL_INFERENCE_OPTIMIZE_GRAPH_EDIT_H_
