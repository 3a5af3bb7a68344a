#include "workloads/weight_patterns.hpp"

#include "workloads/model_spec.hpp"

namespace stasim {

const std::string& WeightPatterns::pattern_of(const std::string& projection) const {
  if (projection == "down") return down;
  if (!gate_up.empty()) return gate_up;
  return projection == "gate" ? gate : up;
}

std::vector<ConfigProblem> WeightPatterns::validate(bool gated) const {
  std::vector<ConfigProblem> out;
  if (empty()) return out;  // no section: the model only has no per-expert names (the loader says so)
  if (down.empty()) out.push_back({"weights.down", "is required with the other weight patterns"});
  if (gated) {
    if (!gate_up.empty() && (!gate.empty() || !up.empty()))
      out.push_back({"weights.gate_up", "give either gate_up (fused) or gate and up, not both"});
    if (gate_up.empty() && (gate.empty() || up.empty()))
      out.push_back({gate.empty() ? "weights.gate" : "weights.up", "a gated model needs gate and up (or gate_up)"});
  } else {
    if (!gate.empty() || !gate_up.empty())
      out.push_back({gate.empty() ? "weights.gate_up" : "weights.gate", "a non-gated model has no gate projection"});
    if (up.empty()) out.push_back({"weights.up", "is required (the non-gated model's first projection)"});
  }
  return out;
}

std::string pattern_problem(const std::string& pattern) {
  bool has_layer = false;
  for (size_t at = 0; at < pattern.size(); ++at) {
    if (pattern[at] == '}') return "has a '}' without its '{' at character " + std::to_string(at + 1);
    if (pattern[at] != '{') continue;
    size_t close = pattern.find('}', at);
    if (close == std::string::npos) return "has an unclosed '{' at character " + std::to_string(at + 1);
    std::string name = pattern.substr(at + 1, close - at - 1);
    if (name != "layer" && name != "expert")
      return "has an unknown placeholder {" + name + "} (only {layer} and {expert})";
    has_layer = has_layer || name == "layer";
    at = close;
  }
  if (!has_layer) return "has no {layer} placeholder, so every layer would read the same tensor";
  return "";
}

bool pattern_has_expert(const std::string& pattern) { return pattern.find("{expert}") != std::string::npos; }

std::string expand_pattern(const std::string& pattern, long layer, long expert) {
  std::string out;
  for (size_t at = 0; at < pattern.size(); ++at) {
    if (pattern.compare(at, 7, "{layer}") == 0) {
      out += std::to_string(layer);
      at += 6;
    } else if (pattern.compare(at, 8, "{expert}") == 0) {
      out += std::to_string(expert);
      at += 7;
    } else {
      out += pattern[at];
    }
  }
  return out;
}

}  // namespace stasim
