// The public header for the schedule-timing goldens (tests/golden/), as `stasim goldens` checks and rewrites
// them: the fixed cases (every shipped model x {dense, cardan}, every hand schedule), each re-simulated into a
// stable JSON summary of integer picoseconds and counts and compared exactly with its file.
//
//   stasim::Simulator sim;
//   for (const stasim::GoldenCase& c : stasim::golden_cases(source_dir)) {
//     nlohmann::json now = stasim::golden_summary(c, source_dir, sim.registry());
//     std::vector<std::string> moved = stasim::golden_diff(golden, now);  // golden: tests/golden/<c.name>.json
//   }
//
// Declared in sim/studies/golden_suite.hpp.
#pragma once

#include "sim/studies/golden_suite.hpp"
#include "stasim/stasim.hpp"
