"""The Python module against the CLI: the same request gives the same document, a sweep the same rows.

Run by ctest with PYTHONPATH set to the build's python/ folder and STASIM_BINARY naming the CLI.
"""
import csv
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import stasim

BINARY = os.environ["STASIM_BINARY"]


def cli(*args):
    return subprocess.run([BINARY, *args], check=True, capture_output=True, text=True).stdout


def cli_sweep_rows(*args):
    """The rows `stasim sweep ARGS --out grid.jsonl` writes, one dict per point."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "grid.jsonl")
        cli("sweep", *args, "--out", out)
        with open(out) as f:
            return [json.loads(line) for line in f if line.strip()]


def cli_error(*args):
    """The CLI's message for bad input: exit code 2 and one line on stderr."""
    done = subprocess.run([BINARY, *args], capture_output=True, text=True)
    assert done.returncode == 2, (done.returncode, done.stderr)
    return done.stderr


# The CLI's options that name its output files and chatter, not the request: a Python call has none of them.
OUTPUT_OPTIONS = {"json", "quiet", "trace", "trace-layers", "dot", "ops", "dump-config", "verbose", "csv"}


class RunTest(unittest.TestCase):
    def test_run_returns_what_run_json_writes(self):
        # Two layers of CARDAN (d, r) = (4, 256) with reuse off and a hardware override: every option is passed
        # through, so the dict equals the CLI's --json document key for key and number for number.
        py = stasim.run(dataflow="cardan", d=4, r=256, layers=2, reuse=False, down="weight-sbuf",
                        sets=["core.dma.engines=8"])
        out = json.loads(cli("run", "--dataflow", "cardan", "--d", "4", "--r", "256", "--layers", "2",
                             "--no-reuse", "--down-schedule", "weight-sbuf", "--set", "core.dma.engines=8",
                             "--quiet", "--json", "-"))
        # The CLI's document also records how it was made (its command line); the figures are what must agree.
        out.pop("provenance", None)
        py.pop("provenance", None)
        self.assertEqual(py, out)
        self.assertEqual(py["layers"], 2)
        self.assertGreater(py["tpot_us"], 0)

    def test_options_change_the_result(self):
        # Gather batching off is a different schedule: the GpSimd instruction count differs.
        on = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf")
        off = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf", batch_gathers=False)
        self.assertNotEqual(on["engines"]["gpsimd"]["instructions"], off["engines"]["gpsimd"]["instructions"])

    def test_every_switch_of_run_is_a_keyword(self):
        # The fused gate/up view moves the same bytes in fewer descriptors: dense is faster with it, as
        # `stasim run --fused-gate-up-loads` (the same document); all_experts and routed_swdge are run's too.
        apart = stasim.run(dataflow="dense", layers=1, down="weight-sbuf")
        fused = stasim.run(dataflow="dense", layers=1, down="weight-sbuf", fused_gate_up_loads=True)
        self.assertLess(fused["tpot_us"], apart["tpot_us"])
        self.assertEqual(fused["dma"]["hbm_read_bytes"], apart["dma"]["hbm_read_bytes"])
        out = json.loads(cli("run", "--dataflow", "dense", "--layers", "1", "--down-schedule", "weight-sbuf",
                             "--fused-gate-up-loads", "--quiet", "--json", "-"))
        self.assertEqual(fused["tpot_us"], out["tpot_us"])
        every = stasim.run(dataflow="dense", layers=1, down="weight-sbuf", all_experts=True)
        self.assertEqual(every["experts"]["mode"], "all")
        # Software DGE is GpSimd time (no GpSimd instruction of its own): dense has none without it.
        sw = stasim.run(dataflow="dense", layers=1, down="weight-sbuf", routed_swdge=True)
        self.assertGreater(sw["engines"]["gpsimd"]["active_us"], 0)
        self.assertEqual(apart["engines"]["gpsimd"]["active_us"], 0)
        # The hybrid's private loads on the hardware DGE take that time off GpSimd, as `--private-hwdge`.
        private_sw = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf")
        private_hw = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf", private_hwdge=True)
        self.assertLess(private_hw["engines"]["gpsimd"]["active_us"], private_sw["engines"]["gpsimd"]["active_us"])
        self.assertEqual(private_hw["engines"]["gpsimd"]["instructions"], private_sw["engines"]["gpsimd"]["instructions"])
        # The code-word table in BF16, as `--no-fp32-table` (FP32 by default): the same GpSimd work, less TensorE time.
        bf16_table = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf", fp32_table=False)
        self.assertLess(bf16_table["engines"]["tensor"]["active_us"], private_sw["engines"]["tensor"]["active_us"])
        self.assertEqual(bf16_table["engines"]["gpsimd"]["active_us"], private_sw["engines"]["gpsimd"]["active_us"])
        # Without reuse, T recomputed per expert as well as z, as `--no-reuse --recompute-table`: more TensorE time.
        z_only = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf", reuse=False)
        with_table = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf", reuse=False, recompute_table=True)
        self.assertGreater(with_table["engines"]["tensor"]["active_us"], z_only["engines"]["tensor"]["active_us"])
        # Dense PSUM at nki-library's explicit addresses, as `--explicit-psum`: gate, up and down share two banks.
        rotating = stasim.run(dataflow="dense", layers=1, down="weight-sbuf")
        explicit = stasim.run(dataflow="dense", layers=1, down="weight-sbuf", explicit_psum=True)
        self.assertEqual(rotating["psum"]["peak_banks"], 4)
        self.assertEqual(explicit["psum"]["peak_banks"], 2)
        self.assertGreater(explicit["moe_block_us"], rotating["moe_block_us"])
        # The cores split each token's experts, as `--split-top-k`: the same bytes read.
        split = stasim.run(dataflow="dense", layers=1, down="weight-sbuf", split_top_k=True)
        out = json.loads(cli("run", "--dataflow", "dense", "--layers", "1", "--down-schedule", "weight-sbuf",
                             "--split-top-k", "--quiet", "--json", "-"))
        self.assertEqual(split["tpot_us"], out["tpot_us"])
        self.assertEqual(split["dma"]["hbm_read_bytes"], apart["dma"]["hbm_read_bytes"])
        # Several tokens: the hybrid's experts shared between a core's tokens, as `--group-routes`.
        olmoe = dict(model="olmoe-1b-7b", batch=8, layers=1, down="weight-sbuf")
        grouped = stasim.run(dataflow="cardan", group_routes=True, **olmoe)
        per_route = stasim.run(dataflow="cardan", **olmoe)
        out = json.loads(cli("run", "--model", "olmoe-1b-7b", "--batch", "8", "--layers", "1", "--down-schedule",
                             "weight-sbuf", "--group-routes", "--quiet", "--json", "-"))
        self.assertEqual(grouped["tpot_us"], out["tpot_us"])
        self.assertEqual(grouped["experts"]["loop"], "experts")
        self.assertLess(grouped["dma"]["hbm_read_bytes"], per_route["dma"]["hbm_read_bytes"])
        rows = stasim.sweep(dataflows=["dense"], layers=1, fused_gate_up_loads=True)
        self.assertEqual(rows[0]["tpot_us"], fused["tpot_us"])

    def test_bad_input_raises_value_error_naming_it(self):
        with self.assertRaises(ValueError) as raised:
            stasim.run(model="no-such-model", layers=1)
        self.assertIn("no-such-model", str(raised.exception))
        with self.assertRaises(ValueError) as raised:
            stasim.run(dataflow="cardan", d=3, layers=1)  # 3 divides no hidden size of the model
        self.assertTrue(str(raised.exception))


class SweepTest(unittest.TestCase):
    def test_sweep_rows_equal_the_cli_sweep(self):
        # dense once + cardan at d = 4 and 8: 1 + 2 = 3 points, each row as the CLI writes it.
        rows = stasim.sweep(dataflows=["dense", "cardan"], d=[4, 8], r=[384], layers=1, jobs=2)
        self.assertEqual(len(rows), 3)
        expected = cli_sweep_rows("--dataflows", "dense,cardan", "--d", "4,8", "--r", "384", "--layers", "1", "--jobs", "2")
        self.assertEqual([r["key"] for r in rows], [r["key"] for r in expected])
        self.assertEqual([r["tpot_us"] for r in rows], [r["tpot_us"] for r in expected])
        self.assertEqual(rows, expected)

    def test_vary_is_an_axis(self):
        rows = stasim.sweep(dataflows=["dense"], layers=1, vary={"core.dma.engines": ["4", "16"]})
        self.assertEqual(len(rows), 2)
        self.assertEqual(sorted(r["vary"] for r in rows), ["core.dma.engines=16", "core.dma.engines=4"])

    def test_run_switches_are_axes(self):
        # option.reuse is run's --no-reuse as an axis; each --vary key is a column of its own, spelled 0/1.
        rows = stasim.sweep(dataflows=["cardan"], layers=1, vary={"option.reuse": ["false", "true"]})
        self.assertEqual([r["option.reuse"] for r in rows], [0, 1])
        self.assertEqual(rows[0]["tpot_us"], stasim.run(dataflow="cardan", layers=1, down="weight-sbuf", reuse=False)["tpot_us"])
        with self.assertRaises(ValueError):
            stasim.sweep(dataflows=["cardan"], layers=1, vary={"option.reuse": ["maybe"]})

    def test_run_options_apply_to_every_point(self):
        # sets, tp, context and the switches are the base of every point, as run's options on `stasim sweep`:
        # each row equals run() with the same options (dense once, cardan once: 2 points).
        options = dict(sets=["core.dma.engines=8"], tp=2, context=512, reuse=False)
        rows = stasim.sweep(dataflows=["dense", "cardan"], layers=1, **options)
        self.assertEqual(len(rows), 2)
        for row in rows:
            alone = stasim.run(dataflow=row["dataflow"], layers=1, down="weight-sbuf", **options)
            self.assertEqual(row["tpot_us"], alone["tpot_us"])
        plain = stasim.sweep(dataflows=["cardan"], layers=1)
        self.assertNotEqual(plain[0]["tpot_us"], rows[1]["tpot_us"])
        with self.assertRaises(ValueError):
            stasim.sweep(dataflows=["dense"], layers=1, sets=["core.dma.enignes=8"])

    def test_unknown_dataflow_raises_value_error(self):
        with self.assertRaises(ValueError):
            stasim.sweep(dataflows=["nope"], layers=1)

    def test_ctrl_c_stops_a_sweep_with_keyboard_interrupt(self):
        # 5000 points of the whole model on one worker (minutes of its CPU). SIGINT while the points run (the sweep
        # waiting for its worker) raises KeyboardInterrupt in the caller and kills the worker: the workers' CPU
        # time is a fraction of the grid's. (A sweep that ignored the signal would run every point and then raise
        # KeyboardInterrupt on its return: the CPU time tells them apart.)
        script = (
            "import resource, stasim\n"
            "try:\n"
            "    stasim.sweep(dataflows=['cardan'], jobs=1,\n"
            "                 vary={'core.dma.issue_ns': [str(900 + i) for i in range(5000)]})\n"
            "    print('finished')\n"
            "except KeyboardInterrupt:\n"
            "    usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "    print('KeyboardInterrupt', usage.ru_utime + usage.ru_stime)\n"
        )
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        try:
            # The sweep's worker is a child of the child: once it exists, the points are running.
            children = f"/proc/{child.pid}/task/{child.pid}/children"
            while child.poll() is None:
                with open(children) as f:
                    if f.read().split():
                        break
                time.sleep(0.05)
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=600)  # a guard against a hang, not a timing
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        words = out.split()
        self.assertEqual(words[:1], ["KeyboardInterrupt"], err)
        self.assertLess(float(words[1]), 20.0, "the worker ran on after the signal")
        self.assertEqual(child.returncode, 0, err)

    def test_a_huge_point_time_limit_neither_raises_nor_spins(self):
        # 1e308 s (or infinity) is past --point-time-limit's top of 1e7 s: taken as the top, not an error. The
        # sweep waits for its worker asleep: while the worker simulates 16 whole-model points, this process spends
        # under a quarter of the worker's CPU time (a busy wait would spend as much as the worker).
        def cpu(who):
            usage = resource.getrusage(who)
            return usage.ru_utime + usage.ru_stime
        for limit in (1e308, float("inf")):
            own, workers = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
            rows = stasim.sweep(dataflows=["cardan"], d=[4, 8], r=[256, 384], jobs=1, point_time_limit=limit,
                                vary={"core.dma.issue_ns": ["800", "900", "1000", "1100"]})
            own, workers = cpu(resource.RUSAGE_SELF) - own, cpu(resource.RUSAGE_CHILDREN) - workers
            self.assertEqual([r["status"] for r in rows], ["ok"] * 16)
            self.assertLess(own, 0.25 * workers, f"point_time_limit={limit}")
        with self.assertRaises(ValueError) as raised:
            stasim.sweep(dataflows=["cardan"], layers=1, point_time_limit=-1)
        self.assertIn("point_time_limit", str(raised.exception))



class KernelTest(unittest.TestCase):
    def test_shipped_kernel_equals_the_cli(self):
        # A 1/16 slice of the tutorial's tiled matmul on trn1: the dict is `stasim kernel --json`'s document.
        py = stasim.kernel("matmul-tiled", hw="trn1", args={"M": 256})
        out = json.loads(cli("kernel", "matmul-tiled", "--hw", "trn1", "--arg", "M=256", "--quiet", "--json", "-"))
        py.pop("provenance", None)
        out.pop("provenance", None)
        self.assertEqual(py, out)

    def test_a_kernel_written_in_python_equals_the_shipped_one(self):
        # dma-stream with 3 transfers of 4 KiB per partition, written out: the same loads on the Sync engine's
        # queue into rotating buffers give the same timings as the shipped builder.
        k = stasim.Kernel(hw="trn2", name="stream")
        src = k.hbm("src", 128 * 3, 2048, "bf16")
        for i in range(3):
            tile = k.sbuf("tile", 128, 2048, "bf16", bufs=8)
            k.load(tile, src.slice(row=128 * i, rows=128, col=0, cols=2048), issuer="sync")
        mine = k.simulate()
        shipped = stasim.kernel("dma-stream", args={"bytes_per_partition": 4096, "transfers": 3})
        self.assertEqual(k.ops, 3)
        self.assertEqual(mine["total_ns"], shipped["total_ns"])
        self.assertEqual([o["end_ns"] for o in mine["ops"]], [o["end_ns"] for o in shipped["ops"]])

    def test_load_activate_store_in_python(self):
        # trn2: [128, 512] BF16 in (1 KiB per partition: 128 descriptors x 3.7 ns = 473.6 ns, more than its
        # 131072 / 0.368 = 356.2 ns of bytes), after the 900 ns issue: 1373.6 ns. The exp reads it 290 ns later.
        k = stasim.Kernel(hw="trn2")
        x = k.hbm("x", 128, 512)
        y = k.hbm("y", 128, 512)
        a = k.sbuf("a", 128, 512)
        b = k.sbuf("b", 128, 512)
        k.load(a, x.slice(row=0, rows=128, col=0, cols=512), name="load")
        k.activation(b, a, "exp", name="exp")
        k.store(y.slice(row=0, rows=128, col=0, cols=512), b, issuer="pool", name="store")
        doc = k.simulate()
        ops = {o["name"]: o for o in doc["ops"]}
        self.assertAlmostEqual(ops["load"]["end_ns"], 1373.6, places=3)
        self.assertAlmostEqual(ops["exp"]["start_ns"], 1663.6, places=3)
        self.assertEqual(ops["store"]["bound_by"], "dep:exp")
        self.assertEqual(ops["store"]["queue"], 2)

    def test_bad_kernel_input_raises_value_error(self):
        with self.assertRaisesRegex(ValueError, "unknown kernel 'matmul-tild'"):
            stasim.kernel("matmul-tild")
        with self.assertRaisesRegex(ValueError, "has no parameter 'Q'"):
            stasim.kernel("matmul-tiled", args={"Q": 1})
        k = stasim.Kernel(hw="trn2")
        with self.assertRaisesRegex(ValueError, "unknown DMA trigger engine"):
            k.load(k.sbuf("a", 128, 4), k.hbm("x", 128, 4).slice(row=0, rows=128, col=0, cols=4), issuer="dma9")
        with self.assertRaisesRegex(ValueError, "unknown dtype"):
            k.sbuf("b", 128, 4, "bf17")
        a, b, acc = k.sbuf("s", 32, 32), k.sbuf("m", 32, 128), k.psum("p", 32, 128)
        with self.assertRaisesRegex(ValueError, "tile_size: expected"):
            k.matmul(acc, a, b, tile_size=(300, 32))
        with self.assertRaisesRegex(ValueError, "tile_position: needs tile_size"):
            k.matmul(acc, a, b, tile_position=(0, 32))


class TutorialExampleTest(unittest.TestCase):
    def test_the_python_tutorial_kernels_equal_the_shipped_ones(self):
        # examples/matmul_tutorial.py writes the four kernels with stasim.Kernel: op for op the same timings as
        # the C++ programs behind `stasim kernel` (M 2048, K 1024, N 1024: the smallest the last kernel takes).
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
        import matmul_tutorial
        for name in matmul_tutorial.KERNELS:
            mine = matmul_tutorial.simulate(name, 2048, 1024, 1024)
            shipped = stasim.kernel(name, args={"M": 2048, "K": 1024, "N": 1024})
            self.assertEqual(mine["total_ns"], shipped["total_ns"], name)
            self.assertEqual([o["end_ns"] for o in mine["ops"]], [o["end_ns"] for o in shipped["ops"]], name)


class VersionTest(unittest.TestCase):
    def test_version_is_the_cli_version(self):
        # `stasim --version` prints "stasim 0.1.0 (git ...)": the module's __version__ is that number.
        self.assertRegex(stasim.__version__, r"^[0-9]+\.[0-9]+\.[0-9]+$")
        self.assertIn("stasim " + stasim.__version__ + " ", cli("--version"))


class ProvenanceTest(unittest.TestCase):
    def test_run_records_what_the_cli_records(self):
        # The Python document carries the CLI's provenance: its command_line is the CLI command that gives the
        # same result (options away from their defaults, in a fixed order); run with --json it writes the same
        # figures and the same provenance but for the output options.
        py = stasim.run(dataflow="cardan", d=4, r=256, layers=2, reuse=False, down="weight-sbuf",
                        sets=["core.dma.engines=8"])
        line = py["provenance"]["command_line"]
        self.assertEqual(line, ["stasim", "run", "--d", "4", "--r", "256", "--layers", "2", "--down-schedule",
                                "weight-sbuf", "--no-reuse", "--set", "core.dma.engines=8"])
        out = json.loads(cli(*line[1:], "--quiet", "--json", "-"))
        mine, theirs = py.pop("provenance"), out.pop("provenance")
        self.assertEqual(py, out)
        self.assertEqual(theirs["command_line"], line + ["--quiet", "--json", "-"])
        for key in ("stasim", "command", "sets", "configs"):
            self.assertEqual(mine[key], theirs[key], key)
        self.assertEqual(mine["options"], {k: v for k, v in theirs["options"].items() if k not in OUTPUT_OPTIONS})
        self.assertEqual(sorted(mine), sorted(theirs))
        self.assertEqual(mine["options"]["d"], "4")
        self.assertEqual(mine["options"]["batch"], "")
        self.assertIs(mine["options"]["no-reuse"], True)
        self.assertEqual(mine["configs"]["hardware"]["name"], "trn3-calibrated")

    def test_defaults_record_the_bare_command(self):
        py = stasim.run(layers=1, batch=1, tp=4)
        self.assertEqual(py["provenance"]["command_line"], ["stasim", "run", "--batch", "1", "--tp", "4", "--layers", "1"])
        self.assertEqual(py["provenance"]["options"]["tp"], "4")
        self.assertEqual(py["provenance"]["sets"], [])

    def test_numbers_keep_their_json_types(self):
        # Converted value by value: integers stay int, fractions float, flags bool (as json.loads gives them).
        py = stasim.run(layers=1, down="weight-sbuf")
        self.assertIs(type(py["layers"]), int)
        self.assertIs(type(py["tpot_us"]), float)
        self.assertIs(type(py["provenance"]["options"]["no-reuse"]), bool)


class CompareTest(unittest.TestCase):
    def test_compare_returns_what_compare_json_writes(self):
        # dense and cardan on one layer: the runs of `stasim compare --json`, each with its speedup over dense
        # (dense over itself 1.0), and the same provenance but for the output options.
        py = stasim.compare(dataflows=["dense", "cardan"], layers=1, down="weight-sbuf")
        line = py["provenance"]["command_line"]
        self.assertEqual(line, ["stasim", "compare", "--layers", "1", "--down-schedule", "weight-sbuf"])
        out = json.loads(cli(*line[1:], "--quiet", "--json", "-"))
        mine, theirs = py.pop("provenance"), out.pop("provenance")
        self.assertEqual(py, out)
        self.assertEqual([r["dataflow"] for r in py["runs"]], ["dense", "cardan"])
        self.assertEqual(py["runs"][0]["speedup_vs_dense"], 1.0)
        self.assertEqual(py["runs"][1]["speedup_vs_dense"],
                         round(py["runs"][0]["tpot_us"] / py["runs"][1]["tpot_us"], 4))
        self.assertEqual(mine["options"], {k: v for k, v in theirs["options"].items() if k not in OUTPUT_OPTIONS})
        self.assertEqual(mine["options"]["dataflows"], "dense,cardan")
        alone = stasim.run(dataflow="cardan", layers=1, down="weight-sbuf")
        self.assertEqual(py["runs"][1]["tpot_us"], alone["tpot_us"])

    def test_other_dataflows_are_named_on_the_command_line(self):
        py = stasim.compare(dataflows=["cardan", "vq-only"], layers=1, down="weight-sbuf")
        self.assertEqual(py["provenance"]["command_line"][2:4], ["--dataflows", "cardan,vq-only"])
        self.assertEqual(py["runs"][0]["speedup_vs_cardan"], 1.0)

    def test_bad_compare_input_raises_the_clis_message(self):
        with self.assertRaises(ValueError) as raised:
            stasim.compare(dataflows=["dense", "cardn"], layers=1)
        self.assertIn(str(raised.exception), cli_error("compare", "--dataflows", "dense,cardn", "--layers", "1", "--quiet"))
        self.assertIn("unknown dataflow 'cardn'", str(raised.exception))
        with self.assertRaisesRegex(ValueError, "name at least one dataflow"):
            stasim.compare(dataflows=[], layers=1)


class ParityErrorTest(unittest.TestCase):
    def test_a_mistyped_vary_key_raises_before_any_point(self):
        # It would fail every point: the CLI refuses it before running any, and so does sweep() (with its message).
        with self.assertRaises(ValueError) as raised:
            stasim.sweep(dataflows=["dense"], layers=1, vary={"core.dma.enignes": ["4", "16"]})
        message = str(raised.exception)
        self.assertIn("core.dma.enignes", message)
        with tempfile.TemporaryDirectory() as folder:
            self.assertIn(message, cli_error("sweep", "--dataflows", "dense", "--layers", "1", "--vary",
                                             "core.dma.enignes=4,16", "--out", os.path.join(folder, "x.csv")))
        with self.assertRaisesRegex(ValueError, "has no key 'deployment.tpp'"):
            stasim.sweep(dataflows=["dense"], layers=1, vary={"model.deployment.tpp": ["1"]})

    def test_a_switch_that_changes_nothing_is_refused_as_run_refuses_it(self):
        with self.assertRaises(ValueError) as raised:
            stasim.run(layers=1, recompute_table=True)
        self.assertIn(str(raised.exception), cli_error("run", "--layers", "1", "--recompute-table", "--quiet"))
        self.assertTrue(str(raised.exception).startswith("--recompute-table: "))

    def test_run_errors_are_the_clis(self):
        with self.assertRaises(ValueError) as raised:
            stasim.run(model="qwen3-30b-a3", layers=1)
        self.assertIn(str(raised.exception), cli_error("run", "--model", "qwen3-30b-a3", "--layers", "1", "--quiet"))
        self.assertIn("did you mean 'qwen3-30b-a3b'", str(raised.exception))


class SweepConfigTest(unittest.TestCase):
    def test_sweep_from_a_yaml_equals_the_cli_sweep(self):
        # configs/sweeps/qwen3-30b-a3b-dr-k256.yaml narrowed to d 8, r 0 and 384, one layer, as the CLI's
        # `--config` with options on top: dense once + cardan at (8, 0) and (8, 384) = 3 points, row for row.
        rows = stasim.sweep(config="qwen3-30b-a3b-dr-k256", d=[8], r=[0, 384], layers=1, jobs=2)
        self.assertEqual(len(rows), 3)
        expected = cli_sweep_rows("--config", "qwen3-30b-a3b-dr-k256", "--d", "8", "--r", "0,384", "--layers", "1",
                                  "--jobs", "2")
        self.assertEqual(rows, expected)
        self.assertEqual([(r["dataflow"], r.get("r")) for r in rows], [("dense", None), ("cardan", 0), ("cardan", 384)])

    def test_a_path_and_keywords_over_the_file(self):
        # A sweep YAML by path; the keywords win over its keys and --set values come after its own.
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "mine.yaml")
            with open(path, "w") as f:
                f.write("dataflows: [cardan]\nd: [4, 8]\nlayers: 1\nreuse: false\nset: [core.dma.engines=8]\n")
            rows = stasim.sweep(config=path)
            self.assertEqual([r["d"] for r in rows], [4, 8])
            alone = stasim.run(dataflow="cardan", d=4, layers=1, down="weight-sbuf", reuse=False,
                               sets=["core.dma.engines=8"])
            self.assertEqual(rows[0]["tpot_us"], alone["tpot_us"])
            rows = stasim.sweep(config=path, d=[4], reuse=True, sets=["core.dma.engines=16"])
            alone = stasim.run(dataflow="cardan", d=4, layers=1, down="weight-sbuf", sets=["core.dma.engines=16"])
            self.assertEqual([r["tpot_us"] for r in rows], [alone["tpot_us"]])

    def test_a_bad_sweep_config_raises_value_error(self):
        with self.assertRaisesRegex(ValueError, "^config: no sweep 'qwen3-dr'; shipped sweeps: "):
            stasim.sweep(config="qwen3-dr")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bad.yaml")
            with open(path, "w") as f:
                f.write("dataflows: [cardan]\nlayer: 1\n")
            with self.assertRaises(ValueError) as raised:
                stasim.sweep(config=path)
            self.assertIn(path, str(raised.exception))
            self.assertIn("layer", str(raised.exception))


class ProgressTest(unittest.TestCase):
    def test_a_callable_hears_of_every_point(self):
        seen = []
        stasim.sweep(dataflows=["dense", "cardan"], d=[4, 8], layers=1, progress=lambda done, total: seen.append((done, total)))
        self.assertEqual(seen, [(1, 3), (2, 3), (3, 3)])

    def test_an_exception_in_the_callable_stops_the_sweep(self):
        def stop(done, total):
            raise KeyError("enough")
        with self.assertRaises(KeyError):
            stasim.sweep(dataflows=["cardan"], d=[2, 4, 8], layers=1, progress=stop)

    def test_progress_lines_on_stderr_as_the_cli(self):
        # progress=0: a line per point on stderr (stderr is not a terminal here), as `stasim sweep --progress-every 0`.
        script = "import stasim; stasim.sweep(dataflows=['dense', 'cardan'], layers=1, progress=0)"
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        lines = done.stderr.splitlines()
        self.assertEqual([l.split(")")[0] for l in lines],
                         ["sweep: 1/2 points (ok 1, invalid 0, error 0", "sweep: 2/2 points (ok 2, invalid 0, error 0"])
        with self.assertRaisesRegex(ValueError, "^progress: "):
            stasim.sweep(dataflows=["dense"], layers=1, progress="yes")


if __name__ == "__main__":
    unittest.main()
