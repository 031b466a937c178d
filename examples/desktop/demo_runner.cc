#include "examples/desktop/demo_runner.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/highgui.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/graph.h"
#include "framework/status_util.h"
#include "framework/tool/config_loader.h"
#include "glog/logging.h"

namespace rill {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Opens the camera; on failure explains why in `why`.
bool OpenCamera(const std::string& camera, cv::VideoCapture* capture,
                std::string* name, std::string* why) {
  if (camera.empty()) {
    *why = "no camera requested";
    return false;
  }
  int index = -1;
  *name = camera;
  bool ok;
  if (absl::SimpleAtoi(camera, &index)) {
    *name = absl::StrCat("/dev/video", index);
    ok = capture->open(index, cv::CAP_V4L2);
  } else {
    ok = capture->open(camera, cv::CAP_V4L2);
  }
  if (!ok || !capture->isOpened()) {
    *why = absl::StrCat("cannot open camera ", *name, " (V4L2)");
    return false;
  }
  cv::Mat probe;
  if (!capture->read(probe) || probe.empty()) {
    *why = absl::StrCat("camera ", *name, " opened but delivers no frames");
    capture->release();
    return false;
  }
  return true;
}

void DrawFps(cv::Mat& bgr, double fps, const std::string& source) {
  const std::string text = absl::StrFormat("%.1f fps  %s", fps, source);
  const double scale = std::max(0.4, bgr.rows / 900.0);
  const int thickness = std::max(1, bgr.rows / 400);
  int base = 0;
  const cv::Size size =
      cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &base);
  cv::rectangle(bgr, cv::Point(0, 0),
                cv::Point(size.width + 12, size.height + base + 12),
                cv::Scalar(0, 0, 0), cv::FILLED);
  cv::putText(bgr, text, cv::Point(6, size.height + 6),
              cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(0, 255, 0), thickness,
              cv::LINE_AA);
}

}  // namespace

absl::StatusOr<DemoStats> RunDemo(const DemoOptions& options) {
  DemoStats stats;
  cv::VideoCapture capture;
  std::string camera_name, why;
  double video_fps = 0;
  if (OpenCamera(options.camera, &capture, &camera_name, &why)) {
    stats.used_camera = true;
    stats.source = absl::StrCat("camera ", camera_name);
  } else {
    if (options.fallback_video.empty()) {
      return absl::UnavailableError(absl::StrCat(
          "no camera: ", why, ", and no fallback video was given"));
    }
    if (!std::ifstream(options.fallback_video).good() ||
        !capture.open(options.fallback_video) || !capture.isOpened()) {
      return absl::NotFoundError(
          absl::StrCat("no camera (", why, ") and the fallback video \"",
                       options.fallback_video, "\" cannot be opened"));
    }
    LOG(INFO) << why << "; playing " << options.fallback_video << " instead";
    stats.source = absl::StrCat("video ", options.fallback_video);
    video_fps = capture.get(cv::CAP_PROP_FPS);
  }

  RILL_ASSIGN_OR_RETURN(CalculatorGraphConfig config,
                        LoadGraphConfigFile(options.graph_path));
  CalculatorGraph graph;
  graph.SetResourceRoots(Resources::ForGraphFile(options.graph_path).roots());
  RILL_RETURN_IF_ERROR(graph.Initialize(config));
  RILL_ASSIGN_OR_RETURN(
      OutputStreamPoller poller,
      graph.AddOutputStreamPoller(options.output_stream,
                                  /*observe_timestamp_bounds=*/true));
  RILL_RETURN_IF_ERROR(graph.StartRun(options.side_packets));

  cv::VideoWriter writer;
  const std::string window = "Rill";
  if (options.window) cv::namedWindow(window, cv::WINDOW_AUTOSIZE);

  std::vector<double> latencies;
  std::deque<Clock::time_point> recent;  // output times, for the live fps
  const Clock::time_point start = Clock::now();
  Clock::time_point next_show = start;
  int64_t last_ts = -1;
  cv::Mat bgr, shown;
  absl::Status status;
  bool quit = false;
  while (!quit) {
    if (options.max_frames > 0 && stats.frames_in >= options.max_frames) break;
    if (!capture.read(bgr) || bgr.empty()) break;
    int64_t ts;
    if (stats.used_camera) {
      ts = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() -
                                                                 start)
               .count();
    } else {
      ts = static_cast<int64_t>(capture.get(cv::CAP_PROP_POS_MSEC) * 1000);
    }
    if (ts <= last_ts) ts = last_ts + 1;
    last_ts = ts;

    ImageFrame frame(ImageFormat::SRGB, bgr.cols, bgr.rows);
    cv::Mat view = formats::MatView(&frame);
    cv::cvtColor(bgr, view, cv::COLOR_BGR2RGB);
    const Clock::time_point sent = Clock::now();
    status = graph.AddPacketToInputStream(
        options.input_stream,
        MakePacket<ImageFrame>(std::move(frame)).At(Timestamp(ts)));
    if (!status.ok()) break;
    ++stats.frames_in;

    // Wait for this frame's result, or for the graph to settle past it
    // without one (an empty packet from the bound-observing poller).
    // A graph that neither answers nor settles for stall_timeout_s is stuck
    // (a stream whose bound never advances): report where it waits rather
    // than hang.
    Packet out;
    bool got = false;
    bool settled = false;
    const Clock::time_point wait_start = Clock::now();
    while (!settled) {
      if (poller.NextWithTimeout(&out, 200000)) {
        if (!out.IsEmpty()) {
          got = true;
          break;
        }
        settled = out.Timestamp().Value() >= ts;
        continue;
      }
      if (graph.HasError()) break;
      if (std::chrono::duration<double>(Clock::now() - wait_start).count() >
          options.stall_timeout_s) {
        status = absl::DeadlineExceededError(absl::StrCat(
            "graph \"", options.graph_path,
            "\" gave no result and no "
            "timestamp bound for frame ",
            stats.frames_in, " (timestamp ", ts, ") on \"",
            options.output_stream, "\" within ", options.stall_timeout_s,
            " s; waiting nodes:\n", graph.DebugWaitReport()));
        break;
      }
    }
    if (!status.ok()) break;
    if (!got) {
      if (graph.HasError()) break;
      continue;
    }
    const Clock::time_point done = Clock::now();
    latencies.push_back(Ms(done - sent));
    ++stats.frames_out;
    recent.push_back(done);
    while (recent.size() > 30) recent.pop_front();
    const double live_fps =
        recent.size() > 1
            ? (recent.size() - 1) /
                  std::chrono::duration<double>(recent.back() - recent.front())
                      .count()
            : 0.0;

    const ImageFrame& result = out.Get<ImageFrame>();
    const cv::Mat rview = formats::MatView(&result);
    switch (result.Format()) {
      case ImageFormat::SRGBA:
        cv::cvtColor(rview, shown, cv::COLOR_RGBA2BGR);
        break;
      case ImageFormat::GRAY8:
        cv::cvtColor(rview, shown, cv::COLOR_GRAY2BGR);
        break;
      default:
        cv::cvtColor(rview, shown, cv::COLOR_RGB2BGR);
    }
    DrawFps(shown, live_fps, stats.source);

    if (!options.output_video.empty()) {
      if (!writer.isOpened()) {
        const bool mp4 = options.output_video.size() > 4 &&
                         options.output_video.substr(
                             options.output_video.size() - 4) == ".mp4";
        const int fourcc = mp4 ? cv::VideoWriter::fourcc('m', 'p', '4', 'v')
                               : cv::VideoWriter::fourcc('M', 'J', 'P', 'G');
        if (!writer.open(options.output_video, fourcc,
                         video_fps > 0 ? video_fps : 30.0, shown.size())) {
          status = absl::InvalidArgumentError(absl::StrCat(
              "cannot write output video \"", options.output_video, "\""));
          break;
        }
      }
      writer.write(shown);
    }
    if (options.window) {
      int wait_ms = 1;
      if (!stats.used_camera && options.realtime_video && video_fps > 0) {
        next_show +=
            std::chrono::microseconds(static_cast<int64_t>(1e6 / video_fps));
        wait_ms =
            std::max<int>(1, static_cast<int>(Ms(next_show - Clock::now())));
      }
      cv::imshow(window, shown);
      const int key = cv::waitKey(wait_ms);
      if (key == 'q' || key == 27) quit = true;
    }
  }
  if (options.window) cv::destroyAllWindows();
  writer.release();
  if (!status.ok()) graph.Cancel();
  absl::Status close = graph.CloseAllInputStreams();
  // Drain what is left so WaitUntilDone does not wait on a full poller.
  Packet rest;
  while (poller.Next(&rest)) {
  }
  absl::Status done = graph.WaitUntilDone();
  if (!status.ok()) return status;
  if (!done.ok() && done.code() == absl::StatusCode::kCancelled)
    done = absl::OkStatus();
  if (!done.ok()) return done;
  if (!close.ok()) return close;

  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  stats.fps = stats.seconds > 0 ? stats.frames_out / stats.seconds : 0;
  if (!latencies.empty()) {
    double sum = 0;
    for (double l : latencies) sum += l;
    stats.mean_latency_ms = sum / latencies.size();
    std::sort(latencies.begin(), latencies.end());
    stats.p50_latency_ms = latencies[latencies.size() / 2];
    stats.p99_latency_ms = latencies[std::min(
        latencies.size() - 1, static_cast<size_t>(latencies.size() * 0.99))];
  }
  return stats;
}

}  // namespace rill
