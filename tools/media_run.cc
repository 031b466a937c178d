#include "tools/media_run.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/status_util.h"
#include "tools/latency_histogram.h"
#include "framework/tag_map.h"
#include "opencv2/imgcodecs.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/videoio.hpp"
#include "tools/packet_json.h"

namespace rill {
namespace tools {
namespace {

using Clock = std::chrono::steady_clock;

bool IsImagePath(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  for (const char* ext : {".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".webp"}) {
    if (absl::EndsWith(lower, ext)) return true;
  }
  return false;
}

std::string StreamName(const std::string& entry) {
  TagIndexName tin;
  if (!ParseTagIndexName(entry, &tin).ok()) return entry;
  return tin.name;
}

// Frames as RGB ImageFrames, from a video, an image or a camera.
class FrameReader {
 public:
  absl::Status Open(const std::string& spec) {
    if (absl::StartsWith(spec, "camera:")) {
      int index = 0;
      if (!absl::SimpleAtoi(spec.substr(7), &index)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--input=", spec, ": expected camera:N"));
      }
      capture_.open(index, cv::CAP_V4L2);
      if (!capture_.isOpened()) {
        return absl::NotFoundError(absl::StrCat(
            "--input=", spec, ": no camera at /dev/video", index));
      }
      fps_ = 30;
      return absl::OkStatus();
    }
    if (access(spec.c_str(), R_OK) != 0) {
      return absl::NotFoundError(absl::StrCat("--input: cannot read \"", spec, "\""));
    }
    if (IsImagePath(spec)) {
      image_ = cv::imread(spec, cv::IMREAD_COLOR);
      if (image_.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--input: \"", spec, "\" is not a readable image"));
      }
      return absl::OkStatus();
    }
    capture_.open(spec);
    path_ = spec;
    if (!capture_.isOpened()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input: \"", spec, "\" is not a readable video"));
    }
    fps_ = capture_.get(cv::CAP_PROP_FPS);
    if (!(fps_ > 0 && fps_ < 1000)) fps_ = 30;
    total_ = static_cast<int64_t>(capture_.get(cv::CAP_PROP_FRAME_COUNT));
    return absl::OkStatus();
  }

  // Next frame (RGB) and its timestamp; false at the end. With `loop` a
  // video starts over at its end.
  bool Next(ImageFrame* frame, Timestamp* ts, bool loop = false) {
    cv::Mat bgr;
    if (!image_.empty()) {
      if (index_ > 0) return false;
      bgr = image_;
    } else if (!capture_.read(bgr) || bgr.empty()) {
      if (!loop || path_.empty() || index_ == pass_start_) return false;
      ++passes_;
      pass_start_ = index_;
      capture_.release();
      if (!capture_.open(path_) || !capture_.read(bgr) || bgr.empty()) return false;
    }
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    *frame = formats::FromMat(rgb, ImageFormat::SRGB);
    *ts = Timestamp(static_cast<int64_t>(index_ * 1e6 / fps_));
    ++index_;
    return true;
  }

  double fps() const { return fps_; }
  int64_t total() const { return image_.empty() ? total_ : 1; }
  int64_t frames_read() const { return index_; }
  int64_t passes() const { return passes_; }

 private:
  cv::VideoCapture capture_;
  cv::Mat image_;
  double fps_ = 30;
  int64_t total_ = 0;
  int64_t index_ = 0;
  std::string path_;        // a video file (reopened by loop)
  int64_t passes_ = 0;      // times the video started over
  int64_t pass_start_ = 0;  // index_ when the current pass began
};

// The process's resident set size in MiB (VmRSS), 0 if unknown.
double ResidentMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  }
  return 0;
}

// Writes frames to a video (codec from the extension) or keeps the last one
// for an image file.
// Writes the output video or image to a temporary file beside the target
// ("DIR/.NAME.rill-PID.EXT", the extension kept so that OpenCV picks the
// format) and renames it over the target when the run finishes: a run that
// fails or is killed leaves no half-written file under the target's name,
// and two runs writing the same --output never interleave one file.
class FrameWriter {
 public:
  FrameWriter(std::string path, double fps) : path_(std::move(path)), fps_(fps) {
    const size_t slash = path_.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
    const size_t dot = base.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : base.substr(dot);
    base = dot == std::string::npos ? base : base.substr(0, dot);
    tmp_ = absl::StrCat(dir, ".", base, ".rill-", getpid(), ext);
  }
  ~FrameWriter() {
    if (!finished_) {
      writer_.release();
      std::remove(tmp_.c_str());
    }
  }

  // Before the first frame: the target is not a directory and a file can be
  // made beside it; the error says why not.
  absl::Status Check() const {
    struct stat st;
    if (stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat("--output: \"", path_, "\" is a directory"));
    }
    const int fd = open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--output: cannot write \"", path_, "\": ", std::strerror(errno)));
    }
    close(fd);
    std::remove(tmp_.c_str());
    return absl::OkStatus();
  }

  absl::Status Write(const ImageFrame& frame) {
    cv::Mat view = formats::MatView(&frame);
    cv::Mat bgr;
    if (view.channels() == 4) {
      cv::cvtColor(view, bgr, cv::COLOR_RGBA2BGR);
    } else if (view.channels() == 3) {
      cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
    } else if (view.channels() == 1 && view.depth() == CV_8U) {
      cv::cvtColor(view, bgr, cv::COLOR_GRAY2BGR);
    } else {
      view.convertTo(bgr, CV_8U, 255.0);
      if (bgr.channels() == 1) cv::cvtColor(bgr, bgr, cv::COLOR_GRAY2BGR);
    }
    ++frames_;
    if (IsImagePath(path_)) {
      last_ = bgr.clone();
      return absl::OkStatus();
    }
    if (!writer_.isOpened()) {
      const bool avi = absl::EndsWith(path_, ".avi");
      const int fourcc = avi ? cv::VideoWriter::fourcc('M', 'J', 'P', 'G')
                             : cv::VideoWriter::fourcc('m', 'p', '4', 'v');
      if (!writer_.open(tmp_, fourcc, fps_, bgr.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("--output: cannot write a video to \"", path_, "\""));
      }
    }
    writer_.write(bgr);
    return absl::OkStatus();
  }

  absl::Status Finish() {
    if (IsImagePath(path_)) {
      if (last_.empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "--output=", path_, ": the output stream carried no image"));
      }
      if (!cv::imwrite(tmp_, last_)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--output: cannot write \"", path_, "\""));
      }
    } else {
      if (frames_ == 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "--output=", path_, ": the output stream carried no image"));
      }
      writer_.release();
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--output: cannot move the finished file to \"", path_, "\": ", std::strerror(errno)));
    }
    finished_ = true;
    return absl::OkStatus();
  }

 private:
  std::string path_, tmp_;
  double fps_;
  bool finished_ = false;
  cv::VideoWriter writer_;
  cv::Mat last_;
  int64_t frames_ = 0;
};

const ImageFrame* AsFrame(const Packet& p) {
  if (p.Holds<ImageFrame>()) return &p.Get<ImageFrame>();
  if (p.Holds<Image>()) return p.Get<Image>().GetImageFrameSharedPtr().get();
  return nullptr;
}

}  // namespace

absl::Status RunWithMedia(CalculatorGraph* graph, const MediaRunOptions& options,
                          MediaRunSummary* summary) {
  const CalculatorGraphConfig& config = graph->Config();
  std::string input_stream = options.input_stream;
  if (input_stream.empty() && config.input_stream_size() > 0) {
    input_stream = StreamName(config.input_stream(0));
  }
  std::string output_stream = options.output_stream;
  if (output_stream.empty() && config.output_stream_size() > 0) {
    output_stream = StreamName(config.output_stream(0));
  }
  if (!options.input.empty() && input_stream.empty()) {
    return absl::InvalidArgumentError(
        "--input needs a graph with an input_stream (or --input_stream)");
  }
  if (!options.output.empty() && output_stream.empty()) {
    return absl::InvalidArgumentError(
        "--output needs a graph with an output_stream (or --output_stream)");
  }

  FrameReader reader;
  if (!options.input.empty()) RILL_RETURN_IF_ERROR(reader.Open(options.input));
  std::unique_ptr<FrameWriter> writer;
  if (!options.output.empty()) {
    writer = std::make_unique<FrameWriter>(options.output, reader.fps());
    RILL_RETURN_IF_ERROR(writer->Check());  // before the first frame, not after the last
  }

  std::mutex mu;
  std::condition_variable settled_cv;
  std::map<int64_t, Clock::time_point> sent;  // timestamp -> send time
  LatencyHistogram latencies_ms;  // bounded: a day-long camera run keeps no per-frame list
  LatencyHistogram interval_ms;   // since the last --report_every line
  absl::Status write_status;
  int64_t frames_out = 0;
  if (!output_stream.empty()) {
    RILL_RETURN_IF_ERROR(graph->ObserveOutputStream(
        output_stream,
        [&](const Packet& p) {
          const auto now = Clock::now();
          std::lock_guard<std::mutex> lock(mu);
          // Every frame at or below this timestamp is settled.
          while (!sent.empty() && sent.begin()->first <= p.Timestamp().Value()) {
            const double ms =
                std::chrono::duration<double, std::milli>(now - sent.begin()->second).count();
            latencies_ms.Add(ms);
            interval_ms.Add(ms);
            sent.erase(sent.begin());
          }
          settled_cv.notify_all();
          if (p.IsEmpty()) return absl::OkStatus();
          ++frames_out;
          const ImageFrame* frame = AsFrame(p);
          if (writer && frame != nullptr && write_status.ok()) {
            write_status = writer->Write(*frame);
          }
          return absl::OkStatus();
        },
        /*observe_timestamp_bounds=*/true));
  }
  for (const std::string& stream : options.dump_streams) {
    RILL_RETURN_IF_ERROR(graph->ObserveOutputStream(stream, [&, stream](const Packet& p) {
      const std::string line = PacketToJsonLine(stream, p);
      std::lock_guard<std::mutex> lock(mu);
      std::fprintf(stdout, "%s\n", line.c_str());
      return absl::OkStatus();
    }));
  }

  const bool progress = !options.json && isatty(STDERR_FILENO);
  const auto start = Clock::now();
  RILL_RETURN_IF_ERROR(graph->StartRun(options.side_packets));
  // --timeout: a watchdog cancels the run (and wakes the feeder) when it
  // does not finish in time, keeping the report of the nodes still waiting.
  bool finished = false, timed_out = false, interrupted = false;
  std::string wait_report;
  std::condition_variable finished_cv;
  std::thread watchdog;
  if (options.timeout_s > 0) {
    watchdog = std::thread([&] {
      std::unique_lock<std::mutex> lock(mu);
      if (finished_cv.wait_for(lock, std::chrono::duration<double>(options.timeout_s), [&] { return finished; })) {
        return;
      }
      timed_out = true;
      lock.unlock();
      std::string report = graph->DebugWaitReport();
      graph->Cancel();
      lock.lock();
      wait_report = std::move(report);
      settled_cv.notify_all();
    });
  }
  absl::Status status;
  int64_t frames_in = 0;
  bool source_ended = false;
  if (!options.input.empty()) {
    ImageFrame frame;
    Timestamp ts;
    auto last_draw = start;
    auto last_report = start;
    int64_t frames_at_report = 0;
    while (options.max_frames == 0 || frames_in < options.max_frames) {
      if (!reader.Next(&frame, &ts, options.loop)) {
        source_ended = true;
        break;
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        if (options.max_in_flight > 0 && !output_stream.empty()) {
          settled_cv.wait(lock, [&] {
            return static_cast<int>(sent.size()) < options.max_in_flight ||
                   graph->HasError() || timed_out;
          });
        }
        if (timed_out) break;
        if (options.stop != nullptr && options.stop->load()) {
          interrupted = true;
          break;
        }
        sent[ts.Value()] = Clock::now();
      }
      status = graph->AddPacketToInputStream(
          input_stream, MakePacket<ImageFrame>(std::move(frame)).At(ts));
      if (!status.ok()) break;
      ++frames_in;
      const auto now = Clock::now();
      if (options.report_every_s > 0 &&
          now - last_report >= std::chrono::duration<double>(options.report_every_s)) {
        const double t = std::chrono::duration<double>(now - start).count();
        const double dt = std::chrono::duration<double>(now - last_report).count();
        double p50, p99, mx;
        {
          std::lock_guard<std::mutex> lock(mu);
          p50 = interval_ms.Percentile(0.5);
          p99 = interval_ms.Percentile(0.99);
          mx = interval_ms.max();
          interval_ms = LatencyHistogram();
        }
        const double fps = (frames_in - frames_at_report) / std::max(dt, 1e-9);
        if (options.json) {
          std::fprintf(stderr,
                       "{\"report\":{\"t_s\":%.1f,\"frames\":%lld,\"fps\":%.2f,\"p50_ms\":%.3f,"
                       "\"p99_ms\":%.3f,\"max_ms\":%.3f,\"rss_mib\":%.1f,\"passes\":%lld}}\n",
                       t, static_cast<long long>(frames_in), fps, p50, p99, mx, ResidentMiB(),
                       static_cast<long long>(reader.passes()));
        } else {
          std::fprintf(stderr,
                       "%sreport: t=%.1fs frames=%lld fps=%.1f p50=%.2fms p99=%.2fms max=%.2fms rss=%.1fMiB "
                       "passes=%lld\n",
                       progress ? "\r" : "", t, static_cast<long long>(frames_in), fps, p50, p99, mx,
                       ResidentMiB(), static_cast<long long>(reader.passes()));
        }
        last_report = now;
        frames_at_report = frames_in;
      }
      if (progress && now - last_draw > std::chrono::milliseconds(100)) {
        last_draw = now;
        const double s = std::chrono::duration<double>(now - start).count();
        const int64_t total = options.max_frames ? options.max_frames : reader.total();
        const int width = 30;
        const int filled = total > 0 ? static_cast<int>(width * frames_in / total) : 0;
        std::fprintf(stderr, "\r[%s%s] %lld%s frames  %.1f fps ",
                     std::string(std::min(filled, width), '=').c_str(),
                     std::string(width - std::min(filled, width), ' ').c_str(),
                     static_cast<long long>(frames_in),
                     total > 0 ? absl::StrCat("/", total).c_str() : "",
                     frames_in / std::max(s, 1e-9));
      }
    }
    if (progress) std::fprintf(stderr, "\n");
  }
  if (status.ok()) status = graph->CloseAllInputStreams();
  if (!status.ok()) graph->Cancel();
  absl::Status done = graph->WaitUntilDone();
  if (status.ok()) status = done;
  if (watchdog.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu);
      finished = true;
    }
    finished_cv.notify_all();
    watchdog.join();
  }
  if (timed_out) {
    status = absl::DeadlineExceededError(absl::StrCat("run cancelled after ", options.timeout_s,
                                                      " s (--timeout); waiting nodes:\n", wait_report));
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  if (status.ok() && writer) status = write_status;
  if (status.ok() && writer) status = writer->Finish();

  summary->frames_in = frames_in;
  summary->frames_out = frames_out;
  summary->wall_s = wall;
  summary->interrupted = interrupted;
  summary->node_reports = graph->NodeReports();
  // A video whose header announces more frames than could be decoded is
  // truncated or damaged: say so (the run itself succeeded on what there
  // was). One frame of slack: some containers' counts are estimates.
  if (source_ended && !interrupted && !timed_out && reader.total() > 0 &&
      reader.frames_read() + 1 < reader.total()) {
    summary->frames_read = reader.frames_read();
    summary->frames_in_header = reader.total();
  }
  summary->mean_ms = latencies_ms.mean();
  summary->p50_ms = latencies_ms.Percentile(0.5);
  summary->p99_ms = latencies_ms.Percentile(0.99);
  summary->max_ms = latencies_ms.max();
  summary->fps = wall > 0 ? frames_in / wall : 0;
  return status;
}

std::string SummaryText(const MediaRunSummary& s) {
  std::string text = absl::StrFormat(
      "%sframes: %d in, %d out | latency per frame: mean %.2f ms, p50 %.2f ms, "
      "p99 %.2f ms, max %.2f ms | throughput %.1f frames/s (%.2f s)",
      s.interrupted ? "interrupted: " : "", s.frames_in, s.frames_out, s.mean_ms, s.p50_ms, s.p99_ms, s.max_ms,
      s.fps, s.wall_s);
  for (const auto& [node, report] : s.node_reports) {
    absl::StrAppend(&text, "\n  node \"", node, "\": ", report);
  }
  if (s.frames_in_header > 0) {
    absl::StrAppend(&text,
                    absl::StrFormat("\nwarning: the input ended after %d of the %d frames its header announces "
                                    "(truncated or damaged file?)",
                                    s.frames_read, s.frames_in_header));
  }
  return text;
}

std::string SummaryJson(const std::string& graph_path, const MediaRunSummary& s) {
  std::string nodes;
  for (const auto& [node, report] : s.node_reports) {
    absl::StrAppend(&nodes, nodes.empty() ? "" : ",", JsonQuote(node), ":", JsonQuote(report));
  }
  return absl::StrFormat(
      "{\"graph\":%s,\"frames_in\":%d,\"frames_out\":%d,\"latency_ms\":{"
      "\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f},\"fps\":%.2f,"
      "\"wall_s\":%.3f,\"interrupted\":%s%s%s}",
      JsonQuote(graph_path), s.frames_in, s.frames_out, s.mean_ms, s.p50_ms, s.p99_ms,
      s.max_ms, s.fps, s.wall_s, s.interrupted ? "true" : "false",
      s.frames_in_header > 0
          ? absl::StrFormat(",\"truncated\":{\"frames_read\":%d,\"frames_in_header\":%d}", s.frames_read,
                            s.frames_in_header)
          : "",
      nodes.empty() ? "" : absl::StrCat(",\"nodes\":{", nodes, "}"));
}

}  // namespace tools
}  // namespace rill
