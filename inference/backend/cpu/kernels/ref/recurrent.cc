#include "inference/backend/cpu/kernels/ref/recurrent.h"

#include <algorithm>
#include <cmath>
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
  const size_t hs = static_cast<size_t>(ir::StateWidthOf(a)), p = static_cast<size_t>(a.projection);
  // The state h and c, the products of a step, GRU's r . h and its product,
  // the projection's input and output.
  return rows * hs + rows * h + rows * h * ir::GatesOf(a.kind) + rows * h * 2 + (p > 0 ? rows * (h + p) : 0);
}

void ScalarRecurrentActivate(const ir::RecurrentFunction& f, float* v, int n) {
  for (int i = 0; i < n; ++i) v[i] = ir::ApplyRecurrentActivation(f, v[i]);
}

void RunRecurrentDirection(const ir::RecurrentAttrs& a, const RecurrentDims& d, int dir,
                           const RecurrentDirectionArgs& in, const RecurrentProduct& product,
                           const RecurrentActivate& activate, float* scratch, float* out) {
  const int S = d.steps, B = d.batch, H = d.hidden, G = ir::GatesOf(a.kind), D = a.directions;
  const int Hs = ir::StateWidthOf(a), W = ir::OutputWidthOf(a), P = a.projection;
  const size_t bh = static_cast<size_t>(B) * H, gh = static_cast<size_t>(G) * H;
  const float* xw = in.xw;
  const float* peep = in.peep;
  float* h = scratch;
  float* c = h + static_cast<size_t>(B) * Hs;
  float* hr = c + bh;
  float* rh = hr + bh * G;  // GRU: r . h
  float* hn = rh + bh;      // GRU: (r . h) R_h^T + Rbh
  float* hp = hn + bh;      // LSTM with a projection: o . h(c), then its projection
  float* pj = hp + bh;
  for (size_t i = 0; i < static_cast<size_t>(B) * Hs; ++i) h[i] = in.init_h ? in.init_h[i] : 0.0f;
  for (size_t i = 0; i < bh; ++i) c[i] = in.init_c ? in.init_c[i] : 0.0f;
  const ir::RecurrentFunction* fns = a.functions.data() + dir * ir::FunctionsPerDirection(a.kind);
  const bool reversed = Reversed(a, dir);
  auto len_of = [&](int b) { return a.sequence_lens.empty() ? S : a.sequence_lens[b]; };
  int longest = 0;
  for (int b = 0; b < B; ++b) longest = std::max(longest, len_of(b));
  auto y_row = [&](int t, int b) { return out + ((static_cast<size_t>(t) * D + dir) * B + b) * W; };
  if (W != Hs || W != H) {
    // Rows narrower than W (h's P or c's H): their other columns are zeros.
    for (int t = 0; t < S + ir::ExtraRowsOf(a.kind); ++t) {
      for (int b = 0; b < B; ++b) std::fill(y_row(t, b), y_row(t, b) + W, 0.0f);
    }
  }
  // Steps past a sequence's length are zeros.
  for (int t = 0; t < S; ++t) {
    for (int b = 0; b < B; ++b) {
      if (t >= len_of(b)) std::fill(y_row(t, b), y_row(t, b) + W, 0.0f);
    }
  }
  // LSTM: gate k (i, o, f, c = 0..3) of a row from its input and recurrent
  // products in g, the peephole (or null) on the state c, the layer norm,
  // the clip and its function.
  auto finish_gate = [&](float* g, const float* xg, int k, const float* pe, const float* cb,
                         const ir::RecurrentFunction& f) {
    for (int u = 0; u < H; ++u) g[u] = xg[u] + g[u] + (pe ? pe[u] * cb[u] : 0.0f);
    if (a.layer_norm) {
      // Two passes (TFLite's MeanStddevNormalization): the variance of the
      // deviations, never negative; 0 takes the epsilon 1e-8.
      float sum = 0.0f;
      for (int u = 0; u < H; ++u) sum += g[u];
      const float mean = sum / H;
      float sum_sq = 0.0f;
      for (int u = 0; u < H; ++u) sum_sq += (g[u] - mean) * (g[u] - mean);
      const float variance = sum_sq / H;
      const float inv = 1.0f / std::sqrt(variance > 0.0f ? variance : 1e-8f);
      const float* coeff = in.ln_coeff + static_cast<size_t>(k) * H;
      const float* bias = in.ln_bias + static_cast<size_t>(k) * H;
      for (int u = 0; u < H; ++u) g[u] = (g[u] - mean) * inv * coeff[u] + bias[u];
    }
    for (int u = 0; u < H; ++u) g[u] = Clip(g[u], a.clip);
    activate(f, g, H);
  };
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
      float* hb = h + static_cast<size_t>(b) * Hs;
      float* cb = c + static_cast<size_t>(b) * H;
      switch (a.kind) {
        case RecurrentKind::kLstm: {
          // Gates i, o, f, c in g; each finished in place, then C and h.
          float* gi = g;
          float* go = g + H;
          float* gf = g + 2 * H;
          float* gc = g + 3 * H;
          if (!a.input_from_forget) finish_gate(gi, xg, 0, peep, cb, fns[0]);
          if (a.input_forget) {
            for (int u = 0; u < H; ++u) gf[u] = 1.0f - gi[u];
          } else {
            finish_gate(gf, xg + 2 * H, 2, peep ? peep + 2 * H : nullptr, cb, fns[0]);
          }
          if (a.input_from_forget) {
            for (int u = 0; u < H; ++u) gi[u] = 1.0f - gf[u];
          }
          finish_gate(gc, xg + 3 * H, 3, nullptr, cb, fns[1]);
          for (int u = 0; u < H; ++u) cb[u] = Clip(gf[u] * cb[u] + gi[u] * gc[u], a.cell_clip);
          finish_gate(go, xg + H, 1, peep ? peep + H : nullptr, cb, fns[0]);
          std::copy(cb, cb + H, gi);  // h(C) of the unclipped state, in i's place
          activate(fns[2], gi, H);
          // With a projection, o . h(C) is projected below, for all rows at once.
          float* hout = P > 0 ? hp + static_cast<size_t>(b) * H : hb;
          for (int u = 0; u < H; ++u) hout[u] = go[u] * gi[u];
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
      if (P == 0) std::copy(hb, hb + Hs, y_row(t, b));
    }
    if (P > 0) {
      (*in.project)(B, hp, pj);
      for (int b = 0; b < B; ++b) {
        const int len = len_of(b);
        if (s >= len) continue;
        const int t = reversed ? len - 1 - s : s;
        float* hb = h + static_cast<size_t>(b) * Hs;
        for (int u = 0; u < P; ++u) hb[u] = Clip(pj[static_cast<size_t>(b) * P + u], a.proj_clip);
        std::copy(hb, hb + Hs, y_row(t, b));
      }
    }
  }
  // Y_h (and Y_c): the state each sequence ended with; zeros for length 0.
  for (int b = 0; b < B; ++b) {
    const bool empty = len_of(b) == 0;
    float* yh = y_row(S, b);
    for (int u = 0; u < Hs; ++u) yh[u] = empty ? 0.0f : h[static_cast<size_t>(b) * Hs + u];
    if (a.kind == RecurrentKind::kLstm) {
      float* yc = y_row(S + 1, b);
      for (int u = 0; u < H; ++u) yc[u] = empty ? 0.0f : c[static_cast<size_t>(b) * H + u];
    }
  }
}

void RecurrentRef(const ir::RecurrentAttrs& a, const RecurrentDims& d, const RecurrentInputs& in, float* out) {
  const int S = d.steps, B = d.batch, I = d.input, H = d.hidden, G = ir::GatesOf(a.kind);
  const int Hs = ir::StateWidthOf(a), P = a.projection;
  const size_t gh = static_cast<size_t>(G) * H;
  std::vector<float> xw(static_cast<size_t>(S) * B * gh);
  std::vector<float> scratch(RecurrentScratchFloats(a, d));
  auto scalar = [](const ir::RecurrentFunction& f, float* v, int n) { ScalarRecurrentActivate(f, v, n); };
  for (int dir = 0; dir < a.directions; ++dir) {
    const float* wd = in.w + dir * gh * I;
    const float* rd = in.r + dir * gh * Hs;
    const float* wb = in.b ? in.b + dir * 2 * gh : nullptr;
    const float* rb = wb ? wb + gh : nullptr;
    for (size_t row = 0; row < static_cast<size_t>(S) * B; ++row) {
      for (size_t j = 0; j < gh; ++j) {
        float acc = wb ? wb[j] : 0.0f;
        for (int i = 0; i < I; ++i) acc += in.x[row * I + i] * wd[j * I + i];
        xw[row * gh + j] = acc;
      }
    }
    auto product = [&](int rows, const float* h, int gate0, int gates, float* o, int ldo) {
      const size_t n = static_cast<size_t>(gates) * H;
      for (int row = 0; row < rows; ++row) {
        for (size_t j = 0; j < n; ++j) {
          const size_t col = static_cast<size_t>(gate0) * H + j;
          float acc = rb ? rb[col] : 0.0f;
          for (int k = 0; k < Hs; ++k) acc += h[static_cast<size_t>(row) * Hs + k] * rd[col * Hs + k];
          o[static_cast<size_t>(row) * ldo + j] = acc;
        }
      }
    };
    const float* pw = in.proj_w ? in.proj_w + static_cast<size_t>(dir) * P * H : nullptr;
    const float* pb = in.proj_b ? in.proj_b + static_cast<size_t>(dir) * P : nullptr;
    auto project = [&](int rows, const float* x, float* o) {
      for (int row = 0; row < rows; ++row) {
        for (int j = 0; j < P; ++j) {
          float acc = pb ? pb[j] : 0.0f;
          for (int k = 0; k < H; ++k) acc += x[static_cast<size_t>(row) * H + k] * pw[static_cast<size_t>(j) * H + k];
          o[static_cast<size_t>(row) * P + j] = acc;
        }
      }
    };
    const RecurrentProject project_ref = project;
    RecurrentDirectionArgs args;
    args.xw = xw.data();
    args.init_h = in.init_h ? in.init_h + static_cast<size_t>(dir) * B * Hs : nullptr;
    args.init_c = in.init_c ? in.init_c + static_cast<size_t>(dir) * B * H : nullptr;
    args.peep = in.p ? in.p + dir * 3 * H : nullptr;
    args.ln_coeff = in.ln_coeff ? in.ln_coeff + static_cast<size_t>(dir) * 4 * H : nullptr;
    args.ln_bias = in.ln_bias ? in.ln_bias + static_cast<size_t>(dir) * 4 * H : nullptr;
    args.project = P > 0 ? &project_ref : nullptr;
    RunRecurrentDirection(a, d, dir, args, product, scalar, scratch.data(), out);
  }
}

}  // namespace rill::inference::cpu
