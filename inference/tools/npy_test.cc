#include "inference/tools/npy.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rill::inference::npy {
namespace {

std::string Tmp(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  return std::string(t ? t : "/tmp") + "/" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(NpyTest, WriteThenReadRoundTrips) {
  const std::vector<float> v = {1.5f, -2.f, 3.25f, 0.f, 7.f, 8.f};
  const std::string path = Tmp("a.npy");
  ASSERT_TRUE(Write(path, DataType::kFloat32, {2, 3}, v.data(), v.size() * 4).ok());
  const std::string bytes = ReadAll(path);
  // numpy's layout: magic, version 1.0, header padded to 64 bytes.
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
            std::string::npos);
  EXPECT_EQ(bytes[127], '\n');
  auto a = Read(path);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->dtype, DataType::kFloat32);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(a->data.size(), 24u);
  EXPECT_EQ(std::memcmp(a->data.data(), v.data(), 24), 0);
}

TEST(NpyTest, OneAndZeroDimensionalShapesUsePythonTupleSyntax) {
  const int32_t v[3] = {1, 2, 3};
  ASSERT_TRUE(Write(Tmp("b.npy"), DataType::kInt32, {3}, v, 12).ok());
  EXPECT_NE(ReadAll(Tmp("b.npy")).find("'shape': (3,)"), std::string::npos);
  auto b = Read(Tmp("b.npy"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->dtype, DataType::kInt32);
  EXPECT_EQ(b->shape, std::vector<int64_t>{3});
  ASSERT_TRUE(Write(Tmp("c.npy"), DataType::kInt64, {}, "\x05\0\0\0\0\0\0\0", 8).ok());
  EXPECT_NE(ReadAll(Tmp("c.npy")).find("'shape': ()"), std::string::npos);
  auto c = Read(Tmp("c.npy"));
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->shape.empty());
  EXPECT_EQ(c->data.size(), 8u);
}

// Files as numpy 1.24 writes them (np.save), header bytes verbatim.
TEST(NpyTest, ReadsNumpysOwnHeaders) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2, 1), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + char(0) + header;
  const float v[4] = {1, 2, 3, 4};
  file.append(reinterpret_cast<const char*>(v), 16);
  std::ofstream(Tmp("d.npy"), std::ios::binary) << file;
  auto d = Read(Tmp("d.npy"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->shape, (std::vector<int64_t>{1, 2, 2, 1}));
  EXPECT_EQ(std::memcmp(d->data.data(), v, 16), 0);
}

void ExpectError(const std::string& name, const std::string& contents, const std::string& message) {
  std::ofstream(Tmp(name), std::ios::binary) << contents;
  auto r = Read(Tmp(name));
  ASSERT_FALSE(r.ok()) << name;
  EXPECT_NE(r.status().message().find(Tmp(name)), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(message), std::string::npos) << r.status().message();
}

std::string Npy(const std::string& dict, size_t data_bytes) {
  std::string header = dict;
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header +
         std::string(data_bytes, '\0');
}

TEST(NpyTest, BadFilesSayWhatIsWrong) {
  ExpectError("raw.npy", "just some bytes", "not a .npy file");
  ExpectError("f8.npy", Npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16), "dtype '<f8'");
  ExpectError("be.npy", Npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8), "dtype '>f4'");
  ExpectError("fortran.npy", Npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16),
              "Fortran-ordered");
  ExpectError("short.npy", Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", 20),
              "needs 64 data bytes, the file holds 20");
  ExpectError("noshape.npy", Npy("{'descr': '<f4', 'fortran_order': False, }", 0), "lacks");
  ExpectError("badshape.npy", Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (a, 2), }", 0),
              "malformed shape");
  ExpectError("huge.npy", Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (10000000, 1000000), }", 0),
              "too large");
  std::string truncated = Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8).substr(0, 30);
  ExpectError("trunc.npy", truncated, "truncated");
  EXPECT_EQ(Read(Tmp("missing.npy")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace rill::inference::npy
