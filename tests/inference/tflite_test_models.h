// One-op TFLite models written with FlatBuffers' builder (the schema's field
// numbers by hand; the engine's reader has no generated code either), for
// tests of single TFLite ops.
#ifndef RILL_TESTS_INFERENCE_TFLITE_TEST_MODELS_H_
#define RILL_TESTS_INFERENCE_TFLITE_TEST_MODELS_H_

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rill::inference::testing {

struct TfliteTensor {
  std::string name;
  std::vector<int32_t> shape;
  std::vector<float> data;  // empty: an activation
};

// A model of one builtin op reading tensors `inputs` and writing `outputs`
// (indices into `tensors`); graph inputs are the activations among the op's
// inputs. `options` (may be null) writes the op's builtin options table into
// the builder and returns it, with `options_type` its BuiltinOptions union
// tag.
inline std::vector<uint8_t> OneOpTflite(
    int32_t builtin, const std::vector<TfliteTensor>& tensors, const std::vector<int32_t>& inputs,
    const std::vector<int32_t>& outputs, uint8_t options_type = 0,
    flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*) = nullptr) {
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
    if (!t.data.empty()) {
      const auto bytes = b.CreateVector(reinterpret_cast<const uint8_t*>(t.data.data()), t.data.size() * 4);
      const auto start = b.StartTable();
      b.AddOffset(FieldIndexToOffset(0), bytes);
      buffers.push_back(Offset<void>(b.EndTable(start)));
      buffer = static_cast<uint32_t>(buffers.size() - 1);
    }
    const auto shape = b.CreateVector(t.shape);
    const auto name = b.CreateString(t.name);
    const auto start = b.StartTable();
    b.AddOffset(FieldIndexToOffset(0), shape);
    b.AddElement<int8_t>(FieldIndexToOffset(1), 0, -1);  // FLOAT32
    b.AddElement<uint32_t>(FieldIndexToOffset(2), buffer, 0xFFFFFFFFu);
    b.AddOffset(FieldIndexToOffset(3), name);
    tensor_tables.push_back(Offset<void>(b.EndTable(start)));
  }
  std::vector<int32_t> graph_inputs;
  for (int32_t i : inputs) {
    if (tensors[i].data.empty()) graph_inputs.push_back(i);
  }
  const flatbuffers::uoffset_t opts = options ? options(&b) : 0;
  const auto op_inputs = b.CreateVector(inputs);
  const auto op_outputs = b.CreateVector(outputs);
  auto start = b.StartTable();
  b.AddElement<uint32_t>(FieldIndexToOffset(0), 0, 1);  // opcode index 0
  b.AddOffset(FieldIndexToOffset(1), op_inputs);
  b.AddOffset(FieldIndexToOffset(2), op_outputs);
  if (opts != 0) {
    b.AddElement<uint8_t>(FieldIndexToOffset(3), options_type, 0);
    b.AddOffset(FieldIndexToOffset(4), Offset<void>(opts));
  }
  const Offset<void> op(b.EndTable(start));
  const auto tensors_vec = b.CreateVector(tensor_tables);
  const auto in_vec = b.CreateVector(graph_inputs);
  const auto out_vec = b.CreateVector(outputs);
  const auto ops_vec = b.CreateVector(std::vector<Offset<void>>{op});
  start = b.StartTable();
  b.AddOffset(FieldIndexToOffset(0), tensors_vec);
  b.AddOffset(FieldIndexToOffset(1), in_vec);
  b.AddOffset(FieldIndexToOffset(2), out_vec);
  b.AddOffset(FieldIndexToOffset(3), ops_vec);
  const Offset<void> subgraph(b.EndTable(start));
  start = b.StartTable();
  b.AddElement<int8_t>(FieldIndexToOffset(0), static_cast<int8_t>(builtin < 127 ? builtin : 127), -1);
  b.AddElement<int32_t>(FieldIndexToOffset(3), builtin, -1);
  const Offset<void> opcode(b.EndTable(start));
  const auto opcodes = b.CreateVector(std::vector<Offset<void>>{opcode});
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

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_TFLITE_TEST_MODELS_H_
