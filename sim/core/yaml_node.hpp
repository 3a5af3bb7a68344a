// A YAML document held compactly, and the handle to one of its nodes. yaml-cpp's event parser feeds a flat
// arena (16 bytes a node, 4 per child link, plus the scalar text) instead of yaml-cpp's own node graph, which
// takes ~460 bytes a node: a 20 MB list of numbers needed 3.2 GB that way. Building the arena also enforces what
// every reader relies on: one document per text, no alias inside its own anchor, and aliases that repeat at most
// kMaxAliasExpansionNodes nodes beyond the document's own (a few hundred bytes of nested anchors otherwise expand
// to billions of nodes for any walker). Handles share the arena, so a node outlives the handle it came from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace stasim {

struct YamlArena;

// Nodes an alias-free document never exceeds is its own count; aliases may add this many on top (every walker
// over a document is linear in its expanded size).
constexpr std::uint64_t kMaxAliasExpansionNodes = 100000;

class YamlNode {
 public:
  enum class Type : std::uint8_t { undefined, null, scalar, sequence, map };
  struct Entry;

  YamlNode() = default;  // undefined: what a lookup of an absent key returns

  Type type() const;
  bool is_defined() const { return type() != Type::undefined; }
  bool is_null() const { return type() == Type::null; }
  bool is_scalar() const { return type() == Type::scalar; }
  bool is_sequence() const { return type() == Type::sequence; }
  bool is_map() const { return type() == Type::map; }
  explicit operator bool() const { return is_defined(); }

  std::string scalar() const;  // "" unless a scalar
  // 0-based line and column of the node in its text; has_mark() is false for undefined nodes.
  bool has_mark() const { return is_defined(); }
  std::uint32_t line() const;
  std::uint32_t column() const;
  // Set on every node a --set override wrote (messages say "(from --set)" instead of a line).
  bool from_override() const;

  // Items of a sequence or entries of a map (0 for anything else).
  std::size_t size() const;
  YamlNode operator[](std::size_t i) const;      // item i of a sequence (undefined beyond it)
  YamlNode operator[](const std::string& key) const;  // the first entry with this key (undefined when none)
  Entry entry(std::size_t i) const;               // entry i of a map

  // Range-for over the items of a sequence (as YamlNode) or the entries of a map (as Entry).
  class Iterator;
  Iterator begin() const;
  Iterator end() const;

  // Replaces entry i of this map by (key, value), copied from any document; both keep their own marks.
  void replace_entry(std::size_t i, const YamlNode& key, const YamlNode& value);
  // Flags this node and everything under it as written by --set.
  void mark_override();
  // True when both handles name the same node of the same document.
  bool same_node(const YamlNode& other) const { return arena_ == other.arena_ && index_ == other.index_; }

 private:
  friend class YamlBuilder;
  YamlNode(std::shared_ptr<YamlArena> arena, std::uint32_t index) : arena_(std::move(arena)), index_(index) {}
  std::uint32_t child(std::size_t i) const;

  std::shared_ptr<YamlArena> arena_;
  std::uint32_t index_ = 0;
};

struct YamlNode::Entry {
  YamlNode first;   // the key
  YamlNode second;  // the value
};

class YamlNode::Iterator {
 public:
  struct Item : YamlNode {  // a sequence item; for a map, `first`/`second` are its key and value
    YamlNode first, second;
  };
  Iterator(const YamlNode* node, std::size_t i) : node_(node), i_(i) {}
  Item operator*() const;
  Iterator& operator++() {
    ++i_;
    return *this;
  }
  bool operator!=(const Iterator& other) const { return i_ != other.i_; }

 private:
  const YamlNode* node_;
  std::size_t i_;
};

// Parses `text` (named `file` in messages) into a document: a syntax error, a second document, an alias inside
// its own anchor or an alias expansion beyond the limit is an InputError naming file:line:column. Empty text is
// a null document.
YamlNode parse_yaml_document(const std::string& text, const std::string& file);

}  // namespace stasim
