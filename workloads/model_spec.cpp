#include "workloads/model_spec.hpp"

#include <algorithm>
#include <sstream>

#include "sim/core/config_reader.hpp"
#include "sim/core/config_section.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

template <class Enum>
struct EnumName {
  Enum value;
  const char* name;
};

constexpr EnumName<Activation> kActivations[] = {
    {Activation::swiglu, "swiglu"}, {Activation::geglu, "geglu"}, {Activation::relu2, "relu2"}};
constexpr EnumName<AttentionKind> kAttentionKinds[] = {
    {AttentionKind::gqa, "gqa"}, {AttentionKind::mha, "mha"}, {AttentionKind::mla, "mla"}};
constexpr EnumName<RouterKind> kRouterKinds[] = {{RouterKind::softmax, "softmax"}, {RouterKind::sigmoid, "sigmoid"}};

template <class Enum, size_t N>
const char* name_of(const EnumName<Enum> (&table)[N], Enum value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

// Reads an enum spelled as one of the table's names; anything else is a problem listing the choices.
template <class Enum, size_t N>
void read_enum(ConfigReader& reader, const std::string& key, const EnumName<Enum> (&table)[N], Enum& out) {
  std::string text = name_of(table, out);
  reader.optional(key, text);
  std::vector<std::string> names;
  for (const auto& entry : table) {
    names.push_back(entry.name);
    if (text == entry.name) {
      out = entry.value;
      return;
    }
  }
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  std::string near = nearest_match(text, names);
  reader.problem(key, "'" + text + "' is not one of " + list + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

bool contains(const std::vector<std::int64_t>& values, std::int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::string num(std::int64_t value) { return std::to_string(value); }

// "file:line:column" of a dotted key path (of the key, as ConfigReader::where reports it), or the file name when
// the path is not in the file.
std::string locate(const YamlNode& root, const std::string& key, const std::string& file) {
  YamlNode node = root;
  std::string location = file;
  std::stringstream parts(key);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!node.is_map()) return file;
    bool found = false;
    for (const auto& kv : node) {
      if (kv.first.scalar() != part) continue;
      location = mark_of_key(kv.first, kv.second, file);
      node = kv.second;
      found = true;
      break;
    }
    if (!found) return file;
  }
  return location;
}

// An optional section: absent, it reads as empty (the struct's defaults); present but empty, it is a problem.
ConfigReader optional_section(ConfigReader& top, const std::string& key) { return top.section(key, false); }

void read_model(ConfigReader& top, ModelSpec& m) {
  top.optional("name", m.name)
      .required("layers", m.layers)
      .required("hidden", m.hidden)
      .required("vocab", m.vocab)
      .optional("tied_embeddings", m.tied_embeddings)
      .optional("layer_pattern", m.layer_pattern);

  ConfigReader moe = top.section("moe");
  moe.required("experts", m.experts)
      .required("top_k", m.top_k)
      .required("intermediate", m.expert_intermediate)
      .optional("gated", m.gated)
      .optional("shared_experts", m.shared_experts)
      .optional("shared_intermediate", m.shared_intermediate);
  read_enum(moe, "activation", kActivations, m.activation);
  moe.finish();

  ConfigReader dense = optional_section(top, "dense");
  dense.optional("layers", m.dense_layers)
      .optional("intermediate", m.dense_intermediate)
      .optional("parallel_intermediate", m.parallel_dense_intermediate);
  dense.finish();

  AttentionSpec& a = m.attention;
  ConfigReader att = top.section("attention");
  read_enum(att, "kind", kAttentionKinds, a.kind);
  att.required("q_heads", a.q_heads)
      .optional("kv_heads", a.kv_heads)
      .optional("head_dim", a.head_dim)
      .optional("qk_norm", a.qk_norm)
      .optional("q_lora_rank", a.q_lora_rank)
      .optional("kv_lora_rank", a.kv_lora_rank)
      .optional("qk_nope_head_dim", a.qk_nope_head_dim)
      .optional("qk_rope_head_dim", a.qk_rope_head_dim)
      .optional("v_head_dim", a.v_head_dim)
      .optional("sliding_window_tokens", a.sliding_window_tokens)
      .optional("global_layers", a.global_layers)
      .optional("global_kv_heads", a.global_kv_heads)
      .optional("global_head_dim", a.global_head_dim)
      .optional("global_k_eq_v", a.global_k_eq_v);
  att.finish();

  ConfigReader mamba = optional_section(top, "mamba");
  mamba.optional("heads", m.mamba.heads)
      .optional("head_dim", m.mamba.head_dim)
      .optional("state", m.mamba.state)
      .optional("groups", m.mamba.groups)
      .optional("conv_kernel", m.mamba.conv_kernel);
  mamba.finish();

  ConfigReader router = top.section("router");
  read_enum(router, "kind", kRouterKinds, m.router.kind);
  router.optional("renormalize", m.router.renormalize)
      .optional("scale", m.router.scale)
      .optional("groups", m.router.groups)
      .optional("topk_groups", m.router.topk_groups)
      .optional("correction_bias", m.router.correction_bias)
      .optional("per_expert_scale", m.router.per_expert_scale);
  router.finish();

  ConfigReader dep = optional_section(top, "deployment");
  dep.optional("tp", m.deployment.tp)
      .optional("lnc", m.deployment.lnc)
      .optional("batch", m.deployment.batch)
      .optional("context", m.deployment.context_tokens)
      .optional("dtype", m.deployment.dtype);
  dep.finish();

  ConfigReader weights = optional_section(top, "weights");
  weights.optional("gate", m.weights.gate)
      .optional("up", m.weights.up)
      .optional("down", m.weights.down)
      .optional("gate_up", m.weights.gate_up);
  const std::pair<const char*, const std::string*> patterns[] = {
      {"gate", &m.weights.gate}, {"up", &m.weights.up}, {"down", &m.weights.down}, {"gate_up", &m.weights.gate_up}};
  for (const auto& [key, pattern] : patterns)
    if (weights.has(key) && !pattern_problem(*pattern).empty()) weights.problem(key, pattern_problem(*pattern));
  weights.finish();

  top.finish();
}

}  // namespace

const char* to_string(Activation value) { return name_of(kActivations, value); }
const char* to_string(AttentionKind value) { return name_of(kAttentionKinds, value); }
const char* to_string(RouterKind value) { return name_of(kRouterKinds, value); }
const char* to_string(LayerKind value) {
  switch (value) {
    case LayerKind::attention_moe: return "attention_moe";
    case LayerKind::attention_dense: return "attention_dense";
    case LayerKind::moe: return "moe";
    case LayerKind::mamba: return "mamba";
    case LayerKind::attention: return "attention";
    case LayerKind::dense: return "dense";
  }
  return "?";
}

ModelSpec load_model(const std::string& path, const std::vector<std::string>& overrides) {
  YamlNode root = config_section(load_yaml_file(path), "model", path);  // a --dump-config file: its model
  apply_overrides(root, overrides, path);
  return read_model_spec(root, path);
}

ModelSpec read_model_spec(const YamlNode& root, const std::string& file) {
  Problems problems;
  ModelSpec model;
  model.source_file = file;
  ConfigReader top(root, file, "", problems);
  read_model(top, model);
  for (const char* key : {"tp", "lnc", "batch", "context", "dtype"}) {
    const std::string path = std::string("deployment.") + key;
    std::string place = locate(root, path, file);
    if (place != file) model.deployment_places[path] = place;
  }
  // Cross-field checks only make sense on well-typed values.
  if (problems.empty())
    for (const auto& p : model.validate()) problems.add(locate(root, p.key, file) + ": " + p.key + ": " + p.message);
  problems.throw_if_any();
  return model;
}

std::vector<ConfigProblem> ModelSpec::validate() const {
  std::vector<ConfigProblem> out;
  auto need = [&](bool ok, const std::string& key, const std::string& message) {
    if (!ok) out.push_back({key, message});
  };
  auto positive = [&](std::int64_t value, const std::string& key) {
    need(value > 0, key, "must be positive, got " + num(value));
  };
  // Upper bounds far above any real model (DeepSeek-V3: H 7168, dense I 18432, 256 experts; Gemma vocab 262144)
  // that keep every parameter and byte count derived from a valid model inside 64 bits: the largest,
  // 2^10 layers x 2^12 experts x 3 projections x I 2^17 x H 2^17 x 2 bytes, is 2^59.6.
  constexpr std::int64_t kMaxWidth = std::int64_t{1} << 17, kMaxCount = std::int64_t{1} << 12;
  auto at_most = [&](std::int64_t value, std::int64_t limit, const std::string& key) {
    need(value <= limit, key, "must be at most " + num(limit) + ", got " + num(value));
  };
  at_most(layers, std::int64_t{1} << 10, "layers");
  at_most(hidden, kMaxWidth, "hidden");
  at_most(vocab, std::int64_t{1} << 22, "vocab");
  at_most(experts, kMaxCount, "moe.experts");
  at_most(expert_intermediate, kMaxWidth, "moe.intermediate");
  at_most(shared_experts, std::int64_t{1} << 6, "moe.shared_experts");
  at_most(shared_intermediate, kMaxWidth, "moe.shared_intermediate");
  at_most(dense_intermediate, kMaxWidth, "dense.intermediate");
  at_most(parallel_dense_intermediate, kMaxWidth, "dense.parallel_intermediate");
  for (auto [value, key] : {std::pair<std::int64_t, const char*>{attention.q_heads, "attention.q_heads"},
                            {attention.kv_heads, "attention.kv_heads"}, {attention.head_dim, "attention.head_dim"},
                            {attention.q_lora_rank, "attention.q_lora_rank"},
                            {attention.kv_lora_rank, "attention.kv_lora_rank"},
                            {attention.qk_nope_head_dim, "attention.qk_nope_head_dim"},
                            {attention.qk_rope_head_dim, "attention.qk_rope_head_dim"},
                            {attention.v_head_dim, "attention.v_head_dim"},
                            {attention.global_kv_heads, "attention.global_kv_heads"},
                            {attention.global_head_dim, "attention.global_head_dim"}, {mamba.heads, "mamba.heads"},
                            {mamba.head_dim, "mamba.head_dim"}, {mamba.state, "mamba.state"},
                            {mamba.groups, "mamba.groups"}, {mamba.conv_kernel, "mamba.conv_kernel"},
                            {router.groups, "router.groups"}})
    at_most(value, kMaxCount, key);
  if (attention.q_heads <= kMaxCount && attention.kv_heads <= kMaxCount && attention.head_dim <= kMaxCount) {
    std::int64_t widest = std::max(attention.q_heads, attention.kv_heads) * attention.head_dim;
    need(widest <= kMaxWidth, "attention.head_dim",
         "heads x head_dim = " + num(widest) + " is beyond the largest supported width " + num(kMaxWidth));
  }
  positive(layers, "layers");
  positive(hidden, "hidden");
  positive(vocab, "vocab");
  positive(experts, "moe.experts");
  positive(expert_intermediate, "moe.intermediate");
  need(top_k >= 1 && top_k <= experts, "moe.top_k",
       "must be between 1 and moe.experts = " + num(experts) + ", got " + num(top_k));
  need(gated == (activation != Activation::relu2), "moe.gated",
       std::string("must be ") + (gated ? "false" : "true") + " for activation " + to_string(activation) +
           (gated ? " (non-gated: up, relu², down)" : " (gate and up projections)"));
  need(shared_experts >= 0, "moe.shared_experts", "must not be negative");
  need(shared_experts == 0 || shared_intermediate > 0, "moe.shared_intermediate",
       "must be positive when moe.shared_experts > 0");

  if (!layer_pattern.empty()) {
    need(static_cast<std::int64_t>(layer_pattern.size()) == layers, "layer_pattern",
         "has " + num(static_cast<std::int64_t>(layer_pattern.size())) + " characters but layers = " + num(layers));
    need(layer_pattern.find_first_not_of("EM*-") == std::string::npos, "layer_pattern",
         "may only contain E (MoE), M (Mamba-2), * (attention) and - (dense MLP)");
    need(dense_layers.empty(), "dense.layers", "must be empty when layer_pattern is given (use '-' in the pattern)");
    bool has_mamba = layer_pattern.find('M') != std::string::npos;
    if (has_mamba) {
      positive(mamba.heads, "mamba.heads");
      positive(mamba.head_dim, "mamba.head_dim");
      positive(mamba.state, "mamba.state");
      positive(mamba.groups, "mamba.groups");
      positive(mamba.conv_kernel, "mamba.conv_kernel");
      need(mamba.groups <= 0 || mamba.heads % mamba.groups == 0, "mamba.groups", "must divide mamba.heads");
    }
  }
  for (std::int64_t layer : dense_layers)
    need(layer >= 0 && layer < layers, "dense.layers", "layer " + num(layer) + " is outside 0.." + num(layers - 1));
  need(dense_layers.empty() || dense_intermediate > 0, "dense.intermediate",
       "must be positive when dense.layers is not empty");
  bool pattern_dense = layer_pattern.find('-') != std::string::npos;
  need(!pattern_dense || dense_intermediate > 0, "dense.intermediate",
       "must be positive when layer_pattern has dense ('-') layers");
  need(parallel_dense_intermediate >= 0, "dense.parallel_intermediate", "must not be negative");

  const AttentionSpec& a = attention;
  positive(a.q_heads, "attention.q_heads");
  if (a.kind == AttentionKind::mla) {
    positive(a.kv_lora_rank, "attention.kv_lora_rank");
    positive(a.qk_nope_head_dim, "attention.qk_nope_head_dim");
    positive(a.qk_rope_head_dim, "attention.qk_rope_head_dim");
    positive(a.v_head_dim, "attention.v_head_dim");
    need(a.q_lora_rank >= 0, "attention.q_lora_rank", "must not be negative (0: no q compression)");
  } else {
    positive(a.kv_heads, "attention.kv_heads");
    positive(a.head_dim, "attention.head_dim");
    need(a.kv_heads <= 0 || a.q_heads % a.kv_heads == 0, "attention.kv_heads",
         "must divide attention.q_heads = " + num(a.q_heads));
    need(a.kind != AttentionKind::mha || a.kv_heads == a.q_heads, "attention.kv_heads",
         "must equal attention.q_heads for mha (use gqa otherwise)");
  }
  need(a.sliding_window_tokens >= 0, "attention.sliding_window_tokens", "must not be negative (0: no window)");
  for (std::int64_t layer : a.global_layers) {
    bool in_range = layer >= 0 && layer < layers;
    bool pattern_ok = layer_pattern.empty() || static_cast<std::int64_t>(layer_pattern.size()) == layers;
    need(in_range, "attention.global_layers", "layer " + num(layer) + " is outside 0.." + num(layers - 1));
    if (in_range && pattern_ok) need(has_attention(layer), "attention.global_layers", "layer " + num(layer) + " has no attention");
  }
  need(a.global_kv_heads >= 0 && a.global_head_dim >= 0, "attention.global_kv_heads", "must not be negative");

  need(router.scale > 0, "router.scale", "must be positive");
  need(router.groups >= 1 && experts % router.groups == 0, "router.groups",
       "must be positive and divide moe.experts = " + num(experts));
  need(router.topk_groups >= 1 && router.topk_groups <= router.groups, "router.topk_groups",
       "must be between 1 and router.groups = " + num(router.groups));

  for (auto& p : weights.validate(gated)) out.push_back(std::move(p));
  for (auto& p : deployment_problems(*this, deployment)) out.push_back(std::move(p));
  return out;
}

std::vector<ConfigProblem> deployment_problems(const ModelSpec& m, const Deployment& d) {
  std::vector<ConfigProblem> out;
  auto need = [&](bool ok, const std::string& key, const std::string& message) {
    if (!ok) out.push_back({key, message});
  };
  need(d.tp > 0, "deployment.tp", "must be positive, got " + num(d.tp));
  need(d.lnc > 0, "deployment.lnc", "must be positive, got " + num(d.lnc));
  need(d.batch > 0, "deployment.batch", "must be positive, got " + num(d.batch));
  need(d.context_tokens > 0, "deployment.context", "must be positive, got " + num(d.context_tokens));
  need(d.dtype == "bf16" || d.dtype == "fp16", "deployment.dtype", "'" + d.dtype + "' is not one of bf16, fp16");
  // Bounds as for the model's sizes (ModelSpec::validate): far above real deployments, and the KV cache of
  // a whole batch (2^12 x 2^22 tokens x < 2^26 bytes per token and layer) stays inside 64 bits.
  need(d.tp <= 1024, "deployment.tp", "must be at most 1024, got " + num(d.tp));
  need(d.lnc <= 16, "deployment.lnc", "must be at most 16, got " + num(d.lnc));
  need(d.batch <= 4096, "deployment.batch", "must be at most 4096, got " + num(d.batch));
  need(d.context_tokens <= (1 << 22), "deployment.context",
       "must be at most " + num(1 << 22) + ", got " + num(d.context_tokens));
  if (d.tp <= 0) return out;
  auto divides = [&](std::int64_t value, const std::string& what) {
    need(value % d.tp == 0, "deployment.tp",
         "tp = " + num(d.tp) + " does not divide " + what + " = " + num(value) + " (each rank needs a whole share)");
  };
  divides(m.expert_intermediate, "moe.intermediate (I)");
  if (m.shared_experts > 0) divides(m.shared_intermediate, "moe.shared_intermediate");
  if (!m.dense_layers.empty() || m.layer_pattern.find('-') != std::string::npos)
    divides(m.dense_intermediate, "dense.intermediate");
  if (m.parallel_dense_intermediate > 0) divides(m.parallel_dense_intermediate, "dense.parallel_intermediate");
  divides(m.attention.q_heads, "attention.q_heads");
  // Fewer kv heads than ranks are replicated, which needs tp to be a multiple of kv_heads.
  auto kv_fits = [&](std::int64_t kv, const std::string& what) {
    if (kv <= 0) return;
    need(kv >= d.tp ? kv % d.tp == 0 : d.tp % kv == 0, "deployment.tp",
         "tp = " + num(d.tp) + " and " + what + " = " + num(kv) + ": one must divide the other");
  };
  if (m.attention.kind != AttentionKind::mla) {
    kv_fits(m.attention.kv_heads, "attention.kv_heads");
    if (!m.attention.global_layers.empty()) kv_fits(m.attention.global_kv_heads, "attention.global_kv_heads");
  }
  if (m.layer_pattern.find('M') != std::string::npos) {
    divides(m.mamba.heads, "mamba.heads");
    divides(m.mamba.groups, "mamba.groups");
  }
  return out;
}

std::string deployment_place(const ModelSpec& model, const Deployment& deployment, const std::string& key) {
  const Deployment& own = model.deployment;
  // A value the command line changed is not at the file's line.
  bool own_value = key == "deployment.tp" ? deployment.tp == own.tp
                   : key == "deployment.lnc" ? deployment.lnc == own.lnc
                   : key == "deployment.batch" ? deployment.batch == own.batch
                   : key == "deployment.context" ? deployment.context_tokens == own.context_tokens
                   : key == "deployment.dtype" ? deployment.dtype == own.dtype
                                               : false;
  auto place = model.deployment_places.find(key);
  if (own_value && place != model.deployment_places.end()) return place->second + ": ";
  return model.source_file.empty() ? "" : model.source_file + ": ";
}

void validate_deployment(const ModelSpec& model, const Deployment& deployment) {
  Problems problems;
  for (const auto& p : deployment_problems(model, deployment))
    problems.add(deployment_place(model, deployment, p.key) + p.key + ": " + p.message);
  problems.throw_if_any();
}

LayerKind ModelSpec::layer_kind(std::int64_t layer) const {
  if (!layer_pattern.empty()) {
    switch (layer_pattern.at(static_cast<size_t>(layer))) {
      case 'E': return LayerKind::moe;
      case 'M': return LayerKind::mamba;
      case '*': return LayerKind::attention;
      default: return LayerKind::dense;
    }
  }
  return contains(dense_layers, layer) ? LayerKind::attention_dense : LayerKind::attention_moe;
}

bool ModelSpec::has_attention(std::int64_t layer) const {
  LayerKind kind = layer_kind(layer);
  return kind == LayerKind::attention_moe || kind == LayerKind::attention_dense || kind == LayerKind::attention;
}

bool ModelSpec::has_moe(std::int64_t layer) const {
  LayerKind kind = layer_kind(layer);
  return kind == LayerKind::attention_moe || kind == LayerKind::moe;
}

bool ModelSpec::has_dense_mlp(std::int64_t layer) const { return dense_mlp_intermediate(layer) > 0; }

std::int64_t ModelSpec::dense_mlp_intermediate(std::int64_t layer) const {
  LayerKind kind = layer_kind(layer);
  if (kind == LayerKind::attention_dense || kind == LayerKind::dense) return dense_intermediate;
  if (has_moe(layer)) return parallel_dense_intermediate;
  return 0;
}

bool ModelSpec::is_global_attention(std::int64_t layer) const {
  if (!has_attention(layer)) return false;
  if (attention.sliding_window_tokens == 0) return true;
  return contains(attention.global_layers, layer);
}

std::int64_t ModelSpec::attended_tokens(std::int64_t layer, std::int64_t context_tokens) const {
  if (!has_attention(layer)) return 0;
  if (is_global_attention(layer)) return context_tokens;
  return std::min(context_tokens, attention.sliding_window_tokens);
}

std::int64_t ModelSpec::intermediate_per_rank(std::int64_t tp) const {
  if (tp <= 0 || expert_intermediate % tp != 0)
    throw InputError("deployment.tp: tp = " + num(tp) + " does not divide moe.intermediate (I) = " +
                     num(expert_intermediate) + " (each rank needs a whole share)");
  return expert_intermediate / tp;
}

std::int64_t ModelSpec::expert_parameters(std::int64_t tp) const {
  return (gated ? 3 : 2) * hidden * intermediate_per_rank(tp);
}

std::int64_t ModelSpec::expert_weight_bytes(const Deployment& d) const {
  return expert_parameters(d.tp) * d.dtype_bytes();
}

std::int64_t ModelSpec::attention_parameters(std::int64_t layer, std::int64_t tp) const {
  if (!has_attention(layer)) return 0;
  const AttentionSpec& a = attention;
  const std::int64_t H = hidden;
  const std::int64_t q_heads = a.q_heads / tp;
  if (a.kind == AttentionKind::mla) {
    const std::int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    std::int64_t q = a.q_lora_rank == 0 ? H * q_heads * qk : H * a.q_lora_rank + a.q_lora_rank * q_heads * qk;
    std::int64_t kv_a = H * (a.kv_lora_rank + a.qk_rope_head_dim);  // to the latent: replicated on every rank
    std::int64_t kv_b = a.kv_lora_rank * q_heads * (a.qk_nope_head_dim + a.v_head_dim);
    std::int64_t o = q_heads * a.v_head_dim * H;
    return q + kv_a + kv_b + o;
  }
  const bool global = is_global_attention(layer) && !a.global_layers.empty();
  const std::int64_t head_dim = global && a.global_head_dim > 0 ? a.global_head_dim : a.head_dim;
  const std::int64_t kv = global && a.global_kv_heads > 0 ? a.global_kv_heads : a.kv_heads;
  const std::int64_t kv_rank = kv >= tp ? kv / tp : 1;
  const bool k_eq_v = global && a.global_k_eq_v;
  return H * q_heads * head_dim                      // q
         + (k_eq_v ? 1 : 2) * H * kv_rank * head_dim  // k, v
         + q_heads * head_dim * H;                    // o
}

std::int64_t ModelSpec::attention_weight_bytes(std::int64_t layer, const Deployment& d) const {
  return attention_parameters(layer, d.tp) * d.dtype_bytes();
}

std::int64_t ModelSpec::kv_cache_bytes_per_token(std::int64_t layer, const Deployment& d) const {
  if (!has_attention(layer)) return 0;
  const AttentionSpec& a = attention;
  if (a.kind == AttentionKind::mla) return (a.kv_lora_rank + a.qk_rope_head_dim) * d.dtype_bytes();
  const bool global = is_global_attention(layer) && !a.global_layers.empty();
  const std::int64_t head_dim = global && a.global_head_dim > 0 ? a.global_head_dim : a.head_dim;
  const std::int64_t kv = global && a.global_kv_heads > 0 ? a.global_kv_heads : a.kv_heads;
  const std::int64_t kv_rank = kv >= d.tp ? kv / d.tp : 1;
  const std::int64_t tensors = global && a.global_k_eq_v ? 1 : 2;
  return tensors * kv_rank * head_dim * d.dtype_bytes();
}

std::int64_t ModelSpec::mamba_parameters(std::int64_t tp) const {
  // Mamba-2 mixer (HF NemotronH): in_proj H → (z, x, B, C, dt) = 2·d_inner + 2·groups·state + heads; a depthwise
  // conv over (x, B, C); A_log, D, dt_bias per head; a gated RMSNorm over d_inner; out_proj d_inner → H.
  const std::int64_t heads = mamba.heads / tp;
  const std::int64_t inner = heads * mamba.head_dim;
  const std::int64_t bc = 2 * (mamba.groups / tp) * mamba.state;
  const std::int64_t in_proj = hidden * (2 * inner + bc + heads);
  const std::int64_t conv = (inner + bc) * (mamba.conv_kernel + 1);  // weights and bias
  return in_proj + conv + 3 * heads + inner + inner * hidden;
}

LayerParameters ModelSpec::layer_parameters(std::int64_t layer, std::int64_t tp) const {
  LayerParameters p;
  const std::int64_t per_matrix = gated ? 3 : 2;
  p.attention = attention_parameters(layer, tp);
  if (layer_kind(layer) == LayerKind::mamba) p.mamba = mamba_parameters(tp);
  if (has_moe(layer)) {
    p.router = hidden * experts;  // replicated on every rank
    p.one_expert = expert_parameters(tp);
    p.routed_experts = experts * p.one_expert;
    p.shared_experts = shared_experts * per_matrix * hidden * (shared_intermediate / tp);
  }
  p.dense_mlp = per_matrix * hidden * (dense_mlp_intermediate(layer) / tp);
  return p;
}

std::int64_t ModelSpec::embedding_parameters() const { return (tied_embeddings ? 1 : 2) * vocab * hidden; }

std::int64_t ModelSpec::total_parameters() const {
  std::int64_t sum = embedding_parameters();
  for (std::int64_t layer = 0; layer < layers; ++layer) sum += layer_parameters(layer).total();
  return sum;
}

std::int64_t ModelSpec::active_parameters() const {
  std::int64_t sum = embedding_parameters();
  for (std::int64_t layer = 0; layer < layers; ++layer) sum += layer_parameters(layer).active(top_k);
  return sum;
}

double ModelSpec::attention_weight_share() const {
  std::int64_t attention_sum = 0;
  std::int64_t layer_sum = 0;
  for (std::int64_t layer = 0; layer < layers; ++layer) {
    LayerParameters p = layer_parameters(layer);
    attention_sum += p.attention;
    layer_sum += p.total();
  }
  return layer_sum == 0 ? 0.0 : static_cast<double>(attention_sum) / static_cast<double>(layer_sum);
}

}  // namespace stasim
