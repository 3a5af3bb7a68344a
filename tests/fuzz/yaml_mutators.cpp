#include "tests/fuzz/yaml_mutators.hpp"

#include <algorithm>
#include <iterator>
#include <random>
#include <sstream>
#include <vector>

namespace stasim::fuzz {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

std::size_t indent_of(const std::string& line) {
  std::size_t n = line.find_first_not_of(' ');
  return n == std::string::npos ? line.size() : n;
}

bool blank_or_comment(const std::string& line) {
  std::size_t n = line.find_first_not_of(' ');
  return n == std::string::npos || line[n] == '#';
}

// Position just after "key:" on a block-mapping line ("  key: value" or "- key: value"), or npos.
std::size_t after_key(const std::string& line) {
  std::size_t start = line.find_first_not_of(" -");
  if (start == std::string::npos || line[start] == '#' || line[start] == '{' || line[start] == '[') return std::string::npos;
  std::size_t colon = line.find(':', start);
  if (colon == std::string::npos || (colon + 1 < line.size() && line[colon + 1] != ' ')) return std::string::npos;
  return colon + 1;
}

// A chain of nested anchors: level 0 lists `width` scalars, each next level `width` aliases of the previous.
std::string bomb_lines(std::mt19937& random, int levels, int width, const std::string& indent) {
  std::string out;
  for (int level = 0; level < levels; ++level) {
    out += indent + "zz_b" + std::to_string(level) + ": &zz_b" + std::to_string(level) + " [";
    for (int i = 0; i < width; ++i) {
      if (i) out += ", ";
      out += level == 0 ? std::to_string(random() % 10) : "*zz_b" + std::to_string(level - 1);
    }
    out += "]\n";
  }
  return out;
}

}  // namespace

std::string mutate_aliases(const std::string& text, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::string> lines = lines_of(text);
  std::vector<std::size_t> keyed;  // lines with "key: value"
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::size_t at = after_key(lines[i]);
    if (at != std::string::npos && lines[i].find_first_not_of(' ', at) != std::string::npos) keyed.push_back(i);
  }
  switch (random() % 3) {
    case 0: {  // an alias bomb, used by an existing key when there is one
      int levels = 2 + static_cast<int>(random() % 9), width = 2 + static_cast<int>(random() % 9);
      std::string chain = bomb_lines(random, levels, width, "");
      std::string last = "*zz_b" + std::to_string(levels - 1);
      if (!keyed.empty()) {
        std::size_t i = keyed[random() % keyed.size()];
        lines[i] = lines[i].substr(0, after_key(lines[i])) + " " + last;
      }
      return chain + join(lines);
    }
    case 1: {  // one value reused by an alias at another key (often legitimate: the loaders must accept it)
      if (keyed.size() < 2) return text;
      std::size_t a = keyed[random() % keyed.size()], b = keyed[random() % keyed.size()];
      if (a == b) return text;
      if (a > b) std::swap(a, b);
      std::size_t at = after_key(lines[a]);
      lines[a] = lines[a].substr(0, at) + " &zz_r" + lines[a].substr(at);
      lines[b] = lines[b].substr(0, after_key(lines[b])) + " *zz_r";
      return join(lines);
    }
    default: {  // an alias inside its own anchor
      if (keyed.empty()) return text + "zz_s: &zz_s [*zz_s]\n";
      std::size_t i = keyed[random() % keyed.size()];
      lines[i] = lines[i].substr(0, after_key(lines[i])) + " &zz_s [1, *zz_s]";
      return join(lines);
    }
  }
}

std::string mutate_null_section(const std::string& text, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::string> lines = lines_of(text);
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (after_key(lines[i]) != std::string::npos || lines[i].find("- ") == indent_of(lines[i])) candidates.push_back(i);
  if (candidates.empty()) return text;
  std::size_t i = candidates[random() % candidates.size()];
  std::size_t at = after_key(lines[i]);
  std::size_t indent = indent_of(lines[i]);
  if (at == std::string::npos || random() % 4 == 0) {
    at = lines[i].find("- ") == indent ? indent + 1 : at;  // a list entry with nothing in it
    if (at == std::string::npos) return text;
  }
  lines[i] = lines[i].substr(0, at);
  // Everything nested under the emptied line goes with it.
  std::size_t end = i + 1;
  while (end < lines.size() && (blank_or_comment(lines[end]) || indent_of(lines[end]) > indent)) ++end;
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i + 1), lines.begin() + static_cast<std::ptrdiff_t>(end));
  return join(lines);
}

std::string mutate_bad_bytes(const std::string& text, std::uint32_t seed) {
  std::mt19937 random(seed);
  static const char* const raw[] = {
      "\x80",              // a continuation byte with no lead
      "\xc0\xaf",          // an overlong '/'
      "\xed\xa0\x80",      // a UTF-16 surrogate (U+D800)
      "\xe2\x82",          // a cut three-byte sequence
      "\xf4\x90\x80\x80",  // beyond U+10FFFF
      "\xff",              // never valid
      "\x01", "\x1b[2J", "\x7f", "\r", "\x08",  // C0 controls and DEL
      "\xc2\x85", "\xc2\x9b",                  // C1 controls (NEL, CSI) as valid UTF-8
  };
  static const char* const escapes[] = {"\\x01", "\\x1b", "\\x7f", "\\u0085", "\\0", "\\r", "\\e"};
  std::vector<std::string> lines = lines_of(text);
  if (lines.empty()) lines.push_back("name: x");
  // Prefer lines whose value is a name: that is the text that reaches the outputs.
  std::vector<std::size_t> names, keyed;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t at = after_key(lines[i]);
    const std::size_t eq = lines[i].find('=');
    if (at != std::string::npos || eq != std::string::npos) keyed.push_back(i);
    if (lines[i].find("name") != std::string::npos) names.push_back(i);
  }
  const std::vector<std::size_t>& pool = !names.empty() && random() % 2 ? names : keyed;
  std::string& line = lines[pool.empty() ? random() % lines.size() : pool[random() % pool.size()]];
  std::size_t split = line.find('=');  // a --set line: key.path=value
  if (split == std::string::npos) split = after_key(line) == std::string::npos ? line.size() : after_key(line) - 1;
  const std::size_t key_start = std::min(line.find_first_not_of(" -"), split);
  const bool in_key = random() % 3 == 0;
  if (!in_key && random() % 3 == 0) {  // the whole value becomes a double-quoted escape
    const std::string sep = line.find('=') != std::string::npos ? "=" : ": ";
    line = line.substr(0, split) + sep + "\"zz" + escapes[random() % std::size(escapes)] + "zz\"";
    return join(lines);
  }
  // A raw sequence somewhere inside the key, or inside the value.
  const std::size_t from = in_key ? key_start : std::min(split + 1, line.size());
  const std::size_t to = in_key ? split : line.size();
  const std::size_t at = from + (to > from ? random() % (to - from + 1) : 0);
  line.insert(at, raw[random() % std::size(raw)]);
  return join(lines);
}

std::string mutate_set_line(const std::string& text, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::string> lines = lines_of(text);
  if (lines.empty()) lines.push_back("core.dma=1");
  std::string& line = lines[random() % lines.size()];
  std::size_t eq = line.find('=');
  std::string key = eq == std::string::npos ? line : line.substr(0, eq);
  // Cut the key path at a random dot, so sections get emptied as often as leaves.
  std::vector<std::size_t> dots;
  for (std::size_t i = 0; i < key.size(); ++i)
    if (key[i] == '.') dots.push_back(i);
  if (!dots.empty() && random() % 2) key = key.substr(0, dots[random() % dots.size()]);
  switch (random() % 3) {
    case 0: line = key + "="; break;
    case 1: line = key + "=~"; break;
    default: {
      int levels = 2 + static_cast<int>(random() % 8), width = 2 + static_cast<int>(random() % 8);
      std::string value = "[&zz_b0 [1, 2]";
      for (int level = 1; level < levels; ++level) {
        value += ", &zz_b" + std::to_string(level) + " [";
        for (int i = 0; i < width; ++i) value += (i ? ", " : "") + std::string("*zz_b") + std::to_string(level - 1);
        value += "]";
      }
      line = key + "=" + value + "]";
    }
  }
  return join(lines);
}

}  // namespace stasim::fuzz
