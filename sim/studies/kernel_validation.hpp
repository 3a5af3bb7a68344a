// The kernel reference (configs/reference/kernels.yaml): measured NKI kernel figures and the shipped kernels
// (kernels/shipped_kernels.hpp) that predict them. Loading validates every target (file, line and key on a
// mistake); checking runs each distinct (kernel, hardware, args) once and compares.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/shipped_kernels.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

struct KernelTarget {
  std::string id, source;
  std::string hw, kernel, metric;          // metric: total_ms | interval_ns | throughput_ratio
  KernelArgs args, baseline_args;
  std::vector<std::string> ratio_of;       // a speedup: prediction of ratio_of[0] / ratio_of[1]
  double value = 0, tolerance = 0.1;
};

struct KernelReference {
  std::string file;
  std::vector<KernelTarget> targets;
};

KernelReference load_kernel_reference(const std::string& path);

struct KernelCheck {
  const KernelTarget* target = nullptr;
  double predicted = 0;
  double error = 0;       // predicted / value - 1
  bool pass = false;
};

// Runs every target's kernel (hardware by name or path, with `sets` applied) and compares.
std::vector<KernelCheck> check_kernels(const KernelReference& ref, const std::vector<std::string>& sets = {});
void print_kernel_checks(std::ostream& out, const std::vector<KernelCheck>& checks);
nlohmann::json kernel_checks_json(const std::vector<KernelCheck>& checks);

// Figures of one kernel run that targets read.
double kernel_total_ms(const SimResult& r);
double scalar_interval_ns(const ScheduleGraph& g, const SimResult& r);
double transferred_bytes_per_ns(const ScheduleGraph& g, const SimResult& r);

}  // namespace stasim
