// One descriptor per op (docs/design.md, "How to add an op"): its name, its
// shape function and, for ops outside the built-in OpType list, its id. An
// op's descriptor is registered beside its shape function (inference/ir/ops/
// for the built-in ops); its backends register their executions beside
// theirs (e.g. cpu::RegisterCpuOp), its importers their converters. Nothing
// else names the op, so adding one touches its own files only.
//
// Built-in ops keep their OpType enumerators (the optimizer's passes and the
// importers match on them). An op registered from elsewhere gets an id of
// its own from RegisterOp, and carries its attributes as a typed struct
// (Node::typed_attrs) rather than in OpAttrs. Register such an op from a
// function-local static (OpType MyOp() { static const OpType t =
// RegisterOp({...}); return t; }) so that registrations in other files that
// use its id do not depend on static initialization order.
#ifndef RILL_INFERENCE_IR_OP_REGISTRY_H_
#define RILL_INFERENCE_IR_OP_REGISTRY_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

class ShapeContext;

struct OpDescriptor {
  // The op's id: a built-in enumerator, or kRegisteredOp for RegisterOp to
  // assign one.
  OpType type = OpType::kRegisteredOp;
  const char* name = "";  // upper case, as the IR prints it: "CONV_2D"
  // Sets the node's output shape from its inputs' (ShapeContext::SetOut),
  // checking what it reads; errors name the node.
  Status (*infer_shapes)(ShapeContext& c) = nullptr;
};

// Registers a descriptor and returns its op's id (the one it names, or a new
// one for kRegisteredOp). A second registration of a name returns the first
// id and replaces the descriptor.
OpType RegisterOp(const OpDescriptor& op);
// Registers several; returns true (to initialise a static).
bool RegisterOps(std::initializer_list<OpDescriptor> ops);
// nullptr when no op has this id / name.
const OpDescriptor* FindOp(OpType type);
const OpDescriptor* FindOpByName(const std::string& name);
// Every registered op, in id order.
std::vector<OpDescriptor> RegisteredOps();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OP_REGISTRY_H_
