// A test that cannot run where it runs, for want of a model, the media,
// ONNX Runtime or an OpenCL device: under CI=true (.ci/run, and bazel's
// --test_env=CI) that is a failure, since CI must run every test; elsewhere
// a loud skip that scripts/test.sh lists by name.
//
//   RILL_REQUIRE(FileExists(path), path << " is missing: run scripts/fetch_models.sh");
#ifndef RILL_TESTS_REQUIRE_H_
#define RILL_TESTS_REQUIRE_H_

#include <cstdlib>

#include "gtest/gtest.h"

#define RILL_REQUIRE(condition, message)                                                  \
  if (condition) {                                                                        \
  } else if (std::getenv("CI") != nullptr && *std::getenv("CI") != '\0') {                \
    FAIL() << message << " (CI runs every test: scripts/setup.sh installs what it needs)"; \
  } else                                                                                  \
    GTEST_SKIP() << "NOT TESTED HERE: " << message

#endif  // RILL_TESTS_REQUIRE_H_
