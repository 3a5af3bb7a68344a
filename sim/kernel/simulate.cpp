#include "sim/kernel/simulate.hpp"
#include "sim/core/pipe_io.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "memory/sbuf_occupancy.hpp"
#include "sim/kernel/accelerator_module.hpp"
#include "sim/kernel/critical_path.hpp"
#include "sim/core/input_error.hpp"
#include "sim/kernel/result_summary.hpp"
#include "sim/kernel/time_budget.hpp"

namespace stasim {
namespace {

// The child's report: a status byte, then a message (errors) or the raw run.
enum class ChildStatus : std::uint8_t { ok = 0, simulation_error = 1, input_error = 2, internal_error = 3, deadlock = 4 };

void send_message(int fd, ChildStatus status, const std::string& message) {
  std::uint64_t size = message.size();
  write_all(fd, &status, 1);
  write_all(fd, &size, sizeof size);
  write_all(fd, message.data(), message.size());
}

}  // namespace

RawRun run_kernel(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where) {
  auto begin = std::chrono::steady_clock::now();
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  AcceleratorModule top("stasim", graph, hw);
  sc_core::sc_start();
  RawRun raw = top.take_result(where);
  raw.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  return raw;
}

SimResult summarize(const ScheduleGraph& graph, const HardwareConfig& hw, RawRun raw) {
  SimResult r;
  r.ops = std::move(raw.timings);
  r.kernel_activations = raw.kernel_activations;
  r.wall_ms = raw.wall_ms;
  r.psum_peak_banks = raw.peak_psum_banks;
  summarize_activity(graph, hw, r);
  SbufPeak peak = sbuf_peak(graph, hw, r.ops);
  r.sbuf_peak_bytes = peak.bytes;
  r.sbuf_peak_bytes_per_partition = peak.bytes_per_partition;
  r.sbuf_capacity_bytes = std::uint64_t(hw.sbuf.partitions) * hw.sbuf.usable_bytes_per_partition();
  r.critical_path = critical_path(graph, r.ops);
  return r;
}

SimResult simulate(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where,
                   const BufferLocator& buffer_where) {
  validate_graph(graph, hw, where, buffer_where);
  check_time_budget(graph, hw, where);
  return summarize(graph, hw, run_kernel(graph, hw, where));
}

SimResult simulate_isolated(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where,
                            const BufferLocator& buffer_where) {
  validate_graph(graph, hw, where, buffer_where);
  check_time_budget(graph, hw, where);
  int fds[2];
  if (::pipe(fds) != 0) throw SimulationError(std::string("pipe failed: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) throw SimulationError(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 1);
    try {
      RawRun raw = run_kernel(graph, hw, where);
      ChildStatus ok = ChildStatus::ok;
      std::uint64_t n = raw.timings.size();
      write_all(fds[1], &ok, 1);
      write_all(fds[1], &n, sizeof n);
      write_all(fds[1], raw.timings.data(), n * sizeof(OpTiming));
      write_all(fds[1], &raw.peak_psum_banks, sizeof raw.peak_psum_banks);
      write_all(fds[1], &raw.kernel_activations, sizeof raw.kernel_activations);
      write_all(fds[1], &raw.wall_ms, sizeof raw.wall_ms);
    } catch (const DeadlockError& e) {
      send_message(fds[1], ChildStatus::deadlock, e.what());
    } catch (const SimulationError& e) {
      send_message(fds[1], ChildStatus::simulation_error, e.what());
    } catch (const InputError& e) {
      send_message(fds[1], ChildStatus::input_error, e.what());
    } catch (const std::exception& e) {
      send_message(fds[1], ChildStatus::internal_error, e.what());
    }
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  ChildStatus status{};
  bool ok = read_all(fds[0], &status, 1);
  RawRun raw;
  std::string message;
  std::uint64_t n = 0;
  if (ok) ok = read_all(fds[0], &n, sizeof n);
  if (ok && status == ChildStatus::ok) {
    raw.timings.resize(n);
    ok = read_all(fds[0], raw.timings.data(), n * sizeof(OpTiming)) &&
         read_all(fds[0], &raw.peak_psum_banks, sizeof raw.peak_psum_banks) &&
         read_all(fds[0], &raw.kernel_activations, sizeof raw.kernel_activations) &&
         read_all(fds[0], &raw.wall_ms, sizeof raw.wall_ms);
  } else if (ok) {
    message.resize(n);
    ok = read_all(fds[0], message.data(), n);
  }
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (!ok) throw SimulationError("the simulation process died before reporting (wait status " + std::to_string(wstatus) + ")");
  // A child that reported and then did not exit cleanly (e.g. a sanitizer report) is not a result to trust.
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
    throw SimulationError("the simulation process failed after reporting (wait status " + std::to_string(wstatus) + ")");
  if (status == ChildStatus::input_error) throw InputError(message);
  if (status == ChildStatus::deadlock) throw DeadlockError(message);
  if (status != ChildStatus::ok) throw SimulationError(message);
  return summarize(graph, hw, std::move(raw));
}

}  // namespace stasim

// libsystemc carries its own main() that calls sc_main(); stasim's programs have their own main and start the
// kernel through run_kernel(), but the library still needs the symbol. It is never called.
extern "C" int sc_main(int, char**) { return 1; }
