// Hand-built .safetensors files for the reader tests: the 8-byte little-endian header length, the header text
// and the data bytes exactly as given, so malformed files can be made on purpose.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace stasim::test {

inline std::string temp_path(const std::string& name) { return testing::TempDir() + "st_" + name; }

// Writes `header` with its length prefix (or `length_override` as the prefix when >= 0) and then `data`.
inline std::string write_raw(const std::string& name, const std::string& header, const std::vector<std::uint8_t>& data,
                             long long length_override = -1) {
  std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  std::uint64_t length = length_override >= 0 ? static_cast<std::uint64_t>(length_override) : header.size();
  for (int b = 0; b < 8; ++b) out.put(static_cast<char>(length >> (8 * b)));
  out << header;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  return path;
}

// Little-endian bytes of 16-bit patterns.
inline std::vector<std::uint8_t> le16(const std::vector<std::uint16_t>& values) {
  std::vector<std::uint8_t> out;
  for (std::uint16_t v : values) {
    out.push_back(static_cast<std::uint8_t>(v));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  return out;
}

inline std::string slurp_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace stasim::test
