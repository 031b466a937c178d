// The bitwise ops: ONNX's BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot
// (opset 18) and BitShift (docs/design.md, "How to add an op"). Run-time
// values are float32 like every run-time value: each element is read as the
// whole number it holds, the operation is done on that integer as a value of
// the ONNX type the attributes name (`bits` wide, signed or not: a left
// shift wraps, NOT of an unsigned value is 2^bits - 1 - x), and the result is
// written back as float32, exact while it is below 2^24 in magnitude.
//
//   BITWISE_AND, BITWISE_OR, BITWISE_XOR (a, b): numpy broadcasting, rank <= 6.
//   BITWISE_NOT (x).
//   BIT_SHIFT_LEFT, BIT_SHIFT_RIGHT (x, amount): broadcasting; unsigned
//     types (ONNX's BitShift takes uint8..uint64); an amount of `bits` or
//     more gives 0.
#ifndef RILL_INFERENCE_IR_OPS_BITWISE_OPS_H_
#define RILL_INFERENCE_IR_OPS_BITWISE_OPS_H_

#include <cstdint>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

enum class BitwiseFn { kAnd, kOr, kXor, kNot, kShiftLeft, kShiftRight };
constexpr int kNumBitwiseFns = static_cast<int>(BitwiseFn::kShiftRight) + 1;

// The ONNX integer type the op computes in: 8, 16, 32 or 64 bits, signed or
// not.
struct BitwiseAttrs : TypedAttrs {
  int bits = 64;
  bool is_signed = true;
};

OpType BitwiseOp(BitwiseFn fn);
// Whether `type` is one of the bitwise ops (and which).
bool IsBitwiseOp(OpType type, BitwiseFn* fn);

// The integer an element holds (a whole float32), and the float32 an
// integer of the type is written as.
int64_t BitwiseFromFloat(float x, const BitwiseAttrs& a);
float BitwiseToFloat(int64_t v, const BitwiseAttrs& a);
// fn on integers of the type (b unread by BITWISE_NOT); the result wrapped
// to the type (as int64: unsigned 64-bit results keep their bits).
int64_t ApplyBitwise(BitwiseFn fn, const BitwiseAttrs& a, int64_t x, int64_t b);

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_BITWISE_OPS_H_
