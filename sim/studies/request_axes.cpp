#include "sim/studies/request_axes.hpp"

#include <cstdint>
#include <limits>

#include "sim/core/input_error.hpp"
#include "sim/studies/request_switches.hpp"

namespace stasim {
namespace {

enum class Kind { on_switch, off_switch, count, seed };  // off_switch: the axis is on when run's --no-X is absent

struct Axis {
  const char* name;
  Kind kind;
  const char* run_option;
};

// The switches (sim/studies/request_switches.hpp), then the numbers.
const std::vector<Axis>& axes() {
  static const std::vector<Axis> list = [] {
    std::vector<Axis> out;
    for (const RequestSwitch& s : request_switches())
      out.push_back({s.name, s.negated ? Kind::off_switch : Kind::on_switch, s.run_option});
    out.push_back({"tp", Kind::count, "--tp"});
    out.push_back({"lnc", Kind::count, "--lnc"});
    out.push_back({"context", Kind::count, "--context"});
    out.push_back({"routing_seed", Kind::seed, "--routing-seed"});
    return out;
  }();
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
    case Kind::off_switch:
      find_request_switch(axis.name)->set_on(request, value == "1");
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
    case Kind::off_switch: {
      const RequestSwitch& s = *find_request_switch(axis.name);
      return s.on(given) != s.on(unset) ? axis.run_option : "";
    }
    case Kind::count:
      return count_field(given, axis.name)->has_value() ? axis.run_option : "";
    case Kind::seed:
      return request.routing_seed != unset.routing_seed ? axis.run_option : "";
  }
  return "";
}

}  // namespace stasim
