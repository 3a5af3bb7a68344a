// The safetensors writer: exact bytes of a small file, BF16 rounding, round trips through the reader, and
// sharded sets resolved through their index.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>

#include "sim/core/input_error.hpp"
#include "tests/unit/workloads/safetensors_test_files.hpp"
#include "workloads/safetensors_set.hpp"
#include "workloads/safetensors_writer.hpp"

namespace stasim {
namespace {

using testing::AllOf;
using testing::HasSubstr;

TEST(SafetensorsWriter, ExactBytesOfASmallFile) {
  SafetensorsWriter writer;
  writer.add_u8("b", {2}, {5, 6});
  writer.add_floats("a", {1}, {1.0f}, TensorDtype::bf16);
  writer.set_metadata("k", "v");
  std::string path = test::temp_path("exact.safetensors");
  writer.write(path);
  // Keys sorted (__metadata__ < a < b), data in name order: a's BF16 1.0 = 0x3F80 (bytes 80 3F), then b.
  std::string header = R"({"__metadata__":{"k":"v"},"a":{"data_offsets":[0,2],"dtype":"BF16","shape":[1]},)"
                       R"("b":{"data_offsets":[2,4],"dtype":"U8","shape":[2]}})";
  ASSERT_EQ(header.size(), 132u);  // padded with 4 spaces to 136 = 0x88, a multiple of 8
  std::string expected = std::string("\x88\0\0\0\0\0\0\0", 8) + header + "    " + std::string("\x80\x3F\x05\x06", 4);
  EXPECT_EQ(test::slurp_bytes(path), expected);
}

TEST(SafetensorsWriter, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16_from_float(1.0f), 0x3F80);
  EXPECT_EQ(bf16_from_float(-2.0f), 0xC000);
  // 1 + 2^-8 = 0x3F808000 lies halfway between 0x3F80 and 0x3F81: ties go to the even 0x3F80.
  EXPECT_EQ(bf16_from_float(1.00390625f), 0x3F80);
  // 1 + 3·2^-8 = 0x3F818000 lies halfway between 0x3F81 and 0x3F82: the even one is 0x3F82.
  EXPECT_EQ(bf16_from_float(1.01171875f), 0x3F82);
  // 1 + 2^-8 + 2^-16 is above the halfway point: up to 0x3F81.
  EXPECT_EQ(bf16_from_float(1.0039215087890625f), 0x3F81);
  EXPECT_EQ(float_from_bf16(0x3F81), 1.0078125f);
}

TEST(SafetensorsWriter, RoundTripThroughTheReader) {
  SafetensorsWriter writer;
  std::vector<float> values = {0.1f, -3.5f, 1e-20f, 65504.0f, -0.0f, 7.25f};
  writer.add_floats("f32", {2, 3}, values, TensorDtype::f32);
  writer.add_floats("bf16", {3, 2}, values, TensorDtype::bf16);
  std::string path = test::temp_path("roundtrip.safetensors");
  writer.write(path);
  SafetensorsFile file(path);
  EXPECT_EQ(file.read_floats("f32"), values);
  std::vector<float> rounded;
  for (float v : values) rounded.push_back(float_from_bf16(bf16_from_float(v)));
  EXPECT_EQ(file.read_floats("bf16"), rounded);
  EXPECT_EQ(file.find("bf16").shape, (std::vector<std::int64_t>{3, 2}));
  EXPECT_THROW(writer.add_floats("short", {2, 2}, {1.0f}, TensorDtype::f32), InputError);
  EXPECT_THROW(writer.add_u8("f32", {1}, {1}), InputError);  // the name is taken
}

// Two shards and an index, in their own directory.
std::string make_sharded_set(const std::string& name) {
  std::filesystem::path dir = testing::TempDir() + "st_set_" + name;
  std::filesystem::create_directories(dir);
  SafetensorsWriter one, two;
  one.add_floats("layer.0.w", {2}, {1.0f, 2.0f}, TensorDtype::f32);
  two.add_floats("layer.1.w", {1}, {3.0f}, TensorDtype::bf16);
  one.write((dir / "model-00001-of-00002.safetensors").string());
  two.write((dir / "model-00002-of-00002.safetensors").string());
  std::ofstream(dir / "model.safetensors.index.json")
      << R"({"metadata":{"total_size":10},"weight_map":{"layer.0.w":"model-00001-of-00002.safetensors",)"
      << R"("layer.1.w":"model-00002-of-00002.safetensors","layer.2.w":"model-00002-of-00002.safetensors"}})";
  return dir.string();
}

TEST(SafetensorsSet, ShardedSetThroughItsIndexOrItsDirectory) {
  std::string dir = make_sharded_set("ok");
  for (const std::string& path : {dir, dir + "/model.safetensors.index.json"}) {
    SafetensorsSet set(path);
    EXPECT_TRUE(set.sharded());
    EXPECT_EQ(set.file_of("layer.0.w").read_floats("layer.0.w"), (std::vector<float>{1.0f, 2.0f}));
    EXPECT_EQ(set.file_of("layer.1.w").read_floats("layer.1.w"), (std::vector<float>{3.0f}));
    EXPECT_THAT(set.file_of("layer.1.w").path(), HasSubstr("model-00002-of-00002.safetensors"));
    EXPECT_FALSE(set.has("layer.2.w"));
  }
}

TEST(SafetensorsSet, ASingleFileOrADirectoryWithOne) {
  std::filesystem::path dir = testing::TempDir() + "st_single";
  std::filesystem::create_directories(dir);
  SafetensorsWriter writer;
  writer.add_floats("x", {1}, {4.0f}, TensorDtype::f32);
  writer.write((dir / "weights.safetensors").string());
  EXPECT_FALSE(SafetensorsSet(dir.string()).sharded());
  EXPECT_EQ(SafetensorsSet(dir.string()).file_of("x").read_floats("x"), (std::vector<float>{4.0f}));
  EXPECT_EQ(SafetensorsSet((dir / "weights.safetensors").string()).find("x").dtype, TensorDtype::f32);
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SafetensorsSetBadInput, MissingTensorsAndBrokenIndexes) {
  std::string dir = make_sharded_set("bad");
  SafetensorsSet set(dir);
  EXPECT_THAT(error_of([&] { set.file_of("layer.3.w"); }),
              AllOf(HasSubstr("model.safetensors.index.json: no tensor 'layer.3.w' in the weight_map"),
                    HasSubstr("did you mean")));
  // The index lists layer.2.w in shard 2, which does not hold it.
  EXPECT_THAT(error_of([&] { set.file_of("layer.2.w"); }),
              AllOf(HasSubstr("puts tensor 'layer.2.w' in"), HasSubstr("model-00002-of-00002.safetensors, which has no such tensor")));
  std::ofstream(dir + "/model.safetensors.index.json") << R"({"weight_map": [1, 2]})";
  EXPECT_THAT(error_of([&] { SafetensorsSet broken(dir); }), HasSubstr("the index has no \"weight_map\" object"));
  std::ofstream(dir + "/model.safetensors.index.json") << R"({"weight_map": )";
  EXPECT_THAT(error_of([&] { SafetensorsSet broken(dir); }), HasSubstr("the index is not valid JSON"));
  EXPECT_THAT(error_of([&] { SafetensorsSet none(dir + "/nothing"); }), HasSubstr("no such weights file or directory"));
}

}  // namespace
}  // namespace stasim
