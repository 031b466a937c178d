#include "inference/tools/npy.h"

#include <cstring>
#include <fstream>

namespace rill::inference::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct Code {
  const char* descr;
  DataType dtype;
};
constexpr Code kCodes[] = {
    {"<f4", DataType::kFloat32}, {"<f2", DataType::kFloat16},
    {"<i4", DataType::kInt32},   {"<i8", DataType::kInt64},
    {"|u1", DataType::kUInt8},   {"|i1", DataType::kInt8},
    {"|b1", DataType::kBool},
};

// The value of `key` in a header dict: the text after "'key':" up to the
// next top-level comma or closing brace, trimmed.
bool DictValue(const std::string& header, const std::string& key,
               std::string* value) {
  const std::string quoted = "'" + key + "'";
  size_t p = header.find(quoted);
  if (p == std::string::npos) return false;
  p = header.find(':', p + quoted.size());
  if (p == std::string::npos) return false;
  ++p;
  int depth = 0;
  size_t end = p;
  for (; end < header.size(); ++end) {
    const char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    if (depth < 0) return false;
  }
  std::string v = header.substr(p, end - p);
  while (!v.empty() && (v.front() == ' ')) v.erase(v.begin());
  while (!v.empty() && (v.back() == ' ')) v.pop_back();
  *value = v;
  return true;
}

}  // namespace

std::string Descr(DataType dtype) {
  for (const Code& c : kCodes) {
    if (c.dtype == dtype) return c.descr;
  }
  return "";
}

StatusOr<Array> Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return NotFoundError(path + ": cannot open");
  const std::streamoff file_size = in.tellg();
  in.seekg(0);
  char prefix[10];
  if (file_size < 10 || !in.read(prefix, 10) ||
      std::memcmp(prefix, kMagic, kMagicSize) != 0) {
    return InvalidArgumentError(path + ": not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(prefix[6]);
  size_t header_len = 0;
  size_t offset = 10;
  if (major == 1) {
    header_len = static_cast<uint8_t>(prefix[8]) |
                 (static_cast<size_t>(static_cast<uint8_t>(prefix[9])) << 8);
  } else if (major == 2 || major == 3) {
    char more[2];
    if (!in.read(more, 2)) return InvalidArgumentError(path + ": truncated .npy header");
    header_len = static_cast<uint8_t>(prefix[8]) |
                 (static_cast<size_t>(static_cast<uint8_t>(prefix[9])) << 8) |
                 (static_cast<size_t>(static_cast<uint8_t>(more[0])) << 16) |
                 (static_cast<size_t>(static_cast<uint8_t>(more[1])) << 24);
    offset = 12;
  } else {
    return InvalidArgumentError(path + ": .npy version " + std::to_string(major) +
                                " (this reader knows 1, 2 and 3)");
  }
  if (header_len > 1u << 20 ||
      static_cast<std::streamoff>(offset + header_len) > file_size) {
    return InvalidArgumentError(path + ": truncated .npy header");
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header_len))) {
    return InvalidArgumentError(path + ": truncated .npy header");
  }
  std::string descr, fortran, shape_text;
  if (!DictValue(header, "descr", &descr) ||
      !DictValue(header, "fortran_order", &fortran) ||
      !DictValue(header, "shape", &shape_text)) {
    return InvalidArgumentError(path + ": .npy header lacks descr, fortran_order or shape: " + header);
  }
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) {
    descr = descr.substr(1, descr.size() - 2);
  }
  Array a;
  for (const Code& c : kCodes) {
    if (descr == c.descr) a.dtype = c.dtype;
  }
  if (a.dtype == DataType::kUnknown) {
    return InvalidArgumentError(
        path + ": dtype '" + descr +
        "' is not one the engine takes (little-endian float32, float16, int32, "
        "int64, uint8, int8, bool: numpy's <f4, <f2, <i4, <i8, |u1, |i1, |b1)");
  }
  // Shape: "(1, 3, 224, 224)", "(5,)" or "()".
  if (shape_text.size() < 2 || shape_text.front() != '(' || shape_text.back() != ')') {
    return InvalidArgumentError(path + ": malformed shape " + shape_text);
  }
  size_t count = 1;
  std::string dims = shape_text.substr(1, shape_text.size() - 2);
  size_t p = 0;
  while (p < dims.size()) {
    while (p < dims.size() && (dims[p] == ' ' || dims[p] == ',')) ++p;
    if (p >= dims.size()) break;
    char* end = nullptr;
    const long long d = std::strtoll(dims.c_str() + p, &end, 10);
    if (end == dims.c_str() + p || d < 0 || d > (1ll << 40)) {
      return InvalidArgumentError(path + ": malformed shape " + shape_text);
    }
    a.shape.push_back(d);
    count *= static_cast<size_t>(d);
    if (count > (size_t{1} << 40)) return InvalidArgumentError(path + ": shape " + shape_text + " is too large");
    p = static_cast<size_t>(end - dims.c_str());
  }
  if (fortran == "True" && a.shape.size() > 1) {
    return InvalidArgumentError(path + ": Fortran-ordered array; save it in C order (np.ascontiguousarray)");
  }
  const size_t bytes = count * DataTypeSize(a.dtype);
  if (static_cast<std::streamoff>(offset + header_len + bytes) > file_size) {
    return InvalidArgumentError(path + ": shape " + shape_text + " needs " + std::to_string(bytes) +
                                " data bytes, the file holds " +
                                std::to_string(file_size - static_cast<std::streamoff>(offset + header_len)));
  }
  a.data.resize(bytes);
  if (bytes > 0 && !in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(bytes))) {
    return DataLossError(path + ": read failed");
  }
  return a;
}

Status Write(const std::string& path, DataType dtype, const std::vector<int64_t>& shape,
             const void* bytes, size_t num_bytes) {
  const std::string descr = Descr(dtype);
  if (descr.empty()) return InvalidArgumentError(path + ": no .npy type for " + std::string(DataTypeName(dtype)));
  // Python's tuple syntax: "(1, 3, 224, 224)", "(5,)", "()".
  std::string shape_text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    shape_text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  shape_text += shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary; the
  // header ends with a newline.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 65535) return InvalidArgumentError(path + ": shape too long for a .npy v1 header");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return NotFoundError(path + ": cannot write");
  out.write(kMagic, kMagicSize);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(num_bytes));
  out.close();
  if (!out) return DataLossError(path + ": write failed (disk full?)");
  return Status::Ok();
}

}  // namespace rill::inference::npy
