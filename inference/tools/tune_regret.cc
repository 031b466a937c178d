// tune_regret: how much the cost model's choices lose against the measured
// best, from kTune logs (RILL_TUNE_LOG=FILE rill model info MODEL --tune=...
// appends `key choice measured_ms estimated_cycles` per candidate).
//
//   bazel build //inference/tools:tune_regret
//   bazel-bin/inference/tools/tune_regret LOG...
//
// Per conv layer shape (fc keys are skipped): the candidate the cost model
// (conv_algorithm.cc, as built into this binary) estimates cheapest among
// those measured, against the fastest measured one. Prints the layers where
// the choice loses more than 0.01 ms and the total: the time of the model's
// choices over the time of the measured best. What the README's calibration
// figures come from; rerun it after changing the model's constants.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "inference/backend/cpu/ops/conv_algorithm.h"

int main(int argc, char** argv) {
  using namespace rill::inference::cpu;
  if (argc < 2) {
    std::fprintf(stderr, "usage: tune_regret LOG...\n");
    return 2;
  }
  double best_total = 0, chosen_total = 0;
  int layers = 0, missed = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream f(argv[i]);
    if (!f) {
      std::fprintf(stderr, "tune_regret: cannot read %s\n", argv[i]);
      return 1;
    }
    std::map<std::string, std::map<std::string, double>> measured;  // key -> choice -> ms
    std::vector<std::string> order;
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream s(line);
      std::string key, choice;
      double ms = 0;
      if (!(s >> key >> choice >> ms)) continue;
      if (!measured.count(key)) order.push_back(key);
      measured[key][choice] = ms;  // a later measurement of the same key wins
    }
    for (const std::string& key : order) {
      ConvParams p;
      std::string isa;
      if (!ParseConvTuningKey(key, &p, &isa)) continue;
      // kBf16 keys: the estimates of the bf16 panels. The cost model's tile
      // sizes are the x86 microkernels' (IsaFeatures' defaults), which is
      // what the logs measured.
      IsaFeatures features;
      features.bf16 = key.size() > 5 && key.compare(key.size() - 5, 5, ":bf16") == 0;
      std::string best, chosen;
      double best_ms = 1e300, chosen_cycles = 1e300;
      for (const auto& [choice, ms] : measured[key]) {
        ConvAlgo algo;
        if (!ParseConvAlgo(choice, &algo)) continue;
        const double cycles = EstimateConvCycles(p, algo, features);
        if (ms < best_ms) best_ms = ms, best = choice;
        if (cycles < chosen_cycles) chosen_cycles = cycles, chosen = choice;
      }
      if (best.empty()) continue;
      const double chosen_ms = measured[key][chosen];
      ++layers;
      best_total += best_ms;
      chosen_total += chosen_ms;
      if (chosen != best) {
        ++missed;
        if (chosen_ms - best_ms > 0.01) {
          std::printf("%s %s: model %s %.3f ms, measured best %s %.3f ms\n", argv[i], key.c_str(), chosen.c_str(),
                      chosen_ms, best.c_str(), best_ms);
        }
      }
    }
  }
  std::printf("%d conv layers, the model's choice is the measured best on %d; its choices %.3f ms, the best %.3f ms: "
              "regret %.3f ms (%.1f%%)\n",
              layers, layers - missed, chosen_total, best_total, chosen_total - best_total,
              best_total > 0 ? 100 * (chosen_total / best_total - 1) : 0.0);
  return 0;
}
