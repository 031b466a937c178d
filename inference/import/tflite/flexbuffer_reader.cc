#include "inference/import/tflite/flexbuffer_reader.h"

#include <cstring>

namespace rill::inference::tflite {
namespace {

bool ValidWidth(int w) { return w == 1 || w == 2 || w == 4 || w == 8; }

}  // namespace

void FlexBufferReader::Fail(const std::string& what) {
  if (error_.empty()) error_ = what;
}

bool FlexBufferReader::Check(size_t pos, size_t len, const char* what) {
  if (!ok()) return false;
  if (pos > size_ || len > size_ - pos) {
    Fail(std::string("flexbuffer ") + what + " out of bounds");
    return false;
  }
  return true;
}

uint64_t FlexBufferReader::ReadUInt(size_t pos, int width) {
  if (!ValidWidth(width) || !Check(pos, static_cast<size_t>(width), "value")) return 0;
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | data_[pos + static_cast<size_t>(i)];  // little-endian
  return v;
}

int64_t FlexBufferReader::ReadInt(size_t pos, int width) {
  const uint64_t u = ReadUInt(pos, width);
  if (width >= 8) return static_cast<int64_t>(u);
  const uint64_t sign = uint64_t{1} << (8 * width - 1);
  return static_cast<int64_t>((u ^ sign) - sign);  // sign-extend
}

double FlexBufferReader::ReadFloat(size_t pos, int width) {
  if (width == 4) {
    const uint32_t u = static_cast<uint32_t>(ReadUInt(pos, 4));
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  if (width == 8) {
    const uint64_t u = ReadUInt(pos, 8);
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
  Fail("flexbuffer float of width " + std::to_string(width));
  return 0.0;
}

FlexBufferReader::Ref FlexBufferReader::Root() {
  Ref r;
  if (size_ < 3) {
    Fail("flexbuffer too short");
    return r;
  }
  const int width = data_[size_ - 1];
  const uint8_t packed = data_[size_ - 2];
  if (!ValidWidth(width) || static_cast<size_t>(width) > size_ - 2) {
    Fail("flexbuffer root width " + std::to_string(width));
    return r;
  }
  r.pos = size_ - 2 - static_cast<size_t>(width);
  r.slot_width = width;
  r.type = packed >> 2;
  r.child_width = 1 << (packed & 3);
  r.valid = true;
  return r;
}

bool FlexBufferReader::Target(const Ref& r, size_t* target) {
  const uint64_t offset = ReadUInt(r.pos, r.slot_width);
  if (!ok()) return false;
  if (offset > r.pos) {
    Fail("flexbuffer offset out of bounds");
    return false;
  }
  *target = r.pos - static_cast<size_t>(offset);
  return true;
}

bool FlexBufferReader::VectorOf(const Ref& r, size_t* first, size_t* count, int* width, int* elem_type) {
  if (!r.valid) return false;
  const bool untyped = r.type == kVector || r.type == kMap;
  const bool typed = (r.type >= kVectorInt && r.type <= kVectorKey) || r.type == kVectorBool;
  const bool fixed = r.type >= kVectorInt2 && r.type <= kVectorFloat4;
  if (!untyped && !typed && !fixed) {
    Fail("flexbuffer value of type " + std::to_string(r.type) + " is not a vector");
    return false;
  }
  size_t target = 0;
  if (!Target(r, &target)) return false;
  *width = r.child_width;
  *first = target;
  if (fixed) {
    *count = static_cast<size_t>((r.type - kVectorInt2) / 3 + 2);
    *elem_type = (r.type - kVectorInt2) % 3 + kInt;
  } else {
    if (target < static_cast<size_t>(r.child_width)) {
      Fail("flexbuffer vector size out of bounds");
      return false;
    }
    *count = static_cast<size_t>(ReadUInt(target - static_cast<size_t>(r.child_width), r.child_width));
    *elem_type = untyped ? -1 : r.type == kVectorBool ? kBool : r.type - kVectorInt + kInt;
  }
  if (!ok()) return false;
  // The elements (and an untyped vector's type bytes) lie in the buffer.
  const size_t bytes = *count * static_cast<size_t>(*width);
  if (*count > size_ || !Check(target, bytes + (untyped ? *count : 0), "vector")) return false;
  return true;
}

FlexBufferReader::Ref FlexBufferReader::Element(size_t first, size_t count, int width, int elem_type, size_t i) {
  Ref e;
  e.pos = first + i * static_cast<size_t>(width);
  e.slot_width = width;
  if (elem_type >= 0) {
    e.type = elem_type;
    e.child_width = width;
  } else {
    const uint8_t packed = data_[first + count * static_cast<size_t>(width) + i];
    e.type = packed >> 2;
    e.child_width = 1 << (packed & 3);
  }
  e.valid = true;
  return e;
}

std::string FlexBufferReader::KeyAt(size_t pos) {
  if (!Check(pos, 0, "key")) return "";
  const void* end = std::memchr(data_ + pos, 0, size_ - pos);
  if (end == nullptr) {
    Fail("flexbuffer key not terminated");
    return "";
  }
  return std::string(reinterpret_cast<const char*>(data_ + pos), static_cast<const uint8_t*>(end) - (data_ + pos));
}

std::vector<std::string> FlexBufferReader::Keys(const Ref& map) {
  std::vector<std::string> keys;
  if (!map.valid || map.type != kMap) {
    Fail("flexbuffer value is not a map");
    return keys;
  }
  size_t first = 0, count = 0;
  int width = 1, elem_type = -1;
  if (!VectorOf(map, &first, &count, &width, &elem_type)) return keys;
  const size_t w = static_cast<size_t>(width);
  if (first < 3 * w) {
    Fail("flexbuffer map header out of bounds");
    return keys;
  }
  // The keys vector: an offset (from its slot) and its element width.
  Ref keys_ref;
  keys_ref.pos = first - 3 * w;
  keys_ref.slot_width = width;
  keys_ref.type = kVectorKey;
  keys_ref.child_width = static_cast<int>(ReadUInt(first - 2 * w, width));
  keys_ref.valid = ok();
  size_t kfirst = 0, kcount = 0;
  int kwidth = 1, ktype = 0;
  if (!VectorOf(keys_ref, &kfirst, &kcount, &kwidth, &ktype)) return keys;
  if (kcount != count) {
    Fail("flexbuffer map has " + std::to_string(count) + " values and " + std::to_string(kcount) + " keys");
    return keys;
  }
  for (size_t i = 0; i < kcount && ok(); ++i) {
    size_t target = 0;
    if (!Target(Element(kfirst, kcount, kwidth, kKey, i), &target)) break;
    keys.push_back(KeyAt(target));
  }
  if (!ok()) keys.clear();
  return keys;
}

FlexBufferReader::Ref FlexBufferReader::Find(const Ref& map, const std::string& key) {
  const std::vector<std::string> keys = Keys(map);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] != key) continue;
    size_t first = 0, count = 0;
    int width = 1, elem_type = -1;
    if (!VectorOf(map, &first, &count, &width, &elem_type)) return Ref();
    return Element(first, count, width, elem_type, i);
  }
  return Ref();
}

bool FlexBufferReader::IsNumber(const Ref& r) const {
  return r.valid && ((r.type >= kInt && r.type <= kFloat) || (r.type >= kIndirectInt && r.type <= kIndirectFloat) ||
                     r.type == kBool);
}

bool FlexBufferReader::IsNumberVector(const Ref& r) {
  if (!r.valid) return false;
  if (r.type == kVectorInt || r.type == kVectorUInt || r.type == kVectorFloat || r.type == kVectorBool ||
      (r.type >= kVectorInt2 && r.type <= kVectorFloat4)) {
    return true;
  }
  if (r.type != kVector) return false;
  size_t first = 0, count = 0;
  int width = 1, elem_type = -1;
  if (!VectorOf(r, &first, &count, &width, &elem_type)) return false;
  for (size_t i = 0; i < count; ++i) {
    if (!IsNumber(Element(first, count, width, elem_type, i))) return false;
  }
  return true;
}

double FlexBufferReader::AsDouble(const Ref& r) {
  if (!IsNumber(r)) {
    Fail("flexbuffer value of type " + std::to_string(r.type) + " is not a number");
    return 0.0;
  }
  switch (r.type) {
    case kInt:
      return static_cast<double>(ReadInt(r.pos, r.slot_width));
    case kUInt:
    case kBool:
      return static_cast<double>(ReadUInt(r.pos, r.slot_width));
    case kFloat:
      return ReadFloat(r.pos, r.slot_width);
    default: {
      size_t target = 0;
      if (!Target(r, &target)) return 0.0;
      if (r.type == kIndirectInt) return static_cast<double>(ReadInt(target, r.child_width));
      if (r.type == kIndirectUInt) return static_cast<double>(ReadUInt(target, r.child_width));
      return ReadFloat(target, r.child_width);
    }
  }
}

int64_t FlexBufferReader::AsInt(const Ref& r) {
  if (!IsNumber(r)) {
    Fail("flexbuffer value of type " + std::to_string(r.type) + " is not a number");
    return 0;
  }
  switch (r.type) {
    case kInt:
      return ReadInt(r.pos, r.slot_width);
    case kUInt:
    case kBool:
      return static_cast<int64_t>(ReadUInt(r.pos, r.slot_width));
    case kIndirectInt:
    case kIndirectUInt: {
      size_t target = 0;
      if (!Target(r, &target)) return 0;
      return r.type == kIndirectInt ? ReadInt(target, r.child_width)
                                    : static_cast<int64_t>(ReadUInt(target, r.child_width));
    }
    default: {
      const double d = AsDouble(r);
      if (!(d > -9.2e18 && d < 9.2e18)) {
        Fail("flexbuffer number out of the int64 range");
        return 0;
      }
      return static_cast<int64_t>(d);  // a float where an int is expected truncates, as FlexBuffers' AsInt64
    }
  }
}

std::vector<int64_t> FlexBufferReader::AsInts(const Ref& r) {
  std::vector<int64_t> out;
  size_t first = 0, count = 0;
  int width = 1, elem_type = -1;
  if (!VectorOf(r, &first, &count, &width, &elem_type)) return out;
  for (size_t i = 0; i < count && ok(); ++i) out.push_back(AsInt(Element(first, count, width, elem_type, i)));
  if (!ok()) out.clear();
  return out;
}

}  // namespace rill::inference::tflite
