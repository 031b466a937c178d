// Helpers for the end-to-end solution tests: locating fetched models, media
// and graph files in the test's runfiles, loading images as ImageFrames,
// running a graph file's subgraphs, and writing annotated images where a
// person can look at them ($TEST_UNDECLARED_OUTPUTS_DIR under bazel test,
// which lands in bazel-testlogs/<test>/test.outputs/).
#ifndef RILL_TESTS_SOLUTIONS_SOLUTION_TEST_UTIL_H_
#define RILL_TESTS_SOLUTIONS_SOLUTION_TEST_UTIL_H_

#include <cstdlib>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/tool/subgraph_expansion.h"
#include "tests/require.h"

namespace rill::solutions {

inline std::string ModelPath(const std::string& name) {
  return "third_party/models/" + name;
}
inline std::string MediaPath(const std::string& name) {
  return "third_party/media/" + name;
}
inline bool FileExists(const std::string& path) {
  return std::ifstream(path).good();
}

// Makes the .pbtxt subgraphs under graphs/<dir> findable by type.
inline void UseGraphs(const std::vector<std::string>& dirs) {
  for (const std::string& d : dirs) AddSubgraphSearchPath("graphs/" + d);
}

// An image file as an SRGB ImageFrame (RGB order); empty on failure.
inline ImageFrame LoadRgb(const std::string& path) {
  cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR);
  if (bgr.empty()) return ImageFrame();
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  return formats::FromMat(rgb, ImageFormat::SRGB);
}

inline std::string OutputDir() {
  const char* d = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  return d ? d : "/tmp";
}

// Draws detections (box and keypoints, relative coordinates) on a BGR image.
inline void DrawDetections(const std::vector<Detection>& detections,
                           cv::Mat* bgr) {
  for (const Detection& d : detections) {
    const auto& b = d.location_data().relative_bounding_box();
    cv::rectangle(*bgr, cv::Point2f(b.xmin() * bgr->cols, b.ymin() * bgr->rows),
                  cv::Point2f((b.xmin() + b.width()) * bgr->cols,
                              (b.ymin() + b.height()) * bgr->rows),
                  cv::Scalar(0, 0, 255), 2);
    const auto& kps = d.location_data().relative_keypoints();
    for (int k = 0; k < kps.size(); ++k) {
      cv::circle(*bgr,
                 cv::Point2f(kps[k].x() * bgr->cols, kps[k].y() * bgr->rows), 3,
                 cv::Scalar(0, 255, 0), cv::FILLED);
      cv::putText(
          *bgr, std::to_string(k),
          cv::Point2f(kps[k].x() * bgr->cols + 4, kps[k].y() * bgr->rows - 4),
          cv::FONT_HERSHEY_SIMPLEX, 0.4, cv::Scalar(255, 255, 0), 1);
    }
  }
}

}  // namespace rill::solutions

#endif  // RILL_TESTS_SOLUTIONS_SOLUTION_TEST_UTIL_H_
