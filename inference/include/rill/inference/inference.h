// Everything a user of the engine needs: Model, Session, Tensor, SessionConfig.
#ifndef RILL_INFERENCE_INFERENCE_H_
#define RILL_INFERENCE_INFERENCE_H_

#include "rill/inference/config.h"
#include "rill/inference/model.h"
#include "rill/inference/session.h"
#include "rill/inference/status.h"
#include "rill/inference/tensor.h"

#endif  // RILL_INFERENCE_INFERENCE_H_
