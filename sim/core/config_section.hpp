// A file `--dump-config` wrote holds several configs, one section each (`hardware:`, `model:`, or `hw:`/`models:`
// with one entry per name). Given whole to --hw or --model, it is read as the section that option names, so a
// dump is accepted back as it was written; any other file is its own config.
#pragma once

#include <string>

#include "sim/core/yaml_node.hpp"

namespace stasim {

// `root` itself unless it is a config dump (a mapping whose keys are all section names of a dump); then the
// section `section` ("hardware" or "model"), or the only entry of its plural (`hw:`, `models:`). InputError
// naming `file`, line and what it holds when the dump has no such section or several configs under it.
YamlNode config_section(const YamlNode& root, const std::string& section, const std::string& file);

}  // namespace stasim
