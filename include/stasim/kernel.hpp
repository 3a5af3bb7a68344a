// The public header for writing and running kernels as programs: declare HBM tensors, allocate SBUF and PSUM
// tiles, issue DMA transfers and engine instructions in loops, and simulate. Dependencies come from the tiles
// each instruction reads and writes (read after write, write after read on a reused buffer, write after write,
// PSUM accumulation), so a kernel lists none by hand. Link the CMake target `stasim_library`.
//
//   stasim::KernelProgram k(stasim::load_hardware_config("trn2"), "exp");
//   stasim::HbmTensor x = k.hbm("x", 128, 512, stasim::Dtype::bf16), y = k.hbm("y", 128, 512, stasim::Dtype::bf16);
//   stasim::TileBlock in = k.sbuf("in", 128, 512, stasim::Dtype::bf16), out = k.sbuf("out", 128, 512, stasim::Dtype::bf16);
//   k.load(in.all(), stasim::slice(x, 0, 128, 0, 512), stasim::DmaIssuer::sync);
//   k.activation(out.all(), in.all(), "exp");
//   k.store(stasim::slice(y, 0, 128, 0, 512), out.all(), stasim::DmaIssuer::pool);
//   stasim::SimResult r = k.simulate();                  // per-op timings, engines, DMA, critical path
//   nlohmann::json doc = stasim::kernel_json(k, r);      // the document of `stasim kernel --json`
//
// The shipped kernels (`stasim kernel --list`) are run_shipped_kernel("matmul-tiled", {{"M", 256}}). Bad input
// (a tile over SBUF capacity, an instruction its engine does not run, an unknown kernel or parameter) throws
// stasim::InputError naming it. Simulations share the process's one SystemC kernel, one after another.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel_program.hpp"
#include "kernels/shipped_kernels.hpp"
#include "sim/core/input_error.hpp"
#include "sim/reports/result_report.hpp"
#include "sim/studies/config_paths.hpp"

namespace stasim {

// The document `stasim kernel --json` writes (without its provenance): ops, engines, DMA, critical path, in ns.
inline nlohmann::json kernel_json(const KernelProgram& k, const SimResult& r) { return result_json(k.graph(), k.hw(), r); }

struct KernelRun {
  std::unique_ptr<KernelProgram> program;  // what was built (its graph names the ops)
  SimResult result;
};

// Builds and simulates shipped kernel `name` with `args` over its defaults, on `hardware` (a shipped name or a
// YAML path; empty: the generation the kernel was measured on) with `sets` (key.path=value) applied.
inline KernelRun run_shipped_kernel(const std::string& name, const KernelArgs& args = {},
                                    const std::string& hardware = "", const std::vector<std::string>& sets = {}) {
  const ShippedKernel& shipped = shipped_kernel(name);
  const KernelArgs full = kernel_args(shipped, args);
  KernelRun run;
  run.program = std::make_unique<KernelProgram>(load_hardware_config(hardware.empty() ? shipped.hardware : hardware, sets),
                                                shipped.name);
  shipped.build(*run.program, full);
  run.result = run.program->simulate();
  return run;
}

}  // namespace stasim
