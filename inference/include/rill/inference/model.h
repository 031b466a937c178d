// A loaded model: the graph IR an importer built from a file or a buffer, with
// its weights. A Model is immutable once loaded and can be shared by any
// number of sessions (each session owns its activations, never the weights).
#ifndef RILL_INFERENCE_MODEL_H_
#define RILL_INFERENCE_MODEL_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rill/inference/status.h"
#include "rill/inference/tensor.h"

namespace rill::inference {

namespace ir {
class Graph;
}

struct LoadOptions {
  // Run the graph optimizer (pad/batch-norm folding into convs, activation
  // fusion, dead node removal). Off only to compare against the raw graph.
  bool optimize = true;
  // ONNX: the shapes of graph inputs by name, in the model's layout (NCHW),
  // replacing the file's symbolic dimensions (a dynamic batch, height, width)
  // or fixed ones. Symbolic dimensions not given here are taken as 1 (the
  // graph's symbolic_inputs lists them; `rill model` prints a note). Give
  // them when a model has symbolic image sizes, or when it computes shapes
  // from its inputs (Shape -> Gather -> Reshape, as PyTorch's
  // x.view(x.size(0), -1) exports): the importer folds that arithmetic with
  // these shapes, and Session::Resize cannot change them afterwards. TFLite
  // models keep their shapes; resize them with Session::Resize.
  std::map<std::string, std::vector<int>> input_shapes;
};

class Model {
 public:
  // Reads a model file; the format is told by its first bytes (TFLite's
  // "TFL3" identifier), not by its name. Errors name the file; a path that
  // is a directory, a FIFO, a device or an empty file is refused
  // (InvalidArgument) before anything is read from it.
  static StatusOr<std::shared_ptr<const Model>> FromFile(const std::string& path, const LoadOptions& options = {});
  // Parses a model from memory (copied; the caller may free `data` after).
  // `name` stands for the file in error messages.
  static StatusOr<std::shared_ptr<const Model>> FromBuffer(const void* data, size_t size,
                                                           const std::string& name = "<buffer>",
                                                           const LoadOptions& options = {});

  explicit Model(std::shared_ptr<const ir::Graph> graph);

  // Where the model came from (file path or buffer name).
  const std::string& source() const;
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  // Shapes as stored in the model (what a session starts with).
  std::vector<Shape> input_shapes() const;
  // Op counts and a one-line-per-node listing, for tools.
  int num_nodes() const;
  // Nodes in the dynamic region: those whose sizes are known only at run
  // time (a NonZero's count and what follows from it), run on the CPU with
  // shapes inferred at run time, again whenever they change (docs/design.md,
  // "Data-dependent sizes").
  int dynamic_node_count() const;
  std::string Summary() const;

  const ir::Graph& graph() const { return *graph_; }

 private:
  std::shared_ptr<const ir::Graph> graph_;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_MODEL_H_
