#include "workloads/safetensors_file.hpp"

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "sim/core/json_input.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/number_text.hpp"
#include "workloads/fp16.hpp"
#include "workloads/tensor_value_limit.hpp"

namespace stasim {
namespace {

struct DtypeName {
  TensorDtype dtype;
  const char* name;
  std::int64_t bytes;
};

constexpr DtypeName kDtypes[] = {
    {TensorDtype::boolean, "BOOL", 1}, {TensorDtype::u8, "U8", 1},       {TensorDtype::i8, "I8", 1},
    {TensorDtype::u16, "U16", 2},      {TensorDtype::i16, "I16", 2},     {TensorDtype::f16, "F16", 2},
    {TensorDtype::bf16, "BF16", 2},    {TensorDtype::u32, "U32", 4},     {TensorDtype::i32, "I32", 4},
    {TensorDtype::f32, "F32", 4},      {TensorDtype::u64, "U64", 8},     {TensorDtype::i64, "I64", 8},
    {TensorDtype::f64, "F64", 8},      {TensorDtype::f8_e4m3, "F8_E4M3", 1}, {TensorDtype::f8_e5m2, "F8_E5M2", 1}};

// The format caps the header at 100 MB; a larger length is a corrupt file, not a header to allocate.
constexpr std::int64_t kMaxHeaderBytes = 100'000'000;

std::string in_quotes(const std::string& name) { return "'" + name + "'"; }

// Parses one header entry; returns "" or the problem with it.
std::string parse_entry(const std::string& name, const nlohmann::json& entry, TensorInfo& out) {
  if (!entry.is_object()) return "is not an object with dtype, shape and data_offsets";
  for (const auto& item : entry.items())
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets")
      return "has an unknown field " + in_quotes(item.key()) + " (expected dtype, shape, data_offsets)";
  out.name = name;
  auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string()) return "has no dtype string";
  std::string dtype_text = dtype->get<std::string>();
  bool known = false;
  for (const DtypeName& d : kDtypes)
    if (dtype_text == d.name) {
      out.dtype = d.dtype;
      known = true;
    }
  if (!known) return "has an unknown dtype " + in_quotes(dtype_text);
  auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) return "has no shape list";
  for (const auto& dim : *shape) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0) return "has a shape entry that is not a size: " + dim.dump();
    out.shape.push_back(dim.get<std::int64_t>());
  }
  auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_integer() ||
      !(*offsets)[1].is_number_integer())
    return "has no data_offsets [begin, end]";
  out.begin = (*offsets)[0].get<std::int64_t>();
  out.end = (*offsets)[1].get<std::int64_t>();
  if (out.begin < 0 || out.end < out.begin)
    return "has data_offsets [" + std::to_string(out.begin) + ", " + std::to_string(out.end) + "] with end before begin";
  // shape × dtype size, guarded against overflow (a corrupt shape must not wrap around to a matching span).
  std::int64_t bytes = dtype_bytes(out.dtype);
  for (std::int64_t dim : out.shape) {
    if (dim != 0 && bytes > std::numeric_limits<std::int64_t>::max() / dim) return "has a shape too large to address";
    bytes *= dim;
  }
  if (bytes != out.end - out.begin)
    return "has shape " + out.shape_text() + " × " + to_string(out.dtype) + " (" + std::to_string(dtype_bytes(out.dtype)) +
           " bytes) = " + std::to_string(bytes) + " bytes but its data_offsets span " + std::to_string(out.end - out.begin);
  return "";
}

}  // namespace

const char* to_string(TensorDtype dtype) {
  for (const DtypeName& d : kDtypes)
    if (d.dtype == dtype) return d.name;
  return "?";
}

std::int64_t dtype_bytes(TensorDtype dtype) {
  for (const DtypeName& d : kDtypes)
    if (d.dtype == dtype) return d.bytes;
  return 0;
}

std::int64_t TensorInfo::elements() const {
  std::int64_t n = 1;
  for (std::int64_t dim : shape) n *= dim;
  return n;
}

std::string TensorInfo::shape_text() const {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)) {
  // A checkpoint is read in ranges, never whole, so it has no size limit; but it must be a regular file (a FIFO
  // would block the open, /dev/zero reads as endless zeros).
  const std::int64_t file_size = static_cast<std::int64_t>(regular_file_size(path_, "the safetensors file"));
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw InputError(path_ + ": cannot open the safetensors file (" + std::strerror(errno) + ")");
  if (file_size < 8)
    throw InputError(path_ + ": " + std::to_string(file_size) +
                     " bytes is too short for a safetensors file (it starts with an 8-byte header length)");
  in.seekg(0);
  unsigned char length_bytes[8];
  in.read(reinterpret_cast<char*>(length_bytes), 8);
  std::uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | length_bytes[i];  // little-endian
  if (header_length > static_cast<std::uint64_t>(file_size - 8))
    throw InputError(path_ + ": header length " + std::to_string(header_length) + " runs past the end of the file (" +
                     std::to_string(file_size) + " bytes)");
  if (static_cast<std::int64_t>(header_length) > kMaxHeaderBytes)
    throw InputError(path_ + ": header length " + std::to_string(header_length) + " exceeds the format's 100 MB limit");
  data_start_ = 8 + static_cast<std::int64_t>(header_length);
  std::string text(header_length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(header_length));
  if (!in) throw InputError(path_ + ": cannot read the " + std::to_string(header_length) + "-byte header");

  nlohmann::json header;
  try {
    header = parse_json_input(text, path_);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path_ + ": the header is not valid JSON (" + e.what() + ")");
  }
  if (!header.is_object()) throw InputError(path_ + ": the header is not a JSON object of tensors");

  Problems problems;
  const std::int64_t data_size = file_size - data_start_;
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") {
      if (!item.value().is_object()) {
        problems.add(path_ + ": __metadata__ is not an object of strings");
        continue;
      }
      for (const auto& meta : item.value().items()) {
        if (meta.value().is_string())
          metadata_[meta.key()] = meta.value().get<std::string>();
        else
          problems.add(path_ + ": __metadata__ " + in_quotes(meta.key()) + " is not a string");
      }
      continue;
    }
    TensorInfo info;
    std::string problem = parse_entry(item.key(), item.value(), info);
    if (problem.empty() && info.end > data_size)
      problem = "has data_offsets [" + std::to_string(info.begin) + ", " + std::to_string(info.end) +
                "] beyond the " + std::to_string(data_size) + " data bytes of the file";
    if (!problem.empty()) {
      problems.add(path_ + ": tensor " + in_quotes(item.key()) + " " + problem);
      continue;
    }
    tensors_.push_back(std::move(info));
  }
  problems.throw_if_any();

  // No two tensors may share bytes (empty tensors own none).
  std::vector<const TensorInfo*> by_offset;
  for (const TensorInfo& t : tensors_)
    if (t.end > t.begin) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->begin != b->begin ? a->begin < b->begin : a->name < b->name; });
  for (size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->begin < by_offset[i - 1]->end)
      problems.add(path_ + ": tensor " + in_quotes(by_offset[i]->name) + " (bytes " + std::to_string(by_offset[i]->begin) +
                   ".." + std::to_string(by_offset[i]->end) + ") overlaps tensor " + in_quotes(by_offset[i - 1]->name) +
                   " (bytes " + std::to_string(by_offset[i - 1]->begin) + ".." + std::to_string(by_offset[i - 1]->end) + ")");
  problems.throw_if_any();
  std::sort(tensors_.begin(), tensors_.end(), [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
  for (TensorInfo& t : tensors_) {
    t.begin += data_start_;
    t.end += data_start_;
  }
}

bool SafetensorsFile::has(const std::string& name) const {
  auto it = std::lower_bound(tensors_.begin(), tensors_.end(), name,
                             [](const TensorInfo& t, const std::string& n) { return t.name < n; });
  return it != tensors_.end() && it->name == name;
}

const TensorInfo& SafetensorsFile::find(const std::string& name) const {
  auto it = std::lower_bound(tensors_.begin(), tensors_.end(), name,
                             [](const TensorInfo& t, const std::string& n) { return t.name < n; });
  if (it != tensors_.end() && it->name == name) return *it;
  std::vector<std::string> names;
  for (const TensorInfo& t : tensors_) names.push_back(t.name);
  std::string near = nearest_match(name, names);
  throw InputError(path_ + ": no tensor " + in_quotes(name) + (near.empty() ? "" : " (did you mean " + in_quotes(near) + "?)"));
}

std::vector<std::uint8_t> SafetensorsFile::read_bytes(std::int64_t begin, std::int64_t length,
                                                      const std::string& tensor) const {
  std::vector<std::uint8_t> bytes(static_cast<size_t>(length));
  std::ifstream in(path_, std::ios::binary);
  in.seekg(begin);
  in.read(reinterpret_cast<char*>(bytes.data()), length);
  if (!in || in.gcount() != length)
    throw InputError(path_ + ": tensor " + in_quotes(tensor) + ": cannot read " + std::to_string(length) +
                     " bytes at offset " + std::to_string(begin) + " (the file changed or is truncated)");
  return bytes;
}

std::vector<float> SafetensorsFile::read_floats(const std::string& name) const {
  return read_floats(name, 0, find(name).elements());
}

std::vector<float> SafetensorsFile::read_floats(const std::string& name, std::int64_t first, std::int64_t count) const {
  const TensorInfo& info = find(name);
  if (info.dtype != TensorDtype::f32 && info.dtype != TensorDtype::f16 && info.dtype != TensorDtype::bf16)
    throw InputError(path_ + ": tensor " + in_quotes(name) + " has dtype " + to_string(info.dtype) +
                     "; weights must be BF16, F16 or F32");
  if (first < 0 || count < 0 || first + count > info.elements())
    throw InputError(path_ + ": tensor " + in_quotes(name) + " " + info.shape_text() + " has no elements " +
                     std::to_string(first) + ".." + std::to_string(first + count));
  const std::int64_t size = dtype_bytes(info.dtype);
  std::vector<std::uint8_t> bytes = read_bytes(info.begin + first * size, count * size, name);
  std::vector<float> values(static_cast<size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint8_t* b = bytes.data() + i * size;
    if (info.dtype == TensorDtype::f32) {
      std::uint32_t bits = std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 |
                           std::uint32_t(b[3]) << 24;
      std::memcpy(&values[i], &bits, 4);
    } else if (info.dtype == TensorDtype::bf16) {
      std::uint32_t bits = (std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8) << 16;  // BF16 = the top half of F32
      std::memcpy(&values[i], &bits, 4);
    } else {
      values[i] = float_from_fp16(static_cast<std::uint16_t>(b[0] | b[1] << 8));
    }
    // Weights and activations feed k-means and eigen-solvers, where one NaN or infinity poisons every result and
    // used to surface as a simulator failure: it is the file's problem, named here with the element.
    if (!std::isfinite(values[i]))
      throw InputError(path_ + ": tensor " + in_quotes(name) + " " + info.shape_text() + ": element " +
                       std::to_string(first + i) + " is " + (std::isnan(values[i]) ? "NaN" : "infinite") +
                       " (weights and activations must be finite)");
    if (!within_tensor_limit(values[i]))
      throw InputError(path_ + ": tensor " + in_quotes(name) + " " + info.shape_text() + ": element " +
                       std::to_string(first + i) + " is " + format_double("%g", values[i]) +
                       ", beyond ±1e6 (the low-rank fit's float sums would overflow; rescale the tensor)");
  }
  return values;
}

std::vector<std::uint8_t> SafetensorsFile::read_u8(const std::string& name) const {
  const TensorInfo& info = find(name);
  if (info.dtype != TensorDtype::u8)
    throw InputError(path_ + ": tensor " + in_quotes(name) + " has dtype " + to_string(info.dtype) + ", expected U8");
  return read_bytes(info.begin, info.end - info.begin, name);
}

}  // namespace stasim
