// The `stasim` Python module: the decode study and the sweep of the library, callable from Python. Results come
// back as the same documents the CLI writes (`run --json`, one sweep row per point), converted to dicts and
// lists, so a notebook reads exactly what a file from the CLI holds. Bad input raises ValueError with the CLI's
// message; a simulation error raises RuntimeError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "python/python_glue.hpp"
#include "stasim/stasim.hpp"
#include "sim/core/build_info.hpp"
#include "sim/studies/resolved_configs.hpp"
#include "sim/studies/sweep_grid.hpp"
#include "sim/studies/sweep_runner.hpp"
#include "sim/studies/sweep_table.hpp"

namespace py = pybind11;

namespace stasim::python {
namespace {

// One simulator per interpreter. The GIL stays held while it runs: a process's simulations run one after another
// on its one SystemC kernel, so two Python threads must not run them at once.
const Simulator& simulator() {
  static const Simulator shared;
  return shared;
}

const DataflowRegistry& registry() { return simulator().registry(); }

py::object run(const std::string& model, const std::string& dataflow, const std::string& hw, std::int64_t d,
               std::int64_t r, std::int64_t K, std::optional<std::int64_t> batch, std::optional<std::int64_t> tp,
               std::optional<std::int64_t> lnc, std::optional<std::int64_t> context, std::int64_t layers,
               const std::string& down, bool reuse, bool batch_gathers, bool joint_psum, bool overlap,
               bool fuse_projections, const std::vector<std::string>& sets, const std::string& routes,
               std::uint64_t routing_seed, bool all_experts, bool routed_swdge, bool fused_gate_up_loads,
               bool fused_gate_up_exchange, bool group_exchange, bool private_hwdge, bool fp32_table,
               bool split_top_k, bool group_routes, bool recompute_table, bool explicit_psum) {
  RunRequest req;
  req.model = model;
  req.dataflow = dataflow;
  req.hw = hw;
  req.d = d;
  req.r = r;
  req.K = K;
  req.batch = batch;
  req.tp = tp;
  req.lnc = lnc;
  req.context = context;
  req.layers = layers;
  req.down = down;
  req.no_reuse = !reuse;
  req.no_batch_gathers = !batch_gathers;
  req.no_joint_psum = !joint_psum;
  req.no_overlap = !overlap;
  req.fuse_projections = fuse_projections;
  req.all_experts = all_experts;
  req.routed_swdge = routed_swdge;
  req.private_hwdge = private_hwdge;
  req.no_fp32_table = !fp32_table;
  req.recompute_table = recompute_table;
  req.explicit_psum = explicit_psum;
  req.split_top_k = split_top_k;
  req.group_routes = group_routes;
  req.fused_gate_up_loads = fused_gate_up_loads;
  req.fused_gate_up_exchange = fused_gate_up_exchange;
  req.no_group_exchange = !group_exchange;
  req.sets = sets;
  req.routes = routes;
  req.routing_seed = routing_seed;
  nlohmann::json doc = guarded([&] {
    return Simulator::json(simulator().run(req));
  });
  return to_python(doc);
}

py::object sweep(const std::vector<std::string>& models, const std::vector<std::string>& dataflows,
                 const std::string& hw, const std::vector<std::int64_t>& d, const std::vector<std::int64_t>& r,
                 const std::vector<std::int64_t>& K, const std::vector<std::int64_t>& batch,
                 const std::map<std::string, std::vector<std::string>>& vary, std::int64_t layers,
                 const std::string& down, int jobs, double point_time_limit, const std::vector<std::string>& sets,
                 std::optional<std::int64_t> tp, std::optional<std::int64_t> lnc, std::optional<std::int64_t> context,
                 const std::string& routes, std::uint64_t routing_seed, bool reuse, bool batch_gathers,
                 bool joint_psum, bool overlap, bool fuse_projections, bool all_experts, bool routed_swdge,
                 bool fused_gate_up_loads, bool fused_gate_up_exchange, bool group_exchange, bool private_hwdge,
                 bool fp32_table, bool split_top_k, bool group_routes, bool recompute_table, bool explicit_psum) {
  SweepSpec spec;
  // What every point starts from, as the CLI's run options on `stasim sweep` (its own model, dataflow, d, r, K,
  // batch, layers and down schedule come from the grid).
  spec.base.sets = sets;
  spec.base.tp = tp;
  spec.base.lnc = lnc;
  spec.base.context = context;
  spec.base.routes = routes;
  spec.base.routing_seed = routing_seed;
  spec.base.no_reuse = !reuse;
  spec.base.no_batch_gathers = !batch_gathers;
  spec.base.no_joint_psum = !joint_psum;
  spec.base.no_overlap = !overlap;
  spec.base.fuse_projections = fuse_projections;
  spec.base.all_experts = all_experts;
  spec.base.routed_swdge = routed_swdge;
  spec.base.private_hwdge = private_hwdge;
  spec.base.no_fp32_table = !fp32_table;
  spec.base.recompute_table = recompute_table;
  spec.base.explicit_psum = explicit_psum;
  spec.base.split_top_k = split_top_k;
  spec.base.group_routes = group_routes;
  spec.base.fused_gate_up_loads = fused_gate_up_loads;
  spec.base.fused_gate_up_exchange = fused_gate_up_exchange;
  spec.base.no_group_exchange = !group_exchange;
  spec.models = models;
  spec.dataflows = dataflows;
  spec.hw = hw;
  spec.d = d;
  spec.r = r;
  spec.K = K;
  spec.batch = batch;
  for (const auto& [key, values] : vary) spec.vary.emplace_back(key, values);
  spec.layers = layers;
  spec.down = down;
  // As --point-time-limit (0 = no limit), except that a limit past its top (1e7 s, e.g. 1e308 or inf) is taken
  // as the top rather than refused: a notebook's "no practical limit".
  if (!(point_time_limit >= 0))
    throw py::value_error("point_time_limit: seconds a point may run must be >= 0 (0 = no limit), not " +
                          py::repr(py::float_(point_time_limit)).cast<std::string>());
  std::vector<SweepRow> rows = guarded([&] {
    for (const std::string& name : spec.dataflows) registry().find(name);  // unknown names fail before any point runs
    // As the CLI: a --set key that no config has fails before any point runs, not as an invalid row per point.
    resolved_hardware(spec.hw, spec.base.sets);
    for (const std::string& model : spec.models) resolved_model(model, spec.base.sets);
    std::vector<SweepPoint> grid = expand(spec, registry());  // as the CLI: one point per (d, r, K) a dataflow reads
    if (grid.empty()) throw InputError("the grid is empty");
    std::vector<SweepRow> out;
    // Ctrl-C stops the sweep: while the points run (the GIL held), a pending signal's Python handler runs and its
    // exception (KeyboardInterrupt) leaves run_points, whose workers are killed, and reaches the caller.
    auto check_signals = [] {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    };
    run_points(grid, jobs > 0 ? jobs : 1, false, registry(), [&](SweepRow row) { out.push_back(std::move(row)); },
               point_time_limit, check_signals);
    finalize(out);
    return out;
  });
  return to_python(nlohmann::json(rows));
}

}  // namespace

void bind_kernel(py::module_& m);  // kernel_bindings.cpp

}  // namespace stasim::python

PYBIND11_MODULE(stasim, m) {
  using namespace stasim::python;
  // SystemC prints its banner when the first simulation context is created unless this is set.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 1);
  m.doc() = "stasim: cycle-approximate simulator of scratchpad-based tensor accelerators (MoE decode study)";
  // The version `stasim --version` prints (the build's git description is in every result's provenance).
  m.attr("__version__") = stasim::stasim_version();
  m.def("run", &run,
        "Simulate one decode step; returns the document of `stasim run --json` as a dict.",
        py::kw_only(), py::arg("model") = "qwen3-30b-a3b", py::arg("dataflow") = "cardan",
        py::arg("hw") = "trn3-calibrated", py::arg("d") = 8, py::arg("r") = 384, py::arg("K") = 256,
        py::arg("batch") = py::none(), py::arg("tp") = py::none(), py::arg("lnc") = py::none(),
        py::arg("context") = py::none(), py::arg("layers") = 0, py::arg("down") = "auto", py::arg("reuse") = true,
        py::arg("batch_gathers") = true, py::arg("joint_psum") = true, py::arg("overlap") = true,
        py::arg("fuse_projections") = false, py::arg("sets") = std::vector<std::string>{},
        py::arg("routes") = "", py::arg("routing_seed") = 0, py::arg("all_experts") = false,
        py::arg("routed_swdge") = false, py::arg("fused_gate_up_loads") = false,
        py::arg("fused_gate_up_exchange") = false, py::arg("group_exchange") = true,
        py::arg("private_hwdge") = false, py::arg("fp32_table") = true, py::arg("split_top_k") = false,
        py::arg("group_routes") = false, py::arg("recompute_table") = false, py::arg("explicit_psum") = false);
  m.def("sweep", &sweep,
        "Run a grid of decode simulations; returns one dict per point with the columns of `stasim sweep`'s CSV "
        "(vary maps a config key to its values, as --vary key=v1,v2).",
        py::kw_only(), py::arg("models") = std::vector<std::string>{"qwen3-30b-a3b"},
        py::arg("dataflows") = std::vector<std::string>{"dense", "cardan"}, py::arg("hw") = "trn3-calibrated",
        py::arg("d") = std::vector<std::int64_t>{8}, py::arg("r") = std::vector<std::int64_t>{384},
        py::arg("K") = std::vector<std::int64_t>{256}, py::arg("batch") = std::vector<std::int64_t>{1},
        py::arg("vary") = std::map<std::string, std::vector<std::string>>{}, py::arg("layers") = 0,
        py::arg("down") = "weight-sbuf", py::arg("jobs") = 1, py::arg("point_time_limit") = 600.0,
        py::arg("sets") = std::vector<std::string>{}, py::arg("tp") = py::none(), py::arg("lnc") = py::none(),
        py::arg("context") = py::none(), py::arg("routes") = "", py::arg("routing_seed") = 0,
        py::arg("reuse") = true, py::arg("batch_gathers") = true, py::arg("joint_psum") = true,
        py::arg("overlap") = true, py::arg("fuse_projections") = false, py::arg("all_experts") = false,
        py::arg("routed_swdge") = false, py::arg("fused_gate_up_loads") = false,
        py::arg("fused_gate_up_exchange") = false, py::arg("group_exchange") = true,
        py::arg("private_hwdge") = false, py::arg("fp32_table") = true, py::arg("split_top_k") = false,
        py::arg("group_routes") = false, py::arg("recompute_table") = false, py::arg("explicit_psum") = false);
  bind_kernel(m);
}
