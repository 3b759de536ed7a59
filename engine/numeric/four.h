// Four doubles as one value (the GCC/Clang vector extension): whole-vector arithmetic, one AVX
// register or two SSE2 ones, for kernels that update rows of many columns at once.
#pragma once

namespace lw::num {

/// aligned(8): loads and stores through a Four* need no alignment beyond a double's.
using Four = double __attribute__((vector_size(32), aligned(8)));

}  // namespace lw::num

/// Marks a kernel to be compiled twice, for AVX2/FMA (x86-64-v3) and for the baseline, the
/// version chosen once at load time from the CPU (GCC on x86-64; elsewhere the baseline only).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LW_CLONE_FOR_AVX2 __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LW_CLONE_FOR_AVX2
#endif
