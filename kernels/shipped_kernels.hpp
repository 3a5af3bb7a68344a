// The kernels stasim ships as programs (kernels/kernel_program.hpp), each a few dozen lines, runnable by name
// (`stasim kernel NAME`) with integer parameters (`--arg M=256`): the NKI matrix-multiplication tutorial's four
// kernels, a stream of DMA loads (the DMA page's throughput curve) and a chain of dependent ScalarE instructions
// (the performance guide's measured interval). configs/reference/kernels.yaml holds what each was measured at.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernels/kernel_program.hpp"

namespace stasim {

using KernelArgs = std::map<std::string, std::int64_t>;

struct ShippedKernel {
  std::string name;
  std::string description;
  std::string hardware;                   // the generation it was measured on (a default, not a limit)
  KernelArgs defaults;                    // every parameter it takes, with its default
  std::function<void(KernelProgram&, const KernelArgs&)> build;
};

const std::vector<ShippedKernel>& shipped_kernels();
// The kernel called `name`; InputError with the names when there is none.
const ShippedKernel& shipped_kernel(const std::string& name);
// `defaults` with `overrides` applied: an unknown name or a value outside 1..2^40 is an InputError naming it.
KernelArgs kernel_args(const ShippedKernel& kernel, const KernelArgs& overrides);

// The builders, for tests and embedding.
void matmul_tiled(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N);
void matmul_hoist_load(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N);
void matmul_block_free(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N);
void matmul_fully_optimized(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N);
void dma_stream(KernelProgram& k, std::int64_t bytes_per_partition, std::int64_t transfers);
void scalar_chain(KernelProgram& k, std::int64_t instructions);

}  // namespace stasim
