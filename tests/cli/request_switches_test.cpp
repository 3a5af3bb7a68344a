// The table of a decode request's on/off switches (sim/studies/request_switches.hpp), which run's flags, sweep's
// YAML keys and option axes, calibrate's --option and the sweep fingerprint all read: one row per switch, each
// with its own flag, request field and dataflow option, and a request with no flag given meaning the dataflow's
// own defaults.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim/studies/request_axes.hpp"
#include "sim/studies/request_switches.hpp"

namespace stasim {
namespace {

TEST(RequestSwitches, EachRowHasItsOwnFlagFieldAndOption) {
  std::set<std::string> names, flags;
  const std::vector<RequestSwitch>& table = request_switches();
  for (const RequestSwitch& s : table) {
    names.insert(s.name);
    flags.insert(s.run_option);
    for (const RequestSwitch& other : table) {  // member pointers compare for equality only
      if (&other == &s) continue;
      EXPECT_FALSE(other.field == s.field) << s.name << " and " << other.name << " set the same request field";
      EXPECT_FALSE(other.option == s.option) << s.name << " and " << other.name << " set the same option";
    }
    // A negated switch is run's --no-X flag.
    EXPECT_EQ(std::string(s.run_option).rfind("--no-", 0) == 0, s.negated) << s.name;
    EXPECT_EQ(find_request_switch(s.name), &s);
  }
  EXPECT_EQ(names.size(), table.size());
  EXPECT_EQ(flags.size(), table.size());
  EXPECT_EQ(find_request_switch("no_such_switch"), nullptr);
}

TEST(RequestSwitches, NoFlagGivenIsTheDataflowsDefault) {
  const RunRequest request;
  const DataflowOptions defaults;
  for (const RequestSwitch& s : request_switches()) EXPECT_EQ(s.on(request), defaults.*s.option) << s.name;
}

TEST(RequestSwitches, AnAxisValueSetsTheFlagInItsSense) {
  for (const RequestSwitch& s : request_switches()) {
    const std::string axis = std::string(kOptionAxisPrefix) + s.name;
    RunRequest off, on;
    apply_option(off, axis, canonical_option_value(axis, "false"));
    apply_option(on, axis, canonical_option_value(axis, "on"));
    EXPECT_FALSE(s.on(off)) << s.name;
    EXPECT_TRUE(s.on(on)) << s.name;
    // --no-reuse is given when the mechanism is off; --all-experts when it is on.
    EXPECT_EQ(off.*s.field, s.negated) << s.name;
    EXPECT_EQ(on.*s.field, !s.negated) << s.name;
    // A sweep that fixes the flag away from its default and varies it too is refused, naming the flag.
    RunRequest fixed;
    s.set_on(fixed, !s.on(fixed));
    EXPECT_EQ(fixed_option_for(fixed, axis), s.run_option);
    EXPECT_EQ(fixed_option_for(RunRequest{}, axis), "");
  }
}

}  // namespace
}  // namespace stasim
