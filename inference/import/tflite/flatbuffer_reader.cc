#include "inference/import/tflite/flatbuffer_reader.h"

namespace rill::inference::tflite {

void FlatBufferReader::Fail(const std::string& what) {
  if (error_.empty()) error_ = what;
}

bool FlatBufferReader::Check(size_t pos, size_t len, const char* what) {
  if (!ok()) return false;
  if (pos > size_ || len > size_ - pos) {
    Fail(std::string(what) + " at byte " + std::to_string(pos) + " (+" + std::to_string(len) +
         ") runs past the end of the " + std::to_string(size_) + "-byte buffer");
    return false;
  }
  return true;
}

size_t FlatBufferReader::FollowOffset(size_t pos) {
  if (!Check(pos, 4, "offset")) return 0;
  uint32_t off;
  std::memcpy(&off, data_ + pos, 4);
  if (off == 0) {
    Fail("zero offset at byte " + std::to_string(pos));
    return 0;
  }
  const size_t target = pos + off;
  if (!Check(target, 4, "offset target")) return 0;
  return target;
}

FlatBufferReader::Table FlatBufferReader::ReadTable(size_t pos) {
  Table t;
  if (!Check(pos, 4, "table")) return t;
  int32_t back;
  std::memcpy(&back, data_ + pos, 4);
  const long long vt = static_cast<long long>(pos) - back;
  if (vt < 0 || !Check(static_cast<size_t>(vt), 4, "vtable")) {
    Fail("table at byte " + std::to_string(pos) + " has its vtable outside the buffer");
    return t;
  }
  uint16_t vsize, tsize;
  std::memcpy(&vsize, data_ + vt, 2);
  std::memcpy(&tsize, data_ + vt + 2, 2);
  if (vsize < 4 || (vsize & 1) || !Check(static_cast<size_t>(vt), vsize, "vtable") ||
      !Check(pos, tsize < 4 ? 4 : tsize, "table body")) {
    Fail("malformed vtable at byte " + std::to_string(vt));
    return t;
  }
  t.pos = pos;
  t.vtable = static_cast<size_t>(vt);
  t.vtable_size = vsize;
  t.valid = true;
  return t;
}

FlatBufferReader::Vector FlatBufferReader::ReadVector(size_t pos, size_t elem_size) {
  Vector v;
  if (!Check(pos, 4, "vector")) return v;
  uint32_t n;
  std::memcpy(&n, data_ + pos, 4);
  if (!Check(pos + 4, static_cast<size_t>(n) * elem_size, "vector data")) return v;
  v.pos = pos + 4;
  v.size = n;
  v.valid = true;
  return v;
}

size_t FlatBufferReader::FieldPos(const Table& t, int field) {
  if (!ok() || !t.valid) return 0;
  const size_t entry = 4 + 2 * static_cast<size_t>(field);
  if (entry + 2 > t.vtable_size) return 0;
  uint16_t off;
  std::memcpy(&off, data_ + t.vtable + entry, 2);
  if (off == 0) return 0;
  if (!Check(t.pos + off, 1, "field")) return 0;
  return t.pos + off;
}

FlatBufferReader::Table FlatBufferReader::Root() {
  if (!Check(0, 8, "root")) return Table();
  const size_t pos = FollowOffset(0);
  if (!ok()) return Table();
  return ReadTable(pos);
}

FlatBufferReader::Table FlatBufferReader::GetTable(const Table& t, int field) {
  const size_t p = FieldPos(t, field);
  if (p == 0) return Table();
  const size_t target = FollowOffset(p);
  if (!ok()) return Table();
  return ReadTable(target);
}

FlatBufferReader::Vector FlatBufferReader::GetVector(const Table& t, int field, size_t elem_size) {
  const size_t p = FieldPos(t, field);
  if (p == 0) return Vector();
  const size_t target = FollowOffset(p);
  if (!ok()) return Vector();
  return ReadVector(target, elem_size);
}

std::string FlatBufferReader::GetString(const Table& t, int field) {
  const Vector v = GetVector(t, field, 1);
  if (!v.valid) return std::string();
  return std::string(reinterpret_cast<const char*>(data_ + v.pos), v.size);
}

FlatBufferReader::Table FlatBufferReader::TableAt(const Vector& v, uint32_t i) {
  if (!ok()) return Table();
  if (!v.valid || i >= v.size) {
    Fail("table vector index out of range");
    return Table();
  }
  const size_t target = FollowOffset(v.pos + static_cast<size_t>(i) * 4);
  if (!ok()) return Table();
  return ReadTable(target);
}

}  // namespace rill::inference::tflite
