// Model::FromFile refuses paths that are not regular, non-empty files before
// reading them: a directory (whose stream size reads as garbage), a FIFO
// (which would block), a device, an empty file.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "rill/inference/model.h"

namespace rill::inference {
namespace {

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void ExpectRefused(const std::string& path, StatusCode code, const std::string& why) {
  auto model = Model::FromFile(path);
  ASSERT_FALSE(model.ok()) << path;
  EXPECT_EQ(model.status().code(), code) << model.status().ToString();
  EXPECT_TRUE(Contains(model.status().message(), path)) << model.status().ToString();
  EXPECT_TRUE(Contains(model.status().message(), why)) << model.status().ToString();
}

TEST(ModelFileTest, RefusesWhatIsNotARegularNonEmptyFile) {
  const std::string dir = ::testing::TempDir() + "/model_file_test";
  mkdir(dir.c_str(), 0755);
  ExpectRefused(dir, StatusCode::kInvalidArgument, "is a directory");

  const std::string empty = dir + "/empty.tflite";
  std::ofstream(empty).close();
  ExpectRefused(empty, StatusCode::kInvalidArgument, "is empty");

  const std::string fifo = dir + "/fifo.tflite";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  ExpectRefused(fifo, StatusCode::kInvalidArgument, "is not a regular file");  // and does not block
  unlink(fifo.c_str());

  ExpectRefused("/dev/null", StatusCode::kInvalidArgument, "is not a regular file");
  ExpectRefused(dir + "/missing.tflite", StatusCode::kNotFound, "No such file");
}

TEST(ModelFileTest, GarbageIsAnUnknownFormatNotACrash) {
  const std::string path = ::testing::TempDir() + "/garbage.bin";
  std::ofstream(path) << "not a model";
  auto model = Model::FromFile(path);
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(Contains(model.status().message(), path)) << model.status().ToString();
}

}  // namespace
}  // namespace rill::inference
