#include "inference/import/tflite/tflite_importer.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/dequantize.h"
#include "inference/backend/cpu/kernels/ref/densify.h"
#include "inference/import/tflite/flatbuffer_reader.h"
#include "inference/import/tflite/tflite_converter.h"
#include "inference/import/unsupported_nodes.h"

namespace rill::inference::tflite {
namespace {

using Table = FlatBufferReader::Table;
using Vector = FlatBufferReader::Vector;

// Field ids of the TFLite schema tables we read.
namespace model_field { constexpr int kOperatorCodes = 1, kSubgraphs = 2, kBuffers = 4; }
namespace opcode_field { constexpr int kDeprecatedBuiltin = 0, kCustomCode = 1, kVersion = 2, kBuiltin = 3; }
namespace subgraph_field { constexpr int kTensors = 0, kInputs = 1, kOutputs = 2, kOperators = 3; }
namespace tensor_field { constexpr int kShape = 0, kType = 1, kBuffer = 2, kName = 3, kIsVariable = 5, kSparsity = 6; }
namespace buffer_field { constexpr int kData = 0, kOffset = 1, kSize = 2; }
namespace operator_field { constexpr int kOpcodeIndex = 0, kInputs = 1, kOutputs = 2, kBuiltinOptions = 4; }
namespace sparsity_field { constexpr int kTraversalOrder = 0, kBlockMap = 1, kDimMetadata = 2; }
namespace dim_field {
constexpr int kFormat = 0, kDenseSize = 1, kSegmentsType = 2, kSegments = 3, kIndicesType = 4, kIndices = 5;
}

class Importer {
 public:
  Importer(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& source)
      : bytes_(std::move(bytes)), r_(bytes_->data(), bytes_->size()), graph_(std::make_shared<ir::Graph>()) {
    graph_->source = source;
    graph_->Retain(bytes_);
  }

  StatusOr<std::shared_ptr<ir::Graph>> Run() {
    RILL_INF_RETURN_IF_ERROR(ReadModel());
    FloatActivations();
    RILL_INF_RETURN_IF_ERROR(FoldConstants());
    RILL_INF_RETURN_IF_ERROR(graph_->Validate());
    std::vector<Shape> shapes = graph_->InitialShapes();
    RILL_INF_RETURN_IF_ERROR(graph_->InferShapes(&shapes));
    for (size_t i = 0; i < shapes.size(); ++i) graph_->tensors[i].shape = shapes[i];
    return graph_;
  }

 private:
  Status Corrupt(const std::string& what) const {
    return DataLossError(graph_->source + ": " + what + (r_.ok() ? "" : ": " + r_.error()));
  }
  Status CheckReader(const std::string& what) const { return r_.ok() ? Status::Ok() : Corrupt(what); }

  Status ReadModel() {
    if (bytes_->size() < 8) return Corrupt("file too small to be a TFLite model");
    const Table model = r_.Root();
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading the model table"));
    RILL_INF_RETURN_IF_ERROR(ReadOpCodes(model));
    RILL_INF_RETURN_IF_ERROR(ReadBuffers(model));
    const Vector subgraphs = r_.GetVector(model, model_field::kSubgraphs, 4);
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading subgraphs"));
    if (!subgraphs.valid || subgraphs.size == 0) return Corrupt("model has no subgraph");
    const Table sg = r_.TableAt(subgraphs, 0);
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading subgraph 0"));
    RILL_INF_RETURN_IF_ERROR(ReadTensors(sg));
    RILL_INF_RETURN_IF_ERROR(ReadIndexList(sg, subgraph_field::kInputs, "inputs", &graph_->inputs));
    RILL_INF_RETURN_IF_ERROR(ReadIndexList(sg, subgraph_field::kOutputs, "outputs", &graph_->outputs));
    RILL_INF_RETURN_IF_ERROR(ReadOperators(sg));
    return BindVariables();
  }

  // Variable tensors (is_variable: the LSTM and RNN states) that an
  // operator updated become state carried from run to run
  // (ir::Graph::variables: an input and an output after the caller's);
  // one no operator updates keeps its first value, zeros, as a constant.
  // TFLite starts every variable at zero, whatever its buffer holds.
  Status BindVariables() {
    std::vector<int> updated(graph_->tensors.size(), -1);
    for (const auto& [variable, value] : variable_updates_) {
      if (updated[variable] >= 0) {
        return UnimplementedError(graph_->source + ": variable tensor '" + graph_->tensors[variable].name +
                                  "' is updated by two operators");
      }
      updated[variable] = value;
    }
    std::vector<bool> read(graph_->tensors.size(), false);
    for (const ir::Node& n : graph_->nodes) {
      for (int id : n.inputs) {
        if (id >= 0) read[id] = true;
      }
    }
    for (size_t id = 0; id < is_variable_.size(); ++id) {  // the file's tensors
      if (!is_variable_[id]) continue;
      ir::TensorInfo& t = graph_->tensors[id];
      if (t.dtype != DataType::kFloat32) {
        return UnimplementedError(graph_->source + ": variable tensor '" + t.name + "' of type " +
                                  DataTypeName(t.dtype) + " (float32 state is supported)");
      }
      const auto in_list = [&](std::vector<int>& list) {
        for (size_t k = 0; k < list.size(); ++k) {
          if (list[k] == static_cast<int>(id)) {
            list.erase(list.begin() + static_cast<std::ptrdiff_t>(k));
            return true;
          }
        }
        return false;
      };
      in_list(graph_->inputs);  // some converters list the states among the inputs
      if (updated[id] >= 0) {
        graph_->variables.push_back({static_cast<int>(id), updated[id]});
      } else if (read[id]) {
        const Shape shape = t.shape;
        if (NumElements(shape) > (int64_t{1} << 28)) {
          return InvalidArgumentError(graph_->source + ": variable tensor '" + t.name + "' is too large");
        }
        graph_->SetConstant(static_cast<int>(id), DataType::kFloat32, shape,
                            std::vector<uint8_t>(static_cast<size_t>(NumElements(shape)) * 4, 0));
      }
    }
    for (const ir::Graph::Variable& v : graph_->variables) graph_->inputs.push_back(v.input);
    for (const ir::Graph::Variable& v : graph_->variables) graph_->outputs.push_back(v.output);
    return Status::Ok();
  }

  Status ReadOpCodes(const Table& model) {
    const Vector v = r_.GetVector(model, model_field::kOperatorCodes, 4);
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading operator codes"));
    for (uint32_t i = 0; v.valid && i < v.size; ++i) {
      const Table t = r_.TableAt(v, i);
      OpCode oc;
      const int32_t deprecated = r_.Scalar<int8_t>(t, opcode_field::kDeprecatedBuiltin, 0);
      const int32_t builtin = r_.Scalar<int32_t>(t, opcode_field::kBuiltin, 0);
      // Newer files keep the code in builtin_code; older ones (codes < 127)
      // only in the deprecated byte. The larger of the two is the real one.
      oc.builtin = builtin > deprecated ? builtin : deprecated;
      oc.custom = r_.GetString(t, opcode_field::kCustomCode);
      oc.version = r_.Scalar<int32_t>(t, opcode_field::kVersion, 1);
      opcodes_.push_back(std::move(oc));
    }
    return CheckReader("reading operator codes");
  }

  Status ReadBuffers(const Table& model) {
    const Vector v = r_.GetVector(model, model_field::kBuffers, 4);
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading buffers"));
    for (uint32_t i = 0; v.valid && i < v.size; ++i) {
      const Table t = r_.TableAt(v, i);
      Buffer b;
      const Vector data = r_.GetVector(t, buffer_field::kData, 1);
      if (data.valid) {
        b.data = r_.BytesOf(data);
        b.size = data.size;
      } else {
        // Large models keep data outside the flatbuffer: offset/size into the file.
        const uint64_t offset = r_.Scalar<uint64_t>(t, buffer_field::kOffset, 0);
        const uint64_t size = r_.Scalar<uint64_t>(t, buffer_field::kSize, 0);
        if (offset > 1 && size > 0) {
          if (offset > bytes_->size() || size > bytes_->size() - offset) {
            return Corrupt("buffer " + std::to_string(i) + " lies outside the file");
          }
          b.data = bytes_->data() + offset;
          b.size = static_cast<size_t>(size);
        }
      }
      buffers_.push_back(b);
    }
    return CheckReader("reading buffers");
  }

  Status ReadTensors(const Table& sg) {
    const Vector v = r_.GetVector(sg, subgraph_field::kTensors, 4);
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading tensors"));
    if (!v.valid) return Corrupt("subgraph has no tensors");
    graph_->tensors.resize(v.size);
    for (uint32_t i = 0; i < v.size; ++i) {
      const Table t = r_.TableAt(v, i);
      ir::TensorInfo& info = graph_->tensors[i];
      info.name = r_.GetString(t, tensor_field::kName);
      if (info.name.empty()) info.name = "tensor_" + std::to_string(i);
      const Vector shape = r_.GetVector(t, tensor_field::kShape, 4);
      for (uint32_t d = 0; shape.valid && d < shape.size; ++d) info.shape.push_back(r_.ScalarAt<int32_t>(shape, d));
      RILL_INF_RETURN_IF_ERROR(CheckReader("reading tensor " + std::to_string(i)));
      if (info.shape.size() > 8) return Corrupt("tensor '" + info.name + "' has rank > 8");
      for (int d : info.shape) {
        if (d < 0) return InvalidArgumentError(graph_->source + ": tensor '" + info.name + "' has a dynamic or negative dimension " + ShapeToString(info.shape));
      }
      const int8_t type = r_.Scalar<int8_t>(t, tensor_field::kType, 0);
      switch (type) {
        case 0: info.dtype = DataType::kFloat32; break;
        case 1: info.dtype = DataType::kFloat16; break;
        case 2: info.dtype = DataType::kInt32; break;
        case 3: info.dtype = DataType::kUInt8; break;
        case 4: info.dtype = DataType::kInt64; break;
        case 6: info.dtype = DataType::kBool; break;
        case 9: info.dtype = DataType::kInt8; break;
        default:
          return UnimplementedError(graph_->source + ": tensor '" + info.name + "' has unsupported TFLite type " +
                                    std::to_string(type));
      }
      // A variable's buffer (if any) is not its value: it starts at zero.
      is_variable_.push_back(r_.Scalar<uint8_t>(t, tensor_field::kIsVariable, 0) != 0);
      const uint32_t buffer = is_variable_.back() ? 0 : r_.Scalar<uint32_t>(t, tensor_field::kBuffer, 0);
      if (buffer >= buffers_.size() && buffer != 0) {
        return Corrupt("tensor '" + info.name + "' refers to buffer " + std::to_string(buffer) + " of " +
                       std::to_string(buffers_.size()));
      }
      if (buffer < buffers_.size() && buffers_[buffer].size > 0) {
        const Buffer& b = buffers_[buffer];
        if (reinterpret_cast<uintptr_t>(b.data) % 8 == 0) {
          info.data = b.data;  // zero-copy into the file's bytes
          info.bytes = b.size;
        } else {
          graph_->SetConstant(static_cast<int>(i), info.dtype, info.shape, std::vector<uint8_t>(b.data, b.data + b.size));
        }
      }
      const Table sparsity = r_.GetTable(t, tensor_field::kSparsity);
      RILL_INF_RETURN_IF_ERROR(CheckReader("reading tensor '" + info.name + "'"));
      if (sparsity.valid) {
        RILL_INF_RETURN_IF_ERROR(ReadSparsity(sparsity, &info));
      }
    }
    return Status::Ok();
  }

  Status ReadIntVector(const Vector& v, std::vector<int>* out) {
    out->clear();
    for (uint32_t i = 0; v.valid && i < v.size; ++i) out->push_back(r_.ScalarAt<int32_t>(v, i));
    return Status::Ok();
  }

  // A SparseIndexVector union: 1 = int32, 2 = uint16, 3 = uint8 values.
  Status ReadIndexVector(const Table& dim, int type_field, int value_field, std::vector<int>* out) {
    const uint8_t type = r_.Scalar<uint8_t>(dim, type_field, 0);
    const Table t = r_.GetTable(dim, value_field);
    if (!t.valid) return Corrupt("sparse dimension without index vector");
    out->clear();
    if (type == 1) {
      const Vector v = r_.GetVector(t, 0, 4);
      for (uint32_t i = 0; v.valid && i < v.size; ++i) out->push_back(r_.ScalarAt<int32_t>(v, i));
    } else if (type == 2) {
      const Vector v = r_.GetVector(t, 0, 2);
      for (uint32_t i = 0; v.valid && i < v.size; ++i) out->push_back(r_.ScalarAt<uint16_t>(v, i));
    } else if (type == 3) {
      const Vector v = r_.GetVector(t, 0, 1);
      for (uint32_t i = 0; v.valid && i < v.size; ++i) out->push_back(r_.ScalarAt<uint8_t>(v, i));
    } else {
      return Corrupt("unknown sparse index vector type " + std::to_string(type));
    }
    return CheckReader("reading sparse indices");
  }

  Status ReadSparsity(const Table& t, ir::TensorInfo* info) {
    auto s = std::make_shared<ir::SparsityInfo>();
    RILL_INF_RETURN_IF_ERROR(ReadIntVector(r_.GetVector(t, sparsity_field::kTraversalOrder, 4), &s->traversal_order));
    RILL_INF_RETURN_IF_ERROR(ReadIntVector(r_.GetVector(t, sparsity_field::kBlockMap, 4), &s->block_map));
    const Vector dims = r_.GetVector(t, sparsity_field::kDimMetadata, 4);
    for (uint32_t i = 0; dims.valid && i < dims.size && i < 16; ++i) {
      const Table d = r_.TableAt(dims, i);
      ir::SparsityInfo::Dim dim;
      dim.sparse = r_.Scalar<int8_t>(d, dim_field::kFormat, 0) == 1;
      dim.dense_size = r_.Scalar<int32_t>(d, dim_field::kDenseSize, 0);
      if (dim.sparse) {
        RILL_INF_RETURN_IF_ERROR(ReadIndexVector(d, dim_field::kSegmentsType, dim_field::kSegments, &dim.segments));
        RILL_INF_RETURN_IF_ERROR(ReadIndexVector(d, dim_field::kIndicesType, dim_field::kIndices, &dim.indices));
      }
      s->dims.push_back(std::move(dim));
    }
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading sparsity of '" + info->name + "'"));
    if (!info->is_constant()) return Corrupt("sparse tensor '" + info->name + "' has no data");
    info->sparsity = std::move(s);
    return Status::Ok();
  }

  Status ReadIndexList(const Table& t, int field, const std::string& what, std::vector<int>* out) {
    const Vector v = r_.GetVector(t, field, 4);
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading " + what));
    out->clear();
    for (uint32_t i = 0; v.valid && i < v.size; ++i) {
      const int32_t id = r_.ScalarAt<int32_t>(v, i);
      if (id < -1 || id >= static_cast<int32_t>(graph_->tensors.size())) {
        return Corrupt(what + " refer to tensor " + std::to_string(id) + " of " + std::to_string(graph_->tensors.size()));
      }
      out->push_back(id);
    }
    return CheckReader("reading " + what);
  }

  // Reads every operator into a node through its converter. An operator
  // the engine cannot convert is recorded and reading goes on, so that one
  // error names them all; a corrupt file stops at once.
  Status ReadOperators(const Table& sg) {
    const Vector ops = r_.GetVector(sg, subgraph_field::kOperators, 4);
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading operators"));
    std::vector<std::string> unsupported;
    for (uint32_t i = 0; ops.valid && i < ops.size; ++i) {
      const Table op = r_.TableAt(ops, i);
      ir::Node node;
      RILL_INF_RETURN_IF_ERROR(ReadIndexList(op, operator_field::kInputs, "operator inputs", &node.inputs));
      RILL_INF_RETURN_IF_ERROR(ReadIndexList(op, operator_field::kOutputs, "operator outputs", &node.outputs));
      for (int id : node.outputs) {
        if (id < 0) return Corrupt("operator " + std::to_string(i) + " has an absent output");
      }
      node.name = node.outputs.empty() ? "op_" + std::to_string(i) : graph_->tensors[node.outputs[0]].name;
      const uint32_t opcode_index = r_.Scalar<uint32_t>(op, operator_field::kOpcodeIndex, 0);
      RILL_INF_RETURN_IF_ERROR(CheckReader("reading operator " + std::to_string(i)));
      if (opcode_index >= opcodes_.size()) {
        return Corrupt("operator " + std::to_string(i) + " uses opcode " + std::to_string(opcode_index) + " of " +
                       std::to_string(opcodes_.size()));
      }
      const OpCode& oc = opcodes_[opcode_index];
      const std::string node_ref = "node #" + std::to_string(i) + " '" + node.name + "' (" + oc.Name() + ")";
      const Table opts = r_.GetTable(op, operator_field::kBuiltinOptions);
      RILL_INF_RETURN_IF_ERROR(CheckReader("reading options of operator " + std::to_string(i)));
      ConverterContext c(r_, *graph_, oc, op, opts, &node, graph_->source + ": " + node_ref + ": ");
      c.set_variables(&is_variable_);
      const TfLiteConverter convert = FindTfLiteConverter(oc);
      const Status s = convert != nullptr ? convert(c)
                       : oc.builtin == kCustom ? c.Unsupported("unsupported custom op '" + oc.custom + "'")
                                               : c.Unsupported("unsupported op " + oc.Name());
      if (!s.ok() && s.code() != StatusCode::kUnimplemented) return s;
      RILL_INF_RETURN_IF_ERROR(CheckReader("reading operator " + std::to_string(i)));
      if (!s.ok()) {
        const std::string& attribute = c.unsupported_attribute();
        const bool prefixed = s.message().compare(0, c.where().size(), c.where()) == 0;
        unsupported.push_back(node_ref + (attribute.empty() ? "" : ", option '" + attribute + "'") + ": " +
                              (prefixed ? s.message().substr(c.where().size()) : s.message()));
        continue;
      }
      for (ir::Node& emitted : c.emitted()) graph_->nodes.push_back(std::move(emitted));
      variable_updates_.insert(variable_updates_.end(), c.variable_updates().begin(), c.variable_updates().end());
      if (!c.lowered()) graph_->nodes.push_back(std::move(node));
    }
    RILL_INF_RETURN_IF_ERROR(CheckReader("reading operators"));
    return unsupported.empty() ? Status::Ok() : UnsupportedNodesError(graph_->source, unsupported);
  }

  // Values at run time are float32 (booleans 0 / 1, indices whole numbers):
  // int32, int64 and bool activations (ARG_MAX's indices, comparisons'
  // results, integer graph inputs) are float32 tensors.
  void FloatActivations() {
    for (ir::TensorInfo& t : graph_->tensors) {
      if (!t.is_constant() &&
          (t.dtype == DataType::kInt32 || t.dtype == DataType::kInt64 || t.dtype == DataType::kBool)) {
        t.dtype = DataType::kFloat32;
      }
    }
  }

  // Weights stored sparse or as fp16 behind DENSIFY/DEQUANTIZE become dense
  // fp32 constants; the nodes disappear.
  Status FoldConstants() {
    std::vector<ir::Node> kept;
    for (ir::Node& node : graph_->nodes) {
      const bool foldable = (node.type == ir::OpType::kDensify || node.type == ir::OpType::kDequantize) &&
                            node.inputs.size() == 1 && node.outputs.size() == 1 && node.inputs[0] >= 0 &&
                            graph_->tensors[node.inputs[0]].is_constant();
      if (!foldable) {
        if (node.type == ir::OpType::kDensify) {
          return UnimplementedError(graph_->NodeContext(node) + "DENSIFY of a non-constant tensor");
        }
        kept.push_back(std::move(node));
        continue;
      }
      const ir::TensorInfo& in = graph_->tensors[node.inputs[0]];
      const int out_id = node.outputs[0];
      const std::string ctx = graph_->source + ": node '" + node.name + "' (" + ir::OpTypeName(node.type) + "): ";
      if (graph_->tensors[out_id].is_constant()) return Corrupt("node '" + node.name + "' writes a constant");
      int64_t n = 1;
      for (int d : in.shape) {
        n *= d;
        if (n > (int64_t{1} << 30)) return InvalidArgumentError(ctx + "constant too large");
      }
      const size_t elem = DataTypeSize(in.dtype);
      if (elem == 0) return UnimplementedError(ctx + "constant of unsupported type");
      if (node.type == ir::OpType::kDensify) {
        if (!in.sparsity) return InvalidArgumentError(ctx + "input '" + in.name + "' is not sparse");
        // A dense weight far larger than anything the file could describe is corrupt.
        if (static_cast<size_t>(n) * elem > (size_t{256} << 20) ||
            static_cast<size_t>(n) > 64 * (in.bytes / elem + 1024)) {
          return DataLossError(ctx + "sparse tensor '" + in.name + "' claims an implausible dense shape " +
                               ShapeToString(in.shape));
        }
        std::vector<uint8_t> dense(static_cast<size_t>(n) * elem);
        std::string error;
        if (!cpu::DensifyRef(*in.sparsity, in.shape, elem, in.data, in.bytes / elem, dense.data(), &error)) {
          return DataLossError(ctx + "sparse tensor '" + in.name + "': " + error);
        }
        const DataType dtype = in.dtype;
        const Shape shape = in.shape;
        graph_->SetConstant(out_id, dtype, shape, std::move(dense));
      } else {
        if (in.sparsity) return UnimplementedError(ctx + "DEQUANTIZE of a sparse tensor without DENSIFY");
        if (in.bytes != static_cast<size_t>(n) * elem) {
          return DataLossError(ctx + "constant '" + in.name + "' has " + std::to_string(in.bytes) + " bytes, expected " +
                               std::to_string(static_cast<size_t>(n) * elem));
        }
        std::vector<uint8_t> out(static_cast<size_t>(n) * 4);
        float* f = reinterpret_cast<float*>(out.data());
        if (in.dtype == DataType::kFloat16) {
          std::vector<uint16_t> halfs(static_cast<size_t>(n));
          std::memcpy(halfs.data(), in.data, halfs.size() * 2);
          cpu::DequantizeFp16Ref(n, halfs.data(), f);
        } else if (in.dtype == DataType::kFloat32) {
          std::memcpy(f, in.data, out.size());
        } else {
          return UnimplementedError(ctx + "DEQUANTIZE of " + DataTypeName(in.dtype) + " weights");
        }
        const Shape shape = in.shape;
        graph_->SetConstant(out_id, DataType::kFloat32, shape, std::move(out));
      }
    }
    graph_->nodes = std::move(kept);
    return Status::Ok();
  }

  struct Buffer {
    const uint8_t* data = nullptr;
    size_t size = 0;
  };

  std::shared_ptr<const std::vector<uint8_t>> bytes_;
  FlatBufferReader r_;
  std::shared_ptr<ir::Graph> graph_;
  std::vector<OpCode> opcodes_;
  std::vector<Buffer> buffers_;
  std::vector<bool> is_variable_;                     // by tensor id
  std::vector<std::pair<int, int>> variable_updates_;  // (variable, its value after a run)
};

}  // namespace

bool LooksLikeTfLite(const uint8_t* data, size_t size) {
  return size >= 8 && std::memcmp(data + 4, "TFL3", 4) == 0;
}

StatusOr<std::shared_ptr<ir::Graph>> ImportTfLite(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                                  const std::string& source) {
  if (!bytes) return InvalidArgumentError(source + ": no data");
  Importer importer(std::move(bytes), source);
  return importer.Run();
}

}  // namespace rill::inference::tflite
