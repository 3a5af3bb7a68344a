// The four kernels of the NKI matrix-multiplication tutorial (lhsT [K, M] x rhs [K, N] -> result [M, N], BF16),
// written as programs with the tutorial's loop nests, tile shapes and blockings. What the compiler chose and
// the tutorial does not show is stated here, one place for all four:
// - DMA queues by trigger engine: lhsT loads on ScalarE's queue (act), rhs loads on the Sync engine's (sync),
//   stores on GpSimd's (pool) — the loads of one operand stream stay in order on one queue;
// - a tile allocated inside an affine_range loop gets two rotating buffers when two fit in SBUF (iterations may
//   overlap), one when they do not (block-free's rhs block of 128 KiB per partition); a tile allocated inside a
//   sequential_range loop (the last kernel's K blocks, "we do not want the compiler to change this loop") one;
//   PSUM accumulators two banks (four in the last kernel);
// - PSUM is copied to SBUF on VectorE (nl.copy), the last kernel's SBUF accumulation is VectorE's
//   tensor_tensor, its nl.zeros a GpSimd memset and its packing copies ScalarE's.
#include "kernels/shipped_kernels.hpp"

#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

constexpr std::int64_t kTileM = 128, kTileK = 128, kTileN = 512;

void require_multiple(const char* kernel, const char* dim, std::int64_t value, std::int64_t of) {
  if (value <= 0 || value % of != 0)
    throw InputError(std::string(kernel) + ": " + dim + " = " + std::to_string(value) + " must be a positive multiple of " +
                     std::to_string(of));
}

struct Operands {
  HbmTensor lhsT, rhs, result;
};

Operands operands(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N) {
  return {k.hbm("lhsT", K, M, Dtype::bf16), k.hbm("rhs", K, N, Dtype::bf16), k.hbm("result", M, N, Dtype::bf16)};
}

// PSUM -> SBUF copy in the result's type, then the store of that [128, 512] tile.
void drain(KernelProgram& k, const Operands& t, const TileBlock& res_psum, std::int64_t m_tile, std::int64_t n_tile) {
  TileBlock res_sb = k.sbuf("res_sb", kTileM, kTileN, Dtype::bf16, 1, 2);
  k.instruction(Engine::vector, OpKind::tensor_copy, res_sb.all(), {res_psum.all()});
  k.store(slice(t.result, m_tile * kTileM, kTileM, n_tile * kTileN, kTileN), res_sb.all(), DmaIssuer::pool);
}

}  // namespace

void matmul_tiled(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N) {
  require_multiple("matmul-tiled", "M", M, kTileM);
  require_multiple("matmul-tiled", "K", K, kTileK);
  require_multiple("matmul-tiled", "N", N, kTileN);
  const Operands t = operands(k, M, K, N);
  for (std::int64_t m = 0; m < M / kTileM; ++m)
    for (std::int64_t n = 0; n < N / kTileN; ++n) {
      TileBlock res_psum = k.psum("res_psum", kTileM, kTileN, Dtype::fp32, 1, 2);
      for (std::int64_t kk = 0; kk < K / kTileK; ++kk) {
        TileBlock lhsT_tile = k.sbuf("lhsT_tile", kTileK, kTileM, Dtype::bf16, 1, 2);
        TileBlock rhs_tile = k.sbuf("rhs_tile", kTileK, kTileN, Dtype::bf16, 1, 2);
        k.load(lhsT_tile.all(), slice(t.lhsT, kk * kTileK, kTileK, m * kTileM, kTileM), DmaIssuer::act);
        k.load(rhs_tile.all(), slice(t.rhs, kk * kTileK, kTileK, n * kTileN, kTileN), DmaIssuer::sync);
        k.matmul(res_psum.all(), lhsT_tile.all(), rhs_tile.all(), kk > 0);
      }
      drain(k, t, res_psum, m, n);
    }
}

void matmul_hoist_load(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N) {
  require_multiple("matmul-hoist-load", "M", M, kTileM);
  require_multiple("matmul-hoist-load", "K", K, kTileK);
  require_multiple("matmul-hoist-load", "N", N, kTileN);
  const Operands t = operands(k, M, K, N);
  const std::int64_t KT = K / kTileK;
  for (std::int64_t m = 0; m < M / kTileM; ++m) {
    TileBlock lhsT_tiles = k.sbuf("lhsT_tiles", kTileK, kTileM, Dtype::bf16, KT, 2);
    for (std::int64_t kk = 0; kk < KT; ++kk)
      k.load(lhsT_tiles.at(kk), slice(t.lhsT, kk * kTileK, kTileK, m * kTileM, kTileM), DmaIssuer::act);
    for (std::int64_t n = 0; n < N / kTileN; ++n) {
      TileBlock rhs_tiles = k.sbuf("rhs_tiles", kTileK, kTileN, Dtype::bf16, KT, 2);
      for (std::int64_t kk = 0; kk < KT; ++kk)
        k.load(rhs_tiles.at(kk), slice(t.rhs, kk * kTileK, kTileK, n * kTileN, kTileN), DmaIssuer::sync);
      TileBlock res_psum = k.psum("res_psum", kTileM, kTileN, Dtype::fp32, 1, 2);
      for (std::int64_t kk = 0; kk < KT; ++kk) k.matmul(res_psum.all(), lhsT_tiles.at(kk), rhs_tiles.at(kk), kk > 0);
      drain(k, t, res_psum, m, n);
    }
  }
}

void matmul_block_free(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N) {
  constexpr std::int64_t kBlockM = 2, kBlockN = 2;  // TILES_IN_BLOCK_M / _N
  require_multiple("matmul-block-free", "M", M, kTileM * kBlockM);
  require_multiple("matmul-block-free", "K", K, kTileK);
  require_multiple("matmul-block-free", "N", N, kTileN * kBlockN);
  const Operands t = operands(k, M, K, N);
  const std::int64_t KT = K / kTileK;
  for (std::int64_t m = 0; m < M / (kTileM * kBlockM); ++m) {
    TileBlock lhsT_tiles = k.sbuf("lhsT_tiles", kTileK, kTileM, Dtype::bf16, kBlockM * KT, 1);
    for (std::int64_t bm = 0; bm < kBlockM; ++bm)
      for (std::int64_t kk = 0; kk < KT; ++kk)
        k.load(lhsT_tiles.at(bm * KT + kk),
               slice(t.lhsT, kk * kTileK, kTileK, (m * kBlockM + bm) * kTileM, kTileM), DmaIssuer::act);
    for (std::int64_t n = 0; n < N / (kTileN * kBlockN); ++n) {
      TileBlock rhs_tiles = k.sbuf("rhs_tiles", kTileK, kTileN, Dtype::bf16, kBlockN * KT, 1);
      for (std::int64_t bn = 0; bn < kBlockN; ++bn)
        for (std::int64_t kk = 0; kk < KT; ++kk)
          k.load(rhs_tiles.at(bn * KT + kk),
                 slice(t.rhs, kk * kTileK, kTileK, (n * kBlockN + bn) * kTileN, kTileN), DmaIssuer::sync);
      for (std::int64_t bm = 0; bm < kBlockM; ++bm)
        for (std::int64_t bn = 0; bn < kBlockN; ++bn) {
          TileBlock res_psum = k.psum("res_psum", kTileM, kTileN, Dtype::fp32, 1, 2);
          for (std::int64_t kk = 0; kk < KT; ++kk)
            k.matmul(res_psum.all(), lhsT_tiles.at(bm * KT + kk), rhs_tiles.at(bn * KT + kk), kk > 0);
          drain(k, t, res_psum, m * kBlockM + bm, n * kBlockN + bn);
        }
    }
  }
}

void matmul_fully_optimized(KernelProgram& k, std::int64_t M, std::int64_t K, std::int64_t N) {
  constexpr std::int64_t kBlockM = 16, kBlockN = 2, kBlockK = 8;  // the tutorial's meta-parameters
  const std::int64_t block_m = kTileM * kBlockM, block_n = kTileN * kBlockN, block_k = kTileK * kBlockK;
  require_multiple("matmul-fully-optimized", "M", M, block_m);
  require_multiple("matmul-fully-optimized", "K", K, block_k);
  require_multiple("matmul-fully-optimized", "N", N, block_n);
  const Operands t = operands(k, M, K, N);
  const std::int64_t blocks_m = M / block_m, blocks_n = N / block_n, blocks_k = K / block_k;
  auto result_index = [&](std::int64_t m, std::int64_t bm, std::int64_t bn) { return (m * kBlockM + bm) * kBlockN + bn; };
  for (std::int64_t n = 0; n < blocks_n; ++n) {
    TileBlock result_tiles = k.sbuf("result_tiles", kTileM, kTileN, Dtype::bf16, blocks_m * kBlockM * kBlockN, 1);
    k.instruction(Engine::gpsimd, OpKind::memset, result_tiles.all(), {});
    for (std::int64_t kb = 0; kb < blocks_k; ++kb) {
      // Declared in the body of the K loop, a sequential_range: one buffer (below).
      TileBlock rhs_tiles = k.sbuf("rhs_tiles", kTileK, block_n, Dtype::bf16, kBlockK, 1);
      for (std::int64_t bk = 0; bk < kBlockK; ++bk)
        k.load(rhs_tiles.at(bk), slice(t.rhs, (kBlockK * kb + bk) * kTileK, kTileK, block_n * n, block_n), DmaIssuer::sync);
      for (std::int64_t m = 0; m < blocks_m; ++m) {
        TileBlock lhsT_tiles = k.sbuf("lhsT_tiles", kTileK, block_m, Dtype::bf16, kBlockK, 2);
        for (std::int64_t bk = 0; bk < kBlockK; ++bk)
          k.load(lhsT_tiles.at(bk), slice(t.lhsT, (kBlockK * kb + bk) * kTileK, kTileK, block_m * m, block_m),
                 DmaIssuer::act);
        for (std::int64_t bn = 0; bn < kBlockN; ++bn)
          for (std::int64_t bm = 0; bm < kBlockM; ++bm) {
            TileBlock res_tile = k.psum("res_tile", kTileM, kTileN, Dtype::fp32, 1, 4);
            for (std::int64_t bk = 0; bk < kBlockK; ++bk)
              k.matmul(res_tile.all(), lhsT_tiles.at(bk).cols(bm * kTileM, kTileM),
                       rhs_tiles.at(bk).cols(bn * kTileN, kTileN), bk > 0);
            const TileView acc = result_tiles.at(result_index(m, bm, bn));
            k.instruction(Engine::vector, OpKind::tensor_tensor, acc, {acc, res_tile.all()});
          }
      }
    }
    for (std::int64_t m = 0; m < blocks_m; ++m)
      for (std::int64_t bm = 0; bm < kBlockM; ++bm) {
        TileBlock packed = k.sbuf("result_packed", kTileM, block_n, Dtype::bf16, 1, 2);
        for (std::int64_t bn = 0; bn < kBlockN; ++bn)
          k.activation(packed.all().cols(bn * kTileN, kTileN), result_tiles.at(result_index(m, bm, bn)), "copy");
        k.store(slice(t.result, (kBlockM * m + bm) * kTileM, kTileM, block_n * n, block_n), packed.all(),
                DmaIssuer::pool);
      }
  }
}

}  // namespace stasim
