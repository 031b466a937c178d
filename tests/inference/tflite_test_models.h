// Small TFLite models written with FlatBuffers' builder (the schema's field
// numbers by hand; the engine's reader has no generated code either), for
// tests of single TFLite ops and of the importer.
#ifndef RILL_TESTS_INFERENCE_TFLITE_TEST_MODELS_H_
#define RILL_TESTS_INFERENCE_TFLITE_TEST_MODELS_H_

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rill::inference::testing {

struct TfliteTensor {
  std::string name;
  std::vector<int32_t> shape;
  std::vector<float> data;  // empty: an activation (unless int_data is set)
  std::vector<int32_t> int_data;  // an INT32 constant
  bool variable = false;          // is_variable: state carried from run to run (no buffer)
  std::vector<uint16_t> half_data;  // a FLOAT16 constant (IEEE half bits)
};

// One operator of a TfliteModel: a builtin code (32, CUSTOM, with `custom`
// its name, `custom_options` its options bytes, `version` its operator
// code's version) reading tensors `inputs` and writing `outputs` (indices into the
// model's tensors). `options` (may be null) writes the op's builtin options
// table into the builder and returns it, with `options_type` its
// BuiltinOptions union tag.
struct TfliteOp {
  int32_t builtin = 0;
  std::string custom;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  uint8_t options_type = 0;
  flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*) = nullptr;
  std::vector<uint8_t> custom_options;  // a custom op's (empty: none)
  int32_t version = 1;                  // the operator code's version
};

// A model running `ops` in order. Graph inputs are the activations that ops
// read and none writes (variables are not inputs); graph outputs are
// `outputs`.
inline std::vector<uint8_t> TfliteModel(const std::vector<TfliteTensor>& tensors, const std::vector<TfliteOp>& ops,
                                        const std::vector<int32_t>& outputs) {
  using flatbuffers::FieldIndexToOffset;
  using flatbuffers::Offset;
  flatbuffers::FlatBufferBuilder b;
  // Buffers: 0 is the empty one; each constant tensor gets its own.
  std::vector<Offset<void>> buffers;
  auto empty_buffer = [&] { return Offset<void>(b.EndTable(b.StartTable())); };
  buffers.push_back(empty_buffer());
  std::vector<Offset<void>> tensor_tables;
  for (const TfliteTensor& t : tensors) {
    uint32_t buffer = 0;
    const bool is_int = !t.int_data.empty(), is_half = !t.half_data.empty();
    if (!t.data.empty() || is_int || is_half) {
      const uint8_t* raw = is_int    ? reinterpret_cast<const uint8_t*>(t.int_data.data())
                           : is_half ? reinterpret_cast<const uint8_t*>(t.half_data.data())
                                     : reinterpret_cast<const uint8_t*>(t.data.data());
      const size_t size = is_int ? t.int_data.size() * 4 : is_half ? t.half_data.size() * 2 : t.data.size() * 4;
      const auto bytes = b.CreateVector(raw, size);
      const auto start = b.StartTable();
      b.AddOffset(FieldIndexToOffset(0), bytes);
      buffers.push_back(Offset<void>(b.EndTable(start)));
      buffer = static_cast<uint32_t>(buffers.size() - 1);
    }
    const auto shape = b.CreateVector(t.shape);
    const auto name = b.CreateString(t.name);
    const auto start = b.StartTable();
    b.AddOffset(FieldIndexToOffset(0), shape);
    b.AddElement<int8_t>(FieldIndexToOffset(1), is_int ? 2 : is_half ? 1 : 0, -1);  // INT32, FLOAT16 or FLOAT32
    b.AddElement<uint32_t>(FieldIndexToOffset(2), buffer, 0xFFFFFFFFu);
    b.AddOffset(FieldIndexToOffset(3), name);
    if (t.variable) b.AddElement<uint8_t>(FieldIndexToOffset(5), 1, 0);
    tensor_tables.push_back(Offset<void>(b.EndTable(start)));
  }
  std::vector<int32_t> graph_inputs;
  for (const TfliteOp& op : ops) {
    for (int32_t i : op.inputs) {
      bool written = false;
      for (const TfliteOp& other : ops) {
        for (int32_t o : other.outputs) written = written || o == i;
      }
      bool listed = false;
      for (int32_t g : graph_inputs) listed = listed || g == i;
      if (i < 0 || tensors[i].variable) continue;  // absent optional input; state
      if (tensors[i].data.empty() && tensors[i].int_data.empty() && tensors[i].half_data.empty() && !written &&
          !listed) {
        graph_inputs.push_back(i);
      }
    }
  }
  // One operator code per distinct (builtin, custom name, version).
  struct Code {
    int32_t builtin;
    std::string custom;
    int32_t version;
    bool operator!=(const Code& o) const { return builtin != o.builtin || custom != o.custom || version != o.version; }
  };
  std::vector<Code> codes;
  std::vector<Offset<void>> op_tables;
  for (const TfliteOp& op : ops) {
    uint32_t code = 0;
    const Code key{op.builtin, op.custom, op.version};
    while (code < codes.size() && codes[code] != key) ++code;
    if (code == codes.size()) codes.push_back(key);
    const flatbuffers::uoffset_t opts = op.options ? op.options(&b) : 0;
    const auto custom_options = op.custom_options.empty() ? flatbuffers::Offset<flatbuffers::Vector<uint8_t>>()
                                                          : b.CreateVector(op.custom_options);
    const auto op_inputs = b.CreateVector(op.inputs);
    const auto op_outputs = b.CreateVector(op.outputs);
    const auto start = b.StartTable();
    b.AddElement<uint32_t>(FieldIndexToOffset(0), code, 0xFFFFFFFFu);  // written even when 0
    b.AddOffset(FieldIndexToOffset(1), op_inputs);
    b.AddOffset(FieldIndexToOffset(2), op_outputs);
    if (opts != 0) {
      b.AddElement<uint8_t>(FieldIndexToOffset(3), op.options_type, 0);
      b.AddOffset(FieldIndexToOffset(4), Offset<void>(opts));
    }
    if (!op.custom_options.empty()) b.AddOffset(FieldIndexToOffset(5), custom_options);
    op_tables.push_back(Offset<void>(b.EndTable(start)));
  }
  const auto tensors_vec = b.CreateVector(tensor_tables);
  const auto in_vec = b.CreateVector(graph_inputs);
  const auto out_vec = b.CreateVector(outputs);
  const auto ops_vec = b.CreateVector(op_tables);
  auto start = b.StartTable();
  b.AddOffset(FieldIndexToOffset(0), tensors_vec);
  b.AddOffset(FieldIndexToOffset(1), in_vec);
  b.AddOffset(FieldIndexToOffset(2), out_vec);
  b.AddOffset(FieldIndexToOffset(3), ops_vec);
  const Offset<void> subgraph(b.EndTable(start));
  std::vector<Offset<void>> opcode_tables;
  for (const auto& [builtin, custom, version] : codes) {
    const auto custom_name = custom.empty() ? Offset<flatbuffers::String>() : b.CreateString(custom);
    start = b.StartTable();
    b.AddElement<int8_t>(FieldIndexToOffset(0), static_cast<int8_t>(builtin < 127 ? builtin : 127), -1);
    if (!custom.empty()) b.AddOffset(FieldIndexToOffset(1), custom_name);
    b.AddElement<int32_t>(FieldIndexToOffset(2), version, 0);
    b.AddElement<int32_t>(FieldIndexToOffset(3), builtin, -1);
    opcode_tables.push_back(Offset<void>(b.EndTable(start)));
  }
  const auto opcodes = b.CreateVector(opcode_tables);
  const auto subgraphs = b.CreateVector(std::vector<Offset<void>>{subgraph});
  const auto buffers_vec = b.CreateVector(buffers);
  start = b.StartTable();
  b.AddElement<uint32_t>(FieldIndexToOffset(0), 3, 0);  // schema version
  b.AddOffset(FieldIndexToOffset(1), opcodes);
  b.AddOffset(FieldIndexToOffset(2), subgraphs);
  b.AddOffset(FieldIndexToOffset(4), buffers_vec);
  b.Finish(Offset<void>(b.EndTable(start)), "TFL3");
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

// A model of one builtin op reading tensors `inputs` and writing `outputs`
// (indices into `tensors`), with options as TfliteOp's.
inline std::vector<uint8_t> OneOpTflite(
    int32_t builtin, const std::vector<TfliteTensor>& tensors, const std::vector<int32_t>& inputs,
    const std::vector<int32_t>& outputs, uint8_t options_type = 0,
    flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*) = nullptr) {
  return TfliteModel(tensors, {TfliteOp{builtin, "", inputs, outputs, options_type, options}}, outputs);
}

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_TFLITE_TEST_MODELS_H_
