// write_representation / read_representation: documented names and shapes, a bit-exact round trip (F32, and
// BF16 once rounded), identical bytes on a rewrite, and malformed files named by file and tensor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "sim/core/input_error.hpp"
#include "tests/unit/workloads/safetensors_test_files.hpp"
#include "workloads/representation_file.hpp"
#include "workloads/safetensors_writer.hpp"

namespace stasim {
namespace {

using testing::AllOf;
using testing::HasSubstr;

// H = 8, I = 3, E = 2, hybrid (d = 4, r = 2, K = 5): seeded-free values that are not BF16-exact.
BuiltLayer small_layer() {
  BuiltLayer built;
  built.layer = 3;
  built.hidden = 8;
  built.intermediate = 3;
  built.representation = Representation::hybrid(4, 2, 5);
  for (const char* name : {"gate", "up"}) {
    BuiltProjection p;
    p.name = name;
    p.d = 4;
    p.r = 2;
    p.K = 5;
    p.codebook = Eigen::MatrixXf(5, 4);
    for (int k = 0; k < 5; ++k)
      for (int j = 0; j < 4; ++j) p.codebook(k, j) = 0.1f * k - 0.37f * j + (name[0] == 'u');
    p.basis = Eigen::MatrixXf(8, 2);
    for (int h = 0; h < 8; ++h)
      for (int c = 0; c < 2; ++c) p.basis(h, c) = 1.0f / (1 + h + 3 * c);
    for (int e = 0; e < 2; ++e) {
      IndexMap J(2, 3);
      for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 3; ++i) J(b, i) = static_cast<std::uint8_t>((b + 2 * i + e) % 5);
      p.index_maps.push_back(J);
      Eigen::MatrixXf C(2, 3);
      for (int c = 0; c < 2; ++c)
        for (int i = 0; i < 3; ++i) C(c, i) = 0.013f * (c + 1) * (i - 1) + e;
      p.coefficients.push_back(C);
    }
    built.projections.push_back(p);
  }
  return built;
}

void expect_same(const BuiltLayer& a, const BuiltLayer& b) {
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.hidden, b.hidden);
  EXPECT_EQ(a.intermediate, b.intermediate);
  EXPECT_EQ(a.representation.describe(), b.representation.describe());
  ASSERT_EQ(a.projections.size(), b.projections.size());
  for (size_t p = 0; p < a.projections.size(); ++p) {
    const BuiltProjection& x = a.projections[p];
    const BuiltProjection& y = b.projections[p];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.d, y.d);
    EXPECT_EQ(x.r, y.r);
    EXPECT_EQ(x.K, y.K);
    EXPECT_TRUE(x.codebook == y.codebook) << x.name;  // exact, element by element
    EXPECT_TRUE(x.basis == y.basis) << x.name;
    ASSERT_EQ(x.index_maps.size(), y.index_maps.size());
    for (size_t e = 0; e < x.index_maps.size(); ++e) EXPECT_TRUE(x.index_maps[e] == y.index_maps[e]);
    ASSERT_EQ(x.coefficients.size(), y.coefficients.size());
    for (size_t e = 0; e < x.coefficients.size(); ++e) EXPECT_TRUE(x.coefficients[e] == y.coefficients[e]);
  }
}

TEST(RepresentationFile, F32RoundTripIsBitExact) {
  BuiltLayer built = small_layer();
  std::string path = test::temp_path("rep_f32.safetensors");
  write_representation(path, built, TensorDtype::f32);
  expect_same(built, read_representation(path));
  // The documented names and row-major shapes.
  SafetensorsFile file(path);
  EXPECT_EQ(file.find("layers.3.gate.codebook").shape, (std::vector<std::int64_t>{5, 4}));
  EXPECT_EQ(file.find("layers.3.up.basis").shape, (std::vector<std::int64_t>{8, 2}));
  EXPECT_EQ(file.find("layers.3.gate.experts.1.indices").dtype, TensorDtype::u8);
  EXPECT_EQ(file.find("layers.3.gate.experts.1.indices").shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(file.find("layers.3.up.experts.0.coefficients").shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(file.tensors().size(), 2u * (2 + 2 * 2));  // per projection: codebook, basis, 2 × (indices, coefficients)
  EXPECT_EQ(file.metadata().at("representation"), "hybrid");
  // Row-major: element 1 of the codebook tensor is B(0, 1) = -0.37.
  EXPECT_EQ(file.read_floats("layers.3.gate.codebook")[1], built.projections[0].codebook(0, 1));
  // Same layer, same bytes.
  std::string again = test::temp_path("rep_f32_again.safetensors");
  write_representation(again, read_representation(path), TensorDtype::f32);
  EXPECT_EQ(test::slurp_bytes(path), test::slurp_bytes(again));
}

TEST(RepresentationFile, Bf16RoundsOnceThenRoundTripsExactly) {
  BuiltLayer built = small_layer();
  std::string path = test::temp_path("rep_bf16.safetensors");
  write_representation(path, built, TensorDtype::bf16);
  BuiltLayer read = read_representation(path);
  // Each float becomes its nearest BF16: 0.1·1 − 0.37·1 = −0.27 → BF16 −0.26953125 (0xBE8A).
  EXPECT_EQ(read.projections[0].codebook(1, 1), float_from_bf16(bf16_from_float(built.projections[0].codebook(1, 1))));
  EXPECT_EQ(bf16_from_float(0.1f - 0.37f), 0xBE8A);
  EXPECT_TRUE(read.projections[0].index_maps[1] == built.projections[0].index_maps[1]);  // indices stay exact
  std::string again = test::temp_path("rep_bf16_again.safetensors");
  write_representation(again, read, TensorDtype::bf16);
  EXPECT_EQ(test::slurp_bytes(path), test::slurp_bytes(again));
  expect_same(read, read_representation(again));
}

TEST(RepresentationFile, VqOnlyAndLrOnlyLeaveTheirPartsOut) {
  BuiltLayer vq = small_layer();
  vq.representation = Representation::vq_only(4, 5);
  vq.projections.pop_back();  // gate only
  vq.projections[0].r = 0;
  vq.projections[0].basis = Eigen::MatrixXf(8, 0);
  vq.projections[0].coefficients.clear();
  std::string path = test::temp_path("rep_vq.safetensors");
  write_representation(path, vq, TensorDtype::f32);
  EXPECT_FALSE(SafetensorsFile(path).has("layers.3.gate.basis"));
  expect_same(vq, read_representation(path));

  BuiltLayer lr = small_layer();
  lr.representation = Representation::lr_only(2);
  for (BuiltProjection& p : lr.projections) {
    p.d = p.K = 0;
    p.codebook = Eigen::MatrixXf();
    p.index_maps.clear();
  }
  path = test::temp_path("rep_lr.safetensors");
  write_representation(path, lr, TensorDtype::f32);
  EXPECT_FALSE(SafetensorsFile(path).has("layers.3.up.codebook"));
  expect_same(lr, read_representation(path));
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RepresentationFileBadInput, WrongShapesIndicesAndForeignFiles) {
  std::string path = test::temp_path("rep_bad.safetensors");
  // A file that is not a representation.
  SafetensorsWriter other;
  other.add_floats("w", {1}, {1.0f}, TensorDtype::f32);
  other.write(path);
  EXPECT_THAT(error_of([&] { read_representation(path); }), HasSubstr("not a stasim representation file"));
  // An index ≥ K.
  BuiltLayer built = small_layer();
  built.projections[1].index_maps[0](1, 2) = 7;
  write_representation(path, built, TensorDtype::f32);
  EXPECT_THAT(error_of([&] { read_representation(path); }),
              AllOf(HasSubstr(path), HasSubstr("tensor 'layers.3.up.experts.0.indices' holds index 7 at [1, 2] but the "
                                               "code book has K = 5")));
  // A coefficient matrix of the wrong shape.
  built = small_layer();
  built.projections[0].coefficients[1] = Eigen::MatrixXf::Zero(3, 3);
  write_representation(path, built, TensorDtype::f32);
  EXPECT_THAT(error_of([&] { read_representation(path); }),
              HasSubstr("tensor 'layers.3.gate.experts.1.coefficients' has shape [3, 3], expected [2, 3]"));
  // K beyond U8 indices cannot be written.
  built = small_layer();
  built.projections[0].K = 300;
  EXPECT_THAT(error_of([&] { write_representation(path, built); }), HasSubstr("K = 300 does not fit"));
}

}  // namespace
}  // namespace stasim
