#include "framework/formats/tensor.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace rill {
namespace {

TEST(TensorTest, ShapeTypeAndAlignedData) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 4, 3});
  EXPECT_EQ(t.num_elements(), 12);
  EXPECT_EQ(t.bytes(), 48u);
  EXPECT_EQ(t.shape().DebugString(), "[1,4,3]");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  float* x = t.mutable_data<float>();
  for (int i = 0; i < 12; ++i) x[i] = i * 0.5f;
  EXPECT_EQ(t.GetCpuReadView().buffer<float>()[11], 5.5f);
  EXPECT_EQ(t.DebugString(), "Tensor(float32 [1,4,3])");
}

TEST(TensorTest, MoveIsCheapCopyIsDeep) {
  Tensor a(Tensor::ElementType::kInt32, Tensor::Shape{5});
  for (int i = 0; i < 5; ++i) a.mutable_data<int32_t>()[i] = i;
  const void* buffer = a.raw_data();
  Tensor b = std::move(a);
  EXPECT_EQ(b.raw_data(), buffer);
  EXPECT_TRUE(a.empty());
  Tensor c = b;
  EXPECT_NE(c.raw_data(), b.raw_data());
  EXPECT_EQ(c.data<int32_t>()[4], 4);
  c.mutable_data<int32_t>()[4] = 40;
  EXPECT_EQ(b.data<int32_t>()[4], 4);
}

TEST(TensorTest, VectorOfTensors) {
  std::vector<Tensor> tensors;
  tensors.emplace_back(Tensor::ElementType::kUInt8, Tensor::Shape{2, 2},
                       Tensor::QuantizationParameters{0.5f, 3});
  tensors.emplace_back(Tensor::ElementType::kFloat32,
                       Tensor::Shape{1, 896, 16});
  EXPECT_EQ(tensors[0].quantization_parameters().zero_point, 3);
  EXPECT_EQ(tensors[1].shape().dims[1], 896);
}

TEST(TensorTest, WrapDoesNotCopy) {
  auto owner = std::make_shared<std::vector<float>>(6, 2.f);
  Tensor t = Tensor::Wrap(Tensor::ElementType::kFloat32, Tensor::Shape{2, 3},
                          owner->data(), owner);
  EXPECT_EQ(t.data<float>(), owner->data());
  std::weak_ptr<std::vector<float>> weak = owner;
  owner.reset();
  EXPECT_FALSE(weak.expired());  // the tensor keeps it alive
  EXPECT_EQ(t.data<float>()[5], 2.f);
}

TEST(TensorDeathTest, WrongTypeNamesBoth) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1});
  EXPECT_DEATH(t.data<int32_t>(), "holds float32 \\[1\\], asked for int32");
}

}  // namespace
}  // namespace rill
