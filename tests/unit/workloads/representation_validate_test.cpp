// Bad representation parameters: each message names the parameter and its limit; validate throws InputError.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/representation.hpp"

namespace stasim {
namespace {

ModelSpec qwen3_shape() {
  ModelSpec m;
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

// The InputError message of validate(), or "" when it does not throw.
std::string error_of(const Representation& rep, const ModelSpec& m, const Deployment& dep) {
  try {
    rep.validate(m, dep);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RepresentationValidate, ShippedDefaultsAreValid) {
  const ModelSpec m = qwen3_shape();
  Deployment dep;  // tp 4
  EXPECT_TRUE(Representation::hybrid(8, 384, 256).problems(m, dep).empty());
  EXPECT_TRUE(Representation::hybrid(4, 256, 256).problems(m, dep).empty());
  EXPECT_TRUE(Representation::hybrid(2, 0, 256).problems(m, dep).empty());
  EXPECT_TRUE(Representation::dense_bf16().problems(m, dep).empty());
  EXPECT_TRUE(Representation::mxfp4().problems(m, dep).empty());
  EXPECT_NO_THROW(Representation::hybrid(8, 384, 256).validate(m, dep));
}

TEST(RepresentationValidate, DMustDivideHidden) {
  const std::string message = error_of(Representation::hybrid(6, 384, 256), qwen3_shape(), Deployment{});
  EXPECT_TRUE(has(message, "d = 6 does not divide hidden H = 2048")) << message;
}

TEST(RepresentationValidate, KAbove256WithUint8Indices) {
  const std::string message = error_of(Representation::hybrid(8, 384, 512), qwen3_shape(), Deployment{});
  EXPECT_TRUE(has(message, "K = 512 is outside 2..256")) << message;
  EXPECT_TRUE(has(message, "uint8")) << message;
  // A 16-bit index can address it.
  Representation wide = Representation::hybrid(8, 384, 512);
  wide.index_bits = 16;
  EXPECT_EQ(error_of(wide, qwen3_shape(), Deployment{}), "");
}

TEST(RepresentationValidate, RAboveMinOfHAndI) {
  // min(H, I) = min(2048, 768) = 768
  const std::string message = error_of(Representation::hybrid(8, 1024, 256), qwen3_shape(), Deployment{});
  EXPECT_TRUE(has(message, "r = 1024 is outside 0..768 = min(H = 2048, I = 768)")) << message;
  EXPECT_TRUE(has(error_of(Representation::lr_only(4096), qwen3_shape(), Deployment{}), "r = 4096"));
  EXPECT_TRUE(has(error_of(Representation::hybrid(8, -1, 256), qwen3_shape(), Deployment{}), "r = -1"));
}

TEST(RepresentationValidate, TpMustDivideI) {
  Deployment dep;
  dep.tp = 5;
  const std::string message = error_of(Representation::hybrid(8, 384, 256), qwen3_shape(), dep);
  EXPECT_TRUE(has(message, "deployment.tp: tp = 5 does not divide moe.intermediate (I) = 768")) << message;
  EXPECT_THROW(qwen3_shape().intermediate_per_rank(5), InputError);
  EXPECT_EQ(qwen3_shape().intermediate_per_rank(4), 192);
}

TEST(RepresentationValidate, ReportsEveryProblemAtOnce) {
  Deployment dep;
  dep.tp = 5;
  try {
    Representation::hybrid(6, 1024, 300).validate(qwen3_shape(), dep);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_GE(e.problems().size(), 4u);  // d, K, r, tp (and the kv/q head checks for tp 5)
  }
}

TEST(RepresentationValidate, KindSpecificRules) {
  Representation vq = Representation::vq_only(2, 256);
  vq.r = 8;
  EXPECT_TRUE(has(error_of(vq, qwen3_shape(), Deployment{}), "r = 8 must be 0 for vq_only"));
  EXPECT_TRUE(has(error_of(Representation::lr_only(0), qwen3_shape(), Deployment{}), "must be positive for lr_only"));
  ModelSpec odd = qwen3_shape();
  odd.hidden = 2040;
  EXPECT_TRUE(has(error_of(Representation::mxfp4(), odd, Deployment{}), "MXFP4 block of 32"));
}

}  // namespace
}  // namespace stasim
