// Writes Megamind.avi's frames, resized to 640x480 RGB, back to back into
// one file for face_detection_benchmark (which then needs no video I/O).
//   face_detection_benchmark_frames OUT.rgb   (run from the repository root)
#include <cstdio>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "/tmp/megamind_640x480.rgb";
  cv::VideoCapture cap("third_party/media/Megamind.avi");
  std::FILE* f = std::fopen(out, "wb");
  if (!cap.isOpened() || !f) {
    std::fprintf(stderr,
                 "cannot read third_party/media/Megamind.avi or write %s\n",
                 out);
    return 1;
  }
  cv::Mat bgr, small, rgb;
  int n = 0;
  while (cap.read(bgr)) {
    cv::resize(bgr, small, cv::Size(640, 480), 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
    std::fwrite(rgb.data, 1, rgb.total() * 3, f);
    ++n;
  }
  std::fclose(f);
  std::printf("wrote %d frames of 640x480 RGB to %s\n", n, out);
  return 0;
}
