#include "inference/backend/cpu/kernels/ref/densify.h"

#include <cstring>

namespace rill::inference::cpu {
namespace {

struct DensifyWalk {
  const ir::SparsityInfo& s;
  const std::vector<int>& shape;
  size_t elem_size;
  const uint8_t* values;
  size_t num_values;
  uint8_t* out;
  std::string* error;
  int rank;
  std::vector<int> level_index;   // index chosen at each traversal level
  std::vector<int> level_of_dim;  // traversal level of each (original or block) dim
  long long visits = 0;
  long long max_visits = 0;

  bool Fail(const std::string& what) {
    *error = what;
    return false;
  }

  bool Leaf(long long pos) {
    if (pos < 0 || static_cast<size_t>(pos) >= num_values) return Fail("sparse value index out of range");
    long long offset = 0;
    for (int d = 0; d < rank; ++d) {
      long long coord = level_index[level_of_dim[d]];
      for (size_t k = 0; k < s.block_map.size(); ++k) {
        if (s.block_map[k] == d) {
          const int block_level = level_of_dim[rank + k];
          coord = coord * s.dims[block_level].dense_size + level_index[block_level];
        }
      }
      if (coord < 0 || coord >= shape[d]) return Fail("sparse coordinate out of range");
      offset = offset * shape[d] + coord;
    }
    std::memcpy(out + offset * elem_size, values + pos * elem_size, elem_size);
    return true;
  }

  bool Walk(size_t level, long long pos) {
    if (++visits > max_visits) return Fail("sparse metadata describes more entries than the tensor holds");
    if (level == s.dims.size()) return Leaf(pos);
    const ir::SparsityInfo::Dim& dim = s.dims[level];
    if (!dim.sparse) {
      for (int i = 0; i < dim.dense_size; ++i) {
        level_index[level] = i;
        if (!Walk(level + 1, pos * dim.dense_size + i)) return false;
      }
      return true;
    }
    if (pos < 0 || static_cast<size_t>(pos) + 1 >= dim.segments.size()) return Fail("sparse segment index out of range");
    const int begin = dim.segments[pos], end = dim.segments[pos + 1];
    if (begin < 0 || end < begin || static_cast<size_t>(end) > dim.indices.size()) {
      return Fail("sparse segments are not a valid range");
    }
    for (int j = begin; j < end; ++j) {
      level_index[level] = dim.indices[j];
      if (!Walk(level + 1, j)) return false;
    }
    return true;
  }
};

}  // namespace

bool DensifyRef(const ir::SparsityInfo& s, const std::vector<int>& dense_shape, size_t elem_size,
                const uint8_t* values, size_t num_values, uint8_t* out, std::string* error) {
  const int rank = static_cast<int>(dense_shape.size());
  const size_t levels = s.traversal_order.size();
  if (levels != rank + s.block_map.size() || s.dims.size() != levels || levels > 12) {
    *error = "sparsity traversal order, block map and dimension metadata do not match the shape";
    return false;
  }
  long long total = 1;
  for (int d : dense_shape) total *= d;
  std::memset(out, 0, static_cast<size_t>(total) * elem_size);
  DensifyWalk w{s, dense_shape, elem_size, values, num_values, out, error, rank,
                std::vector<int>(levels, 0), std::vector<int>(levels, -1)};
  for (size_t l = 0; l < levels; ++l) {
    const int d = s.traversal_order[l];
    if (d < 0 || static_cast<size_t>(d) >= levels || w.level_of_dim[d] != -1) {
      *error = "sparsity traversal order is not a permutation";
      return false;
    }
    w.level_of_dim[d] = static_cast<int>(l);
    if (!s.dims[l].sparse && (s.dims[l].dense_size < 0 || s.dims[l].dense_size > (1 << 24))) {
      *error = "sparsity dense size out of range";
      return false;
    }
  }
  for (int b : s.block_map) {
    if (b < 0 || b >= rank) {
      *error = "sparsity block map out of range";
      return false;
    }
  }
  // Every visited node of the walk either leads to a stored value or is a
  // prefix of one; bound the walk so corrupt sizes cannot make it run forever.
  w.max_visits = 4 * (total + 1) * static_cast<long long>(levels + 1) + 1024;
  return w.Walk(0, 0);
}

}  // namespace rill::inference::cpu
