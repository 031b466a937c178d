#include "rill/inference/model.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "inference/import/tflite/tflite_importer.h"
#include "inference/ir/graph.h"
#include "inference/optimize/passes.h"
#include "inference/runtime/importer_registry.h"

namespace rill::inference {
namespace {

StatusOr<std::shared_ptr<const Model>> Finish(std::shared_ptr<ir::Graph> graph, const LoadOptions& options,
                                              std::shared_ptr<const std::vector<uint8_t>> bytes = nullptr) {
  if (options.optimize) RILL_INF_RETURN_IF_ERROR(optimize::Optimize(graph.get()));
  // A graph built for its input shapes keeps the bytes to be built again
  // for others (Session::Resize).
  if (!graph->specialized_to_input_shapes || !options.keep_source_for_resize) bytes = nullptr;
  return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(graph), std::move(bytes), options));
}

StatusOr<std::shared_ptr<const Model>> Import(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                              const std::string& name, const LoadOptions& options) {
  if (tflite::LooksLikeTfLite(bytes->data(), bytes->size())) {
    if (!options.input_shapes.empty()) {
      return InvalidArgumentError(name + ": LoadOptions::input_shapes is for ONNX models (whose shape arithmetic "
                                         "is folded at load); resize a TFLite model's inputs with Session::Resize");
    }
    RILL_INF_ASSIGN_OR_RETURN(std::shared_ptr<ir::Graph> graph, tflite::ImportTfLite(std::move(bytes), name));
    return Finish(std::move(graph), options);
  }
  std::string known = "tflite";
  for (const ModelImporter& importer : RegisteredModelImporters()) {
    if (importer.sniff(bytes->data(), bytes->size(), name)) {
      RILL_INF_ASSIGN_OR_RETURN(std::shared_ptr<ir::Graph> graph, importer.import(bytes, name, options.input_shapes));
      return Finish(std::move(graph), options, std::move(bytes));
    }
    known += ", " + importer.format;
  }
  return UnimplementedError(name + ": unknown model format (this binary reads: " + known +
                            "; link //inference/import/onnx for ONNX)");
}

}  // namespace

StatusOr<std::shared_ptr<const Model>> Model::FromFile(const std::string& path, const LoadOptions& options) {
  // Only a regular file is a model: a directory "opens" as a stream whose
  // size reads as garbage, and a FIFO or device would block or never end.
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return NotFoundError(path + ": cannot open model file: " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) return InvalidArgumentError(path + ": is a directory, not a model file");
  if (!S_ISREG(st.st_mode)) return InvalidArgumentError(path + ": is not a regular file (a model must be one)");
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    const int err = errno;
    return NotFoundError(path + ": cannot open model file: " + std::strerror(err));
  }
  const std::streamoff size = file.tellg();
  if (size < 0) return DataLossError(path + ": cannot read model file");
  file.seekg(0);
  auto bytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(size));
  if (size > 0 && !file.read(reinterpret_cast<char*>(bytes->data()), size)) {
    return DataLossError(path + ": short read");
  }
  if (bytes->empty()) return InvalidArgumentError(path + ": is empty, not a model file");
  RILL_INF_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Import(std::move(bytes), path, options));
  if (model->bytes_ == nullptr) return model;
  // A file is read again if a Resize needs it, rather than held in memory.
  auto copy = std::make_shared<Model>(model->graph_, nullptr, options);
  copy->file_ = std::make_shared<const SourceFile>(
      SourceFile{path, static_cast<long long>(st.st_size),
                 static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec});
  return std::shared_ptr<const Model>(std::move(copy));
}

StatusOr<std::shared_ptr<const Model>> Model::FromBuffer(const void* data, size_t size, const std::string& name,
                                                         const LoadOptions& options) {
  if (data == nullptr && size > 0) return InvalidArgumentError(name + ": null buffer");
  const uint8_t* p = static_cast<const uint8_t*>(data);
  auto bytes = std::make_shared<std::vector<uint8_t>>(p, p + size);
  return Import(std::move(bytes), name, options);
}

Model::Model(std::shared_ptr<const ir::Graph> graph) : graph_(std::move(graph)) {}

Model::Model(std::shared_ptr<const ir::Graph> graph, std::shared_ptr<const std::vector<uint8_t>> bytes,
             const LoadOptions& options)
    : graph_(std::move(graph)), bytes_(std::move(bytes)), options_(options) {}

bool Model::specialized_to_input_shapes() const { return graph_->specialized_to_input_shapes; }

std::vector<Model::SymbolicDim> Model::symbolic_dims() const {
  std::vector<SymbolicDim> dims;
  for (const ir::Graph::SymbolicDim& d : graph_->symbolic_dims) {
    dims.push_back({graph_->tensors[graph_->inputs[d.input]].name, d.axis, d.name});
  }
  return dims;
}

StatusOr<std::shared_ptr<const Model>> Model::WithInputShapes(
    const std::map<std::string, std::vector<int>>& input_shapes) const {
  if (!bytes_ && file_) {
    struct stat st;
    if (stat(file_->path.c_str(), &st) != 0 ||
        static_cast<long long>(st.st_size) != file_->size ||
        static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec != file_->mtime_ns) {
      return FailedPreconditionError(file_->path +
                                     ": the model file is gone or changed since it was loaded; it cannot be imported "
                                     "again at other input shapes (load it again)");
    }
    LoadOptions options = options_;
    for (const auto& [name, shape] : input_shapes) options.input_shapes[name] = shape;
    return FromFile(file_->path, options);
  }
  if (!bytes_) {
    return FailedPreconditionError(graph_->source + ": the model cannot be imported again at other input shapes (" +
                                   (graph_->specialized_to_input_shapes
                                        ? "loaded with LoadOptions::keep_source_for_resize false"
                                        : "its graph is not built for its input shapes; resize it in the session") +
                                   ")");
  }
  LoadOptions options = options_;
  for (const auto& [name, shape] : input_shapes) options.input_shapes[name] = shape;
  return Import(bytes_, graph_->source, options);
}

const std::string& Model::source() const { return graph_->source; }

std::vector<std::string> Model::input_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < graph_->num_user_inputs(); ++i) names.push_back(graph_->tensors[graph_->inputs[i]].name);
  return names;
}

std::vector<std::string> Model::output_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < graph_->num_user_outputs(); ++i) names.push_back(graph_->tensors[graph_->outputs[i]].name);
  return names;
}

std::vector<Shape> Model::input_shapes() const {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < graph_->num_user_inputs(); ++i) shapes.push_back(graph_->tensors[graph_->inputs[i]].shape);
  return shapes;
}

int Model::num_nodes() const { return static_cast<int>(graph_->nodes.size()); }

int Model::dynamic_node_count() const {
  std::vector<Shape> shapes = graph_->InitialShapes();
  std::vector<bool> dynamic;
  if (!graph_->InferShapes(&shapes, &dynamic).ok()) return 0;
  int n = 0;
  for (bool d : dynamic) n += d;
  return n;
}

std::string Model::Summary() const {
  std::ostringstream s;
  std::map<std::string, int> counts;
  for (const ir::Node& n : graph_->nodes) ++counts[ir::OpTypeName(n.type)];
  s << graph_->source << ": " << graph_->nodes.size() << " nodes\n";
  for (const auto& [op, count] : counts) s << "  " << op << " x" << count << "\n";
  for (size_t i = 0; i < graph_->num_user_inputs(); ++i) {
    const ir::TensorInfo& t = graph_->tensors[graph_->inputs[i]];
    s << "  input  " << t.name << " " << ShapeToString(t.shape) << "\n";
  }
  for (size_t i = 0; i < graph_->num_user_outputs(); ++i) {
    const ir::TensorInfo& t = graph_->tensors[graph_->outputs[i]];
    s << "  output " << t.name << " " << ShapeToString(t.shape) << "\n";
  }
  for (const ir::Graph::Variable& v : graph_->variables) {
    s << "  state  " << graph_->tensors[v.input].name << " " << ShapeToString(graph_->tensors[v.input].shape) << "\n";
  }
  return s.str();
}

}  // namespace rill::inference
