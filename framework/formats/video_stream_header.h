// VideoHeader describes a video stream before its first frame: sent as the
// one packet of a *_PRESTREAM output (or a stream header) so that consumers
// (an encoder, a resizer) can set up before frames arrive.
#ifndef RILL_FRAMEWORK_FORMATS_VIDEO_STREAM_HEADER_H_
#define RILL_FRAMEWORK_FORMATS_VIDEO_STREAM_HEADER_H_

#include "framework/formats/image_format.pb.h"

namespace rill {

struct VideoHeader {
  ImageFormat::Format format = ImageFormat::UNKNOWN;
  int width = 0;
  int height = 0;
  // Frames per second, as the container reports it (0 when unknown).
  float frame_rate = 0;
  // Seconds (0 when unknown).
  float duration = 0;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_FORMATS_VIDEO_STREAM_HEADER_H_
