// Typed ports for new calculators: declare each port once as a constant and
// get both the contract and typed access from it.
//
//   class ScaleCalculator : public api2::Node {
//    public:
//     static constexpr api2::Input<float> kIn{"IN"};
//     static constexpr api2::SideInput<float>::Optional kFactor{"FACTOR"};
//     static constexpr api2::Output<float> kOut{"OUT"};
//     RILL_NODE_CONTRACT(kIn, kFactor, kOut);
//     absl::Status Process(CalculatorContext* cc) override {
//       const float f = kFactor(cc).IsEmpty() ? 1.f : kFactor(cc).Get();
//       kOut(cc).Send(kIn(cc).Get() * f);
//       return absl::OkStatus();
//     }
//   };
//   RILL_REGISTER_NODE(ScaleCalculator);
//
// Input<T>::Multiple addresses every index of a tag: kIn(cc)[i], Count().
#ifndef RILL_FRAMEWORK_API2_H_
#define RILL_FRAMEWORK_API2_H_

#include <type_traits>
#include <utility>

#include "framework/calculator_base.h"

namespace rill {
namespace api2 {

// A port that carries any type.
struct AnyType {};

namespace internal {

template <typename T>
void SetType(PacketType& t, bool optional) {
  if constexpr (std::is_same_v<T, AnyType>) {
    t.SetAny();
  } else {
    t.template Set<T>();
  }
  if (optional) t.Optional();
}

template <typename T>
void AddToSet(PacketTypeSet& set, const char* tag, bool optional,
              bool multiple) {
  if (multiple) {
    for (int i = 0; i < set.NumEntries(tag); ++i) {
      SetType<T>(set.Get(tag, i), optional);
    }
    return;
  }
  if (optional && !set.HasTag(tag)) return;
  SetType<T>(set.Tag(tag), optional);
}

}  // namespace internal

template <typename T>
class InputAccess {
 public:
  explicit InputAccess(const InputStreamShard& s) : s_(&s) {}
  bool IsEmpty() const { return s_->IsEmpty(); }
  const T& Get() const { return s_->template Get<T>(); }
  const T& operator*() const { return Get(); }
  const rill::Packet& Packet() const { return s_->Value(); }
  bool IsDone() const { return s_->IsDone(); }

 private:
  const InputStreamShard* s_;
};

template <>
class InputAccess<AnyType> {
 public:
  explicit InputAccess(const InputStreamShard& s) : s_(&s) {}
  bool IsEmpty() const { return s_->IsEmpty(); }
  const rill::Packet& Packet() const { return s_->Value(); }
  bool IsDone() const { return s_->IsDone(); }

 private:
  const InputStreamShard* s_;
};

template <typename T>
class OutputAccess {
 public:
  OutputAccess(OutputStreamShard& s, Timestamp ts) : s_(&s), ts_(ts) {}
  // Sends at the invocation's input timestamp.
  template <typename U = T,
            typename = std::enable_if_t<!std::is_same_v<U, AnyType>>>
  void Send(U value) const {
    Send(std::move(value), ts_);
  }
  template <typename U = T,
            typename = std::enable_if_t<!std::is_same_v<U, AnyType>>>
  void Send(U value, Timestamp ts) const {
    s_->AddPacket(MakePacket<T>(std::move(value)).At(ts));
  }
  void Send(const Packet& packet) const { s_->AddPacket(packet); }
  void Send(Packet&& packet) const { s_->AddPacket(std::move(packet)); }
  void SetNextTimestampBound(Timestamp ts) const {
    s_->SetNextTimestampBound(ts);
  }
  void Close() const { s_->Close(); }
  bool IsClosed() const { return s_->IsClosed(); }

 private:
  OutputStreamShard* s_;
  Timestamp ts_;
};

template <typename T, bool kOptional = false, bool kMultiple = false>
struct Input {
  const char* tag;
  using Optional = Input<T, true, kMultiple>;
  using Multiple = Input<T, kOptional, true>;
  void AddToContract(CalculatorContract* cc) const {
    internal::AddToSet<T>(cc->Inputs(), tag, kOptional, kMultiple);
  }
  template <bool M = kMultiple, typename = std::enable_if_t<!M>>
  InputAccess<T> operator()(CalculatorContext* cc) const {
    return InputAccess<T>(cc->Inputs().Tag(tag));
  }
  struct MultipleAccess {
    CalculatorContext* cc;
    const char* tag;
    int Count() const { return cc->Inputs().NumEntries(tag); }
    InputAccess<T> operator[](int i) const {
      return InputAccess<T>(cc->Inputs().Get(tag, i));
    }
  };
  template <bool M = kMultiple, typename = std::enable_if_t<M>>
  MultipleAccess operator()(CalculatorContext* cc, int = 0) const {
    return MultipleAccess{cc, tag};
  }
};

template <typename T, bool kOptional = false, bool kMultiple = false>
struct Output {
  const char* tag;
  using Optional = Output<T, true, kMultiple>;
  using Multiple = Output<T, kOptional, true>;
  void AddToContract(CalculatorContract* cc) const {
    internal::AddToSet<T>(cc->Outputs(), tag, kOptional, kMultiple);
  }
  template <bool M = kMultiple, typename = std::enable_if_t<!M>>
  OutputAccess<T> operator()(CalculatorContext* cc) const {
    return OutputAccess<T>(cc->Outputs().Tag(tag), cc->InputTimestamp());
  }
  struct MultipleAccess {
    CalculatorContext* cc;
    const char* tag;
    int Count() const { return cc->Outputs().NumEntries(tag); }
    OutputAccess<T> operator[](int i) const {
      return OutputAccess<T>(cc->Outputs().Get(tag, i), cc->InputTimestamp());
    }
  };
  template <bool M = kMultiple, typename = std::enable_if_t<M>>
  MultipleAccess operator()(CalculatorContext* cc, int = 0) const {
    return MultipleAccess{cc, tag};
  }
};

template <typename T>
class SideInputAccess {
 public:
  explicit SideInputAccess(const Packet& p) : p_(&p) {}
  bool IsEmpty() const { return p_->IsEmpty(); }
  const T& Get() const { return p_->Get<T>(); }
  const T& operator*() const { return Get(); }
  const rill::Packet& Packet() const { return *p_; }

 private:
  const rill::Packet* p_;
};

template <typename T, bool kOptional = false>
struct SideInput {
  const char* tag;
  using Optional = SideInput<T, true>;
  void AddToContract(CalculatorContract* cc) const {
    internal::AddToSet<T>(cc->InputSidePackets(), tag, kOptional, false);
  }
  SideInputAccess<T> operator()(CalculatorContext* cc) const {
    return SideInputAccess<T>(cc->InputSidePackets().Tag(tag));
  }
};

template <typename T, bool kOptional = false>
struct SideOutput {
  const char* tag;
  using Optional = SideOutput<T, true>;
  void AddToContract(CalculatorContract* cc) const {
    internal::AddToSet<T>(cc->OutputSidePackets(), tag, kOptional, false);
  }
  struct Access {
    OutputSidePacket* s;
    void Set(T value) const { s->Set(MakePacket<T>(std::move(value))); }
    void Set(const Packet& p) const { s->Set(p); }
  };
  Access operator()(CalculatorContext* cc) const {
    return Access{&cc->OutputSidePackets().Tag(tag)};
  }
};

// A calculator written with typed ports. Derived classes may define
// `static absl::Status UpdateContract(CalculatorContract*)` for anything
// ports cannot say (timestamp offset, stream handler).
class Node : public CalculatorBase {
 public:
  static absl::Status UpdateContract(CalculatorContract*) {
    return absl::OkStatus();
  }
};

template <typename... Ports>
void AddPortsToContract(CalculatorContract* cc, const Ports&... ports) {
  (ports.AddToContract(cc), ...);
}

}  // namespace api2
}  // namespace rill

#define RILL_NODE_CONTRACT(...)                                    \
  static absl::Status GetContract(::rill::CalculatorContract* cc) { \
    ::rill::api2::AddPortsToContract(cc, __VA_ARGS__);              \
    return UpdateContract(cc);                                      \
  }

#define RILL_REGISTER_NODE(Class) REGISTER_CALCULATOR(Class)

#endif  // RILL_FRAMEWORK_API2_H_
