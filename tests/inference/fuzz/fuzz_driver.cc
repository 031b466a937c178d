// Drives an LLVMFuzzerTestOneInput without libFuzzer (for gcc builds and
// CI): every file named on the command line or found in a directory, plus a
// sample of truncations and byte flips of each, deterministically. A path
// that does not exist is skipped (an empty regressions directory is not in
// the runfiles, and models may not be fetched).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void RunOne(const std::vector<uint8_t>& bytes) {
  // An exact-size heap copy, so sanitizers see reads past the end.
  std::vector<uint8_t> copy(bytes);
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
}

void Mutate(const std::vector<uint8_t>& seed, int rounds, std::mt19937* rng) {
  RunOne(seed);
  if (seed.empty()) return;
  for (int r = 0; r < rounds; ++r) {
    std::vector<uint8_t> m(seed.begin(), seed.begin() + (*rng)() % seed.size());
    RunOne(m);
    m = seed;
    const int flips = 1 + (*rng)() % 16;
    for (int f = 0; f < flips; ++f) m[(*rng)() % m.size()] ^= static_cast<uint8_t>(1 + (*rng)() % 255);
    RunOne(m);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937 rng(2024);
  int rounds = 100, files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--rounds=", 0) == 0) {
      rounds = std::stoi(arg.substr(9));
      continue;
    }
    std::vector<std::string> paths;
    if (!std::filesystem::exists(arg)) {
      std::printf("fuzz_driver: %s is missing, skipped\n", arg.c_str());
      continue;
    }
    if (std::filesystem::is_directory(arg)) {
      for (const auto& e : std::filesystem::directory_iterator(arg)) paths.push_back(e.path().string());
    } else {
      paths.push_back(arg);
    }
    for (const std::string& p : paths) {
      std::ifstream f(p, std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      Mutate(bytes, rounds, &rng);
      ++files;
    }
  }
  std::printf("fuzz_driver: %d seeds, %d mutations each, no crash\n", files, 2 * rounds);
  return 0;
}
