// Every shipped model file loads and validates; the arithmetic reproduces each model's published size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "workloads/model_spec.hpp"
#include "workloads/representation.hpp"

namespace stasim {
namespace {

std::string model_path(const std::string& name) {
  return std::string(STASIM_SOURCE_DIR) + "/configs/models/" + name + ".yaml";
}

const char* const kShipped[] = {"qwen3-30b-a3b",   "qwen3-coder-30b-a3b",     "olmoe-1b-7b",  "deepseek-v2-lite",
                                "gemma-4-26b-a4b", "nemotron-3-nano-30b-a3b", "mixtral-8x7b", "deepseek-v3"};

TEST(ModelConfigs, EveryShippedModelLoadsAndValidates) {
  for (const char* name : kShipped) {
    SCOPED_TRACE(name);
    ModelSpec m;
    ASSERT_NO_THROW(m = load_model(model_path(name)));
    EXPECT_TRUE(m.validate().empty());
    EXPECT_EQ(m.deployment.tp, 4);
    EXPECT_EQ(m.deployment.lnc, 2);
    EXPECT_EQ(m.deployment.batch, 1);
    EXPECT_EQ(m.deployment.dtype, "bf16");
    // The default representation is valid on every model at the default deployment, and so is
    // VQ-only (2, 0) and (4, 256).
    EXPECT_NO_THROW(Representation::hybrid(8, 384, 256).validate(m, m.deployment));
    EXPECT_NO_THROW(Representation::hybrid(4, 256, 256).validate(m, m.deployment));
    EXPECT_NO_THROW(Representation::hybrid(2, 0, 256).validate(m, m.deployment));
    EXPECT_NO_THROW(Representation::mxfp4().validate(m, m.deployment));
  }
}

// Published sizes (model cards): total parameters within 1%.
TEST(ModelConfigs, TotalParametersMatchPublishedSizes) {
  struct Case {
    const char* name;
    double total_billions;
  };
  const Case cases[] = {{"qwen3-30b-a3b", 30.5},   {"olmoe-1b-7b", 6.9},     {"deepseek-v2-lite", 15.7},
                        {"gemma-4-26b-a4b", 25.2}, {"nemotron-3-nano-30b-a3b", 31.6}, {"mixtral-8x7b", 46.7},
                        {"deepseek-v3", 671.0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const double total = static_cast<double>(load_model(model_path(c.name)).total_parameters()) / 1e9;
    EXPECT_NEAR(total, c.total_billions, 0.01 * c.total_billions);
  }
}

// Active parameters (embedding and LM head included) within 3%. DeepSeek-V2-Lite is left out: its published
// 2.4B does not count the embedding and LM head the way this sum does (2.66B here, 2.24B without them).
TEST(ModelConfigs, ActiveParametersMatchPublishedSizes) {
  struct Case {
    const char* name;
    double active_billions;
  };
  const Case cases[] = {{"qwen3-30b-a3b", 3.3},   {"olmoe-1b-7b", 1.3},  {"gemma-4-26b-a4b", 3.8},
                        {"nemotron-3-nano-30b-a3b", 3.6}, {"mixtral-8x7b", 12.9}, {"deepseek-v3", 37.0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const double active = static_cast<double>(load_model(model_path(c.name)).active_parameters()) / 1e9;
    EXPECT_NEAR(active, c.active_billions, 0.03 * c.active_billions);
  }
}

TEST(ModelConfigs, NemotronHybridPattern) {
  const ModelSpec m = load_model(model_path("nemotron-3-nano-30b-a3b"));
  ASSERT_EQ(m.layer_pattern.size(), 52u);
  int mamba = 0, moe = 0, attention = 0;
  std::vector<std::int64_t> attention_layers;
  for (std::int64_t layer = 0; layer < m.layers; ++layer) {
    switch (m.layer_kind(layer)) {
      case LayerKind::mamba: ++mamba; break;
      case LayerKind::moe: ++moe; break;
      case LayerKind::attention: ++attention; attention_layers.push_back(layer); break;
      default: ADD_FAILURE() << "layer " << layer << " is " << to_string(m.layer_kind(layer));
    }
  }
  EXPECT_EQ(mamba, 23);
  EXPECT_EQ(moe, 23);
  EXPECT_EQ(attention, 6);
  EXPECT_EQ(attention_layers, (std::vector<std::int64_t>{5, 12, 19, 26, 33, 42}));
  EXPECT_FALSE(m.has_attention(1));  // an 'E' layer is the MoE block alone
  EXPECT_TRUE(m.has_moe(1));
  EXPECT_EQ(m.attention_parameters(0), 0);
  // Non-gated ReLU² expert on one rank: up and down, 2·2688·(1856/4) = 2·2688·464 = 2494464 parameters
  EXPECT_EQ(m.expert_parameters(4), 2494464);
  // Mamba-2 mixer (whole): in_proj 2688·(2·4096 + 2·8·128 + 64) = 2688·10304 = 27697152;
  // conv (4096 + 2048)·(4 + 1) = 30720; A_log, D, dt_bias 3·64 = 192; norm 4096; out_proj 4096·2688 = 11010048
  EXPECT_EQ(m.mamba_parameters(), 27697152 + 30720 + 192 + 4096 + 11010048);
  // KV cache on an attention layer: 2 kv heads < tp 4, so each rank holds one head: 2·128·2 = 512 bytes per token
  EXPECT_EQ(m.kv_cache_bytes_per_token(5, m.deployment), 512);
}

TEST(ModelConfigs, GemmaSlidingAndGlobalLayers) {
  const ModelSpec m = load_model(model_path("gemma-4-26b-a4b"));
  EXPECT_FALSE(m.is_global_attention(0));
  EXPECT_TRUE(m.is_global_attention(5));
  EXPECT_EQ(m.attended_tokens(0, 2048), 1024);  // the sliding window caps it
  EXPECT_EQ(m.attended_tokens(5, 2048), 2048);
  // Every layer has attention + MoE + the parallel dense GeGLU MLP of I = 2112.
  EXPECT_EQ(m.layer_kind(0), LayerKind::attention_moe);
  EXPECT_EQ(m.dense_mlp_intermediate(0), 2112);
  // KV per token per rank: sliding 8 kv / 4 = 2 heads · (k + v) 2 · 256 · 2 bytes = 2048;
  // global 2 kv < 4 → 1 head · k only (k_eq_v) · 512 · 2 bytes = 1024
  EXPECT_EQ(m.kv_cache_bytes_per_token(0, m.deployment), 2048);
  EXPECT_EQ(m.kv_cache_bytes_per_token(5, m.deployment), 1024);
  // Attention (whole): sliding q 2816·4096 + k, v 2816·2048 each + o 4096·2816 = 34603008;
  // global q 2816·8192 + k 2816·1024 (no v) + o 8192·2816 = 49020928
  EXPECT_EQ(m.attention_parameters(0), 34603008);
  EXPECT_EQ(m.attention_parameters(5), 49020928);
}

TEST(ModelConfigs, DeepSeekDenseLayersAndMla) {
  const ModelSpec m = load_model(model_path("deepseek-v2-lite"));
  EXPECT_EQ(m.layer_kind(0), LayerKind::attention_dense);
  EXPECT_EQ(m.layer_kind(1), LayerKind::attention_moe);
  EXPECT_EQ(m.dense_mlp_intermediate(0), 10944);
  EXPECT_FALSE(m.has_moe(0));
  // MLA (whole): q 2048·16·192 = 6291456; kv_a 2048·(512 + 64) = 1179648; kv_b 512·16·(128 + 128) = 2097152;
  // o 16·128·2048 = 4194304 → 13762560
  EXPECT_EQ(m.attention_parameters(1), 13762560);
  // The cache holds the latent and the rope key, replicated on every rank: (512 + 64)·2 = 1152 bytes per token
  EXPECT_EQ(m.kv_cache_bytes_per_token(1, m.deployment), 1152);
  // Two shared experts of 1408 on one rank: 2·3·2048·(1408/4) = 4325376
  EXPECT_EQ(m.layer_parameters(1, 4).shared_experts, 4325376);
}

}  // namespace
}  // namespace stasim
