// What `stasim list` shows: the names a command accepts, each with a one-line description where one exists.
// Configs are the shipped ones, found as every command finds them (sim/studies/config_paths.hpp: the data
// folder, an installed share/stasim/configs included); dataflows and kernels come from their registries.
#pragma once

#include <string>
#include <vector>

namespace stasim {

struct CatalogEntry {
  std::string name;         // what --model, --hw, --dataflow, --config, --schedule or `kernel NAME` takes
  std::string description;  // "" when there is none
};

// The categories in the order `stasim list` prints them: models, hardware, dataflows, sweeps, schedules, kernels.
const std::vector<std::string>& catalog_categories();

// The entries of `category`, sorted by name. InputError "unknown category 'x' (did you mean 'y'?); categories:
// models, hardware, ..." for another word.
std::vector<CatalogEntry> catalog(const std::string& category);

// The description of a config file: the first sentence of its leading comment, at most `width` characters
// (cut at a word, with "..."); "" when the file opens with no comment.
std::string leading_comment_sentence(const std::string& yaml_text, std::size_t width = 100);

}  // namespace stasim
