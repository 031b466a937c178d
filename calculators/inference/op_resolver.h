// What TfLiteCustomOpResolverCalculator puts in its OP_RESOLVER side packet.
// MediaPipe passes a tflite::OpResolver with its custom ops
// (MaxPoolingWithArgmax2D, MaxUnpooling2D, Convolution2DTransposeBias,
// TransformLandmarks, TransformTensorBilinear, Landmarks2TransformMatrix) to
// its InferenceCalculator; Rill's engine has those ops built in, so the
// resolver carries nothing the engine needs and InferenceCalculator accepts
// and ignores its OP_RESOLVER / CUSTOM_OP_RESOLVER side packets.
#ifndef RILL_CALCULATORS_INFERENCE_OP_RESOLVER_H_
#define RILL_CALCULATORS_INFERENCE_OP_RESOLVER_H_

namespace rill {

struct TfLiteOpResolver {
  // The options' use_gpu, kept for a reader that wants to know.
  bool use_gpu = false;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_INFERENCE_OP_RESOLVER_H_
