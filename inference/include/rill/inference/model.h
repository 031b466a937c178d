// A loaded model: the graph IR an importer built from a file or a buffer, with
// its weights. A Model is immutable once loaded and can be shared by any
// number of sessions (each session owns its activations, never the weights).
#ifndef RILL_INFERENCE_MODEL_H_
#define RILL_INFERENCE_MODEL_H_

#include <cstddef>
#include <cstdint>
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
  // graph's symbolic_inputs lists them; `rill model` prints a note). The
  // importer resolves sizes from these shapes (shape arithmetic such as
  // PyTorch's x.view(x.size(0), -1), Flatten, Squeeze ...), so the graph is
  // valid at them only: Session::Resize to other shapes imports the model
  // again from its source (keep_source_for_resize). Give the shapes here
  // to start at the size you run (a symbolic image size that stays at 1 may
  // not even import). TFLite models keep their shapes; resize them with
  // Session::Resize.
  std::map<std::string, std::vector<int>> input_shapes;
  // ONNX: keep what Session::Resize needs to import the model again at new
  // input shapes: for Model::FromFile the file's path, size and time (the
  // file is read again then, and a file changed since is an error), for
  // Model::FromBuffer a copy of the bytes (as much memory again as the
  // model). false: such a Resize is a FailedPrecondition error naming the
  // input and dimension (reload with input_shapes instead).
  bool keep_source_for_resize = true;
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
  // A model that can import itself again at other input shapes (see
  // WithInputShapes): `bytes` is the file it was imported from.
  Model(std::shared_ptr<const ir::Graph> graph, std::shared_ptr<const std::vector<uint8_t>> bytes,
        const LoadOptions& options);

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

  // A dimension of an input that the model file leaves symbolic (ONNX
  // dim_param: "batch", "height"; "?" when unnamed). LoadOptions::input_shapes
  // and Session::Resize set it; input_shapes() holds its current value.
  struct SymbolicDim {
    std::string input;
    int axis = 0;  // in the model's layout (NCHW for ONNX)
    std::string name;
  };
  std::vector<SymbolicDim> symbolic_dims() const;
  // Whether the graph computes the model only at its input shapes (ONNX: the
  // importer resolved sizes from them). Session::Resize to other shapes then
  // imports the model again with WithInputShapes and plans that graph.
  bool specialized_to_input_shapes() const;
  // Whether WithInputShapes can import the model again (an ONNX model loaded
  // with LoadOptions::keep_source_for_resize).
  bool can_reimport() const { return bytes_ != nullptr || file_ != nullptr; }
  // The model imported again from its source (the file, read again, or the
  // kept bytes), with the same load options
  // but `input_shapes` replacing LoadOptions::input_shapes for the inputs it
  // names. Costs what the first load did (parse, convert, optimize).
  // FailedPrecondition when the model kept no bytes.
  StatusOr<std::shared_ptr<const Model>> WithInputShapes(
      const std::map<std::string, std::vector<int>>& input_shapes) const;

  const ir::Graph& graph() const { return *graph_; }

 private:
  std::shared_ptr<const ir::Graph> graph_;
  std::shared_ptr<const std::vector<uint8_t>> bytes_;  // for WithInputShapes; null: not kept
  // Or the file to read again (FromFile), as it was when loaded.
  struct SourceFile {
    std::string path;
    long long size = 0, mtime_ns = 0;
  };
  std::shared_ptr<const SourceFile> file_;
  LoadOptions options_;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_MODEL_H_
