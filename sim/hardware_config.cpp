#include "sim/hardware_config.hpp"

namespace stasim {

void TensorEngineConfig::read(ConfigReader& r) {
  r.required("clock_ghz", clock_ghz)
      .optional("rows", rows)
      .optional("columns", columns)
      .optional("max_moving_free", max_moving_free)
      .optional("min_issue_cycles", min_issue_cycles)
      .optional("load_stationary_cycles", load_stationary_cycles)
      .optional("fp32_cost_factor", fp32_cost_factor)
      .optional("fp8_k_factor", fp8_k_factor)
      .optional("mx_k_factor", mx_k_factor);
  r.positive("clock_ghz", clock_ghz);
  r.positive("rows", rows);
  r.positive("columns", columns);
  r.positive("max_moving_free", max_moving_free);
  r.non_negative("min_issue_cycles", min_issue_cycles);
  r.non_negative("load_stationary_cycles", load_stationary_cycles);
  r.positive("fp32_cost_factor", fp32_cost_factor);
  r.positive("fp8_k_factor", fp8_k_factor);
  r.finish();
}

void EngineConfig::read(ConfigReader& r, bool is_gpsimd) {
  r.required("clock_ghz", clock_ghz)
      .optional("min_issue_cycles", min_issue_cycles)
      .optional("static_overhead_cycles", static_overhead_cycles)
      .optional("bf16_speedup", bf16_speedup)
      .optional("bf16_tensor_tensor_speedup", bf16_tensor_tensor_speedup)
      .optional("reduce_extra_cycles", reduce_extra_cycles);
  if (is_gpsimd) r.optional("start_cycles", start_cycles).optional("gather_elements_per_cycle", gather_elements_per_cycle);
  r.positive("clock_ghz", clock_ghz);
  r.non_negative("min_issue_cycles", min_issue_cycles);
  r.non_negative("static_overhead_cycles", static_overhead_cycles);
  r.positive("bf16_speedup", bf16_speedup);
  r.positive("bf16_tensor_tensor_speedup", bf16_tensor_tensor_speedup);
  r.non_negative("reduce_extra_cycles", reduce_extra_cycles);
  r.non_negative("start_cycles", start_cycles);
  r.positive("gather_elements_per_cycle", gather_elements_per_cycle);
  r.finish();
}

HardwareConfig read_hardware(const YAML::Node& root, const std::string& file) {
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
  hbm.positive("bandwidth_gbps", hw.hbm_bandwidth_gbps);
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
  sbuf.positive("partitions", hw.sbuf.partitions);
  sbuf.positive("bytes_per_partition", hw.sbuf.bytes_per_partition);
  sbuf.check(hw.sbuf.reserved_bytes_per_partition < hw.sbuf.bytes_per_partition, "reserved_bytes_per_partition",
             "must be smaller than bytes_per_partition");
  sbuf.finish();

  ConfigReader psum = core.section("psum");
  psum.required("partitions", hw.psum.partitions)
      .required("banks", hw.psum.banks)
      .required("bytes_per_bank_per_partition", hw.psum.bytes_per_bank_per_partition);
  psum.positive("partitions", hw.psum.partitions);
  psum.check(hw.psum.banks >= 1 && hw.psum.banks <= 64, "banks", "must be between 1 and 64");
  psum.positive("bytes_per_bank_per_partition", hw.psum.bytes_per_bank_per_partition);
  psum.finish();

  ConfigReader dma = core.section("dma");
  dma.required("engines", hw.dma.engines)
      .required("queues", hw.dma.queues)
      .required("bytes_per_ns_per_engine", hw.dma.bytes_per_ns_per_engine)
      .required("fixed_ns", hw.dma.fixed_ns)
      .required("knee_bytes_per_partition", hw.dma.knee_bytes_per_partition);
  dma.positive("engines", hw.dma.engines);
  dma.check(hw.dma.queues >= 1 && hw.dma.queues <= 65535, "queues", "must be between 1 and 65535");
  dma.positive("bytes_per_ns_per_engine", hw.dma.bytes_per_ns_per_engine);
  dma.non_negative("fixed_ns", hw.dma.fixed_ns);
  dma.non_negative("knee_bytes_per_partition", hw.dma.knee_bytes_per_partition);
  dma.finish();

  ConfigReader link = core.section("link");
  link.required("bytes_per_ns", hw.link.bytes_per_ns).required("latency_ns", hw.link.latency_ns);
  link.positive("bytes_per_ns", hw.link.bytes_per_ns);
  link.non_negative("latency_ns", hw.link.latency_ns);
  link.finish();

  core.required("semaphore_ns", hw.semaphore_ns);
  core.non_negative("semaphore_ns", hw.semaphore_ns);
  core.finish();

  ConfigReader collective = top.section("collective");
  collective.required("alpha_ns", hw.collective.alpha_ns).required("beta_ns_per_byte", hw.collective.beta_ns_per_byte);
  collective.non_negative("alpha_ns", hw.collective.alpha_ns);
  collective.non_negative("beta_ns_per_byte", hw.collective.beta_ns_per_byte);
  collective.finish();

  top.finish();
  problems.throw_if_any();
  return hw;
}

HardwareConfig load_hardware(const std::string& path, const std::vector<std::string>& overrides) {
  YAML::Node root = load_yaml_file(path);
  apply_overrides(root, overrides, path);
  return read_hardware(root, path);
}

}  // namespace stasim
