#include "workloads/route_numerics.hpp"

#include <cmath>
#include <functional>

#include "sim/core/input_error.hpp"
#include "workloads/fp16.hpp"
#include "workloads/marlin_slice.hpp"
#include "workloads/sha256.hpp"

// A fused multiply-add rounds once where the model rounds twice; forbid contraction so the bits are the same
// on hosts with and without FMA. (GEMM products of two FP16 values are exact in FP32, so FMA could not change
// them, but the activation and the combine multiply inexactly.)
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace stasim {
namespace {

using WeightsOf = std::function<void(std::int32_t expert, std::vector<float>& out)>;

// One GEMM over all runs: input and output per route (route-id order), K and N per row.
struct GemmPass {
  const Alignment* alignment;
  const WorkPartition* partition;
  const std::vector<float>* input;      // routes x K
  std::vector<std::uint16_t>* output;   // routes x N, FP16 bits
};

void check_shape(const WorkPartition& p, std::int64_t n, std::int64_t k, std::int64_t blocks, const char* name) {
  if (p.config.n != n || p.config.k != k || p.config.blocks != blocks)
    throw InputError(std::string(name) + " partition is for n=" + std::to_string(p.config.n) + ", k=" +
                     std::to_string(p.config.k) + ", blocks=" + std::to_string(p.config.blocks) +
                     " but the layer needs n=" + std::to_string(n) + ", k=" + std::to_string(k) +
                     ", blocks=" + std::to_string(blocks));
}

void moe_gemm(std::int64_t k, std::int64_t n, std::int32_t experts, const WeightsOf& weights_of,
              std::vector<GemmPass>& passes) {
  std::vector<float> weights;
  std::vector<float> partial, running, scratch;
  for (std::int32_t e = 0; e < experts; ++e) {
    bool used = false;
    for (const GemmPass& pass : passes) used = used || pass.alignment->expert_count[static_cast<size_t>(e)] > 0;
    if (!used) continue;
    weights_of(e, weights);
    for (GemmPass& pass : passes) {
      const Alignment& a = *pass.alignment;
      const WorkPartition& p = *pass.partition;
      const std::int64_t b = a.block_size;
      const std::int64_t tn = p.config.thread_n;
      const std::int64_t tk = p.config.thread_k;
      const std::int64_t first_block = a.expert_start[static_cast<size_t>(e)] / b;
      const std::int64_t expert_blocks = (a.expert_count[static_cast<size_t>(e)] + b - 1) / b;
      for (std::int64_t block = first_block; block < first_block + expert_blocks; ++block) {
        // The block's valid rows; sentinel rows are computed by the kernel too but never stored.
        SliceInput in;
        std::vector<std::int64_t> routes;
        for (std::int64_t row = block * b; row < (block + 1) * b; ++row) {
          std::int64_t r = a.rows[static_cast<size_t>(row)];
          if (r == a.sentinel) continue;
          routes.push_back(r);
          in.rows.push_back(pass.input->data() + r * k);
        }
        in.stride = n;
        in.columns = tn;
        in.thread_k = tk;
        const size_t m = routes.size();
        partial.assign(m * static_cast<size_t>(tn), 0.0f);
        running.assign(m * static_cast<size_t>(tn), 0.0f);
        for (std::int64_t nt = 0; nt < p.n_tiles; ++nt) {
          const TilePlan& tile = p.tile(block, nt);
          in.weights = weights.data() + nt * tn;
          for (size_t s = 0; s < tile.slices.size(); ++s) {
            const KSlice& slice = tile.slices[s];
            // Inside the slice: warp-row chains of MMA steps, reduced across the thread block (marlin_slice).
            marlin_slice_partial(in, slice.k_tile_begin * tk, slice.k_tile_end * tk, scratch, partial.data());
            // Across slices (global_reduce_fp32): the first slice (highest K) deposits; each later one adds the
            // running buffer into its own partial.
            if (s == 0) {
              running.swap(partial);
            } else {
              for (size_t i = 0; i < partial.size(); ++i) partial[i] += running[i];
              running.swap(partial);
            }
          }
          for (size_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < tn; ++j)
              (*pass.output)[static_cast<size_t>(routes[i] * n + nt * tn + j)] =
                  fp16_from_float(running[i * static_cast<size_t>(tn) + static_cast<size_t>(j)]);
        }
      }
    }
  }
}

}  // namespace

double portable_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.0) return HUGE_VAL;
  if (x < -745.0) return 0.0;
  // x = n ln2 + r with |r| <= ln2 / 2; ln2 split in two so n * ln2_hi is exact.
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  const double n = std::nearbyint(x * 1.44269504088896338700);
  const double r = (x - n * ln2_hi) - n * ln2_lo;
  // Taylor series to r^13 / 13!: the truncation error is below 1e-17 relative for |r| <= 0.35.
  double term = 1.0;
  for (int i = 13; i >= 1; --i) term = 1.0 + term * r / static_cast<double>(i);
  return std::ldexp(term, static_cast<int>(n));
}

float silu_gate(float gate, float up) {
  const float silu = static_cast<float>(static_cast<double>(gate) / (1.0 + portable_exp(-static_cast<double>(gate))));
  return round_to_fp16(silu * up);
}

SurfaceHashes LayerSurfaces::hashes() const {
  return {sha256_hex_fp16(w13), sha256_hex_fp16(activation), sha256_hex_fp16(routed_w2), sha256_hex_fp16(final_output)};
}

std::vector<LayerSurfaces> evaluate_layer(const SyntheticMoeLayer& layer, const std::vector<LayerRun>& runs) {
  const RoutingTrace& trace = layer.routing();
  const std::int64_t H = layer.config().hidden;
  const std::int64_t I = layer.config().intermediate;
  const std::int64_t routes = trace.routes();
  for (const LayerRun& run : runs) {
    if (run.alignment.sentinel != routes)
      throw InputError("alignment was built for " + std::to_string(run.alignment.sentinel) + " routes, layer has " +
                       std::to_string(routes));
    check_shape(run.w13, 2 * I, H, run.alignment.blocks(), "first GEMM (W13)");
    check_shape(run.w2, H, I, run.alignment.blocks(), "second GEMM (W2)");
  }

  // Every route reads its token's activation row.
  std::vector<float> routed_input(static_cast<size_t>(routes * H));
  for (std::int64_t r = 0; r < routes; ++r)
    std::copy_n(layer.activations().data() + (r / trace.top_k) * H, H, routed_input.data() + r * H);

  std::vector<LayerSurfaces> out(runs.size());
  std::vector<GemmPass> passes;
  for (size_t i = 0; i < runs.size(); ++i) {
    out[i].w13.assign(static_cast<size_t>(routes * 2 * I), 0);
    passes.push_back({&runs[i].alignment, &runs[i].w13, &routed_input, &out[i].w13});
  }
  moe_gemm(H, 2 * I, static_cast<std::int32_t>(trace.experts),
           [&](std::int32_t e, std::vector<float>& w) { layer.w13(e, w); }, passes);

  // Activation: gate is the first I outputs, up the next I.
  std::vector<std::vector<float>> act_input(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    out[i].activation.resize(static_cast<size_t>(routes * I));
    act_input[i].resize(static_cast<size_t>(routes * I));
    for (std::int64_t r = 0; r < routes; ++r) {
      for (std::int64_t j = 0; j < I; ++j) {
        const float gate = float_from_fp16(out[i].w13[static_cast<size_t>(r * 2 * I + j)]);
        const float up = float_from_fp16(out[i].w13[static_cast<size_t>(r * 2 * I + I + j)]);
        const float h = silu_gate(gate, up);
        act_input[i][static_cast<size_t>(r * I + j)] = h;
        out[i].activation[static_cast<size_t>(r * I + j)] = fp16_from_float(h);
      }
    }
  }

  passes.clear();
  for (size_t i = 0; i < runs.size(); ++i) {
    out[i].routed_w2.assign(static_cast<size_t>(routes * H), 0);
    passes.push_back({&runs[i].alignment, &runs[i].w2, &act_input[i], &out[i].routed_w2});
  }
  moe_gemm(I, H, static_cast<std::int32_t>(trace.experts),
           [&](std::int32_t e, std::vector<float>& w) { layer.w2(e, w); }, passes);

  // Combine: per token, FP32 sum over its k slots in slot order of weight * routed output, rounded to FP16.
  for (size_t i = 0; i < runs.size(); ++i) {
    out[i].final_output.resize(static_cast<size_t>(trace.tokens * H));
    for (std::int64_t t = 0; t < trace.tokens; ++t) {
      for (std::int64_t h = 0; h < H; ++h) {
        float acc = 0.0f;
        for (std::int64_t s = 0; s < trace.top_k; ++s) {
          const std::int64_t r = t * trace.top_k + s;
          const float product = trace.weights[static_cast<size_t>(r)] *
                                float_from_fp16(out[i].routed_w2[static_cast<size_t>(r * H + h)]);
          acc += product;
        }
        out[i].final_output[static_cast<size_t>(t * H + h)] = fp16_from_float(acc);
      }
    }
  }
  return out;
}

}  // namespace stasim
