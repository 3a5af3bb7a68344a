// The on/off switches of a decode request, defined once: run's flag and its help, the sweep YAML key and `--vary
// option.NAME` axis, the sweep fingerprint's entry and the DataflowOptions field each sets. `stasim run`,
// `stasim sweep`, calibrate/validate's `--option` and the fingerprint all read this table, so a new switch is a
// RunRequest field, a DataflowOptions field, one row here and the Python keyword (python/stasim_module.cpp).
#pragma once

#include <vector>

#include "dataflows/dataflow_options.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim {

struct RequestSwitch {
  const char* name;        // the axis, YAML key and fingerprint entry: on = the mechanism runs ("reuse")
  const char* run_option;  // run's flag ("--no-reuse")
  const char* help;        // the flag's help text
  bool RunRequest::*field;      // what the flag sets
  bool DataflowOptions::*option;  // what the request turns into
  bool negated;            // the flag turns the mechanism off (`--no-X`): field = !on, option = !field
  // Written into the sweep fingerprint only away from its default, so sweeps from before it existed resume.
  bool fingerprint_when_set;

  bool on(const RunRequest& r) const { return negated ? !(r.*field) : r.*field; }
  void set_on(RunRequest& r, bool value) const { r.*field = negated ? !value : value; }
};

// In run's flag order.
const std::vector<RequestSwitch>& request_switches();

// The switch named `name`, nullptr when none.
const RequestSwitch* find_request_switch(const std::string& name);

}  // namespace stasim
