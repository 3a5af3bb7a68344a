// `stasim list [CATEGORY]`: the shipped models, hardware, sweeps and schedules and the registered dataflows and
// kernels, one name a line with its description (sim/studies/catalog.hpp).
#include <cstdio>

#include "stasim/stasim.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {

void register_list_command(CLI::App& app) {
  auto category = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("list", "List the shipped models, hardware, sweeps, schedules and the dataflows and kernels");
  sub->add_option("category", *category, "models | hardware | dataflows | sweeps | schedules | kernels (default: all)");
  sub->callback([category] {
    const std::vector<std::string> all = catalog_categories();
    const std::vector<std::string> chosen = category->empty() ? all : std::vector<std::string>{*category};
    for (const std::string& c : chosen) {
      const std::vector<CatalogEntry> entries = catalog(c);  // an unknown category fails before anything prints
      if (chosen.size() > 1) std::printf("%s%s:\n", &c == &chosen.front() ? "" : "\n", c.c_str());
      for (const CatalogEntry& e : entries)
        std::printf("%s%-24s %s\n", chosen.size() > 1 ? "  " : "", e.name.c_str(), e.description.c_str());
    }
  });
}

}  // namespace stasim::cli
