// The `weights:` section of the model YAMLs: each shipped model's checkpoint names, the fused form, and bad
// patterns or keys reported as file:line:column and key path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "workloads/layer_weights_loader.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/weight_patterns.hpp"

namespace stasim {
namespace {

using testing::AllOf;
using testing::HasSubstr;

std::string model_path(const std::string& name) {
  return std::string(STASIM_SOURCE_DIR) + "/configs/models/" + name + ".yaml";
}

// The tensor name (and slice) of layer 3, expert 5.
std::string name_of(const ModelSpec& model, const std::string& projection) {
  return expert_tensor(model, projection, 3, 5).name;
}

TEST(WeightPatterns, HuggingFaceNamesOfThePerExpertModels) {
  for (const char* name : {"qwen3-30b-a3b", "qwen3-coder-30b-a3b", "olmoe-1b-7b", "deepseek-v2-lite", "deepseek-v3"}) {
    ModelSpec model = load_model(model_path(name));
    EXPECT_EQ(name_of(model, "gate"), "model.layers.3.mlp.experts.5.gate_proj.weight") << name;
    EXPECT_EQ(name_of(model, "up"), "model.layers.3.mlp.experts.5.up_proj.weight") << name;
    EXPECT_EQ(name_of(model, "down"), "model.layers.3.mlp.experts.5.down_proj.weight") << name;
    // nn.Linear [out, in]: gate [I, H], down [H, I].
    EXPECT_EQ(expert_tensor(model, "gate", 3, 5).shape, (std::vector<std::int64_t>{model.expert_intermediate, model.hidden}));
    EXPECT_EQ(expert_tensor(model, "down", 3, 5).shape, (std::vector<std::int64_t>{model.hidden, model.expert_intermediate}));
    EXPECT_EQ(expert_tensor(model, "up", 3, 5).first_element, 0);
  }
}

TEST(WeightPatterns, MixtralNemotronAndTheFusedGemma) {
  ModelSpec mixtral = load_model(model_path("mixtral-8x7b"));
  EXPECT_EQ(name_of(mixtral, "gate"), "model.layers.3.block_sparse_moe.experts.5.w1.weight");
  EXPECT_EQ(name_of(mixtral, "up"), "model.layers.3.block_sparse_moe.experts.5.w3.weight");
  EXPECT_EQ(name_of(mixtral, "down"), "model.layers.3.block_sparse_moe.experts.5.w2.weight");

  ModelSpec nemotron = load_model(model_path("nemotron-3-nano-30b-a3b"));
  EXPECT_EQ(name_of(nemotron, "up"), "backbone.layers.3.mixer.experts.5.up_proj.weight");
  EXPECT_EQ(name_of(nemotron, "down"), "backbone.layers.3.mixer.experts.5.down_proj.weight");
  EXPECT_THROW(expert_tensor(nemotron, "gate", 3, 5), InputError);  // non-gated: no gate pattern

  // Gemma 4: one fused tensor per layer [E, 2I, H] = [128, 1408, 2816]; expert 5's gate starts at element
  // 5·1408·2816 = 19 824 640 and its up rows follow the 704 gate rows: + 704·2816 = 1 982 464.
  ModelSpec gemma = load_model(model_path("gemma-4-26b-a4b"));
  ExpertTensorRef gate = expert_tensor(gemma, "gate", 3, 5);
  ExpertTensorRef up = expert_tensor(gemma, "up", 3, 5);
  ExpertTensorRef down = expert_tensor(gemma, "down", 3, 5);
  EXPECT_EQ(gate.name, "model.language_model.layers.3.experts.gate_up_proj");
  EXPECT_EQ(up.name, gate.name);
  EXPECT_EQ(gate.shape, (std::vector<std::int64_t>{128, 1408, 2816}));
  EXPECT_EQ(gate.first_element, 19824640);
  EXPECT_EQ(up.first_element, 19824640 + 1982464);
  // down [E, H, I] = [128, 2816, 704]: expert 5 starts at 5·2816·704 = 9 912 320.
  EXPECT_EQ(down.name, "model.language_model.layers.3.experts.down_proj");
  EXPECT_EQ(down.shape, (std::vector<std::int64_t>{128, 2816, 704}));
  EXPECT_EQ(down.first_element, 9912320);
}

TEST(WeightPatterns, ExpandAndCheckOnePattern) {
  EXPECT_EQ(expand_pattern("a.{layer}.b.{expert}.{layer}", 7, 12), "a.7.b.12.7");
  EXPECT_EQ(pattern_problem("x.{layer}.{expert}"), "");
  EXPECT_EQ(pattern_problem("x.{layers}.y"), "has an unknown placeholder {layers} (only {layer} and {expert})");
  EXPECT_EQ(pattern_problem("x.{layer"), "has an unclosed '{' at character 3");
  EXPECT_EQ(pattern_problem("x.layer}"), "has a '}' without its '{' at character 8");
  EXPECT_EQ(pattern_problem("x.{expert}"), "has no {layer} placeholder, so every layer would read the same tensor");
}

std::string shipped(const std::string& name) {
  std::ifstream in(model_path(name));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string load_error(const std::string& text, const std::string& tag) {
  std::string path = testing::TempDir() + "stasim_weights_" + tag + ".yaml";
  std::ofstream(path) << text;
  try {
    load_model(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The line of `needle` in the shipped Qwen3 YAML (1-based), to spell out the expected file:line.
int line_of(const std::string& text, const std::string& needle) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(text.find(needle)), '\n'));
}

TEST(WeightPatternsBadInput, UnknownPlaceholderAndKeyNameFileLineKey) {
  std::string text = shipped("qwen3-30b-a3b");
  const int gate_line = line_of(text, "  gate: \"model.layers");
  std::string bad = replaced(text, "experts.{expert}.gate_proj", "experts.{expet}.gate_proj");
  EXPECT_THAT(load_error(bad, "placeholder"),
              AllOf(HasSubstr("stasim_weights_placeholder.yaml:" + std::to_string(gate_line) + ":3: weights.gate: has an "
                              "unknown placeholder {expet}")));
  bad = replaced(text, "  down: \"model.layers", "  dwon: \"model.layers");
  EXPECT_THAT(load_error(bad, "key"), AllOf(HasSubstr("stasim_weights_key.yaml:" + std::to_string(line_of(text, "  down: \"model.layers")) + ":3: weights.dwon: "
                                                "unknown key (did you mean 'weights.down'?)")));
}

TEST(WeightPatternsBadInput, IncompleteSets) {
  std::string text = shipped("qwen3-30b-a3b");
  std::string no_up = replaced(text, "  up: \"model.layers.{layer}.mlp.experts.{expert}.up_proj.weight\"", "");
  EXPECT_THAT(load_error(no_up, "no_up"), HasSubstr("weights.up: a gated model needs gate and up (or gate_up)"));
  std::string both = replaced(text, "weights:", "weights:\n  gate_up: \"x.{layer}\"");
  EXPECT_THAT(load_error(both, "both"), HasSubstr("weights.gate_up: give either gate_up (fused) or gate and up, not both"));
  std::string no_down = replaced(text, "  down: \"model.layers.{layer}.mlp.experts.{expert}.down_proj.weight\"", "");
  EXPECT_THAT(load_error(no_down, "no_down"), HasSubstr("weights.down: is required"));
}

}  // namespace
}  // namespace stasim
