// Descriptors, shape functions and scalar functions of the bitwise ops
// (bitwise_ops.h).
#include "inference/ir/ops/bitwise_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/ops/tensor_ops.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status CheckAttrs(ShapeContext& c) {
  const auto* a = c.node().attrs_as<BitwiseAttrs>();
  if (a == nullptr) return c.Error("missing BitwiseAttrs");
  if (a->bits != 8 && a->bits != 16 && a->bits != 32 && a->bits != 64) {
    return c.Error("bits must be 8, 16, 32 or 64, is " + std::to_string(a->bits));
  }
  return Status::Ok();
}

Status NotShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  RILL_INF_RETURN_IF_ERROR(CheckAttrs(c));
  return c.SetOut(c.In(0));
}

Status BinaryShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  RILL_INF_RETURN_IF_ERROR(CheckAttrs(c));
  if (c.In(0).size() > 6 || c.In(1).size() > 6) return c.Error("broadcasting supports rank <= 6");
  Shape out;
  if (!BroadcastShapes({c.In(0), c.In(1)}, &out)) {
    return c.Error("shapes " + ShapeToString(c.In(0)) + " and " + ShapeToString(c.In(1)) + " do not broadcast");
  }
  return c.SetOut(out);
}

const char* const kNames[kNumBitwiseFns] = {"BITWISE_AND", "BITWISE_OR",     "BITWISE_XOR",
                                            "BITWISE_NOT", "BIT_SHIFT_LEFT", "BIT_SHIFT_RIGHT"};

struct Ids {
  OpType op[kNumBitwiseFns];
};

const Ids& AllIds() {
  static const Ids ids = [] {
    Ids r;
    for (int i = 0; i < kNumBitwiseFns; ++i) {
      const bool unary = static_cast<BitwiseFn>(i) == BitwiseFn::kNot;
      r.op[i] = RegisterOp({OpType::kRegisteredOp, kNames[i], unary ? NotShape : BinaryShape});
    }
    return r;
  }();
  return ids;
}

// The value's low `bits` bits as the type: sign-extended or zero-extended.
int64_t Wrap(uint64_t v, const BitwiseAttrs& a) {
  if (a.bits >= 64) return static_cast<int64_t>(v);
  const uint64_t mask = (uint64_t{1} << a.bits) - 1;
  v &= mask;
  if (a.is_signed && ((v >> (a.bits - 1)) & 1) != 0) v |= ~mask;
  return static_cast<int64_t>(v);
}

}  // namespace

OpType BitwiseOp(BitwiseFn fn) { return AllIds().op[static_cast<int>(fn)]; }

bool IsBitwiseOp(OpType type, BitwiseFn* fn) {
  const Ids& ids = AllIds();
  for (int i = 0; i < kNumBitwiseFns; ++i) {
    if (ids.op[i] == type) {
      if (fn != nullptr) *fn = static_cast<BitwiseFn>(i);
      return true;
    }
  }
  return false;
}

int64_t BitwiseFromFloat(float x, const BitwiseAttrs& a) {
  if (!a.is_signed && a.bits == 64 && x >= 9223372036854775808.0f) {
    return static_cast<int64_t>(static_cast<uint64_t>(x));
  }
  if (!(x > -9223372036854775808.0f && x < 9223372036854775808.0f)) return 0;  // NaN, out of range
  return static_cast<int64_t>(x);
}

float BitwiseToFloat(int64_t v, const BitwiseAttrs& a) {
  if (!a.is_signed && a.bits == 64) return static_cast<float>(static_cast<uint64_t>(v));
  return static_cast<float>(v);
}

int64_t ApplyBitwise(BitwiseFn fn, const BitwiseAttrs& a, int64_t x, int64_t b) {
  const uint64_t ux = static_cast<uint64_t>(Wrap(static_cast<uint64_t>(x), a));
  const uint64_t ub = static_cast<uint64_t>(Wrap(static_cast<uint64_t>(b), a));
  switch (fn) {
    case BitwiseFn::kAnd: return Wrap(ux & ub, a);
    case BitwiseFn::kOr: return Wrap(ux | ub, a);
    case BitwiseFn::kXor: return Wrap(ux ^ ub, a);
    case BitwiseFn::kNot: return Wrap(~ux, a);
    case BitwiseFn::kShiftLeft: {
      // The amount as an unsigned value of the type.
      const uint64_t n = a.bits >= 64 ? ub : ub & ((uint64_t{1} << a.bits) - 1);
      return n >= static_cast<uint64_t>(a.bits) ? 0 : Wrap(ux << n, a);
    }
    case BitwiseFn::kShiftRight: {
      const uint64_t mask = a.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << a.bits) - 1;
      const uint64_t n = ub & mask;
      return n >= static_cast<uint64_t>(a.bits) ? 0 : Wrap((ux & mask) >> n, a);
    }
  }
  return 0;
}

namespace {
const bool kRegistered = BitwiseOp(BitwiseFn::kAnd) != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
