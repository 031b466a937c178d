#include "inference/backend/cpu/kernels/ref/recurrent.h"

#include <algorithm>
#include <vector>

namespace rill::inference::cpu {
namespace {

using ir::RecurrentKind;

float Clip(float v, float clip) { return clip > 0.0f ? std::min(std::max(v, -clip), clip) : v; }

// Whether direction `dir` runs from the last step.
bool Reversed(const ir::RecurrentAttrs& a, int dir) { return a.directions == 2 ? dir == 1 : a.reverse; }

}  // namespace

size_t RecurrentScratchFloats(const ir::RecurrentAttrs& a, const RecurrentDims& d) {
  const size_t rows = static_cast<size_t>(d.batch), h = static_cast<size_t>(d.hidden);
  // The state h and c, the products of a step, GRU's r . h and its product.
  return rows * h * 2 + rows * h * ir::GatesOf(a.kind) + rows * h * 2;
}

void ScalarRecurrentActivate(const ir::RecurrentFunction& f, float* v, int n) {
  for (int i = 0; i < n; ++i) v[i] = ir::ApplyRecurrentActivation(f, v[i]);
}

void RunRecurrentDirection(const ir::RecurrentAttrs& a, const RecurrentDims& d, int dir, const float* xw,
                           const float* init_h, const float* init_c, const float* peep,
                           const RecurrentProduct& product, const RecurrentActivate& activate, float* scratch,
                           float* out) {
  const int S = d.steps, B = d.batch, H = d.hidden, G = ir::GatesOf(a.kind), D = a.directions;
  const size_t bh = static_cast<size_t>(B) * H, gh = static_cast<size_t>(G) * H;
  float* h = scratch;
  float* c = h + bh;
  float* hr = c + bh;
  float* rh = hr + bh * G;  // GRU: r . h
  float* hn = rh + bh;      // GRU: (r . h) R_h^T + Rbh
  for (size_t i = 0; i < bh; ++i) {
    h[i] = init_h ? init_h[i] : 0.0f;
    c[i] = init_c ? init_c[i] : 0.0f;
  }
  const ir::RecurrentFunction* fns = a.functions.data() + dir * ir::FunctionsPerDirection(a.kind);
  const bool reversed = Reversed(a, dir);
  auto len_of = [&](int b) { return a.sequence_lens.empty() ? S : a.sequence_lens[b]; };
  int longest = 0;
  for (int b = 0; b < B; ++b) longest = std::max(longest, len_of(b));
  auto y_row = [&](int t, int b) { return out + ((static_cast<size_t>(t) * D + dir) * B + b) * H; };
  // Steps past a sequence's length are zeros.
  for (int t = 0; t < S; ++t) {
    for (int b = 0; b < B; ++b) {
      if (t >= len_of(b)) std::fill(y_row(t, b), y_row(t, b) + H, 0.0f);
    }
  }
  for (int s = 0; s < longest; ++s) {
    if (a.kind == RecurrentKind::kGru && !a.linear_before_reset) {
      product(B, h, 0, 2, hr, static_cast<int>(gh));  // z and r first: the h gate multiplies r . h
    } else {
      product(B, h, 0, G, hr, static_cast<int>(gh));
    }
    if (a.kind == RecurrentKind::kGru) {
      for (int b = 0; b < B; ++b) {
        if (s >= len_of(b)) continue;
        const int t = reversed ? len_of(b) - 1 - s : s;
        const float* xg = xw + (static_cast<size_t>(t) * B + b) * gh;
        float* g = hr + static_cast<size_t>(b) * gh;
        for (int u = 0; u < 2 * H; ++u) g[u] = Clip(xg[u] + g[u], a.clip);
        activate(fns[0], g, 2 * H);
        if (!a.linear_before_reset) {
          for (int u = 0; u < H; ++u) rh[static_cast<size_t>(b) * H + u] = g[H + u] * h[static_cast<size_t>(b) * H + u];
        }
      }
      // The h gate's product of every row (the finished ones' unused).
      if (!a.linear_before_reset) product(B, rh, 2, 1, hn, H);
    }
    for (int b = 0; b < B; ++b) {
      const int len = len_of(b);
      if (s >= len) continue;
      const int t = reversed ? len - 1 - s : s;
      const float* xg = xw + (static_cast<size_t>(t) * B + b) * gh;
      float* g = hr + static_cast<size_t>(b) * gh;
      float* hb = h + static_cast<size_t>(b) * H;
      float* cb = c + static_cast<size_t>(b) * H;
      switch (a.kind) {
        case RecurrentKind::kLstm: {
          // Gates i, o, f, c in g; each finished in place, then C and h.
          float* gi = g;
          float* go = g + H;
          float* gf = g + 2 * H;
          float* gc = g + 3 * H;
          for (int u = 0; u < H; ++u) gi[u] = Clip(xg[u] + gi[u] + (peep ? peep[u] * cb[u] : 0.0f), a.clip);
          activate(fns[0], gi, H);
          if (a.input_forget) {
            for (int u = 0; u < H; ++u) gf[u] = 1.0f - gi[u];
          } else {
            for (int u = 0; u < H; ++u) {
              gf[u] = Clip(xg[2 * H + u] + gf[u] + (peep ? peep[2 * H + u] * cb[u] : 0.0f), a.clip);
            }
            activate(fns[0], gf, H);
          }
          for (int u = 0; u < H; ++u) gc[u] = Clip(xg[3 * H + u] + gc[u], a.clip);
          activate(fns[1], gc, H);
          for (int u = 0; u < H; ++u) cb[u] = gf[u] * cb[u] + gi[u] * gc[u];
          for (int u = 0; u < H; ++u) go[u] = Clip(xg[H + u] + go[u] + (peep ? peep[H + u] * cb[u] : 0.0f), a.clip);
          activate(fns[0], go, H);
          std::copy(cb, cb + H, gi);  // h(C) of the unclipped state, in i's place
          activate(fns[2], gi, H);
          for (int u = 0; u < H; ++u) hb[u] = go[u] * gi[u];
          break;
        }
        case RecurrentKind::kGru: {
          // g: z, r activated; the h gate's product in g (linear before
          // reset: h R_h^T + Rbh, to multiply by r) or in hn.
          float* n = g + 2 * H;
          for (int u = 0; u < H; ++u) {
            const float hr_n = a.linear_before_reset ? g[H + u] * n[u] : hn[static_cast<size_t>(b) * H + u];
            n[u] = Clip(xg[2 * H + u] + hr_n, a.clip);
          }
          activate(fns[1], n, H);
          for (int u = 0; u < H; ++u) hb[u] = (1.0f - g[u]) * n[u] + g[u] * hb[u];
          break;
        }
        case RecurrentKind::kRnn: {
          for (int u = 0; u < H; ++u) hb[u] = Clip(xg[u] + g[u], a.clip);
          activate(fns[0], hb, H);
          break;
        }
      }
      std::copy(hb, hb + H, y_row(t, b));
    }
  }
  // Y_h (and Y_c): the state each sequence ended with; zeros for length 0.
  for (int b = 0; b < B; ++b) {
    const bool empty = len_of(b) == 0;
    float* yh = y_row(S, b);
    for (int u = 0; u < H; ++u) yh[u] = empty ? 0.0f : h[static_cast<size_t>(b) * H + u];
    if (a.kind == RecurrentKind::kLstm) {
      float* yc = y_row(S + 1, b);
      for (int u = 0; u < H; ++u) yc[u] = empty ? 0.0f : c[static_cast<size_t>(b) * H + u];
    }
  }
}

void RecurrentRef(const ir::RecurrentAttrs& a, const RecurrentDims& d, const float* x, const float* w,
                  const float* r, const float* b, const float* init_h, const float* init_c, const float* p,
                  float* out) {
  const int S = d.steps, B = d.batch, I = d.input, H = d.hidden, G = ir::GatesOf(a.kind);
  const size_t gh = static_cast<size_t>(G) * H;
  std::vector<float> xw(static_cast<size_t>(S) * B * gh);
  std::vector<float> scratch(RecurrentScratchFloats(a, d));
  auto scalar = [](const ir::RecurrentFunction& f, float* v, int n) { ScalarRecurrentActivate(f, v, n); };
  for (int dir = 0; dir < a.directions; ++dir) {
    const float* wd = w + dir * gh * I;
    const float* rd = r + dir * gh * H;
    const float* wb = b ? b + dir * 2 * gh : nullptr;
    const float* rb = wb ? wb + gh : nullptr;
    for (size_t row = 0; row < static_cast<size_t>(S) * B; ++row) {
      for (size_t j = 0; j < gh; ++j) {
        float acc = wb ? wb[j] : 0.0f;
        for (int i = 0; i < I; ++i) acc += x[row * I + i] * wd[j * I + i];
        xw[row * gh + j] = acc;
      }
    }
    auto product = [&](int rows, const float* h, int gate0, int gates, float* o, int ldo) {
      const size_t n = static_cast<size_t>(gates) * H;
      for (int row = 0; row < rows; ++row) {
        for (size_t j = 0; j < n; ++j) {
          const size_t col = static_cast<size_t>(gate0) * H + j;
          float acc = rb ? rb[col] : 0.0f;
          for (int k = 0; k < H; ++k) acc += h[static_cast<size_t>(row) * H + k] * rd[col * H + k];
          o[static_cast<size_t>(row) * ldo + j] = acc;
        }
      }
    };
    RunRecurrentDirection(a, d, dir, xw.data(), init_h ? init_h + static_cast<size_t>(dir) * B * H : nullptr,
                          init_c ? init_c + static_cast<size_t>(dir) * B * H : nullptr, p ? p + dir * 3 * H : nullptr,
                          product, scalar, scratch.data(), out);
  }
}

}  // namespace rill::inference::cpu
