// Prints one table: this engine vs OpenCV DNN (Debian's libopencv-dnn) on
// the same ONNX models, at 1 and 2 threads, medians and ratios; then the
// engine alone on the MediaPipe TFLite models.
//
//   bazel run //inference/tools:bench_vs_opencv -- [--runs=N] [MODEL_DIR]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include "rill/inference/inference.h"

namespace {

using rill::inference::AlgorithmPolicy;
using rill::inference::Model;
using rill::inference::Session;
using rill::inference::SessionConfig;

template <typename F>
double MedianMs(int runs, F&& run) {
  for (int i = 0; i < 3; ++i) run();
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double Ours(const std::string& path, int threads, int runs) {
  auto model = Model::FromFile(path);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return -1;
  }
  SessionConfig config;
  config.num_threads = threads;
  config.algorithm = AlgorithmPolicy::kAuto;
  auto session = Session::Create(*model, config);
  if (!session.ok()) return -1;
  for (int i = 0; i < (*session)->num_inputs(); ++i) {
    auto* t = (*session)->input(i);
    for (int64_t k = 0; k < t->num_elements(); ++k) t->data_as<float>()[k] = 0.001f * static_cast<float>(k % 997);
  }
  return MedianMs(runs, [&] { (void)(*session)->Run(); });
}

double OpenCv(const std::string& path, int threads, int runs) {
  try {
    cv::setNumThreads(threads);
    cv::dnn::Net net = cv::dnn::readNetFromONNX(path);
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    const int dims[4] = {1, 3, 224, 224};
    cv::Mat input(4, dims, CV_32F);
    for (size_t k = 0; k < input.total(); ++k) input.ptr<float>()[k] = 0.001f * static_cast<float>(k % 997);
    return MedianMs(runs, [&] {
      net.setInput(input);
      cv::Mat out = net.forward();
    });
  } catch (const cv::Exception& e) {
    std::fprintf(stderr, "opencv: %s\n", e.what());
    return -1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 15;
  std::string dir = "third_party/models";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::max(1, std::atoi(argv[i] + 7));
    else dir = argv[i];
  }
  std::printf("| model | threads | rill ms | OpenCV DNN ms | rill / OpenCV |\n|---|---|---|---|---|\n");
  for (const char* name : {"mobilenet_v2", "resnet18", "resnet50", "squeezenet1_1"}) {
    const std::string path = dir + "/" + name + ".onnx";
    if (!std::ifstream(path).good()) continue;
    for (int threads : {1, 2}) {
      const double ours = Ours(path, threads, runs);
      // OpenCV DNN 4.6 needs Clip in its pre-opset-11 form: the exporter writes that copy.
      const std::string cv_path = dir + "/" + name + ".opencv.onnx";
      const double cv = OpenCv(std::ifstream(cv_path).good() ? cv_path : path, threads, runs);
      std::printf("| %s | %d | %.2f | %.2f | %.2f |\n", name, threads, ours, cv, cv > 0 ? ours / cv : 0.0);
      std::fflush(stdout);
    }
  }
  std::printf("\n| MediaPipe model | rill ms (1 thread) | rill ms (2 threads) |\n|---|---|---|\n");
  for (const char* name : {"face_detection_short_range", "face_detection_full_range", "face_detection_full_range_sparse",
                           "selfie_segmentation", "selfie_segmentation_landscape", "hand_landmark_lite",
                           "hand_landmark_full", "pose_landmark_lite", "pose_landmark_full", "pose_landmark_heavy"}) {
    const std::string path = dir + "/" + name + ".tflite";
    if (!std::ifstream(path).good()) continue;
    std::printf("| %s | %.2f | %.2f |\n", name, Ours(path, 1, runs), Ours(path, 2, runs));
    std::fflush(stdout);
  }
  return 0;
}
