#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

bool MakeBroadcastParams(const std::vector<int>& a, const std::vector<int>& b, BroadcastParams* p) {
  const int rank = static_cast<int>(std::max(a.size(), b.size()));
  if (rank > BroadcastParams::kMaxRank) return false;
  *p = BroadcastParams{};
  p->rank = rank;
  p->same_shape = a == b;
  long long sa = 1, sb = 1;
  p->out_size = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int ia = i - (rank - static_cast<int>(a.size()));
    const int ib = i - (rank - static_cast<int>(b.size()));
    const int da = ia >= 0 ? a[ia] : 1;
    const int db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    const int d = da == 1 ? db : da;
    p->out_dims[i] = d;
    p->a_strides[i] = da == 1 ? 0 : static_cast<int>(sa);
    p->b_strides[i] = db == 1 ? 0 : static_cast<int>(sb);
    sa *= da;
    sb *= db;
    p->out_size *= d;
  }
  return true;
}

}  // namespace rill::inference::cpu
