// `rill model info|bench MODEL`: the engine's model tool, as a function so
// that other command-line programs (//tools:rill) can forward to it.
#ifndef RILL_INFERENCE_TOOLS_MODEL_TOOL_H_
#define RILL_INFERENCE_TOOLS_MODEL_TOOL_H_

namespace rill::inference {

// argv[1] is "info" or "bench", argv[2] the model; returns the exit status.
int RunModelTool(int argc, char** argv);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_TOOLS_MODEL_TOOL_H_
