// A bounds-checked reader of FlexBuffers (the schema-less format TFLite
// custom ops keep their custom_options in), enough for the options of
// MediaPipe's custom ops: a root map of scalars and vectors of numbers. Like
// FlatBufferReader, every access checks its bytes against the buffer and the
// first error is kept (later reads give defaults).
//
// Format facts used: the buffer ends with the root's byte width (last byte)
// and its packed type (the byte before), the root's slot just before that. A
// packed type is (type << 2) | log2(byte width of what it points to). Scalars
// (null, int, uint, float, bool) sit in their slot; every other value is an
// unsigned offset back from its slot. A vector's element count sits one
// element width before its first element; an untyped vector (and a map) is
// followed by one packed-type byte per element; a map's three slots before
// its count hold the offset to its sorted keys vector and that vector's
// element width; a key is a NUL-terminated string.
#ifndef RILL_INFERENCE_IMPORT_TFLITE_FLEXBUFFER_READER_H_
#define RILL_INFERENCE_IMPORT_TFLITE_FLEXBUFFER_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rill::inference::tflite {

class FlexBufferReader {
 public:
  // FlexBuffers' type codes (those this reader tells apart).
  enum Type : int {
    kNull = 0,
    kInt = 1,
    kUInt = 2,
    kFloat = 3,
    kKey = 4,
    kString = 5,
    kIndirectInt = 6,
    kIndirectUInt = 7,
    kIndirectFloat = 8,
    kMap = 9,
    kVector = 10,
    kVectorInt = 11,
    kVectorUInt = 12,
    kVectorFloat = 13,
    kVectorKey = 14,
    kVectorInt2 = 16,  // ... kVectorFloat4 = 24: fixed-length typed vectors
    kVectorFloat4 = 24,
    kBlob = 25,
    kBool = 26,
    kVectorBool = 36,
  };

  // A value: its slot, the slot's width, its type and the width of what it
  // points to.
  struct Ref {
    size_t pos = 0;
    int slot_width = 1;
    int type = kNull;
    int child_width = 1;
    bool valid = false;
  };

  FlexBufferReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  Ref Root();
  // The keys of a map, in their stored (sorted) order.
  std::vector<std::string> Keys(const Ref& map);
  // The value of `key` in `map`; invalid (no error) when absent.
  Ref Find(const Ref& map, const std::string& key);

  bool IsNumber(const Ref& r) const;
  bool IsNumberVector(const Ref& r);
  // Numbers (int, uint, float, bool, indirect ones) as int64 / double;
  // anything else fails.
  int64_t AsInt(const Ref& r);
  double AsDouble(const Ref& r);
  // The elements of a vector (typed, fixed-length or untyped) of numbers.
  std::vector<int64_t> AsInts(const Ref& r);

 private:
  bool Check(size_t pos, size_t len, const char* what);
  void Fail(const std::string& what);
  uint64_t ReadUInt(size_t pos, int width);
  int64_t ReadInt(size_t pos, int width);
  double ReadFloat(size_t pos, int width);
  // Where an offset value points (its slot minus the offset).
  bool Target(const Ref& r, size_t* target);
  // A vector's first element, count, element width and element type (-1:
  // per element, an untyped vector or a map).
  bool VectorOf(const Ref& r, size_t* first, size_t* count, int* width, int* elem_type);
  Ref Element(size_t first, size_t count, int width, int elem_type, size_t i);
  std::string KeyAt(size_t pos);

  const uint8_t* data_;
  size_t size_;
  std::string error_;
};

}  // namespace rill::inference::tflite

#endif  // RILL_INFERENCE_IMPORT_TFLITE_FLEXBUFFER_READER_H_
