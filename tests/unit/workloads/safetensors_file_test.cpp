// The safetensors reader on hand-built files: each dtype widened exactly, metadata, and every malformed case
// giving an InputError that names the file and the tensor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/input_error.hpp"
#include "tests/unit/workloads/safetensors_test_files.hpp"
#include "workloads/safetensors_file.hpp"

namespace stasim {
namespace {

using test::le16;
using test::write_raw;
using testing::AllOf;
using testing::HasSubstr;

std::string error_of(const std::string& path) {
  try {
    SafetensorsFile file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SafetensorsFile, Bf16IsTheTopHalfOfF32) {
  // 0x3F80 = 1.0, 0xC000 = -2.0, 0x3FC0 = 1.5, 0x0001 = the smallest BF16 subnormal 2^-133.
  std::string path = write_raw("bf16", R"({"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}})",
                               le16({0x3F80, 0xC000, 0x3FC0, 0x0001}));
  SafetensorsFile file(path);
  const TensorInfo& info = file.find("w");
  EXPECT_EQ(info.dtype, TensorDtype::bf16);
  EXPECT_EQ(info.shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(file.read_floats("w"), (std::vector<float>{1.0f, -2.0f, 1.5f, std::ldexp(1.0f, -133)}));
}

TEST(SafetensorsFile, F16IsWidenedExactly) {
  // 0x3C00 = 1.0, 0xC000 = -2.0, 0x3555 = 1365/4096 = 0.333251953125, 0x0001 = 2^-24 (subnormal).
  std::string path = write_raw("f16", R"({"w":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}})",
                               le16({0x3C00, 0xC000, 0x3555, 0x0001}));
  EXPECT_EQ(SafetensorsFile(path).read_floats("w"),
            (std::vector<float>{1.0f, -2.0f, 0.333251953125f, std::ldexp(1.0f, -24)}));
}

TEST(SafetensorsFile, F32AndMetadataAndSlices) {
  // 0x3F800000 = 1.0, 0x40490FDB = 3.14159274 (float pi), 0xBF000000 = -0.5. Little-endian bytes.
  std::vector<std::uint8_t> data = {0x00, 0x00, 0x80, 0x3F, 0xDB, 0x0F, 0x49, 0x40, 0x00, 0x00, 0x00, 0xBF};
  std::string path = write_raw(
      "f32", R"({"__metadata__":{"format":"pt"},"x":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", data);
  SafetensorsFile file(path);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  EXPECT_EQ(file.read_floats("x"), (std::vector<float>{1.0f, 3.14159274f, -0.5f}));
  EXPECT_EQ(file.read_floats("x", 1, 2), (std::vector<float>{3.14159274f, -0.5f}));
  EXPECT_THROW(file.read_floats("x", 2, 2), InputError);  // elements 2..4 leave a 3-element tensor
}

TEST(SafetensorsFile, TensorsAreSortedAndEmptyOnesAllowed) {
  std::string path = write_raw("sorted",
                               R"({"b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                               R"("a":{"dtype":"U8","shape":[0],"data_offsets":[2,2]}})",
                               {7, 9});
  SafetensorsFile file(path);
  ASSERT_EQ(file.tensors().size(), 2u);
  EXPECT_EQ(file.tensors()[0].name, "a");
  EXPECT_EQ(file.read_u8("b"), (std::vector<std::uint8_t>{7, 9}));
  EXPECT_THAT(std::string([&] {
                try {
                  file.read_floats("b");
                } catch (const InputError& e) {
                  return std::string(e.what());
                }
                return std::string();
              }()),
              HasSubstr("tensor 'b' has dtype U8; weights must be BF16, F16 or F32"));
}

TEST(SafetensorsFileBadInput, ShortFile) {
  std::string path = test::temp_path("short");
  std::ofstream(path, std::ios::binary) << "abc";
  EXPECT_THAT(error_of(path), AllOf(HasSubstr(path), HasSubstr("3 bytes is too short")));
}

TEST(SafetensorsFileBadInput, HeaderLengthBeyondTheFile) {
  // 8 + 10 bytes in the file but the prefix claims a 1000-byte header.
  std::string path = write_raw("long_header", "{\"a\":1}   ", {}, 1000);
  EXPECT_THAT(error_of(path), AllOf(HasSubstr(path), HasSubstr("header length 1000 runs past the end of the file (18 bytes)")));
}

TEST(SafetensorsFileBadInput, BadJson) {
  std::string path = write_raw("bad_json", R"({"w":{"dtype":"F32",)", {});
  EXPECT_THAT(error_of(path), AllOf(HasSubstr(path), HasSubstr("the header is not valid JSON")));
}

TEST(SafetensorsFileBadInput, UnknownDtype) {
  std::string path = write_raw("dtype", R"({"w":{"dtype":"F12","shape":[1],"data_offsets":[0,2]}})", {0, 0});
  EXPECT_THAT(error_of(path), AllOf(HasSubstr(path), HasSubstr("tensor 'w' has an unknown dtype 'F12'")));
}

TEST(SafetensorsFileBadInput, ShapeTimesDtypeIsNotTheSpan) {
  // [2, 3] BF16 = 6 × 2 = 12 bytes, but the offsets give 10.
  std::string path = write_raw("span", R"({"w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,10]}})",
                               std::vector<std::uint8_t>(10));
  EXPECT_THAT(error_of(path),
              AllOf(HasSubstr(path), HasSubstr("tensor 'w' has shape [2, 3] × BF16 (2 bytes) = 12 bytes but its "
                                               "data_offsets span 10")));
}

TEST(SafetensorsFileBadInput, OffsetsBeyondTheData) {
  std::string path = write_raw("range", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                               std::vector<std::uint8_t>(4));
  EXPECT_THAT(error_of(path), AllOf(HasSubstr(path), HasSubstr("tensor 'w' has data_offsets [0, 8] beyond the 4 data bytes")));
}

TEST(SafetensorsFileBadInput, OverlappingTensors) {
  std::string path = write_raw("overlap",
                               R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                               std::vector<std::uint8_t>(12));
  EXPECT_THAT(error_of(path), AllOf(HasSubstr(path), HasSubstr("tensor 'b' (bytes 4..12) overlaps tensor 'a' (bytes 0..8)")));
}

TEST(SafetensorsFileBadInput, EndBeforeBeginAndUnknownField) {
  std::string path = write_raw("backwards", R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})",
                               std::vector<std::uint8_t>(8));
  EXPECT_THAT(error_of(path), HasSubstr("tensor 'w' has data_offsets [8, 4] with end before begin"));
  path = write_raw("field", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"strides":[1]}})",
                   std::vector<std::uint8_t>(4));
  EXPECT_THAT(error_of(path), HasSubstr("tensor 'w' has an unknown field 'strides'"));
}

TEST(SafetensorsFileBadInput, MissingTensorNamesTheNearestOne) {
  std::string path = write_raw("missing", R"({"experts.0.gate_proj.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                               std::vector<std::uint8_t>(4));
  SafetensorsFile file(path);
  try {
    file.find("experts.0.gate_proj.weigth");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), AllOf(HasSubstr(path), HasSubstr("no tensor 'experts.0.gate_proj.weigth'"),
                                             HasSubstr("did you mean 'experts.0.gate_proj.weight'")));
  }
}

}  // namespace
}  // namespace stasim
