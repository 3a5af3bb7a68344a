#include "sim/studies/request_axes.hpp"

#include <cstdint>
#include <limits>

#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

enum class Kind { on_switch, off_switch, count, seed };  // off_switch: the axis is on when run's --no-X is absent

struct Axis {
  const char* name;
  Kind kind;
  const char* run_option;
};

const std::vector<Axis>& axes() {
  static const std::vector<Axis> list = {
      {"reuse", Kind::off_switch, "--no-reuse"},
      {"batch_gathers", Kind::off_switch, "--no-batch-gathers"},
      {"group_exchange", Kind::off_switch, "--no-group-exchange"},
      {"joint_psum", Kind::off_switch, "--no-joint-psum"},
      {"overlap", Kind::off_switch, "--no-overlap"},
      {"all_experts", Kind::on_switch, "--all-experts"},
      {"routed_swdge", Kind::on_switch, "--routed-swdge"},
      {"private_hwdge", Kind::on_switch, "--private-hwdge"},
      {"fp32_table", Kind::on_switch, "--fp32-table"},
      {"fuse_projections", Kind::on_switch, "--fuse-projections"},
      {"fused_gate_up_loads", Kind::on_switch, "--fused-gate-up-loads"},
      {"fused_gate_up_exchange", Kind::on_switch, "--fused-gate-up-exchange"},
      {"tp", Kind::count, "--tp"},
      {"lnc", Kind::count, "--lnc"},
      {"context", Kind::count, "--context"},
      {"routing_seed", Kind::seed, "--routing-seed"},
  };
  return list;
}

const Axis& find_axis(const std::string& key) {
  const std::string name = is_option_axis(key) ? key.substr(std::string(kOptionAxisPrefix).size()) : key;
  for (const Axis& a : axes())
    if (name == a.name) return a;
  std::string message = "--vary " + key + ": unknown option axis; the axes are";
  for (const std::string& known : option_axes()) message += " " + known;
  std::string near = nearest_match(key, option_axes());
  if (!near.empty()) message += " (did you mean '" + near + "'?)";
  throw InputError(message);
}

// The switch a request field holds, seen as the axis (on = the mechanism runs).
bool* switch_field(RunRequest& r, const std::string& name) {
  if (name == "reuse") return &r.no_reuse;
  if (name == "batch_gathers") return &r.no_batch_gathers;
  if (name == "group_exchange") return &r.no_group_exchange;
  if (name == "joint_psum") return &r.no_joint_psum;
  if (name == "overlap") return &r.no_overlap;
  if (name == "all_experts") return &r.all_experts;
  if (name == "routed_swdge") return &r.routed_swdge;
  if (name == "private_hwdge") return &r.private_hwdge;
  if (name == "fp32_table") return &r.fp32_table;
  if (name == "fused_gate_up_loads") return &r.fused_gate_up_loads;
  if (name == "fused_gate_up_exchange") return &r.fused_gate_up_exchange;
  return &r.fuse_projections;
}

std::optional<std::int64_t>* count_field(RunRequest& r, const std::string& name) {
  if (name == "tp") return &r.tp;
  if (name == "lnc") return &r.lnc;
  return &r.context;
}

bool all_digits(const std::string& text) {
  return !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

bool is_option_axis(const std::string& key) { return key.rfind(kOptionAxisPrefix, 0) == 0; }

std::vector<std::string> option_axes() {
  std::vector<std::string> out;
  for (const Axis& a : axes()) out.push_back(kOptionAxisPrefix + std::string(a.name));
  return out;
}

std::string canonical_option_value(const std::string& key, const std::string& value) {
  const Axis& axis = find_axis(key);
  const std::string where = "--vary " + key + "=" + value + ": ";
  if (axis.kind == Kind::on_switch || axis.kind == Kind::off_switch) {
    if (value == "1" || value == "true" || value == "on") return "1";
    if (value == "0" || value == "false" || value == "off") return "0";
    throw InputError(where + "expected 0 or 1 (true/false, on/off): whether the mechanism of " + axis.run_option + " " +
                     (axis.kind == Kind::off_switch ? "runs (0 = as " : "is on (1 = as ") + axis.run_option + ")");
  }
  // Decimal digits only: "4x", "-1" or "1e3" are refused rather than read as the number they start with.
  if (!all_digits(value)) throw InputError(where + "expected a non-negative integer (as " + axis.run_option + " takes)");
  std::uint64_t number = 0;
  try {
    number = std::stoull(value);
  } catch (const std::exception&) {
    throw InputError(where + "the number is too large");
  }
  if (axis.kind == Kind::count && number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw InputError(where + "the number is too large");
  return std::to_string(number);
}

void apply_option(RunRequest& request, const std::string& key, const std::string& value) {
  const Axis& axis = find_axis(key);
  switch (axis.kind) {
    case Kind::on_switch:
      *switch_field(request, axis.name) = value == "1";
      break;
    case Kind::off_switch:
      *switch_field(request, axis.name) = value != "1";
      break;
    case Kind::count:
      *count_field(request, axis.name) = std::stoll(value);
      break;
    case Kind::seed:
      request.routing_seed = std::stoull(value);
      break;
  }
}

std::string fixed_option_for(const RunRequest& request, const std::string& key) {
  const Axis& axis = find_axis(key);
  RunRequest given = request, unset;
  switch (axis.kind) {
    case Kind::on_switch:
    case Kind::off_switch:
      return *switch_field(given, axis.name) != *switch_field(unset, axis.name) ? axis.run_option : "";
    case Kind::count:
      return count_field(given, axis.name)->has_value() ? axis.run_option : "";
    case Kind::seed:
      return request.routing_seed != unset.routing_seed ? axis.run_option : "";
  }
  return "";
}

}  // namespace stasim
