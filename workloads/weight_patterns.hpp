// Where a model's expert weights sit in its checkpoint: one tensor-name pattern per projection (the `weights:`
// section of a model YAML), with the placeholders {layer} and {expert}. A pattern with {expert} names one
// PyTorch nn.Linear weight per expert ([I, H] for gate/up, [H, I] for down); a pattern without {expert} names
// a fused tensor holding all experts stacked on its first axis ([E, I, H], [E, H, I]). `gate_up` is the fused
// form of gate and up together, per expert [2I, H] (or stacked [E, 2I, H]) with the gate rows first.
#pragma once

#include <string>
#include <vector>

namespace stasim {

struct ConfigProblem;

struct WeightPatterns {
  std::string gate, up, down, gate_up;  // "" = not given

  bool empty() const { return gate.empty() && up.empty() && down.empty() && gate_up.empty(); }
  // The pattern that holds `projection` ("gate", "up", "down"): gate_up for gate and up when it is the one set.
  const std::string& pattern_of(const std::string& projection) const;
  // Problems with the set as a whole for a gated or non-gated model, by key path ("weights.up").
  std::vector<ConfigProblem> validate(bool gated) const;
};

// "" or what is wrong with one pattern: an unknown placeholder, an unclosed brace, no {layer}.
std::string pattern_problem(const std::string& pattern);
bool pattern_has_expert(const std::string& pattern);
// The pattern with {layer} and {expert} replaced.
std::string expand_pattern(const std::string& pattern, long layer, long expert);

}  // namespace stasim
