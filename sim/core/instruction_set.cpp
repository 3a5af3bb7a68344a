#include "sim/core/instruction_set.hpp"

namespace stasim {
namespace {

constexpr std::uint8_t bit(Engine e) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(e)); }
constexpr std::uint8_t kV = bit(Engine::vector), kS = bit(Engine::scalar), kG = bit(Engine::gpsimd);
constexpr std::uint8_t kT = bit(Engine::tensor), kD = bit(Engine::dma), kC = bit(Engine::collective);

// Indexed by OpKind. Sources (ISA, the per-instruction "Supported engines" and cost sections): tensor_copy,
// tensor_scalar, memset and copy_dynamic run on VectorE, ScalarE and GpSimd; tensor_tensor and tensor_reduce on
// VectorE and GpSimd; activation and activation_reduce on ScalarE; transpose on TensorE (or VectorE, 32x32
// blocks); the statistics, scan and top-8 family on VectorE; iota, affine_select and gathers on GpSimd.
constexpr std::uint8_t kEngines[] = {
    kT,             // matmul
    kT | kV,        // transpose
    kS,             // activation
    kS,             // activation_reduce
    kV | kG,        // tensor_tensor
    kV | kS | kG,   // tensor_scalar
    kV | kS | kG,   // tensor_copy
    kV | kG,        // tensor_reduce
    kV | kS | kG,   // memset
    kG,             // iota
    kG,             // gather
    kG,             // descriptors
    kG,             // sendrecv
    kD,             // transfer
    kC,             // all_reduce
    0xFF,           // fixed: any engine
    kV,             // tensor_tensor_scan
    kV,             // bn_stats
    kV,             // bn_aggr
    kV | kG,        // scalar_tensor_tensor
    kV,             // tensor_scalar_reduce
    kV | kG,        // select (tensor_copy_predicated)
    kG,             // affine_select
    kV,             // range_select
    kV,             // reciprocal
    kV,             // max8
    kV,             // find_index8
    kV,             // match_replace8
    kV,             // stream_shuffle
    kV,             // exponential (v4)
    kV | kG,        // dropout
    kV | kS | kG,   // copy_dynamic
};
static_assert(sizeof(kEngines) == static_cast<std::size_t>(OpKind::copy_dynamic) + 1, "one entry per OpKind");

const std::vector<std::string>& functions() {
  // 0 is "none": an op that names no function (decode builders' activations) never switches tables.
  static const std::vector<std::string> names = {
      "", "identity", "copy",  "exp",     "silu",  "gelu",    "gelu_tanh", "gelu_apprx_tanh", "tanh",
      "sigmoid", "relu",   "rsqrt", "sqrt",    "reciprocal", "square", "log",  "softplus", "mish",
      "erf",   "sin",      "abs",   "sign",    "softmax_exp"};
  return names;
}

}  // namespace

bool engine_runs(Engine e, OpKind k) {
  return (kEngines[static_cast<std::size_t>(k)] & bit(e)) != 0;
}

std::string engines_running(OpKind k) {
  std::string out;
  for (int e = 0; e < kEngineCount; ++e)
    if (engine_runs(static_cast<Engine>(e), k)) out += std::string(out.empty() ? "" : ", ") + engine_name(static_cast<Engine>(e));
  return out;
}

bool parse_activation_function(const std::string& name, std::uint8_t& id) {
  const auto& names = functions();
  for (std::size_t i = 1; i < names.size(); ++i)
    if (names[i] == name) {
      id = static_cast<std::uint8_t>(i);
      return true;
    }
  return false;
}

const char* activation_function_name(std::uint8_t id) {
  const auto& names = functions();
  return id < names.size() ? names[id].c_str() : "";
}

const std::vector<std::string>& activation_function_names() {
  static const std::vector<std::string> named(functions().begin() + 1, functions().end());
  return named;
}

std::uint8_t activation_table(std::uint8_t func) {
  // identity (1) and copy (2) pass values through without a table.
  return func <= 2 ? 0 : func;
}

}  // namespace stasim
