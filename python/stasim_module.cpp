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

#include <unistd.h>

#include "python/python_glue.hpp"
#include "stasim/stasim.hpp"
#include "stasim/sweep.hpp"

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

// run() and compare(): their keywords are the CLI's options (the `--no-...` switches as booleans) around a second
// one, the dataflow of run() or the dataflows of compare(); `body(request, second)` gives the result.
template <typename Second, typename Body>
auto request_function(Body body) {
  return [body](const std::string& model, const Second& second, const std::string& hw, std::int64_t d, std::int64_t r,
                std::int64_t K, std::optional<std::int64_t> batch, std::optional<std::int64_t> tp,
                std::optional<std::int64_t> lnc, std::optional<std::int64_t> context, std::int64_t layers,
                const std::string& down, bool reuse, bool batch_gathers, bool joint_psum, bool overlap,
                bool fuse_projections, const std::vector<std::string>& sets, const std::string& routes,
                std::uint64_t routing_seed, bool all_experts, bool routed_swdge, bool fused_gate_up_loads,
                bool fused_gate_up_exchange, bool group_exchange, bool private_hwdge, bool fp32_table,
                bool split_top_k, bool group_routes, bool recompute_table, bool explicit_psum) -> py::object {
    return guarded([&] {
      RunRequest req;
      req.model = model;
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
      return body(req, second);
    });
  };
}

py::object run(RunRequest& req, const std::string& dataflow) {
  req.dataflow = dataflow;
  check_request(req);
  nlohmann::json doc = Simulator::json(simulator().run(req));
  doc["provenance"] = request_provenance(req, "run");
  return to_python(doc);
}

py::object compare(RunRequest& req, const std::vector<std::string>& dataflows) {
  check_request(req);
  nlohmann::json doc = Simulator::json(simulator().compare(req, dataflows));
  doc["provenance"] = request_provenance(req, "compare", dataflows);
  return to_python(doc);
}

template <typename T>
void override_with(T& field, const std::optional<T>& given) {
  if (given) field = *given;
}

// progress: None or False (nothing); True (on stderr as `stasim sweep`: a line redrawn on a terminal, else a line
// at most every 5 s); a number of seconds (a line at most that often, 0: one per point); or a callable, called
// as progress(done, total) after each point.
void set_progress(SweepRunOptions& options, const py::object& progress) {
  if (progress.is_none()) return;
  if (PyBool_Check(progress.ptr())) {
    if (progress.cast<bool>())
      options.progress.mode = ::isatty(STDERR_FILENO) == 1 ? SweepProgress::Mode::redraw : SweepProgress::Mode::lines;
    return;
  }
  if (PyLong_Check(progress.ptr()) || PyFloat_Check(progress.ptr())) {
    const double seconds = progress.cast<double>();
    if (!(seconds >= 0))
      throw py::value_error("progress: seconds between progress lines must be >= 0, not " + py::repr(progress).cast<std::string>());
    options.progress.mode = SweepProgress::Mode::lines;
    options.progress.every_s = seconds;
    return;
  }
  if (!PyCallable_Check(progress.ptr()))
    throw py::value_error("progress: True, False, None, seconds between lines or a callable progress(done, total), "
                          "not " + py::repr(progress).cast<std::string>());
  options.on_point = [progress](std::size_t done, std::size_t total) { progress(done, total); };
}

// Each keyword left None keeps the sweep YAML's value (`config`), else SweepSpec's default: the CLI's options on
// `stasim sweep --config`, where the command line wins over the file and --set values come after the file's.
py::object sweep(const std::optional<std::string>& config, const std::optional<std::vector<std::string>>& models,
                 const std::optional<std::vector<std::string>>& dataflows, const std::optional<std::string>& hw,
                 const std::optional<std::vector<std::int64_t>>& d, const std::optional<std::vector<std::int64_t>>& r,
                 const std::optional<std::vector<std::int64_t>>& K, const std::optional<std::vector<std::int64_t>>& batch,
                 const std::map<std::string, std::vector<std::string>>& vary, std::optional<std::int64_t> layers,
                 const std::optional<std::string>& down, int jobs, double point_time_limit,
                 const py::object& progress, const std::vector<std::string>& sets, std::optional<std::int64_t> tp,
                 std::optional<std::int64_t> lnc, std::optional<std::int64_t> context,
                 const std::optional<std::string>& routes, std::optional<std::uint64_t> routing_seed,
                 const std::map<std::string, std::optional<bool>>& switches) {
  // As --point-time-limit (0 = no limit), except that a limit past its top (1e7 s, e.g. 1e308 or inf) is taken
  // as the top rather than refused: a notebook's "no practical limit".
  if (!(point_time_limit >= 0))
    throw py::value_error("point_time_limit: seconds a point may run must be >= 0 (0 = no limit), not " +
                          py::repr(py::float_(point_time_limit)).cast<std::string>());
  SweepRunOptions options;
  options.jobs = jobs;
  options.point_time_limit_s = point_time_limit;
  set_progress(options, progress);
  // Ctrl-C stops the sweep: while the points run (the GIL held), a pending signal's Python handler runs and its
  // exception (KeyboardInterrupt) leaves run_points, whose workers are killed, and reaches the caller.
  options.on_wait = [] {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  std::vector<SweepRow> rows = guarded([&] {
    SweepSpec spec;
    if (config) {
      try {
        spec = load_sweep_config(*config);
      } catch (const InputError& e) {
        throw InputError("config: " + std::string(e.what()));
      }
    }
    override_with(spec.models, models);
    override_with(spec.dataflows, dataflows);
    override_with(spec.hw, hw);
    override_with(spec.d, d);
    override_with(spec.r, r);
    override_with(spec.K, K);
    override_with(spec.batch, batch);
    override_with(spec.layers, layers);
    override_with(spec.down, down);
    for (const auto& [key, values] : vary) spec.vary.emplace_back(key, values);
    // What every point starts from (its own model, dataflow, d, r, K, batch, layers and down come from the grid).
    RunRequest& base = spec.base;
    base.sets.insert(base.sets.end(), sets.begin(), sets.end());
    if (tp) base.tp = tp;
    if (lnc) base.lnc = lnc;
    if (context) base.context = context;
    override_with(base.routes, routes);
    override_with(base.routing_seed, routing_seed);
    for (const auto& [name, on] : switches)
      if (on) find_request_switch(name)->set_on(base, *on);
    check_sweep(spec, registry());
    return run_sweep(spec, registry(), options);
  });
  return to_python(nlohmann::json(rows));
}

}  // namespace

void bind_kernel(py::module_& m);  // kernel_bindings.cpp

}  // namespace stasim::python

PYBIND11_MODULE(_stasim, m) {
  using namespace stasim::python;
  // SystemC prints its banner when the first simulation context is created unless this is set.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 1);
  m.doc() = "stasim: cycle-approximate simulator of scratchpad-based tensor accelerators (MoE decode study)";
  // The version `stasim --version` prints (the build's git description is in every result's provenance).
  m.attr("__version__") = stasim::version();
  auto request_args = [](auto&& bind, const char* name, const char* doc, auto dataflow) {
    bind(name, doc, py::kw_only(), py::arg("model") = "qwen3-30b-a3b", dataflow,
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
  };
  request_args([&](const char* name, const char* doc, auto... args) { m.def(name, request_function<std::string>(&run), doc, args...); }, "run",
               "Simulate one decode step; returns the document of `stasim run --json` as a dict, its provenance "
               "naming the CLI command that gives the same result.",
               py::arg("dataflow") = "cardan");
  request_args([&](const char* name, const char* doc, auto... args) { m.def(name, request_function<std::vector<std::string>>(&compare), doc, args...); },
               "compare",
               "Simulate several dataflows on one configuration; returns the document of `stasim compare --json` "
               "({'runs': [...], 'provenance': ...}, each run with its speedup over the first).",
               py::arg("dataflows") = std::vector<std::string>{"dense", "cardan"});
  m.def("sweep",
        [](const std::optional<std::string>& config, const std::optional<std::vector<std::string>>& models,
           const std::optional<std::vector<std::string>>& dataflows, const std::optional<std::string>& hw,
           const std::optional<std::vector<std::int64_t>>& d, const std::optional<std::vector<std::int64_t>>& r,
           const std::optional<std::vector<std::int64_t>>& K, const std::optional<std::vector<std::int64_t>>& batch,
           const std::map<std::string, std::vector<std::string>>& vary, std::optional<std::int64_t> layers,
           const std::optional<std::string>& down, int jobs, double point_time_limit, const py::object& progress,
           const std::vector<std::string>& sets, std::optional<std::int64_t> tp, std::optional<std::int64_t> lnc,
           std::optional<std::int64_t> context, const std::optional<std::string>& routes,
           std::optional<std::uint64_t> routing_seed, std::optional<bool> reuse, std::optional<bool> batch_gathers,
           std::optional<bool> joint_psum, std::optional<bool> overlap, std::optional<bool> fuse_projections,
           std::optional<bool> all_experts, std::optional<bool> routed_swdge, std::optional<bool> fused_gate_up_loads,
           std::optional<bool> fused_gate_up_exchange, std::optional<bool> group_exchange,
           std::optional<bool> private_hwdge, std::optional<bool> fp32_table, std::optional<bool> split_top_k,
           std::optional<bool> group_routes, std::optional<bool> recompute_table, std::optional<bool> explicit_psum) {
          return sweep(config, models, dataflows, hw, d, r, K, batch, vary, layers, down, jobs, point_time_limit,
                       progress, sets, tp, lnc, context, routes, routing_seed,
                       {{"reuse", reuse}, {"batch_gathers", batch_gathers}, {"joint_psum", joint_psum},
                        {"overlap", overlap}, {"fuse_projections", fuse_projections}, {"all_experts", all_experts},
                        {"routed_swdge", routed_swdge}, {"fused_gate_up_loads", fused_gate_up_loads},
                        {"fused_gate_up_exchange", fused_gate_up_exchange}, {"group_exchange", group_exchange},
                        {"private_hwdge", private_hwdge}, {"fp32_table", fp32_table}, {"split_top_k", split_top_k},
                        {"group_routes", group_routes}, {"recompute_table", recompute_table},
                        {"explicit_psum", explicit_psum}});
        },
        "Run a grid of decode simulations; returns one dict per point with the columns of `stasim sweep`'s CSV "
        "(vary maps a config key to its values, as --vary key=v1,v2). config names a sweep YAML "
        "(configs/sweeps/NAME or a path), as `stasim sweep --config`; a keyword left None keeps its value (or "
        "the default: qwen3-30b-a3b, dense and cardan, trn3-calibrated, d 8, r 384, K 256, batch 1, down "
        "weight-sbuf, the switches as run's). progress=True prints progress on stderr as `stasim sweep` does "
        "(progress=SECONDS: a line at most that often), a callable is called as progress(done, total).",
        py::kw_only(), py::arg("config") = py::none(), py::arg("models") = py::none(),
        py::arg("dataflows") = py::none(), py::arg("hw") = py::none(), py::arg("d") = py::none(),
        py::arg("r") = py::none(), py::arg("K") = py::none(), py::arg("batch") = py::none(),
        py::arg("vary") = std::map<std::string, std::vector<std::string>>{}, py::arg("layers") = py::none(),
        py::arg("down") = py::none(), py::arg("jobs") = 1, py::arg("point_time_limit") = 600.0,
        py::arg("progress") = py::none(), py::arg("sets") = std::vector<std::string>{}, py::arg("tp") = py::none(),
        py::arg("lnc") = py::none(), py::arg("context") = py::none(), py::arg("routes") = py::none(),
        py::arg("routing_seed") = py::none(), py::arg("reuse") = py::none(), py::arg("batch_gathers") = py::none(),
        py::arg("joint_psum") = py::none(), py::arg("overlap") = py::none(), py::arg("fuse_projections") = py::none(),
        py::arg("all_experts") = py::none(), py::arg("routed_swdge") = py::none(),
        py::arg("fused_gate_up_loads") = py::none(), py::arg("fused_gate_up_exchange") = py::none(),
        py::arg("group_exchange") = py::none(), py::arg("private_hwdge") = py::none(),
        py::arg("fp32_table") = py::none(), py::arg("split_top_k") = py::none(), py::arg("group_routes") = py::none(),
        py::arg("recompute_table") = py::none(), py::arg("explicit_psum") = py::none());
  bind_kernel(m);
}
