#include "inference/runtime/denormals.h"

#include <cfloat>
#include <cmath>

#include "gtest/gtest.h"

namespace rill::inference {
namespace {

// volatile keeps the compiler from folding the arithmetic at build time.
float Half(volatile float x) { return x * 0.5f; }

TEST(DenormalsTest, FlushesInsideTheScopeAndRestoresAfter) {
  const float tiny = FLT_MIN;  // smallest normal; half of it is subnormal
  EXPECT_EQ(std::fpclassify(Half(tiny)), FP_SUBNORMAL);
  {
    ScopedFlushDenormals flush;
    EXPECT_EQ(Half(tiny), 0.0f);
  }
  EXPECT_EQ(std::fpclassify(Half(tiny)), FP_SUBNORMAL);
}

}  // namespace
}  // namespace rill::inference
