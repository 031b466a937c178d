// Reference DENSIFY: expands a TFLite-style sparse constant (CSR levels in a
// traversal order, optional blocks) into a dense tensor. The sparse metadata
// comes from a model file, so every index is checked; a malformed tensor is
// an error, never an out-of-bounds access.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DENSIFY_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DENSIFY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::cpu {

// Writes prod(dense_shape) elements of `elem_size` bytes to `out` (zeros where
// no value is stored). Returns false and sets `error` on malformed metadata.
bool DensifyRef(const ir::SparsityInfo& sparsity, const std::vector<int>& dense_shape, size_t elem_size,
                const uint8_t* values, size_t num_values, uint8_t* out, std::string* error);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DENSIFY_H_
