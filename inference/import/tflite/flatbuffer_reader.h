// A bounds-checked reader of FlatBuffers binaries, written for the TFLite
// importer. Every access checks offsets against the buffer, so a truncated or
// corrupt file makes the reader fail (sticky: the first error is kept and all
// later reads return defaults) instead of reading out of bounds.
//
// Format facts used: the root is a u32 offset at byte 0; a table starts with
// an i32 back-offset to its vtable; a vtable is u16 vtable bytes, u16 table
// bytes, then one u16 offset per field (0 = absent); reference fields hold a
// u32 offset relative to the field; vectors and strings start with a u32
// element count.
#ifndef RILL_INFERENCE_IMPORT_TFLITE_FLATBUFFER_READER_H_
#define RILL_INFERENCE_IMPORT_TFLITE_FLATBUFFER_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace rill::inference::tflite {

class FlatBufferReader {
 public:
  struct Table {
    size_t pos = 0;
    size_t vtable = 0;
    uint16_t vtable_size = 0;
    bool valid = false;
  };
  struct Vector {
    size_t pos = 0;  // first element
    uint32_t size = 0;
    bool valid = false;
  };

  FlatBufferReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  Table Root();

  bool Has(const Table& t, int field) { return FieldPos(t, field) != 0; }

  template <typename T>
  T Scalar(const Table& t, int field, T default_value) {
    const size_t p = FieldPos(t, field);
    if (p == 0 || !Check(p, sizeof(T), "scalar field")) return default_value;
    T v;
    std::memcpy(&v, data_ + p, sizeof(T));
    return v;
  }

  // An absent field gives an invalid Table/Vector and no error.
  Table GetTable(const Table& t, int field);
  Vector GetVector(const Table& t, int field, size_t elem_size);
  std::string GetString(const Table& t, int field);

  Table TableAt(const Vector& v, uint32_t i);
  template <typename T>
  T ScalarAt(const Vector& v, uint32_t i) {
    if (!v.valid || i >= v.size) {
      Fail("vector index out of range");
      return T();
    }
    T out;
    std::memcpy(&out, data_ + v.pos + static_cast<size_t>(i) * sizeof(T), sizeof(T));
    return out;
  }
  const uint8_t* BytesOf(const Vector& v) const { return v.valid ? data_ + v.pos : nullptr; }

  void Fail(const std::string& what);

 private:
  bool Check(size_t pos, size_t len, const char* what);
  size_t FieldPos(const Table& t, int field);
  Table ReadTable(size_t pos);
  Vector ReadVector(size_t pos, size_t elem_size);
  size_t FollowOffset(size_t pos);

  const uint8_t* data_;
  size_t size_;
  std::string error_;
};

}  // namespace rill::inference::tflite

#endif  // RILL_INFERENCE_IMPORT_TFLITE_FLATBUFFER_READER_H_
