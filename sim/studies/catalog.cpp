#include "sim/studies/catalog.hpp"

#include <algorithm>
#include <filesystem>

#include "dataflows/dataflow_registry.hpp"
#include "kernels/shipped_kernels.hpp"
#include "sim/core/config_reader.hpp"
#include "sim/core/edit_distance.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/studies/config_paths.hpp"
#include "workloads/model_spec.hpp"

namespace stasim {
namespace {

std::string config_file(const std::string& folder, const std::string& name) {
  return (std::filesystem::path(data_dir()) / "configs" / folder / (name + ".yaml")).string();
}

// A shipped config's description from its own file: its leading comment, or for a model its shape (every
// model's comment opens with its name, which says less than the numbers).
std::vector<CatalogEntry> config_entries(const std::string& folder) {
  std::vector<CatalogEntry> out;
  for (const std::string& name : shipped_configs(folder)) {
    const std::string path = config_file(folder, name);
    std::string description;
    if (folder == "models") {
      const ModelSpec m = load_model(path);
      description = m.name + ": " + std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) + ", " +
                    std::to_string(m.experts) + " experts (top-" + std::to_string(m.top_k) + ")" +
                    (m.shared_experts ? " + " + std::to_string(m.shared_experts) + " shared" : "");
    } else {
      description = leading_comment_sentence(read_input_file(path, "the file"));
    }
    out.push_back({name, description});
  }
  return out;
}

}  // namespace

const std::vector<std::string>& catalog_categories() {
  static const std::vector<std::string> list = {"models", "hardware", "dataflows", "sweeps", "schedules", "kernels"};
  return list;
}

std::string leading_comment_sentence(const std::string& yaml_text, std::size_t width) {
  std::string text;
  std::size_t at = 0;
  while (at < yaml_text.size() && yaml_text[at] == '#') {  // the comment block the file opens with
    std::size_t end = yaml_text.find('\n', at);
    if (end == std::string::npos) end = yaml_text.size();
    std::string line = yaml_text.substr(at + 1, end - at - 1);
    line.erase(0, line.find_first_not_of(' '));
    text += (text.empty() ? "" : " ") + line;
    at = end + 1;
  }
  for (std::size_t i = 0; i + 1 < text.size(); ++i)  // the first sentence: up to a full stop before a space
    if (text[i] == '.' && text[i + 1] == ' ') {
      text.resize(i);
      break;
    }
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (text.size() <= width) return text;
  std::size_t cut = text.rfind(' ', width - 3);
  return text.substr(0, cut == std::string::npos ? width - 3 : cut) + "...";
}

std::vector<CatalogEntry> catalog(const std::string& category) {
  std::vector<CatalogEntry> out;
  if (category == "models") {
    out = config_entries("models");
  } else if (category == "hardware") {
    out = config_entries("hw");
  } else if (category == "sweeps" || category == "schedules") {
    out = config_entries(category);
  } else if (category == "dataflows") {
    DataflowRegistry registry;
    register_builtin(registry);
    for (const std::string& name : registry.names()) out.push_back({name, registry.find(name).description});
  } else if (category == "kernels") {
    for (const ShippedKernel& k : shipped_kernels()) out.push_back({k.name, k.description + " (on " + k.hardware + ")"});
  } else {
    std::string names;
    for (const std::string& c : catalog_categories()) names += (names.empty() ? "" : ", ") + c;
    std::string message = "unknown category '" + category + "'";
    const std::string near = nearest_match(category, catalog_categories());
    if (!near.empty()) message += " (did you mean '" + near + "'?)";
    throw InputError(message + "; categories: " + names);
  }
  std::sort(out.begin(), out.end(), [](const CatalogEntry& a, const CatalogEntry& b) { return a.name < b.name; });
  return out;
}

}  // namespace stasim
