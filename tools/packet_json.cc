#include "tools/packet_json.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <typeindex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/render_data.pb.h"
#include "framework/formats/tensor.h"
#include "google/protobuf/util/json_util.h"

namespace rill {
namespace tools {

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

namespace {


std::string ProtoJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  options.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(m, &out, options).ok()) {
    return JsonQuote(m.ShortDebugString());
  }
  return out;
}

std::string Number(double v) {
  if (std::isnan(v) || std::isinf(v)) return "null";
  return absl::StrFormat("%.9g", v);
}

// An image as its shape and each channel's mean value: enough to tell two
// runs' masks or frames apart without printing the pixels.
std::string FrameJson(const ImageFrame& f) {
  const int channels = f.NumberOfChannels();
  std::vector<double> sum(channels, 0.0);
  if (!f.IsEmpty()) {
    for (int y = 0; y < f.Height(); ++y) {
      const uint8_t* row = f.Row(y);
      for (int x = 0; x < f.Width(); ++x) {
        for (int c = 0; c < channels; ++c) {
          const int i = x * channels + c;
          switch (f.ByteDepth()) {
            case 1: sum[c] += row[i]; break;
            case 2: sum[c] += reinterpret_cast<const uint16_t*>(row)[i]; break;
            default: sum[c] += reinterpret_cast<const float*>(row)[i]; break;
          }
        }
      }
    }
  }
  const double pixels = std::max(1.0, double(f.Width()) * f.Height());
  std::vector<std::string> means;
  for (double s : sum) means.push_back(Number(s / pixels));
  return absl::StrCat("{\"image\":{\"width\":", f.Width(), ",\"height\":",
                      f.Height(), ",\"channels\":", channels, ",\"mean\":[",
                      absl::StrJoin(means, ","), "]}}");
}

std::string TensorJson(const Tensor& t) {
  return absl::StrCat("{\"tensor\":", JsonQuote(t.DebugString()), "}");
}

using Printer = std::function<std::string(const Packet&)>;

template <typename T>
void AddProto(std::map<std::type_index, Printer>* m) {
  (*m)[typeid(T)] = [](const Packet& p) { return ProtoJson(p.Get<T>()); };
  (*m)[typeid(std::vector<T>)] = [](const Packet& p) {
    std::vector<std::string> items;
    for (const T& item : p.Get<std::vector<T>>()) items.push_back(ProtoJson(item));
    return absl::StrCat("[", absl::StrJoin(items, ","), "]");
  };
}

template <typename T>
void AddNumber(std::map<std::type_index, Printer>* m) {
  (*m)[typeid(T)] = [](const Packet& p) {
    return Number(static_cast<double>(p.Get<T>()));
  };
  (*m)[typeid(std::vector<T>)] = [](const Packet& p) {
    std::vector<std::string> items;
    for (const T& v : p.Get<std::vector<T>>()) items.push_back(Number(static_cast<double>(v)));
    return absl::StrCat("[", absl::StrJoin(items, ","), "]");
  };
}

const std::map<std::type_index, Printer>& Printers() {
  static const auto* printers = [] {
    auto* m = new std::map<std::type_index, Printer>();
    AddNumber<int>(m);
    AddNumber<int64_t>(m);
    AddNumber<uint64_t>(m);
    AddNumber<float>(m);
    AddNumber<double>(m);
    (*m)[typeid(bool)] = [](const Packet& p) {
      return std::string(p.Get<bool>() ? "true" : "false");
    };
    (*m)[typeid(std::string)] = [](const Packet& p) {
      return JsonQuote(p.Get<std::string>());
    };
    AddProto<Detection>(m);
    AddProto<DetectionList>(m);
    AddProto<NormalizedRect>(m);
    AddProto<Rect>(m);
    AddProto<NormalizedLandmarkList>(m);
    AddProto<LandmarkList>(m);
    AddProto<ClassificationList>(m);
    AddProto<RenderData>(m);
    (*m)[typeid(ImageFrame)] = [](const Packet& p) {
      return FrameJson(p.Get<ImageFrame>());
    };
    (*m)[typeid(Image)] = [](const Packet& p) {
      const Image& image = p.Get<Image>();
      return image.GetImageFrameSharedPtr() ? FrameJson(*image.GetImageFrameSharedPtr())
                                            : std::string("{\"image\":null}");
    };
    (*m)[typeid(Tensor)] = [](const Packet& p) { return TensorJson(p.Get<Tensor>()); };
    (*m)[typeid(std::vector<Tensor>)] = [](const Packet& p) {
      std::vector<std::string> items;
      for (const Tensor& t : p.Get<std::vector<Tensor>>()) items.push_back(TensorJson(t));
      return absl::StrCat("[", absl::StrJoin(items, ","), "]");
    };
    (*m)[typeid(std::array<float, 16>)] = [](const Packet& p) {
      std::vector<std::string> items;
      for (float v : p.Get<std::array<float, 16>>()) items.push_back(Number(v));
      return absl::StrCat("[", absl::StrJoin(items, ","), "]");
    };
    return m;
  }();
  return *printers;
}

}  // namespace

std::string PayloadToJson(const Packet& packet) {
  if (packet.IsEmpty()) return "null";
  auto it = Printers().find(*packet.GetTypeInfo());
  if (it != Printers().end()) return it->second(packet);
  return absl::StrCat("{\"type\":", JsonQuote(packet.DebugTypeName()), "}");
}

std::string PacketToJsonLine(const std::string& stream, const Packet& packet) {
  return absl::StrCat("{\"stream\":", JsonQuote(stream), ",\"timestamp\":",
                      packet.Timestamp().Value(), ",\"value\":",
                      PayloadToJson(packet), "}");
}

}  // namespace tools
}  // namespace rill
