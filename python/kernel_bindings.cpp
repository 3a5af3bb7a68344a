// stasim.Kernel: the kernel builder (kernels/kernel_program.hpp) from Python, and stasim.kernel() to run a
// shipped kernel. A simulation returns the document `stasim schedule --json` / `stasim kernel --json` writes.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

#include "python/python_glue.hpp"
#include "stasim/kernel.hpp"

namespace py = pybind11;

namespace stasim::python {
namespace {

Dtype dtype_of(const std::string& name) {
  Dtype d;
  if (!parse_dtype(name, d)) throw InputError("unknown dtype '" + name + "' (bf16, fp16, fp32, fp8, mxfp8, mxfp4, int8)");
  return d;
}

DmaIssuer issuer_of(const std::string& name) {
  DmaIssuer i;
  if (!parse_dma_issuer(name, i)) throw InputError("unknown DMA trigger engine '" + name + "' (sync, act, pool, pe, dve)");
  return i;
}

Engine engine_of(const std::string& name) {
  Engine e;
  if (!parse_engine(name, e)) throw InputError("unknown engine '" + name + "' (tensor, vector, scalar, gpsimd)");
  return e;
}

OpKind kind_of(const std::string& name) {
  OpKind k;
  if (!parse_op_kind(name, k)) throw InputError("unknown instruction kind '" + name + "'");
  return k;
}

// A Python kernel: the program and what it simulated last.
class PyKernel {
 public:
  PyKernel(const std::string& hw, const std::vector<std::string>& sets, const std::string& name)
      : program_(std::make_unique<KernelProgram>(load_hardware_config(hw, sets), name)) {}
  KernelProgram& program() { return *program_; }
  py::object simulate() {
    const SimResult result = program_->simulate();
    return to_python(kernel_json(*program_, result));
  }

 private:
  std::unique_ptr<KernelProgram> program_;
};

InstructionOptions options(const std::string& name, const std::string& phase) {
  InstructionOptions o;
  o.name = name;
  o.phase = phase;
  return o;
}

}  // namespace

void bind_kernel(py::module_& m) {
  py::class_<TileView>(m, "TileView", "A tile of a block, or the whole block, optionally a range of its columns")
      .def(py::init([](const TileBlock& b) { return b.all(); }))
      .def("at", [](const TileView& v, std::int64_t i) { return guarded([&] { return v.at(i); }); })
      .def("cols", [](const TileView& v, std::uint32_t first, std::uint32_t n) { return guarded([&] { return v.cols(first, n); }); })
      .def_property_readonly("partitions", &TileView::partitions)
      .def_property_readonly("free", &TileView::free);
  py::class_<TileBlock>(m, "Tile", "A block of tiles allocated in one SBUF or PSUM buffer")
      .def("all", &TileBlock::all)
      .def("at", [](const TileBlock& b, std::int64_t i) { return guarded([&] { return b.at(i); }); })
      .def("cols", [](const TileBlock& b, std::uint32_t first, std::uint32_t n) {
        return guarded([&] { return b.all().cols(first, n); });
      })
      .def_readonly("partitions", &TileBlock::partitions)
      .def_readonly("free", &TileBlock::free)
      .def_readonly("count", &TileBlock::count);
  py::implicitly_convertible<TileBlock, TileView>();
  py::class_<HbmSlice>(m, "HbmSlice");
  py::class_<HbmTensor>(m, "HbmTensor", "A row-major tensor in HBM")
      .def("slice", [](const HbmTensor& t, std::uint64_t row, std::uint64_t rows, std::uint64_t col, std::uint64_t cols) {
        return guarded([&] { return stasim::slice(t, row, rows, col, cols); });
      }, py::arg("row"), py::arg("rows"), py::arg("col"), py::arg("cols"))
      .def_readonly("rows", &HbmTensor::rows)
      .def_readonly("cols", &HbmTensor::cols);

  py::class_<PyKernel>(m, "Kernel",
                       "A kernel as a program: allocate tiles, issue DMA and engine instructions in loops, simulate(). "
                       "Dependencies come from the tiles each instruction reads and writes.")
      .def(py::init([](const std::string& hw, const std::vector<std::string>& sets, const std::string& name) {
             return guarded([&] { return std::make_unique<PyKernel>(hw, sets, name); });
           }),
           py::kw_only(), py::arg("hw") = "trn2", py::arg("sets") = std::vector<std::string>{},
           py::arg("name") = "kernel")
      .def("hbm", [](PyKernel& k, const std::string& name, std::uint64_t rows, std::uint64_t cols, const std::string& dtype) {
        return guarded([&] { return k.program().hbm(name, rows, cols, dtype_of(dtype)); });
      }, py::arg("name"), py::arg("rows"), py::arg("cols"), py::arg("dtype") = "bf16")
      .def("sbuf", [](PyKernel& k, const std::string& name, std::uint32_t partitions, std::uint32_t free,
                      const std::string& dtype, std::uint32_t count, std::uint32_t bufs) {
        return guarded([&] { return k.program().sbuf(name, partitions, free, dtype_of(dtype), count, bufs); });
      }, py::arg("name"), py::arg("partitions"), py::arg("free"), py::arg("dtype") = "bf16", py::kw_only(),
         py::arg("count") = 1, py::arg("bufs") = 1)
      .def("psum", [](PyKernel& k, const std::string& name, std::uint32_t partitions, std::uint32_t free,
                      const std::string& dtype, std::uint32_t count, std::uint32_t bufs) {
        return guarded([&] { return k.program().psum(name, partitions, free, dtype_of(dtype), count, bufs); });
      }, py::arg("name"), py::arg("partitions"), py::arg("free"), py::arg("dtype") = "fp32", py::kw_only(),
         py::arg("count") = 1, py::arg("bufs") = 1)
      .def("load", [](PyKernel& k, const TileView& dst, const HbmSlice& src, const std::string& issuer, bool transpose,
                      const std::string& name) {
        return guarded([&] {
          InstructionOptions o = options(name, "");
          return transpose ? k.program().load_transpose(dst, src, issuer_of(issuer), o)
                           : k.program().load(dst, src, issuer_of(issuer), o);
        });
      }, py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("issuer") = "sync", py::arg("transpose") = false,
         py::arg("name") = "")
      .def("store", [](PyKernel& k, const HbmSlice& dst, const TileView& src, const std::string& issuer, const std::string& name) {
        return guarded([&] { return k.program().store(dst, src, issuer_of(issuer), options(name, "")); });
      }, py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("issuer") = "sync", py::arg("name") = "")
      .def("copy", [](PyKernel& k, const TileView& dst, const TileView& src, const std::string& issuer, const std::string& name) {
        return guarded([&] { return k.program().copy(dst, src, issuer_of(issuer), options(name, "")); });
      }, py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("issuer") = "sync", py::arg("name") = "")
      .def("matmul", [](PyKernel& k, const TileView& dst, const TileView& stationary, const TileView& moving,
                        bool accumulate, std::vector<std::uint32_t> tile_position, std::vector<std::uint32_t> tile_size,
                        const std::string& name) {
        return guarded([&] {
          InstructionOptions o = options(name, "");
          if (!tile_size.empty()) {
            if (tile_size.size() != 2 || tile_size[0] < 1 || tile_size[0] > 128 || tile_size[1] < 1 || tile_size[1] > 128)
              throw InputError("tile_size: expected (rows, columns), each between 1 and 128");
            o.tile_rows = static_cast<std::uint8_t>(tile_size[0]);
            o.tile_columns = static_cast<std::uint8_t>(tile_size[1]);
          }
          if (!tile_position.empty()) {
            if (tile_size.empty()) throw InputError("tile_position: needs tile_size");
            if (tile_position.size() != 2 || tile_position[0] > 127 || tile_position[1] > 127)
              throw InputError("tile_position: expected (row, column), each between 0 and 127");
            o.tile_row = static_cast<std::uint8_t>(tile_position[0]);
            o.tile_column = static_cast<std::uint8_t>(tile_position[1]);
          }
          return k.program().matmul(dst, stationary, moving, accumulate, o);
        });
      }, py::arg("dst"), py::arg("stationary"), py::arg("moving"), py::kw_only(), py::arg("accumulate") = false,
         py::arg("tile_position") = std::vector<std::uint32_t>{}, py::arg("tile_size") = std::vector<std::uint32_t>{},
         py::arg("name") = "")
      .def("transpose", [](PyKernel& k, const TileView& dst, const TileView& src, const std::string& name) {
        return guarded([&] { return k.program().transpose(dst, src, options(name, "")); });
      }, py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("name") = "")
      .def("activation", [](PyKernel& k, const TileView& dst, const TileView& src, const std::string& func,
                            bool accumulate, const std::string& name) {
        return guarded([&] {
          InstructionOptions o = options(name, "");
          o.accumulate = accumulate;
          return k.program().activation(dst, src, func, o);
        });
      }, py::arg("dst"), py::arg("src"), py::arg("func"), py::kw_only(), py::arg("accumulate") = false,
         py::arg("name") = "")
      .def("instruction", [](PyKernel& k, const std::string& engine, const std::string& kind, const TileView& dst,
                             const std::vector<TileView>& srcs, bool accumulate, const std::string& name) {
        return guarded([&] {
          InstructionOptions o = options(name, "");
          o.accumulate = accumulate;
          return k.program().instruction(engine_of(engine), kind_of(kind), dst, srcs, o);
        });
      }, py::arg("engine"), py::arg("kind"), py::arg("dst"), py::arg("srcs") = std::vector<TileView>{},
         py::kw_only(), py::arg("accumulate") = false, py::arg("name") = "")
      .def("simulate", [](PyKernel& k) { return guarded([&] { return k.simulate(); }); },
           "Validate and simulate; returns the document of `stasim kernel --json` (times in ns) as a dict")
      .def_property_readonly("ops", [](PyKernel& k) { return k.program().ops(); });

  m.def("kernel", [](const std::string& name, const std::string& hw, const std::map<std::string, std::int64_t>& args,
                     const std::vector<std::string>& sets) {
    return guarded([&] {
      const KernelRun run = run_shipped_kernel(name, KernelArgs(args.begin(), args.end()), hw, sets);
      return to_python(kernel_json(*run.program, run.result));
    });
  }, "Run a shipped kernel (`stasim kernel --list`); returns the document of `stasim kernel NAME --json`",
     py::arg("name"), py::kw_only(), py::arg("hw") = "", py::arg("args") = std::map<std::string, std::int64_t>{},
     py::arg("sets") = std::vector<std::string>{});
}

}  // namespace stasim::python
