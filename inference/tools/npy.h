// NumPy's .npy format (versions 1-3), the array files `rill model run` reads
// its inputs from and writes its outputs to: a magic string, a header dict
// ('descr', 'fortran_order', 'shape') and the raw little-endian data.
#ifndef RILL_INFERENCE_TOOLS_NPY_H_
#define RILL_INFERENCE_TOOLS_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "rill/inference/inference.h"

namespace rill::inference::npy {

struct Array {
  DataType dtype = DataType::kUnknown;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // C order, little-endian
};

// Reads `path`; errors name the file and what is wrong with it (not .npy,
// big-endian or Fortran order, a dtype the engine has no tensor type for,
// data shorter than the shape says).
StatusOr<Array> Read(const std::string& path);

// Writes `bytes` (C order) as a version-1 .npy with `shape` and `dtype`.
Status Write(const std::string& path, DataType dtype,
             const std::vector<int64_t>& shape, const void* bytes,
             size_t num_bytes);

// The .npy type code of `dtype` ("<f4"), empty if none.
std::string Descr(DataType dtype);

}  // namespace rill::inference::npy

#endif  // RILL_INFERENCE_TOOLS_NPY_H_
