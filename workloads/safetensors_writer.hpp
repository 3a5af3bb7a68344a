// Builds a .safetensors file: tensors are added by name with their row-major shape, then written at once. The
// output is deterministic: header keys and data in name order, the header padded with spaces to a multiple of 8
// bytes (so every tensor's data starts 8-byte aligned), no timestamps. F32 and BF16 (from float, rounded to
// nearest even) and U8 are the dtypes written.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/safetensors_file.hpp"

namespace stasim {

// Float to BF16 bits, rounding to nearest, ties to even (NaN stays a quiet NaN).
std::uint16_t bf16_from_float(float value);
float float_from_bf16(std::uint16_t bits);

class SafetensorsWriter {
 public:
  // `values` row-major; dtype f32 or bf16. InputError when the element count does not match the shape or the
  // name is already taken.
  void add_floats(const std::string& name, const std::vector<std::int64_t>& shape, const std::vector<float>& values,
                  TensorDtype dtype);
  void add_u8(const std::string& name, const std::vector<std::int64_t>& shape, const std::vector<std::uint8_t>& values);
  void set_metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }

  // Writes the file (a temporary file renamed over `path`); InputError when it cannot be written.
  void write(const std::string& path) const;

 private:
  struct Entry {
    TensorDtype dtype;
    std::vector<std::int64_t> shape;
    std::vector<std::uint8_t> bytes;
  };
  void add(const std::string& name, Entry entry, std::int64_t elements);

  std::map<std::string, Entry> tensors_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace stasim
