// Storage arithmetic of docs/cardan.md, with every expected number written out.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/input_error.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/representation.hpp"

namespace stasim {
namespace {

// The Qwen3-30B-A3B MoE shape: H = 2048, I = 768, E = 128, top-8, gated.
ModelSpec qwen3_shape() {
  ModelSpec m;
  m.name = "qwen3-shape";
  m.layers = 48;
  m.hidden = 2048;
  m.vocab = 151936;
  m.experts = 128;
  m.top_k = 8;
  m.expert_intermediate = 768;
  m.attention.q_heads = 32;
  m.attention.kv_heads = 4;
  m.attention.head_dim = 128;
  return m;
}

TEST(RepresentationStorage, HybridD8R384IsAbout4BitsPerWeight) {
  // private:  log2(256)/8 = 8/8 = 1 bit (indices)  +  16·384/2048 = 3 bits (coefficients)  = 4
  // shared:   16·(K·d + H·r)/(E·H·I) = 16·(256·8 + 2048·384)/(128·2048·768)
  //         = 16·(2048 + 786432)/201326592 = 12615680/201326592 = 0.0626627...
  // rate = 4.0626627 bits per weight (the top of the 4.04–4.06 band, rounded to two decimals)
  const double expected = 1.0 + 3.0 + 12615680.0 / 201326592.0;
  const double rate = Representation::hybrid(8, 384, 256).bits_per_weight(qwen3_shape());
  EXPECT_NEAR(rate, expected, 1e-12);
  EXPECT_NEAR(rate, 4.0627, 1e-4);
  EXPECT_GE(rate, 4.04);
  EXPECT_LT(rate, 4.065);
}

TEST(RepresentationStorage, HybridD4R256IsAbout4BitsPerWeight) {
  // private:  8/4 = 2 bits (indices)  +  16·256/2048 = 2 bits (coefficients)  = 4
  // shared:   16·(256·4 + 2048·256)/(128·2048·768) = 16·(1024 + 524288)/201326592 = 8404992/201326592 = 0.0417481...
  // rate = 4.0417481 bits per weight
  const double expected = 2.0 + 2.0 + 8404992.0 / 201326592.0;
  const double rate = Representation::hybrid(4, 256, 256).bits_per_weight(qwen3_shape());
  EXPECT_NEAR(rate, expected, 1e-12);
  EXPECT_NEAR(rate, 4.0417, 1e-4);
  EXPECT_GE(rate, 4.04);
  EXPECT_LT(rate, 4.065);
}

TEST(RepresentationStorage, ShrinkIsSixteenOverRate) {
  const ModelSpec m = qwen3_shape();
  const Representation rep = Representation::hybrid(8, 384, 256);
  // 16 / 4.0626627 = 3.9383...
  EXPECT_NEAR(rep.gate_up_shrink(m), 16.0 / rep.bits_per_weight(m), 1e-12);
  EXPECT_NEAR(rep.gate_up_shrink(m), 3.9383, 1e-4);
  // Only the gate compressed: (16 + 16) / (4.0626627 + 16) = 1.5949...
  Representation gate_only = rep;
  gate_only.up = false;
  EXPECT_NEAR(gate_only.gate_up_shrink(m), 32.0 / (rep.bits_per_weight(m) + 16.0), 1e-12);
  EXPECT_DOUBLE_EQ(Representation::dense_bf16().gate_up_shrink(m), 1.0);
}

TEST(RepresentationStorage, OtherKinds) {
  const ModelSpec m = qwen3_shape();
  EXPECT_DOUBLE_EQ(Representation::dense_bf16().bits_per_weight(m), 16.0);
  // MXFP4: 4-bit elements + one 8-bit scale per 32 elements = 4 + 8/32 = 4.25
  EXPECT_DOUBLE_EQ(Representation::mxfp4().bits_per_weight(m), 4.25);
  // VQ-only (d, K) = (2, 256): 8/2 = 4, shared 16·256·2/(128·2048·768) = 8192/201326592 = 0.0000407
  EXPECT_NEAR(Representation::vq_only(2, 256).bits_per_weight(m), 4.0 + 8192.0 / 201326592.0, 1e-12);
  // Hybrid with r = 0 is VQ-only.
  EXPECT_DOUBLE_EQ(Representation::hybrid(2, 0, 256).bits_per_weight(m),
                   Representation::vq_only(2, 256).bits_per_weight(m));
  // LR-only r = 256: 16·256/2048 = 2, shared 16·2048·256/201326592 = 8388608/201326592 = 0.0416667
  EXPECT_NEAR(Representation::lr_only(256).bits_per_weight(m), 2.0 + 8388608.0 / 201326592.0, 1e-12);
}

TEST(RepresentationStorage, PerRankSharedPartWeighsTpTimesMore) {
  // tp = 4: I/tp = 192; shared 12615680/(128·2048·192) = 12615680/50331648 = 0.2506510
  const double rate = Representation::hybrid(8, 384, 256).bits_per_weight(qwen3_shape(), 4);
  EXPECT_NEAR(rate, 4.0 + 12615680.0 / 50331648.0, 1e-12);
}

TEST(RepresentationStorage, BytesPerExpertAndLayerQwen3Tp4) {
  const ModelSpec m = qwen3_shape();
  Deployment dep;  // tp 4: I per rank = 768/4 = 192
  const ExpertBytes hybrid = Representation::hybrid(8, 384, 256).expert_bytes(m, dep);
  // J_e: (2048/8)·192 uint8 = 256·192 = 49152 bytes; C_e: 384·192 BF16 = 73728·2 = 147456 bytes
  EXPECT_EQ(hybrid.gate.index_bytes, 49152);
  EXPECT_EQ(hybrid.gate.coefficient_bytes, 147456);
  EXPECT_EQ(hybrid.gate.dense_bytes, 0);
  EXPECT_EQ(hybrid.up.total(), 196608);
  EXPECT_EQ(hybrid.gate_up_bytes(), 393216);
  // down stays dense: 2048·192·2 = 786432 bytes
  EXPECT_EQ(hybrid.down.dense_bytes, 786432);
  EXPECT_EQ(hybrid.total(), 393216 + 786432);

  const ExpertBytes dense = Representation::dense_bf16().expert_bytes(m, dep);
  EXPECT_EQ(dense.gate_up_bytes(), 2 * 786432);
  EXPECT_EQ(dense.total(), 3 * 786432);
  EXPECT_EQ(dense.total(), m.expert_weight_bytes(dep));

  // MXFP4 gate: 2048·192/2 = 196608 element bytes + (2048/32)·192 = 12288 scale bytes = 208896
  EXPECT_EQ(Representation::mxfp4().expert_bytes(m, dep).gate.total(), 208896);

  // Shared per layer (both projections, every rank holds all of it):
  // B: 2·256·8·2 = 8192 bytes; D: 2·2048·384·2 = 3145728 bytes
  const SharedBytes shared = Representation::hybrid(8, 384, 256).shared_bytes_per_layer(m);
  EXPECT_EQ(shared.codebook_bytes, 8192);
  EXPECT_EQ(shared.basis_bytes, 3145728);
  EXPECT_EQ(shared.total(), 3153920);
  EXPECT_EQ(Representation::dense_bf16().shared_bytes_per_layer(m).total(), 0);
}

TEST(RepresentationStorage, BytesAgreeWithTheRate) {
  // At tp = 1 the bytes of one projection plus 1/E of its shared part, in bits per weight, are the rate.
  const ModelSpec m = qwen3_shape();
  Deployment whole;
  whole.tp = 1;
  for (const Representation& rep : {Representation::hybrid(8, 384, 256), Representation::hybrid(4, 256, 256),
                                    Representation::vq_only(2, 256), Representation::lr_only(128)}) {
    const double private_bits = 8.0 * static_cast<double>(rep.expert_bytes(m, whole).gate.total());
    const double shared_bits = 8.0 * static_cast<double>(rep.shared_bytes_per_layer(m).total()) / 2.0;
    const double rate = (private_bits + shared_bits / 128.0) / (2048.0 * 768.0);
    EXPECT_NEAR(rate, rep.bits_per_weight(m), 1e-12) << rep.describe();
  }
}

TEST(RepresentationStorage, NonGatedModelHasNoGate) {
  ModelSpec m = qwen3_shape();
  m.gated = false;
  m.activation = Activation::relu2;
  Deployment dep;
  const Representation rep = Representation::hybrid(8, 384, 256);
  const ExpertBytes bytes = rep.expert_bytes(m, dep);
  EXPECT_EQ(bytes.gate.total(), 0);
  EXPECT_EQ(bytes.up.total(), 196608);
  // One projection only: B 256·8·2 = 4096, D 2048·384·2 = 1572864
  EXPECT_EQ(rep.shared_bytes_per_layer(m).total(), 4096 + 1572864);
  EXPECT_NEAR(rep.gate_up_shrink(m), 16.0 / rep.bits_per_weight(m), 1e-12);
}

TEST(RepresentationStorage, DescribeAndParse) {
  EXPECT_EQ(Representation::hybrid(8, 384, 256).describe(), "hybrid(d=8,r=384,K=256)");
  EXPECT_EQ(parse_representation_kind("mxfp4"), RepresentationKind::mxfp4);
  try {
    parse_representation_kind("hybird");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'hybrid'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stasim
