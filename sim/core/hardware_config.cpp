#include "sim/core/hardware_config.hpp"

#include <algorithm>
#include <filesystem>

#include "sim/core/config_section.hpp"

namespace stasim {
namespace {

// The ranges in which times stay far inside int64 picoseconds and byte counts inside 64 bits: a clock of
// 1e-300 GHz or a bandwidth of 1e-300 B/ns would make one op outlast the simulator's time type.
constexpr double kMinClockGhz = 0.01, kMaxClockGhz = 100;
constexpr double kMaxCycles = 1e9, kMaxNs = 1e9, kMinNs = 0.001;
constexpr double kMinFactor = 0.001, kMaxFactor = 1e6;
constexpr double kMinBytesPerNs = 0.001, kMaxBytesPerNs = 1e9;
constexpr double kMaxCount = 65536, kMaxBytesPerPartition = 1ull << 40;

}  // namespace

void TensorEngineConfig::read(ConfigReader& r) {
  r.required("clock_ghz", clock_ghz)
      .optional("rows", rows)
      .optional("columns", columns)
      .optional("max_moving_free", max_moving_free)
      .optional("min_issue_cycles", min_issue_cycles)
      .optional("load_stationary_cycles", load_stationary_cycles)
      .optional("background_load_stationary", background_load_stationary)
      .optional("fp32_cost_factor", fp32_cost_factor)
      .optional("fp8_k_factor", fp8_k_factor)
      .optional("mx_k_factor", mx_k_factor)
      .required("throttle_start_fraction", throttle_start_fraction)
      .required("throttle_ramp_ns", throttle_ramp_ns)
      .required("throttle_window_ns", throttle_window_ns)
      .required("throttle_threshold", throttle_threshold)
      .optional("throttle_stretches_floor", throttle_stretches_floor)
      .optional("latency_cycles", latency_cycles)
      .optional("min_tile_rows", min_tile_rows)
      .optional("min_tile_columns", min_tile_columns);
  r.within("clock_ghz", clock_ghz, kMinClockGhz, kMaxClockGhz);
  r.within("rows", rows, 1, kMaxCount);
  r.within("columns", columns, 1, kMaxCount);
  r.within("max_moving_free", max_moving_free, 1, kMaxCount);
  r.within("min_issue_cycles", min_issue_cycles, 0, kMaxCycles);
  r.within("load_stationary_cycles", load_stationary_cycles, 0, kMaxCycles);
  r.within("fp32_cost_factor", fp32_cost_factor, kMinFactor, kMaxFactor);
  // rows x factor is a 32-bit contraction size; 64 is far above any generation (v3 FP8: 2, v4 MX: 4).
  r.within("fp8_k_factor", fp8_k_factor, 1, 64);
  r.within("mx_k_factor", mx_k_factor, 0, 64);
  // A start fraction of 0 would never let the engine run; a window of 0 has no utilisation to measure.
  r.within("throttle_start_fraction", throttle_start_fraction, kMinFactor, 1);
  r.within("throttle_ramp_ns", throttle_ramp_ns, 0, kMaxNs);
  r.within("throttle_window_ns", throttle_window_ns, kMinNs, kMaxNs);
  r.within("throttle_threshold", throttle_threshold, 0, 1);
  r.within("latency_cycles", latency_cycles, 0, kMaxCycles);
  r.check(min_tile_rows >= 1 && rows % min_tile_rows == 0, "min_tile_rows", "must divide rows (" + std::to_string(rows) + ")");
  r.check(min_tile_columns >= 1 && columns % min_tile_columns == 0, "min_tile_columns",
          "must divide columns (" + std::to_string(columns) + ")");
  r.finish();
}

void EngineConfig::read(ConfigReader& r, bool is_gpsimd) {
  r.required("clock_ghz", clock_ghz)
      .optional("min_issue_cycles", min_issue_cycles)
      .optional("latency_cycles", latency_cycles)
      .optional("table_load_cycles", table_load_cycles)
      .optional("exponential_speedup", exponential_speedup)
      .optional("bf16_speedup", bf16_speedup)
      .optional("bf16_tensor_tensor_speedup", bf16_tensor_tensor_speedup)
      .optional("reduce_extra_cycles", reduce_extra_cycles);
  if (is_gpsimd)
    r.optional("start_cycles", start_cycles)
        .required("gather_index_cycles", gather_index_cycles)
        .required("gather_word_cycles", gather_word_cycles)
        .required("swdge_descriptor_cycles", swdge_descriptor_cycles);
  r.within("clock_ghz", clock_ghz, kMinClockGhz, kMaxClockGhz);
  r.within("min_issue_cycles", min_issue_cycles, 0, kMaxCycles);
  r.within("latency_cycles", latency_cycles, 0, kMaxCycles);
  r.within("table_load_cycles", table_load_cycles, 0, kMaxCycles);
  r.within("exponential_speedup", exponential_speedup, 0, kMaxFactor);
  r.within("bf16_speedup", bf16_speedup, kMinFactor, kMaxFactor);
  r.within("bf16_tensor_tensor_speedup", bf16_tensor_tensor_speedup, kMinFactor, kMaxFactor);
  r.within("reduce_extra_cycles", reduce_extra_cycles, 0, kMaxCycles);
  r.within("start_cycles", start_cycles, 0, kMaxCycles);
  r.within("gather_index_cycles", gather_index_cycles, 0, kMaxCycles);
  // A word must cost something: a gather of free cost would hide any modelling mistake upstream.
  r.within("gather_word_cycles", gather_word_cycles, kMinFactor, kMaxCycles);
  r.within("swdge_descriptor_cycles", swdge_descriptor_cycles, kMinFactor, kMaxCycles);
  r.finish();
}

HardwareConfig read_hardware(const YamlNode& root, const std::string& file) {
  Problems problems;
  HardwareConfig hw;
  hw.file = file;
  ConfigReader top(root, file, "", problems);
  top.required("name", hw.name);

  ConfigReader device = top.section("device");
  device.required("cores", hw.device_cores);
  device.positive("cores", hw.device_cores);
  ConfigReader hbm = device.section("hbm");
  hbm.required("capacity_gib", hw.hbm_capacity_gib).required("bandwidth_gbps", hw.hbm_bandwidth_gbps);
  hbm.positive("capacity_gib", hw.hbm_capacity_gib);
  hbm.within("bandwidth_gbps", hw.hbm_bandwidth_gbps, kMinBytesPerNs, kMaxBytesPerNs);
  hbm.finish();
  device.finish();

  top.required("lnc", hw.lnc);
  top.check(hw.lnc >= 1 && hw.lnc <= hw.device_cores, "lnc",
            "must be between 1 and device.cores (" + std::to_string(hw.device_cores) + ")");

  ConfigReader core = top.section("core");
  ConfigReader engines = core.section("engines");
  {
    ConfigReader r = engines.section("tensor");
    hw.tensor.read(r);
  }
  {
    ConfigReader r = engines.section("vector");
    hw.vector.read(r, false);
  }
  {
    ConfigReader r = engines.section("scalar");
    hw.scalar.read(r, false);
  }
  {
    ConfigReader r = engines.section("gpsimd");
    hw.gpsimd.read(r, true);
  }
  engines.finish();

  ConfigReader sbuf = core.section("sbuf");
  sbuf.required("partitions", hw.sbuf.partitions)
      .required("bytes_per_partition", hw.sbuf.bytes_per_partition)
      .optional("reserved_bytes_per_partition", hw.sbuf.reserved_bytes_per_partition);
  sbuf.within("partitions", hw.sbuf.partitions, 1, kMaxCount);
  sbuf.within("bytes_per_partition", static_cast<double>(hw.sbuf.bytes_per_partition), 1, kMaxBytesPerPartition);
  sbuf.check(sbuf.failed("bytes_per_partition") || hw.sbuf.reserved_bytes_per_partition < hw.sbuf.bytes_per_partition,
             "reserved_bytes_per_partition",
             "must be smaller than bytes_per_partition");
  sbuf.finish();

  ConfigReader psum = core.section("psum");
  psum.required("partitions", hw.psum.partitions)
      .required("banks", hw.psum.banks)
      .required("bytes_per_bank_per_partition", hw.psum.bytes_per_bank_per_partition);
  psum.within("partitions", hw.psum.partitions, 1, kMaxCount);
  psum.check(hw.psum.banks >= 1 && hw.psum.banks <= 64, "banks", "must be between 1 and 64");
  psum.within("bytes_per_bank_per_partition", static_cast<double>(hw.psum.bytes_per_bank_per_partition), 1,
              kMaxBytesPerPartition);
  psum.finish();

  ConfigReader dma = core.section("dma");
  dma.required("engines", hw.dma.engines)
      .required("queues", hw.dma.queues)
      .required("bytes_per_ns_per_engine", hw.dma.bytes_per_ns_per_engine)
      .required("issue_ns", hw.dma.issue_ns)
      .optional("queue_depth", hw.dma.queue_depth)
      .required("descriptor_ns", hw.dma.descriptor_ns)
      .optional("completion_ns", hw.dma.completion_ns)
      .required("hwdge_ns", hw.dma.hwdge_ns)
      .required("hwdge_instances", hw.dma.hwdge_instances)
      .optional("exchange_queues", hw.dma.exchange_queues)
      .optional("gpsimd_dma_ns", hw.dma.gpsimd_dma_ns);
  std::string exchange_engine = "dma";
  dma.optional("exchange_engine", exchange_engine);
  if (exchange_engine == "gpsimd_dma") hw.dma.exchange_engine = DmaConfig::ExchangeEngine::gpsimd_dma;
  else dma.check(exchange_engine == "dma", "exchange_engine", "must be dma or gpsimd_dma, got '" + exchange_engine + "'");
  dma.within("engines", hw.dma.engines, 1, kMaxCount);
  dma.check(hw.dma.queues >= 1 && hw.dma.queues <= 65535, "queues", "must be between 1 and 65535");
  dma.within("bytes_per_ns_per_engine", hw.dma.bytes_per_ns_per_engine, kMinBytesPerNs, kMaxBytesPerNs);
  dma.within("issue_ns", hw.dma.issue_ns, 0, kMaxNs);
  dma.check(hw.dma.queue_depth >= 1 && hw.dma.queue_depth <= 64, "queue_depth", "must be between 1 and 64");
  dma.within("descriptor_ns", hw.dma.descriptor_ns, kMinNs, kMaxNs);
  dma.within("completion_ns", hw.dma.completion_ns, 0, kMaxNs);
  dma.within("hwdge_ns", hw.dma.hwdge_ns, 0, kMaxNs);
  dma.within("hwdge_instances", hw.dma.hwdge_instances, 0, kMaxCount);
  dma.within("gpsimd_dma_ns", hw.dma.gpsimd_dma_ns, 0, kMaxNs);
  dma.check(hw.dma.exchange_queues <= hw.dma.queues, "exchange_queues",
            "must be between 0 and queues (" + std::to_string(hw.dma.queues) + ")");
  dma.finish();

  ConfigReader link = core.section("link");
  link.required("bytes_per_ns", hw.link.bytes_per_ns).required("latency_ns", hw.link.latency_ns);
  link.within("bytes_per_ns", hw.link.bytes_per_ns, kMinBytesPerNs, kMaxBytesPerNs);
  link.within("latency_ns", hw.link.latency_ns, 0, kMaxNs);
  link.finish();

  core.required("semaphore_ns", hw.semaphore_ns);
  core.within("semaphore_ns", hw.semaphore_ns, 0, kMaxNs);
  core.finish();

  ConfigReader collective = top.section("collective");
  collective.required("alpha_ns", hw.collective.alpha_ns).required("beta_ns_per_byte", hw.collective.beta_ns_per_byte);
  collective.within("alpha_ns", hw.collective.alpha_ns, 0, kMaxNs);
  collective.within("beta_ns_per_byte", hw.collective.beta_ns_per_byte, 0, 1.0 / kMinBytesPerNs);
  collective.finish();

  ConfigReader runtime = top.section("runtime", false);
  runtime.optional("step_us", hw.runtime.step_us);
  runtime.within("step_us", hw.runtime.step_us, 0, kMaxNs / 1000);
  runtime.finish();

  top.finish();
  problems.throw_if_any();
  return hw;
}

namespace {

// Writes every key of `overlay` into `base`. A key the base does not have is a typo or a new concept, never a
// silent addition, so it is a problem with a did-you-mean; a mapping recurses, anything else replaces the
// base value. The overlay's key node is written too, so a later message about the key names the overlay's line.
void merge_overlay(YamlNode base, const YamlNode& overlay, const std::string& file, const std::string& path,
                   Problems& problems) {
  for (const auto& kv : overlay) {
    const std::string key = kv.first.scalar();
    const std::string key_path = path.empty() ? key : path + "." + key;
    if (path.empty() && key == "base") continue;
    std::vector<std::string> keys;
    std::size_t at = base.size();
    for (std::size_t i = 0; i < base.size(); ++i) {
      keys.push_back(base.entry(i).first.scalar());
      if (at == base.size() && keys.back() == key) at = i;
    }
    if (at == base.size()) {
      std::string near = nearest_match(key, keys);
      problems.add(mark_of(kv.first, file) + ": " + key_path + ": not a key of the base config" +
                   (near.empty() ? "" : " (did you mean '" + (path.empty() ? near : path + "." + near) + "'?)"));
      continue;
    }
    YamlNode target = base.entry(at).second;
    if (kv.second.is_map() && target.is_map()) {
      merge_overlay(target, kv.second, file, key_path, problems);
      continue;
    }
    base.replace_entry(at, kv.first, kv.second);
  }
}

// An overlay chain longer than this is refused: real ones are one or two deep, and each level is validated.
constexpr std::size_t kMaxBaseChain = 16;

// Where `base:` points: a value with a '/' or ending in ".yaml" is a path, relative to the folder of the file
// naming it; a bare name ("trn3") is a shipped config: `<name>.yaml` beside the overlay when there is one (the
// shipped overlays sit beside their bases), else a file of exactly that name there, else what `shipped` finds.
std::string base_file(const std::string& value, const std::string& overlay, const ShippedHardware& shipped) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path folder = fs::path(overlay).parent_path();
  const bool is_path = value.find('/') != std::string::npos ||
                       (value.size() > 5 && value.compare(value.size() - 5, 5, ".yaml") == 0);
  if (is_path) return (folder / value).lexically_normal().string();
  const std::string beside = (folder / (value + ".yaml")).lexically_normal().string();
  if (fs::exists(beside, error)) return beside;
  // A file of exactly that name beside the overlay (no extension) is what `base:` named before shipped names.
  const std::string exact = (folder / value).lexically_normal().string();
  if (fs::is_regular_file(exact, error)) return exact;
  if (!shipped) return beside;
  const std::string found = shipped(value);
  return found.empty() ? beside : found;
}

// The document at `path` with its `base:` chain resolved. `chain` holds the files being resolved, so a cycle is
// an error rather than a hang.
YamlNode load_with_base(const std::string& path, std::vector<std::string>& chain, const ShippedHardware& shipped) {
  namespace fs = std::filesystem;
  YamlNode root = config_section(load_yaml_file(path), "hardware", path);  // a --dump-config file: its hardware
  YamlNode base_key = root["base"];
  if (!base_key) return root;
  if (!base_key.is_scalar() || base_key.scalar().empty())
    throw InputError(mark_of(base_key, path) + ": base: expected a shipped hardware name (trn3) or a config path");
  const std::string base_path = base_file(base_key.scalar(), path, shipped);
  std::error_code error;
  if (!fs::exists(base_path, error))
    throw InputError(mark_of(base_key, path) + ": base: no file '" + base_path + "'");
  for (const std::string& seen : chain)
    if (fs::equivalent(seen, base_path, error))
      throw InputError(mark_of(base_key, path) + ": base: '" + base_key.scalar() + "' is part of a base cycle");
  if (chain.size() >= kMaxBaseChain)
    throw InputError(mark_of(base_key, path) + ": base: a chain of more than " + std::to_string(kMaxBaseChain) +
                     " overlays");
  chain.push_back(base_path);
  YamlNode base = load_with_base(base_path, chain, shipped);
  read_hardware(base, base_path);  // the base must stand on its own: its problems are reported in its own file
  Problems problems;
  merge_overlay(base, root, path, "", problems);
  problems.throw_if_any();
  return base;
}

}  // namespace

YamlNode load_hardware_document(const std::string& path, const ShippedHardware& shipped) {
  std::vector<std::string> chain{path};
  return load_with_base(path, chain, shipped);
}

YamlNode resolved_hardware_document(const std::string& path, const std::vector<std::string>& overrides,
                                    const ShippedHardware& shipped) {
  YamlNode root = load_hardware_document(path, shipped);
  apply_overrides(root, overrides, path);
  return root;
}

HardwareConfig load_hardware(const std::string& path, const std::vector<std::string>& overrides,
                             const ShippedHardware& shipped) {
  YamlNode root = resolved_hardware_document(path, overrides, shipped);
  return read_hardware(root, path);
}

}  // namespace stasim
