// Helpers of the AArch64 assembly kernels (the .S files here): symbol
// declarations for ELF, and the note that keeps the stack non-executable.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_ASM_MACROS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_ASM_MACROS_H_

#define RILL_FUNC(name) \
  .global name;         \
  .hidden name;         \
  .type name, %function; \
  name:

#define RILL_FUNC_END(name) .size name, .- name

#define RILL_ASM_NOTE_GNU_STACK .section .note.GNU-stack, "", %progbits

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_ASM_MACROS_H_
