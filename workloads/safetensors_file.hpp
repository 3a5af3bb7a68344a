// One .safetensors file, read lazily: opening parses and checks only the header (8-byte little-endian length,
// then a JSON object name -> {dtype, shape, data_offsets}, plus an optional `__metadata__` of strings); a tensor's
// bytes are read from its own byte range when asked for, so a multi-GB shard costs only what is used. Every
// malformed case (short file, header past the end, bad JSON, unknown dtype, shape × dtype size ≠ offset span,
// offsets out of range or overlapping, a missing tensor) throws InputError naming the file and the tensor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace stasim {

// The dtypes of the safetensors format. Only F32, F16 and BF16 can be read as float (widened exactly), and U8
// as bytes; the others are recognised so that a real checkpoint that holds them still opens.
enum class TensorDtype { boolean, u8, i8, u16, i16, f16, bf16, u32, i32, f32, u64, i64, f64, f8_e4m3, f8_e5m2 };

const char* to_string(TensorDtype dtype);  // the format's spelling: "BF16", "F32", "U8", ...
std::int64_t dtype_bytes(TensorDtype dtype);

struct TensorInfo {
  std::string name;
  TensorDtype dtype = TensorDtype::f32;
  std::vector<std::int64_t> shape;  // row-major (C order), outermost dimension first
  std::int64_t begin = 0;           // byte range in the file (header already skipped)
  std::int64_t end = 0;

  std::int64_t elements() const;
  std::string shape_text() const;  // "[768, 2048]"
};

class SafetensorsFile {
 public:
  // Parses and checks the header of `path`; InputError for every problem (the first found per tensor).
  explicit SafetensorsFile(std::string path);

  const std::string& path() const { return path_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // sorted by name
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  bool has(const std::string& name) const;
  // InputError "<file>: no tensor '<name>'" (with the nearest name when one is close) when absent.
  const TensorInfo& find(const std::string& name) const;

  // The tensor's values widened to float (F32, F16, BF16); InputError for another dtype.
  std::vector<float> read_floats(const std::string& name) const;
  // `count` elements starting at element `first` of the tensor (a slice along the outermost dimension of a
  // stacked tensor is contiguous); InputError when the range leaves the tensor.
  std::vector<float> read_floats(const std::string& name, std::int64_t first, std::int64_t count) const;
  // The raw bytes of a U8 tensor.
  std::vector<std::uint8_t> read_u8(const std::string& name) const;

 private:
  std::vector<std::uint8_t> read_bytes(std::int64_t begin, std::int64_t length, const std::string& tensor) const;

  std::string path_;
  std::int64_t data_start_ = 0;  // 8 + header length
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace stasim
