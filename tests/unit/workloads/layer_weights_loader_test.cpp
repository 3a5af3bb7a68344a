// load_layer_weights on small hand-written checkpoints of a tiny model (H = 4, I = 2, E = 2): the orientation
// of W_e (a PyTorch [I, H] tensor read column-major is W_e, H×I), per-expert and fused tensors, bad input, and
// write_layer_weights (single file, shards + index, fused) read back exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "sim/core/input_error.hpp"
#include "workloads/layer_weights_loader.hpp"
#include "workloads/layer_weights_writer.hpp"
#include "workloads/safetensors_writer.hpp"

namespace stasim {
namespace {

using testing::AllOf;
using testing::HasSubstr;

constexpr int H = 4, I = 2, E = 2;

ModelSpec tiny_model() {
  ModelSpec m;
  m.name = "tiny";
  m.source_file = "tiny.yaml";
  m.layers = 2;
  m.hidden = H;
  m.vocab = 8;
  m.experts = E;
  m.top_k = 1;
  m.expert_intermediate = I;
  m.weights.gate = "model.layers.{layer}.mlp.experts.{expert}.gate_proj.weight";
  m.weights.up = "model.layers.{layer}.mlp.experts.{expert}.up_proj.weight";
  m.weights.down = "model.layers.{layer}.mlp.experts.{expert}.down_proj.weight";
  return m;
}

// Row-major [rows, cols] values v(row, col) = base + 10·row + col (exact in BF16 below 256).
std::vector<float> numbered(int rows, int cols, float base) {
  std::vector<float> out;
  for (int row = 0; row < rows; ++row)
    for (int col = 0; col < cols; ++col) out.push_back(base + 10.0f * row + col);
  return out;
}

std::string write_per_expert(const std::string& name, int layer, TensorDtype dtype, int gate_rows = I) {
  SafetensorsWriter writer;
  std::string at = "model.layers." + std::to_string(layer) + ".mlp.experts.";
  for (int e = 0; e < E; ++e) {
    writer.add_floats(at + std::to_string(e) + ".gate_proj.weight", {gate_rows, H}, numbered(gate_rows, H, 100.0f * e), dtype);
    writer.add_floats(at + std::to_string(e) + ".up_proj.weight", {I, H}, numbered(I, H, 100.0f * e + 50), dtype);
    writer.add_floats(at + std::to_string(e) + ".down_proj.weight", {H, I}, numbered(H, I, 100.0f * e + 200), dtype);
  }
  std::string path = testing::TempDir() + "loader_" + name + ".safetensors";
  writer.write(path);
  return path;
}

TEST(LayerWeightsLoader, PerExpertTensorsNeedNoTranspose) {
  std::string path = write_per_expert("per_expert", 1, TensorDtype::bf16);
  LayerWeights w = load_layer_weights(tiny_model(), path, 1);
  EXPECT_EQ(w.layer, 1);
  EXPECT_EQ(w.hidden, H);
  EXPECT_EQ(w.intermediate, I);
  ASSERT_EQ(w.projections.size(), 3u);
  const ProjectionWeights& gate = *w.find("gate");
  ASSERT_EQ(gate.experts.size(), 2u);
  // gate_proj.weight[i][h] = 100e + 10i + h is W_e(h, i): e.g. expert 1, h = 3, i = 1: 100 + 10 + 3 = 113.
  EXPECT_EQ(gate.experts[1].rows(), H);
  EXPECT_EQ(gate.experts[1].cols(), I);
  EXPECT_EQ(gate.experts[1](3, 1), 113.0f);
  EXPECT_EQ(gate.experts[0](2, 0), 2.0f);
  EXPECT_EQ(w.find("up")->experts[0](1, 1), 50.0f + 10 + 1);
  // down_proj.weight[h][i] = 200 + 100e + 10h + i is the I×H matrix's (i, h): expert 0, i = 1, h = 3: 231.
  const ProjectionWeights& down = *w.find("down");
  EXPECT_EQ(down.experts[0].rows(), I);
  EXPECT_EQ(down.experts[0].cols(), H);
  EXPECT_EQ(down.experts[0](1, 3), 231.0f);
}

TEST(LayerWeightsLoader, ChosenProjectionsAndFirstExperts) {
  std::string path = write_per_expert("subset", 0, TensorDtype::f32);
  LayerWeights w = load_layer_weights(tiny_model(), path, 0, {"up", "gate"}, 1);
  ASSERT_EQ(w.projections.size(), 2u);
  EXPECT_EQ(w.projections[0].name, "gate");  // always in the order gate, up, down
  EXPECT_EQ(w.projections[1].experts.size(), 1u);
  EXPECT_EQ(w.find("down"), nullptr);
}

TEST(LayerWeightsLoader, FusedGateUpStackedOverExperts) {
  ModelSpec model = tiny_model();
  model.weights = WeightPatterns{};
  model.weights.gate_up = "layers.{layer}.experts.gate_up_proj";
  model.weights.down = "layers.{layer}.experts.down_proj";
  // [E, 2I, H] with v(e, row, h) = 100e + 10·row + h: rows 0..1 gate, rows 2..3 up.
  std::vector<float> gate_up, down;
  for (int e = 0; e < E; ++e) {
    for (float v : numbered(2 * I, H, 100.0f * e)) gate_up.push_back(v);
    for (float v : numbered(H, I, 100.0f * e + 200)) down.push_back(v);
  }
  SafetensorsWriter writer;
  writer.add_floats("layers.0.experts.gate_up_proj", {E, 2 * I, H}, gate_up, TensorDtype::f32);
  writer.add_floats("layers.0.experts.down_proj", {E, H, I}, down, TensorDtype::f32);
  std::string path = testing::TempDir() + "loader_fused.safetensors";
  writer.write(path);
  LayerWeights w = load_layer_weights(model, path, 0);
  // Expert 1's up is rows 2..3: W_up(h, i) = 100 + 10·(2 + i) + h; h = 3, i = 1: 100 + 30 + 3 = 133.
  EXPECT_EQ(w.find("up")->experts[1](3, 1), 133.0f);
  EXPECT_EQ(w.find("gate")->experts[1](3, 1), 113.0f);
  EXPECT_EQ(w.find("down")->experts[1](1, 3), 331.0f);  // 200 + 100 + 10·3 + 1
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(LayerWeightsLoaderBadInput, WrongShapeNamesTheTensor) {
  std::string path = write_per_expert("bad_shape", 0, TensorDtype::bf16, 3);  // gate [3, 4] instead of [2, 4]
  EXPECT_THAT(error_of([&] { load_layer_weights(tiny_model(), path, 0); }),
              AllOf(HasSubstr(path), HasSubstr("tensor 'model.layers.0.mlp.experts.0.gate_proj.weight' has shape [3, 4] "
                                               "but tiny (H = 4, I = 2, E = 2) needs [2, 4] for the gate projection of "
                                               "expert 0")));
}

TEST(LayerWeightsLoaderBadInput, MissingTensorLayerOrPatterns) {
  std::string path = write_per_expert("layer0", 0, TensorDtype::bf16);
  EXPECT_THAT(error_of([&] { load_layer_weights(tiny_model(), path, 1); }),
              AllOf(HasSubstr(path), HasSubstr("no tensor 'model.layers.1.mlp.experts.0.gate_proj.weight'")));
  EXPECT_THAT(error_of([&] { load_layer_weights(tiny_model(), path, 2); }), HasSubstr("--layer 2: tiny has layers 0..1"));
  ModelSpec dense_first = tiny_model();
  dense_first.dense_layers = {0};
  dense_first.dense_intermediate = 8;
  EXPECT_THAT(error_of([&] { load_layer_weights(dense_first, path, 0); }),
              HasSubstr("layer 0 of tiny has no routed experts (attention_dense)"));
  ModelSpec unnamed = tiny_model();
  unnamed.weights = WeightPatterns{};
  EXPECT_THAT(error_of([&] { load_layer_weights(unnamed, path, 0); }),
              HasSubstr("tiny.yaml (tiny): the model has no weights: section"));
  EXPECT_THAT(error_of([&] { load_layer_weights(tiny_model(), path, 0, {"gates"}); }),
              HasSubstr("projection 'gates': expected gate, up or down"));
}

TEST(LayerWeightsLoaderBadInput, NonFloatDtype) {
  SafetensorsWriter writer;
  for (int e = 0; e < E; ++e)
    writer.add_u8("model.layers.0.mlp.experts." + std::to_string(e) + ".gate_proj.weight", {I, H},
                  std::vector<std::uint8_t>(I * H));
  std::string path = testing::TempDir() + "loader_u8.safetensors";
  writer.write(path);
  EXPECT_THAT(error_of([&] { load_layer_weights(tiny_model(), path, 0, {"gate"}); }),
              AllOf(HasSubstr(path), HasSubstr("'model.layers.0.mlp.experts.0.gate_proj.weight' has dtype U8")));
}


// A layer with distinct values everywhere: W(row, col) = 1000·projection + 100·expert + 10·row + col.
LayerWeights numbered_layer(const ModelSpec& model) {
  LayerWeights w;
  w.layer = 1;
  w.hidden = H;
  w.intermediate = I;
  int p = 0;
  for (const char* name : {"gate", "up", "down"}) {
    ProjectionWeights projection;
    projection.name = name;
    for (int e = 0; e < model.experts; ++e) {
      Eigen::MatrixXf m(name == std::string("down") ? I : H, name == std::string("down") ? H : I);
      for (int row = 0; row < m.rows(); ++row)
        for (int col = 0; col < m.cols(); ++col) m(row, col) = 1000.0f * p + 100.0f * e + 10.0f * row + col;
      projection.experts.push_back(m);
    }
    w.projections.push_back(projection);
    ++p;
  }
  return w;
}

void expect_same(const LayerWeights& a, const LayerWeights& b) {
  ASSERT_EQ(a.projections.size(), b.projections.size());
  for (size_t p = 0; p < a.projections.size(); ++p) {
    EXPECT_EQ(a.projections[p].name, b.projections[p].name);
    ASSERT_EQ(a.projections[p].experts.size(), b.projections[p].experts.size());
    for (size_t e = 0; e < a.projections[p].experts.size(); ++e)
      EXPECT_TRUE(a.projections[p].experts[e] == b.projections[p].experts[e]) << a.projections[p].name << " " << e;
  }
}

TEST(LayerWeightsWriter, WrittenCheckpointsReadBackExactly) {
  ModelSpec model = tiny_model();
  LayerWeights w = numbered_layer(model);
  std::string file = testing::TempDir() + "writer_single.safetensors";
  write_layer_weights(model, w, file, TensorDtype::f32);
  expect_same(w, load_layer_weights(model, file, 1));
  // Two shards (one expert each) and an index; values below 2^8 are exact in BF16 too.
  std::string dir = testing::TempDir() + "writer_sharded";
  write_layer_weights(model, w, dir, TensorDtype::f32, 2);
  EXPECT_TRUE(std::filesystem::exists(dir + "/model-00002-of-00002.safetensors"));
  expect_same(w, load_layer_weights(model, dir, 1));
  // The fused form: gate_up [E, 2I, H] and down [E, H, I].
  model.weights = WeightPatterns{};
  model.weights.gate_up = "layers.{layer}.experts.gate_up_proj";
  model.weights.down = "layers.{layer}.experts.down_proj";
  std::string fused = testing::TempDir() + "writer_fused.safetensors";
  write_layer_weights(model, w, fused, TensorDtype::f32);
  EXPECT_EQ(SafetensorsFile(fused).tensors().size(), 2u);
  expect_same(w, load_layer_weights(model, fused, 1));
}

}  // namespace
}  // namespace stasim
