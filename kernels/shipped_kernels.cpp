#include "kernels/shipped_kernels.hpp"

#include <algorithm>

#include "sim/core/edit_distance.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {

void dma_stream(KernelProgram& k, std::int64_t bytes_per_partition, std::int64_t transfers) {
  if (bytes_per_partition < 2 || bytes_per_partition % 2 != 0)
    throw InputError("dma-stream: bytes_per_partition = " + std::to_string(bytes_per_partition) +
                     " must be a positive even number (BF16 elements)");
  const std::int64_t free = bytes_per_partition / 2;
  const HbmTensor src = k.hbm("src", 128 * transfers, free, Dtype::bf16);
  // As many rotating buffers as fit (at most 8): each load writes a buffer no one reads.
  const std::int64_t usable = static_cast<std::int64_t>(k.hw().sbuf.usable_bytes_per_partition());
  const std::int64_t bufs = std::clamp<std::int64_t>(usable / bytes_per_partition, 1, 8);
  if (bytes_per_partition > usable)
    throw InputError("dma-stream: " + std::to_string(bytes_per_partition) + " bytes per partition exceed the " +
                     std::to_string(usable) + " usable SBUF bytes per partition of " + k.hw().name);
  for (std::int64_t i = 0; i < transfers; ++i) {
    TileBlock tile = k.sbuf("tile", 128, static_cast<std::uint32_t>(free), Dtype::bf16, 1, static_cast<std::uint32_t>(bufs));
    k.load(tile.all(), slice(src, 128 * i, 128, 0, free), DmaIssuer::sync);
  }
}

void scalar_chain(KernelProgram& k, std::int64_t instructions) {
  // The performance guide's profile (Opt #5a): IDENTITY activations reading one FP32 element per partition, each
  // reading what the one before wrote.
  TileBlock previous = k.sbuf("x", 128, 1, Dtype::fp32, 1, 2);
  k.instruction(Engine::vector, OpKind::memset, previous.all(), {});
  for (std::int64_t i = 0; i < instructions; ++i) {
    TileBlock next = k.sbuf("x", 128, 1, Dtype::fp32, 1, 2);
    k.activation(next.all(), previous.all(), "identity");
    previous = next;
  }
}

const std::vector<ShippedKernel>& shipped_kernels() {
  static const std::vector<ShippedKernel> kernels = [] {
    const KernelArgs tutorial = {{"M", 4096}, {"K", 8192}, {"N", 8192}};
    auto matmul = [](void (*build)(KernelProgram&, std::int64_t, std::int64_t, std::int64_t)) {
      return [build](KernelProgram& k, const KernelArgs& a) { build(k, a.at("M"), a.at("K"), a.at("N")); };
    };
    return std::vector<ShippedKernel>{
        {"matmul-tiled", "NKI matmul tutorial, nki_matmul_tiled_: both operand tiles loaded for every matmul", "trn1",
         tutorial, matmul(matmul_tiled)},
        {"matmul-hoist-load", "NKI matmul tutorial, nki_matmul_hoist_load_: lhsT once per m, rhs once per (m, n)",
         "trn1", tutorial, matmul(matmul_hoist_load)},
        {"matmul-block-free", "NKI matmul tutorial, nki_matmul_block_free_dimension_: 2 x 2 tiles per M/N block",
         "trn1", tutorial, matmul(matmul_block_free)},
        {"matmul-fully-optimized",
         "NKI matmul tutorial, nki_matmul_fully_optimized_: 16/2/8-tile blocks, SBUF accumulation", "trn1", tutorial,
         matmul(matmul_fully_optimized)},
        {"dma-stream", "back-to-back loads of [128, bytes_per_partition] BF16 tiles on one queue", "trn2",
         {{"bytes_per_partition", 32768}, {"transfers", 40}},
         [](KernelProgram& k, const KernelArgs& a) { dma_stream(k, a.at("bytes_per_partition"), a.at("transfers")); }},
        {"scalar-chain", "dependent one-element IDENTITY activations on ScalarE", "trn1", {{"instructions", 64}},
         [](KernelProgram& k, const KernelArgs& a) { scalar_chain(k, a.at("instructions")); }},
    };
  }();
  return kernels;
}

const ShippedKernel& shipped_kernel(const std::string& name) {
  std::vector<std::string> names;
  for (const ShippedKernel& k : shipped_kernels()) {
    if (k.name == name) return k;
    names.push_back(k.name);
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string near = nearest_match(name, names);
  throw InputError("unknown kernel '" + name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                   "; kernels: " + list);
}

KernelArgs kernel_args(const ShippedKernel& kernel, const KernelArgs& overrides) {
  KernelArgs args = kernel.defaults;
  std::vector<std::string> names;
  for (const auto& [name, value] : kernel.defaults) names.push_back(name);
  for (const auto& [name, value] : overrides) {
    if (!kernel.defaults.count(name)) {
      const std::string near = nearest_match(name, names);
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw InputError("kernel '" + kernel.name + "' has no parameter '" + name + "'" +
                       (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; parameters: " + list);
    }
    if (value < 1 || value > (std::int64_t{1} << 40))
      throw InputError("kernel '" + kernel.name + "': " + name + " = " + std::to_string(value) +
                       " must be between 1 and 2^40");
    args[name] = value;
  }
  return args;
}

}  // namespace stasim
