// The FP32-accumulating tensor-core MMA step (mma.sync m16n8k16, FP16 inputs) as a block fused multiply-add:
// c + sum of 8 products, evaluated the way published tensor-core studies describe the hardware rather than as
// eight IEEE additions. An assumed model, not a measured one: see the README's route-block section.
#pragma once

#include <cstdint>

namespace stasim {

// Model (after Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 7:e330,
// 2021): the products of FP16 inputs are exact; the products of one group and the accumulator are aligned to
// the largest exponent among them, every term is truncated (toward zero) to kMmaAlignmentBits bits below that
// leading bit, the truncated terms are added exactly, and the sum is normalized once and truncated to FP32
// (round toward zero). A k16 step is two such groups, k 0-7 then k 8-15. The group size and the alignment
// width are assumptions for sm_80/sm_86, not verified on a GPU here.
constexpr int kMmaGroupSize = 8;
constexpr int kMmaAlignmentBits = 27;  // FP32's 24 significant bits plus 3 guard bits

// One group: c + sum_i a[i] * b[i] for i < count (count <= kMmaGroupSize), a and b FP16 values held as floats.
// The straightforward scalar statement of the model; the tests hold the column routine below to it.
float mma_group(float c, const float* a, const float* b, int count);

// The same for `columns` outputs at once: c[j] = mma_group(c[j], x, {w[0*stride + j], w[1*stride + j], ...}) for
// j < columns, with x the count (<= kMmaGroupSize) activations of one row and w the count weight rows. Written
// so the compiler can vectorize it; bit-identical to mma_group.
void mma_group_columns(float* c, const float* x, const float* w, std::int64_t stride, int count, int columns);

}  // namespace stasim
