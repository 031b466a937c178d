// The "cpu_device" backend, for tests only: the CPU kernels behind a device
// boundary. Its memory is its own (the session reaches it only through
// CopyToHost / CopyFromHost), it runs on a stream of its own with its share
// of the threads, its tensors are stored with padding after their bytes
// (so a session that sized them as elements x bytes would fail), and it
// takes only the ops named in the backend option "cpu_device.ops"
// (comma-separated IR op names; all when absent), refusing the others in
// CreateExecution, and in Prepare those named in "cpu_device.refuse_in_prepare".
// So placement, fallback, transfers, storage and concurrent backends run for
// real without a GPU. Linking this library registers it.
#ifndef RILL_TESTS_INFERENCE_CPU_DEVICE_BACKEND_H_
#define RILL_TESTS_INFERENCE_CPU_DEVICE_BACKEND_H_

#include <string>
#include <vector>

#include "rill/inference/config.h"

namespace rill::inference::testing {

inline constexpr const char kCpuDevice[] = "cpu_device";

// Sets config to run on cpu_device, taking only `ops` (all when empty).
void UseCpuDevice(SessionConfig* config, const std::vector<std::string>& ops);

// How many BeginRun / EndRun hooks the cpu_device backends of this process
// have seen (for tests of the hooks).
struct CpuDeviceHookCounts {
  long long begin_resize = 0, end_resize = 0, begin_run = 0, end_run = 0;
  int thread_budget = 0;  // the last SetThreadBudget
};
CpuDeviceHookCounts CpuDeviceHooks();

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_CPU_DEVICE_BACKEND_H_
