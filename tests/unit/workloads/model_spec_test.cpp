// Parameter and byte arithmetic of ModelSpec on the shipped Qwen3-30B-A3B file, numbers written out.
#include <gtest/gtest.h>

#include "workloads/model_spec.hpp"

namespace stasim {
namespace {

ModelSpec qwen3() { return load_model(std::string(STASIM_SOURCE_DIR) + "/configs/models/qwen3-30b-a3b.yaml"); }

TEST(ModelSpecArithmetic, Qwen3LayerParameters) {
  const LayerParameters p = qwen3().layer_parameters(0);
  // attention: q 2048·(32·128) = 8388608, k and v 2048·(4·128) = 1048576 each, o 4096·2048 = 8388608
  EXPECT_EQ(p.attention, 8388608 + 2 * 1048576 + 8388608);  // 18874368
  // one expert: gate, up, down 3·2048·768 = 4718592; 128 of them = 603979776
  EXPECT_EQ(p.one_expert, 4718592);
  EXPECT_EQ(p.routed_experts, 603979776);
  EXPECT_EQ(p.router, 2048 * 128);  // 262144
  EXPECT_EQ(p.total(), 18874368 + 603979776 + 262144);  // 623116288
  // active: attention + router + 8 experts = 18874368 + 262144 + 37748736 = 56885248
  EXPECT_EQ(p.active(8), 56885248);
}

TEST(ModelSpecArithmetic, Qwen3TotalAndActiveParameters) {
  const ModelSpec m = qwen3();
  // embedding + untied LM head: 2·151936·2048 = 622329856
  EXPECT_EQ(m.embedding_parameters(), 622329856);
  // total: 48·623116288 + 622329856 = 29909581824 + 622329856 = 30531911680 ≈ 30.5B (published: 30.5B)
  EXPECT_EQ(m.total_parameters(), 30531911680);
  // active: 48·56885248 + 622329856 = 2730491904 + 622329856 = 3352821760 ≈ 3.35B (published: 3.3B)
  EXPECT_EQ(m.active_parameters(), 3352821760);
}

TEST(ModelSpecArithmetic, Qwen3AttentionShare) {
  // docs/cardan.md: attention is 3.03% of the weights of Qwen3-30B-A3B. Over the decoder layers:
  // 48·18874368 / 29909581824 = 905969664 / 29909581824 = 0.030290 → 3.03%, the published figure.
  // Counting the embedding and LM head too would give 905969664 / 30531911680 = 2.967%, so the published
  // share is of the decoder-layer weights, which is what attention_weight_share() reports.
  EXPECT_NEAR(qwen3().attention_weight_share(), 905969664.0 / 29909581824.0, 1e-12);
  EXPECT_NEAR(qwen3().attention_weight_share(), 0.0303, 5e-5);
}

TEST(ModelSpecArithmetic, Qwen3PerRankBytes) {
  const ModelSpec m = qwen3();
  const Deployment& dep = m.deployment;  // tp 4, bf16
  EXPECT_EQ(m.intermediate_per_rank(dep.tp), 192);  // 768 / 4
  // one expert on one rank: 3·2048·192·2 bytes = 2359296
  EXPECT_EQ(m.expert_weight_bytes(dep), 2359296);
  // attention on one rank: q 2048·(8·128) = 2097152, k and v 2048·(1·128) = 262144 each, o 1024·2048 = 2097152
  // = 4718592 parameters = 9437184 bytes
  EXPECT_EQ(m.attention_weight_bytes(0, dep), 9437184);
  // KV cache: 4 kv heads / 4 ranks = 1 head: (k + v) 2·128·2 bytes = 512 bytes per token per layer per rank
  EXPECT_EQ(m.kv_cache_bytes_per_token(0, dep), 512);
  Deployment whole = dep;
  whole.tp = 1;
  EXPECT_EQ(m.kv_cache_bytes_per_token(0, whole), 2 * 4 * 128 * 2);  // 2048
  EXPECT_EQ(m.attended_tokens(0, 2048), 2048);
}

TEST(ModelSpecArithmetic, Qwen3LayerKinds) {
  const ModelSpec m = qwen3();
  for (std::int64_t layer = 0; layer < m.layers; ++layer) {
    EXPECT_EQ(m.layer_kind(layer), LayerKind::attention_moe);
    EXPECT_TRUE(m.has_attention(layer));
    EXPECT_TRUE(m.has_moe(layer));
    EXPECT_FALSE(m.has_dense_mlp(layer));
  }
  EXPECT_EQ(m.deployment.tp, 4);
  EXPECT_EQ(m.deployment.lnc, 2);
  EXPECT_EQ(m.deployment.batch, 1);
  // The measured setup: a short prompt plus ~64 generated tokens (configs/models/qwen3-30b-a3b.yaml).
  EXPECT_EQ(m.deployment.context_tokens, 80);
}

}  // namespace
}  // namespace stasim
