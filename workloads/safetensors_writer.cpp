#include "workloads/safetensors_writer.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "sim/core/input_error.hpp"
#include "sim/core/output_file.hpp"

namespace stasim {

std::uint16_t bf16_from_float(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x0040);  // keep it a quiet NaN
  // Round to nearest even on the 16 dropped bits: add 0x7FFF plus the lowest kept bit, then truncate.
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}

float float_from_bf16(std::uint16_t bits) {
  std::uint32_t wide = std::uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

void SafetensorsWriter::add(const std::string& name, Entry entry, std::int64_t elements) {
  std::int64_t expected = 1;
  for (std::int64_t dim : entry.shape) expected *= dim;
  if (expected != elements)
    throw InputError("tensor '" + name + "': " + std::to_string(elements) + " values do not fill its shape (" +
                     std::to_string(expected) + " elements)");
  if (name == "__metadata__" || !tensors_.emplace(name, std::move(entry)).second)
    throw InputError("tensor '" + name + "' is written twice");
}

void SafetensorsWriter::add_floats(const std::string& name, const std::vector<std::int64_t>& shape,
                                   const std::vector<float>& values, TensorDtype dtype) {
  Entry entry{dtype, shape, {}};
  if (dtype == TensorDtype::f32) {
    entry.bytes.resize(values.size() * 4);
    for (size_t i = 0; i < values.size(); ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, &values[i], 4);
      for (int b = 0; b < 4; ++b) entry.bytes[i * 4 + b] = static_cast<std::uint8_t>(bits >> (8 * b));
    }
  } else if (dtype == TensorDtype::bf16) {
    entry.bytes.resize(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
      std::uint16_t bits = bf16_from_float(values[i]);
      entry.bytes[i * 2] = static_cast<std::uint8_t>(bits);
      entry.bytes[i * 2 + 1] = static_cast<std::uint8_t>(bits >> 8);
    }
  } else {
    throw InputError("tensor '" + name + "': floats are written as F32 or BF16, not " + to_string(dtype));
  }
  add(name, std::move(entry), static_cast<std::int64_t>(values.size()));
}

void SafetensorsWriter::add_u8(const std::string& name, const std::vector<std::int64_t>& shape,
                               const std::vector<std::uint8_t>& values) {
  add(name, Entry{TensorDtype::u8, shape, values}, static_cast<std::int64_t>(values.size()));
}

void SafetensorsWriter::write(const std::string& path) const {
  nlohmann::json header = nlohmann::json::object();  // std::map underneath: keys come out sorted
  if (!metadata_.empty()) header["__metadata__"] = metadata_;
  std::int64_t offset = 0;
  for (const auto& [name, entry] : tensors_) {  // data in name order too
    std::int64_t size = static_cast<std::int64_t>(entry.bytes.size());
    header[name] = {{"dtype", to_string(entry.dtype)}, {"shape", entry.shape}, {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  // Written beside the target and renamed over it, so a reader never sees half a checkpoint; the tensors are
  // streamed (they can be gigabytes), every write checked.
  // A private temporary (mkstemp) per writer: two exports to one --out each rename a whole file of their own.
  ReplacingOutput out(path, "the safetensors file");
  std::string length(8, '\0');
  for (int b = 0; b < 8; ++b) length[static_cast<size_t>(b)] = static_cast<char>(static_cast<std::uint64_t>(text.size()) >> (8 * b));
  out.append(length);
  out.append(text);
  for (const auto& item : tensors_) out.append(item.second.bytes.data(), item.second.bytes.size());
  out.commit();
}

}  // namespace stasim
