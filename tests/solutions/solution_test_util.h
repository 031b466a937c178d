// Helpers for the end-to-end solution tests: locating fetched models, media
// and graph files in the test's runfiles, loading images as ImageFrames,
// running a graph file's subgraphs, and writing annotated images where a
// person can look at them ($TEST_UNDECLARED_OUTPUTS_DIR under bazel test,
// which lands in bazel-testlogs/<test>/test.outputs/).
#ifndef RILL_TESTS_SOLUTIONS_SOLUTION_TEST_UTIL_H_
#define RILL_TESTS_SOLUTIONS_SOLUTION_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <set>
#include <string>
#include <vector>

#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/landmark.pb.h"
#include "framework/packet.h"
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

// Image sequences for the tracking tests: frame i is at i * kFrameUs.
constexpr int64_t kFrameUs = 33333;

// The first `n` frames of a video file as SRGB ImageFrames.
inline std::vector<ImageFrame> VideoFrames(const std::string& path, int n) {
  std::vector<ImageFrame> frames;
  cv::VideoCapture cap(path);
  cv::Mat bgr, rgb;
  while (static_cast<int>(frames.size()) < n && cap.read(bgr)) {
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    frames.push_back(formats::FromMat(rgb, ImageFormat::SRGB));
  }
  return frames;
}

// `image` for `before` frames, flat gray (nothing to find) for `away`,
// `image` for `after`: an object leaving the frame and coming back.
inline std::vector<ImageFrame> LeaveAndReturn(const ImageFrame& image, int before, int away,
                                              int after) {
  const cv::Mat gray(image.Height(), image.Width(), CV_8UC3, cv::Scalar(128, 128, 128));
  std::vector<ImageFrame> frames;
  for (int i = 0; i < before + away + after; ++i) {
    const bool away_now = i >= before && i < before + away;
    frames.push_back(away_now ? formats::FromMat(gray, ImageFormat::SRGB)
                              : formats::FromMat(formats::MatView(&image).clone(), image.Format()));
  }
  return frames;
}

// The frames as packets at i * kFrameUs.
inline std::vector<Packet> FramePackets(std::vector<ImageFrame> frames) {
  std::vector<Packet> out;
  for (size_t i = 0; i < frames.size(); ++i) {
    out.push_back(Adopt(new ImageFrame(std::move(frames[i])))
                      .At(Timestamp(static_cast<int64_t>(i) * kFrameUs)));
  }
  return out;
}

// The frame index of each packet.
inline std::set<int> FramesOf(const std::vector<Packet>& packets) {
  std::set<int> out;
  for (const Packet& p : packets) out.insert(static_cast<int>(p.Timestamp().Value() / kFrameUs));
  return out;
}

inline float Dist(const NormalizedLandmark& a, float x, float y) {
  return std::hypot(a.x() - x, a.y() - y);
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
