// The shape of one MoE model (configs/models/*.yaml) and its default deployment, plus the parameter and byte
// arithmetic the dataflow builders need (per layer, per TP rank). load_model throws InputError listing every
// problem with file:line:column and key path; ModelSpec::validate() reports cross-field problems by key path.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/yaml_node.hpp"
#include "workloads/weight_patterns.hpp"

namespace stasim {

enum class Activation { swiglu, geglu, relu2 };
enum class AttentionKind { gqa, mha, mla };
enum class RouterKind { softmax, sigmoid };
// What one decoder layer contains. attention_moe may also carry a parallel dense MLP (Gemma 4, see
// ModelSpec::parallel_dense_intermediate). moe / mamba / attention / dense come from a hybrid layer pattern
// (Nemotron-H: 'E', 'M', '*', '-'), where a layer is one block only.
enum class LayerKind { attention_moe, attention_dense, moe, mamba, attention, dense };

const char* to_string(Activation value);
const char* to_string(AttentionKind value);
const char* to_string(RouterKind value);
const char* to_string(LayerKind value);

// A problem found after parsing, named by its key path (`deployment.tp`); load_model adds file:line:column.
struct ConfigProblem {
  std::string key;
  std::string message;
};

struct AttentionSpec {
  AttentionKind kind = AttentionKind::gqa;
  std::int64_t q_heads = 0;
  std::int64_t kv_heads = 0;  // GQA/MHA; for MLA the latent cache is shared by all heads
  std::int64_t head_dim = 0;  // GQA/MHA (and sliding layers when there are global layers)
  bool qk_norm = false;
  // MLA (DeepSeek): 0 q_lora_rank means q is projected directly from the hidden state.
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  // Sliding window (tokens, 0 = none) applies to every attention layer not listed in global_layers.
  std::int64_t sliding_window_tokens = 0;
  std::vector<std::int64_t> global_layers;
  std::int64_t global_kv_heads = 0;  // 0 = same as kv_heads
  std::int64_t global_head_dim = 0;  // 0 = same as head_dim
  bool global_k_eq_v = false;        // global layers use the keys as values: no v_proj, one cached tensor
};

struct MambaSpec {  // Mamba-2 mixer shape (Nemotron-H)
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t state = 0;
  std::int64_t groups = 0;
  std::int64_t conv_kernel = 0;
};

struct RouterSpec {
  RouterKind kind = RouterKind::softmax;
  bool renormalize = true;  // divide the top-k affinities by their sum
  double scale = 1.0;       // affinities multiplied by this after selection (routed_scaling_factor)
  std::int64_t groups = 1;  // grouped top-k: experts in `groups` groups, keep the best `topk_groups`
  std::int64_t topk_groups = 1;
  bool correction_bias = false;   // a per-expert bias added to the scores for selection only
  bool per_expert_scale = false;  // Gemma 4: a learned per-expert multiplier on the affinity
};

// How the model is deployed; the model YAML carries the defaults, the CLI may override them.
struct Deployment {
  std::int64_t tp = 4;     // tensor-parallel degree: I is sharded over tp ranks
  std::int64_t lnc = 2;    // physical cores per logical core (one TP rank)
  std::int64_t batch = 1;  // tokens decoded per step
  std::int64_t context_tokens = 2048;  // tokens already in the KV cache at the simulated step
  std::string dtype = "bf16";          // weights, activations and KV cache: bf16 | fp16

  std::int64_t dtype_bytes() const { return 2; }
};

// Parameter counts of one layer on one TP rank (tp = 1: the whole layer). Norm weights are left out (< 0.01%).
struct LayerParameters {
  std::int64_t attention = 0;
  std::int64_t mamba = 0;
  std::int64_t router = 0;
  std::int64_t routed_experts = 0;  // all E experts
  std::int64_t one_expert = 0;
  std::int64_t shared_experts = 0;
  std::int64_t dense_mlp = 0;  // a dense layer's MLP or Gemma 4's parallel MLP

  std::int64_t total() const { return attention + mamba + router + routed_experts + shared_experts + dense_mlp; }
  // Parameters one token touches: the top_k routed experts instead of all of them.
  std::int64_t active(std::int64_t top_k) const {
    return attention + mamba + router + top_k * one_expert + shared_experts + dense_mlp;
  }
};

struct ModelSpec {
  std::string name;
  std::string source_file;  // the YAML it came from ("" when built in code)
  // Where the file sets each deployment key ("deployment.batch" -> "model.yaml:21:3"), so a problem with the
  // model's own deployment (not one given on the command line) names its line.
  std::map<std::string, std::string> deployment_places;
  std::int64_t layers = 0;
  std::int64_t hidden = 0;  // H
  std::int64_t vocab = 0;
  bool tied_embeddings = false;
  // Hybrid pattern, one character per layer: E = MoE, M = Mamba-2, * = attention, - = dense MLP.
  // Empty: every layer is attention + MoE, except dense_layers (attention + dense MLP).
  std::string layer_pattern;

  std::int64_t experts = 0;              // E
  std::int64_t top_k = 0;                // k
  std::int64_t expert_intermediate = 0;  // I per expert
  Activation activation = Activation::swiglu;
  bool gated = true;  // gate and up projections (SwiGLU/GeGLU); false: up only (ReLU²)
  std::int64_t shared_experts = 0;
  std::int64_t shared_intermediate = 0;  // per shared expert

  std::vector<std::int64_t> dense_layers;  // 0-based layers with a dense MLP instead of the MoE block
  std::int64_t dense_intermediate = 0;
  std::int64_t parallel_dense_intermediate = 0;  // Gemma 4: a dense MLP beside the MoE in every layer (0 = none)

  AttentionSpec attention;
  MambaSpec mamba;
  RouterSpec router;
  Deployment deployment;
  WeightPatterns weights;  // tensor names of the expert weights in the checkpoint (empty: none known)

  // Every cross-field problem at once (empty when valid), including the default deployment's.
  std::vector<ConfigProblem> validate() const;

  LayerKind layer_kind(std::int64_t layer) const;
  bool has_attention(std::int64_t layer) const;
  bool has_moe(std::int64_t layer) const;
  bool has_dense_mlp(std::int64_t layer) const;  // a dense layer's MLP or the parallel MLP
  bool is_global_attention(std::int64_t layer) const;
  std::int64_t dense_mlp_intermediate(std::int64_t layer) const;  // 0 when the layer has none
  // Tokens the layer's attention reads from the KV cache at a given context (the sliding window caps it).
  std::int64_t attended_tokens(std::int64_t layer, std::int64_t context_tokens) const;

  // I / tp; throws InputError when tp does not divide I.
  std::int64_t intermediate_per_rank(std::int64_t tp) const;
  // Weights of one routed expert (gate, up, down or up, down), on one rank.
  std::int64_t expert_parameters(std::int64_t tp = 1) const;
  std::int64_t expert_weight_bytes(const Deployment& deployment) const;
  // Attention projections of `layer` on one rank (q and o split by heads; k/v heads replicated when kv < tp;
  // MLA's down-projections to the latent are replicated); 0 for a layer without attention.
  std::int64_t attention_parameters(std::int64_t layer, std::int64_t tp = 1) const;
  std::int64_t attention_weight_bytes(std::int64_t layer, const Deployment& deployment) const;
  // KV-cache bytes one token adds to `layer` on one rank (MLA: the compressed latent + rope key, replicated).
  std::int64_t kv_cache_bytes_per_token(std::int64_t layer, const Deployment& deployment) const;
  std::int64_t mamba_parameters(std::int64_t tp = 1) const;
  LayerParameters layer_parameters(std::int64_t layer, std::int64_t tp = 1) const;
  std::int64_t embedding_parameters() const;  // input embedding plus LM head (once when tied)
  std::int64_t total_parameters() const;
  std::int64_t active_parameters() const;
  // Share of the decoder layers' weights (embedding and LM head excluded) that is attention.
  double attention_weight_share() const;
};

// Reads a model YAML, applies `key.path=value` overrides, validates. Throws InputError with every problem.
ModelSpec load_model(const std::string& path, const std::vector<std::string>& overrides = {});
// Reads and validates an already parsed (and overridden) model document; `file` names it in messages.
ModelSpec read_model_spec(const YamlNode& root, const std::string& file);

// Problems of a deployment for this model (tp must divide every sharded dimension, positive sizes, dtype).
std::vector<ConfigProblem> deployment_problems(const ModelSpec& model, const Deployment& deployment);
// Throws InputError listing deployment_problems, if any.
// "model.yaml:21:3: " when `key` (deployment.batch, ...) holds the model file's own value, else "model.yaml: ".
std::string deployment_place(const ModelSpec& model, const Deployment& deployment, const std::string& key);
void validate_deployment(const ModelSpec& model, const Deployment& deployment);

}  // namespace stasim
