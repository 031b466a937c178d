#include "inference/import/onnx/onnx_importer.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <set>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/import/unsupported_nodes.h"
#include "inference/runtime/importer_registry.h"

namespace rill::inference::onnx_import {

// Reads the graph's inputs and initializers, then converts node by node
// through the registered converters. A node the engine cannot convert is
// remembered and the import goes on, so that one error lists them all; the
// nodes that read its outputs cannot be converted without them and are
// skipped.
class Importer {
 public:
  Importer(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& source,
           const std::map<std::string, std::vector<int>>& input_shapes)
      : bytes_(std::move(bytes)), source_(source), input_shapes_(input_shapes) {}

  // Imports the model; an error while symbolic dimensions stood at 1 says so.
  StatusOr<std::shared_ptr<ir::Graph>> Run() {
    StatusOr<std::shared_ptr<ir::Graph>> g = RunImport();
    if (g.ok() || symbolic_.empty()) return g;
    return Status(g.status().code(), g.status().message() + " (" + symbolic_ +
                                         " taken as 1: give the input shapes with LoadOptions::input_shapes, "
                                         "rill model --input_shape=NAME:D,D,...)");
  }

 private:
  StatusOr<std::shared_ptr<ir::Graph>> RunImport() {
    if (bytes_->size() > static_cast<size_t>(INT32_MAX) ||
        !model_.ParseFromArray(bytes_->data(), static_cast<int>(bytes_->size()))) {
      return DataLossError(source_ + ": not a valid ONNX protobuf");
    }
    if (!model_.has_graph()) return DataLossError(source_ + ": ONNX model has no graph");
    int64_t opset = 13;
    for (const auto& o : model_.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
    }
    auto g = std::make_shared<ir::Graph>();
    g->source = source_;
    g->layout = Layout::kNCHW;
    // Converters resolve sizes from the import-time shapes (ir::Graph).
    g->specialized_to_input_shapes = true;
    ConverterContext c(g, &model_, opset);
    const onnx::GraphProto& graph = model_.graph();
    std::set<std::string> initializer_names;
    for (const onnx::TensorProto& t : graph.initializer()) {
      initializer_names.insert(t.name());
      RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstantFromProto(t, t.name()));
      c.values_[t.name()] = Value{id, false};
    }
    for (const onnx::ValueInfoProto& in : graph.input()) {
      if (initializer_names.count(in.name())) continue;
      RILL_INF_RETURN_IF_ERROR(AddGraphInput(c, in));
    }
    for (const auto& given : input_shapes_) {
      const Value* v = c.Find(given.first);
      if (v == nullptr || c.IsConst(v->id)) {
        return InvalidArgumentError(source_ + ": LoadOptions::input_shapes names '" + given.first +
                                    "', which is not an input of the model");
      }
    }
    for (int i = 0; i < graph.node_size(); ++i) {
      if (c.done_nodes_.count(i)) continue;  // imported with an earlier node
      RILL_INF_RETURN_IF_ERROR(ConvertNode(c, i));
    }
    if (!failures_.empty()) {
      const std::string note =
          skipped_ == 0 ? "" : "(" + std::to_string(skipped_) + " nodes reading their outputs skipped)";
      return UnsupportedNodesError(source_, failures_, note);
    }
    for (const onnx::ValueInfoProto& out : graph.output()) {
      c.where_ = source_ + ": output '" + out.name() + "': ";
      RILL_INF_ASSIGN_OR_RETURN(Value v, c.Get(out.name()));
      RILL_INF_ASSIGN_OR_RETURN(int id, c.ToNchw(v));
      if (c.IsConst(id)) return UnimplementedError(c.where_ + "graph output is a constant");
      if (std::find(g->inputs.begin(), g->inputs.end(), id) != g->inputs.end()) {
        return UnimplementedError(c.where_ + "graph output is a graph input");
      }
      g->tensors[id].name = out.name();
      g->outputs.push_back(id);
    }
    RILL_INF_RETURN_IF_ERROR(g->Validate());
    return g;
  }

  Status AddGraphInput(ConverterContext& c, const onnx::ValueInfoProto& in) {
    const auto& type = in.type();
    if (!type.has_tensor_type()) return UnimplementedError(source_ + ": input '" + in.name() + "' is not a tensor");
    if (type.tensor_type().elem_type() != kFloat) {
      return UnimplementedError(source_ + ": input '" + in.name() + "' is not float32");
    }
    Shape shape;
    std::vector<std::string> symbolic;
    const int input_index = static_cast<int>(c.graph_->inputs.size());
    for (const auto& d : type.tensor_type().shape().dim()) {
      // Symbolic dimensions (a dynamic batch) start at 1 unless given.
      if (!d.has_dim_value()) {
        symbolic.push_back(d.dim_param().empty() ? "?" : d.dim_param());
        c.graph_->symbolic_dims.push_back({input_index, static_cast<int>(shape.size()), symbolic.back()});
      }
      const int64_t v = d.has_dim_value() ? d.dim_value() : 1;
      if (v <= 0 || v > (1 << 24)) return DataLossError(source_ + ": input '" + in.name() + "' has a bad dimension");
      shape.push_back(static_cast<int>(v));
    }
    auto given = input_shapes_.find(in.name());
    if (given != input_shapes_.end()) {
      if (given->second.size() != shape.size()) {
        return InvalidArgumentError(source_ + ": LoadOptions::input_shapes gives input '" + in.name() + "' " +
                                    ShapeToString(given->second) + ", but it has rank " + std::to_string(shape.size()));
      }
      for (int d : given->second) {
        if (d <= 0 || d > (1 << 24)) {
          return InvalidArgumentError(source_ + ": LoadOptions::input_shapes gives input '" + in.name() +
                                      "' the bad shape " + ShapeToString(given->second));
        }
      }
      shape = given->second;
    } else if (!symbolic.empty()) {
      std::string dims;
      for (const std::string& d : symbolic) dims += (dims.empty() ? "" : ", ") + d;
      const std::string note = "input '" + in.name() + "' has symbolic dimensions " + dims;
      symbolic_ += (symbolic_.empty() ? "" : "; ") + note;
      c.graph_->symbolic_inputs.push_back(note);
    }
    const int id = c.NewTensor(in.name(), DataType::kFloat32);
    c.shapes_[id] = shape;
    c.graph_->tensors[id].shape = shape;
    c.graph_->inputs.push_back(id);
    c.values_[in.name()] = Value{id, false};
    return Status::Ok();
  }

  // Converts node `index`. Returns an error only for what stops the import;
  // an unsupported node is recorded in failures_.
  Status ConvertNode(ConverterContext& c, int index) {
    c.BeginNode(index);
    const onnx::NodeProto& node = c.node();
    const OnnxConverter convert = FindOnnxConverter(node.domain(), node.op_type());
    const bool reads_unconverted = std::any_of(node.input().begin(), node.input().end(),
                                               [&](const std::string& in) { return unconverted_.count(in) > 0; });
    Status s;
    if (convert == nullptr) {
      const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
      s = c.Unsupported(default_domain ? "unsupported op type '" + node.op_type() + "'"
                                       : "unsupported op '" + node.op_type() + "' of domain '" + node.domain() + "'");
    } else if (reads_unconverted) {
      // Its converter needs its inputs' shapes, which nothing produced.
      ++skipped_;
      for (const std::string& out : node.output()) unconverted_.insert(out);
      return Status::Ok();
    } else {
      s = convert(c);
      if (s.ok()) {
        PropagatePlanValues(c);
        c.NoteIntegerOutputs();
        return s;
      }
    }
    if (s.code() != StatusCode::kUnimplemented) return s;
    // Converters' messages start with the node's prefix; other helpers'
    // (ConstantFromProto) with the model's.
    std::string what = s.message();
    for (const std::string& prefix : {c.where(), source_ + ": "}) {
      if (what.compare(0, prefix.size(), prefix) == 0) {
        what = what.substr(prefix.size());
        break;
      }
    }
    const std::string& attribute = c.unsupported_attribute_;
    failures_.push_back("node '" + c.node_name() + "' (" + node.op_type() + ")" +
                        (attribute.empty() ? "" : ", attribute '" + attribute + "'") + ": " + what);
    for (const std::string& out : node.output()) unconverted_.insert(out);
    return Status::Ok();
  }

  std::shared_ptr<const std::vector<uint8_t>> bytes_;
  std::string source_;
  onnx::ModelProto model_;
  // LoadOptions::input_shapes.
  std::map<std::string, std::vector<int>> input_shapes_;
  // Inputs whose symbolic dimensions stood at 1, for messages.
  std::string symbolic_;
  // One line per unsupported node.
  std::vector<std::string> failures_;
  // Outputs of the nodes in failures_, and of the nodes reading them.
  std::set<std::string> unconverted_;
  // Nodes whose converter did not run for want of their inputs.
  int skipped_ = 0;
};

namespace {

const bool kRegistered = RegisterModelImporter(ModelImporter{"onnx", &LooksLikeOnnx, &ImportOnnx});

}  // namespace

bool LooksLikeOnnx(const uint8_t* data, size_t size, const std::string& name) {
  (void)kRegistered;
  if (name.size() >= 5 && name.compare(name.size() - 5, 5, ".onnx") == 0) return true;
  // ModelProto starts with ir_version (field 1, varint): tag byte 0x08.
  return size >= 2 && data[0] == 0x08;
}

StatusOr<std::shared_ptr<ir::Graph>> ImportOnnx(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                                const std::string& source,
                                                const std::map<std::string, std::vector<int>>& input_shapes) {
  if (!bytes) return InvalidArgumentError(source + ": no data");
  Importer importer(std::move(bytes), source, input_shapes);
  return importer.Run();
}

}  // namespace rill::inference::onnx_import
