#include "workloads/representation_file.hpp"

#include <algorithm>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "workloads/safetensors_writer.hpp"

namespace stasim {
namespace {

constexpr const char* kFormat = "stasim-lr-vq";

std::string prefix(int layer, const std::string& projection) {
  return "layers." + std::to_string(layer) + "." + projection + ".";
}

std::string expert_name(int layer, const std::string& projection, int expert, const char* what) {
  return prefix(layer, projection) + "experts." + std::to_string(expert) + "." + what;
}

// Row-major values of a column-major Eigen matrix (safetensors is row-major).
template <class Matrix>
auto row_major(const Matrix& m) {
  std::vector<typename Matrix::Scalar> out;
  out.reserve(static_cast<size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) out.push_back(m(i, j));
  return out;
}

std::int64_t metadata_int(const SafetensorsFile& file, const std::string& key) {
  auto it = file.metadata().find(key);
  if (it == file.metadata().end()) throw InputError(file.path() + ": __metadata__ has no '" + key + "'");
  try {
    size_t used = 0;
    std::int64_t value = std::stoll(it->second, &used);
    if (used == it->second.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw InputError(file.path() + ": __metadata__ '" + key + "' = '" + it->second + "' is not a non-negative integer");
}

Eigen::MatrixXf read_matrix(const SafetensorsFile& file, const std::string& name, std::int64_t rows, std::int64_t cols) {
  const TensorInfo& info = file.find(name);
  if (info.shape != std::vector<std::int64_t>{rows, cols})
    throw InputError(file.path() + ": tensor '" + name + "' has shape " + info.shape_text() + ", expected [" +
                     std::to_string(rows) + ", " + std::to_string(cols) + "]");
  std::vector<float> values = file.read_floats(name);
  Eigen::MatrixXf m(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) m(i, j) = values[static_cast<size_t>(i * cols + j)];
  return m;
}

IndexMap read_indices(const SafetensorsFile& file, const std::string& name, std::int64_t rows, std::int64_t cols, int K) {
  const TensorInfo& info = file.find(name);
  if (info.shape != std::vector<std::int64_t>{rows, cols})
    throw InputError(file.path() + ": tensor '" + name + "' has shape " + info.shape_text() + ", expected [" +
                     std::to_string(rows) + ", " + std::to_string(cols) + "]");
  std::vector<std::uint8_t> values = file.read_u8(name);
  IndexMap m(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      std::uint8_t v = values[static_cast<size_t>(i * cols + j)];
      if (v >= K)
        throw InputError(file.path() + ": tensor '" + name + "' holds index " + std::to_string(v) + " at [" +
                         std::to_string(i) + ", " + std::to_string(j) + "] but the code book has K = " + std::to_string(K));
      m(i, j) = v;
    }
  return m;
}

}  // namespace

void write_representation(const std::string& path, const BuiltLayer& built, TensorDtype dtype,
                          const std::string& provenance) {
  if (dtype != TensorDtype::f32 && dtype != TensorDtype::bf16)
    throw InputError(path + ": the representation is written as F32 or BF16, not " + to_string(dtype));
  SafetensorsWriter writer;
  std::string names;
  int experts = 0;
  for (const BuiltProjection& p : built.projections) {
    names += (names.empty() ? "" : ",") + p.name;
    experts = static_cast<int>(std::max(p.index_maps.size(), p.coefficients.size()));
    const std::string at = prefix(built.layer, p.name);
    if (p.K > 0) {
      if (p.K > 256)
        throw InputError(path + ": K = " + std::to_string(p.K) + " does not fit the file's 8-bit (U8) indices");
      writer.add_floats(at + "codebook", {p.codebook.rows(), p.codebook.cols()}, row_major(p.codebook), dtype);
      for (size_t e = 0; e < p.index_maps.size(); ++e)
        writer.add_u8(expert_name(built.layer, p.name, static_cast<int>(e), "indices"),
                      {p.index_maps[e].rows(), p.index_maps[e].cols()}, row_major(p.index_maps[e]));
    }
    if (p.r > 0) {
      writer.add_floats(at + "basis", {p.basis.rows(), p.basis.cols()}, row_major(p.basis), dtype);
      for (size_t e = 0; e < p.coefficients.size(); ++e)
        writer.add_floats(expert_name(built.layer, p.name, static_cast<int>(e), "coefficients"),
                          {p.coefficients[e].rows(), p.coefficients[e].cols()}, row_major(p.coefficients[e]), dtype);
    }
  }
  const Representation& rep = built.representation;
  writer.set_metadata("format", kFormat);
  writer.set_metadata("version", "1");
  writer.set_metadata("layer", std::to_string(built.layer));
  writer.set_metadata("hidden", std::to_string(built.hidden));
  writer.set_metadata("intermediate", std::to_string(built.intermediate));
  writer.set_metadata("experts", std::to_string(experts));
  writer.set_metadata("representation", to_string(rep.kind));
  writer.set_metadata("d", std::to_string(rep.d));
  writer.set_metadata("r", std::to_string(rep.r));
  writer.set_metadata("K", std::to_string(rep.K));
  writer.set_metadata("projections", names);
  if (!provenance.empty()) writer.set_metadata("provenance", provenance);
  writer.write(path);
}

BuiltLayer read_representation(const std::string& path) {
  SafetensorsFile file(path);
  auto format = file.metadata().find("format");
  if (format == file.metadata().end() || format->second != kFormat)
    throw InputError(path + ": not a stasim representation file (__metadata__ format is not '" + std::string(kFormat) + "')");
  auto version = file.metadata().find("version");
  if (version == file.metadata().end() || version->second != "1")
    throw InputError(path + ": unsupported representation file version (expected '1')");
  auto kind_entry = file.metadata().find("representation");
  if (kind_entry == file.metadata().end()) throw InputError(path + ": __metadata__ has no 'representation'");
  RepresentationKind kind = parse_representation_kind(kind_entry->second);
  const std::int64_t d = metadata_int(file, "d"), r = metadata_int(file, "r"), K = metadata_int(file, "K");
  BuiltLayer built;
  built.layer = static_cast<int>(metadata_int(file, "layer"));
  built.hidden = static_cast<int>(metadata_int(file, "hidden"));
  built.intermediate = static_cast<int>(metadata_int(file, "intermediate"));
  const int experts = static_cast<int>(metadata_int(file, "experts"));
  switch (kind) {
    case RepresentationKind::hybrid: built.representation = Representation::hybrid(d, r, K); break;
    case RepresentationKind::vq_only: built.representation = Representation::vq_only(d, K); break;
    case RepresentationKind::lr_only: built.representation = Representation::lr_only(r); break;
    default: throw InputError(path + ": __metadata__ representation '" + kind_entry->second + "' is not a built one");
  }
  const bool vq = built.representation.has_vq(), lr = built.representation.has_lr();
  if (vq && (d <= 0 || built.hidden % d != 0))
    throw InputError(path + ": __metadata__ d = " + std::to_string(d) + " does not divide hidden = " + std::to_string(built.hidden));
  auto names = file.metadata().find("projections");
  std::stringstream list(names == file.metadata().end() ? "" : names->second);
  built.representation.gate = built.representation.up = false;
  for (std::string name; std::getline(list, name, ',');) {
    if (name != "gate" && name != "up") throw InputError(path + ": __metadata__ projections names '" + name + "'");
    (name == "gate" ? built.representation.gate : built.representation.up) = true;
    BuiltProjection p;
    p.name = name;
    p.d = vq ? static_cast<int>(d) : 0;
    p.K = vq ? static_cast<int>(K) : 0;
    p.r = lr ? static_cast<int>(r) : 0;
    const std::string at = prefix(built.layer, name);
    const std::int64_t H = built.hidden, I = built.intermediate;
    if (vq) {
      p.codebook = read_matrix(file, at + "codebook", K, d);
      for (int e = 0; e < experts; ++e)
        p.index_maps.push_back(read_indices(file, expert_name(built.layer, name, e, "indices"), H / d, I, p.K));
    }
    p.basis = lr ? read_matrix(file, at + "basis", H, r) : Eigen::MatrixXf(H, 0);
    if (lr)
      for (int e = 0; e < experts; ++e)
        p.coefficients.push_back(read_matrix(file, expert_name(built.layer, name, e, "coefficients"), r, I));
    built.projections.push_back(std::move(p));
  }
  if (built.projections.empty()) throw InputError(path + ": __metadata__ projections is empty");
  return built;
}

}  // namespace stasim
