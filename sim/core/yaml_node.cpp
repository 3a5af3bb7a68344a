#include "sim/core/yaml_node.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <istream>
#include <limits>
#include <streambuf>
#include <vector>

#include "sim/core/input_error.hpp"

namespace stasim {

// One node: 16 bytes. For a scalar, a/b are the offset and length of its text in `text`; for a sequence or map,
// a/b are the first index and count of its children in `children` (a map's as key, value, key, value, ...). The
// column shares a word with the type and the override flag (28 bits: inputs are at most 64 MiB).
struct YamlArena {
  struct Node {
    std::uint32_t type : 3;
    std::uint32_t from_override : 1;
    std::uint32_t column : 28;
    std::uint32_t line, a, b;
  };
  std::vector<Node> nodes;
  std::vector<std::uint32_t> children;
  std::string text;
};

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

std::string where(const std::string& file, const YAML::Mark& mark) {
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// Thrown by the handler to stop parsing at once (the second document is not read at all).
struct SecondDocument {
  YAML::Mark mark;
};

}  // namespace

// Builds the arena from parser events. Each open container collects its children on a stack; when it closes,
// they are appended to `children` in one contiguous run. The expanded size of the document (what a walker
// visits, every alias counted as its target's whole subtree) is the node count plus, per alias, its target's
// expanded size: tracked per open container and per anchor only, so an alias-free document costs nothing extra.
class YamlBuilder : public YAML::EventHandler {
 public:
  YamlBuilder(std::string file, std::size_t text_bytes) : file_(std::move(file)), arena_(std::make_shared<YamlArena>()) {
    // No document has more nodes than bytes (`{a,b}`: 5 nodes in 5 bytes), so these never regrow: a regrowth
    // would hold the old and the new array at once. Reserved pages that are never written cost no memory.
    arena_->nodes.reserve(text_bytes + 16);
    arena_->children.reserve(text_bytes + 16);
  }

  YamlNode root() {
    if (root_ == kNone) return YamlNode();
    // Every walker over the document is linear in its expanded size; aliases repeated inside aliased subtrees
    // are counted here, after the per-alias check stopped the plain bombs early.
    const std::uint64_t own = arena_->nodes.size();
    if (root_extra_ > kMaxAliasExpansionNodes)
      throw InputError(file_ + ":1:1: aliases expand the document to more than " +
                       std::to_string(own + kMaxAliasExpansionNodes) + " nodes (it has " + std::to_string(own) +
                       "; aliases may add at most " + std::to_string(kMaxAliasExpansionNodes) + ")");
    return YamlNode(arena_, root_);
  }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents_++ > 0) throw SecondDocument{mark};
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    finished(make(YamlNode::Type::null, mark, 0, 0), anchor, 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (anchor >= anchors_.size() || anchors_[anchor].node == kNone)
      throw InputError(where(file_, mark) + ": an alias of an unknown anchor");
    const Anchor& target = anchors_[anchor];
    if (target.open)
      throw InputError(where(file_, mark) + ": an alias inside its own anchor (the document would be infinitely deep)");
    // Stopped at the alias that passes the limit (each alias repeats its target's expanded size).
    alias_nodes_ += target.expanded;
    if (alias_nodes_ > kMaxAliasExpansionNodes)
      throw InputError(where(file_, mark) + ": aliases repeat more than " + std::to_string(kMaxAliasExpansionNodes) +
                       " nodes (nested anchors expand exponentially; write the values out instead)");
    link(target.node, target.expanded);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    if (arena_->text.size() + value.size() > std::numeric_limits<std::uint32_t>::max())
      throw InputError(where(file_, mark) + ": the document's text is beyond 4 GiB");
    std::uint32_t offset = static_cast<std::uint32_t>(arena_->text.size());
    arena_->text += value;
    finished(make(YamlNode::Type::scalar, mark, offset, static_cast<std::uint32_t>(value.size())), anchor, 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(YamlNode::Type::sequence, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(YamlNode::Type::map, mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    std::uint32_t node;
    std::size_t first_child;      // where its children start in pending_
    std::uint64_t expanded;       // its expanded size so far: itself, its children, their aliases' repeats
    YAML::anchor_t anchor;
  };
  struct Anchor {
    std::uint32_t node = kNone;
    std::uint64_t expanded = 0;
    bool open = false;  // a container not yet closed: an alias to it is a cycle
  };

  std::uint32_t make(YamlNode::Type type, const YAML::Mark& mark, std::uint32_t a, std::uint32_t b) {
    if (arena_->nodes.size() >= kNone - 1) throw InputError(file_ + ": more than 4 billion YAML nodes");
    auto clamp = [](int v, std::uint32_t high) { return v < 0 ? 0u : std::min(static_cast<std::uint32_t>(v), high); };
    YamlArena::Node node{};
    node.type = static_cast<std::uint32_t>(type);
    node.column = clamp(mark.column, (1u << 28) - 1);
    node.line = clamp(mark.line, kNone);
    node.a = a;
    node.b = b;
    arena_->nodes.push_back(node);
    return static_cast<std::uint32_t>(arena_->nodes.size() - 1);
  }
  Anchor& anchor_slot(YAML::anchor_t anchor) {
    if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
    return anchors_[anchor];
  }
  // A finished node (or an alias's target) becomes the next child of the open container, or the root.
  void link(std::uint32_t node, std::uint64_t expanded) {
    if (stack_.empty()) {
      root_ = node;
      root_extra_ = expanded > arena_->nodes.size() ? expanded - arena_->nodes.size() : 0;
      return;
    }
    pending_.push_back(node);
    std::uint64_t& total = stack_.back().expanded;
    total = std::min<std::uint64_t>(total + expanded, std::uint64_t{1} << 62);
  }
  void finished(std::uint32_t node, YAML::anchor_t anchor, std::uint64_t expanded) {
    if (anchor != YAML::NullAnchor) anchor_slot(anchor) = {node, expanded, false};
    link(node, expanded);
  }
  void open(YamlNode::Type type, const YAML::Mark& mark, YAML::anchor_t anchor) {
    std::uint32_t node = make(type, mark, 0, 0);
    if (anchor != YAML::NullAnchor) anchor_slot(anchor) = {node, 0, true};
    stack_.push_back({node, pending_.size(), 1, anchor});
  }
  void close() {
    Open top = stack_.back();
    stack_.pop_back();
    YamlArena::Node& n = arena_->nodes[top.node];
    n.a = static_cast<std::uint32_t>(arena_->children.size());
    std::size_t count = pending_.size() - top.first_child;
    if (n.type == static_cast<std::uint32_t>(YamlNode::Type::map)) count /= 2;
    n.b = static_cast<std::uint32_t>(count);
    arena_->children.insert(arena_->children.end(), pending_.begin() + static_cast<std::ptrdiff_t>(top.first_child),
                            pending_.end());
    pending_.resize(top.first_child);
    finished(top.node, top.anchor, top.expanded);
  }

  std::string file_;
  std::shared_ptr<YamlArena> arena_;
  std::vector<Anchor> anchors_;  // by anchor id
  std::vector<Open> stack_;
  std::vector<std::uint32_t> pending_;
  std::uint32_t root_ = kNone;
  std::uint64_t root_extra_ = 0;   // the root's expanded size beyond the document's own nodes
  std::uint64_t alias_nodes_ = 0;  // nodes repeated by the aliases so far
  int documents_ = 0;
};

namespace {

// Reads the text in place: an istringstream would copy it first.
struct TextView : std::streambuf {
  explicit TextView(const std::string& text) {
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
};

}  // namespace

YamlNode parse_yaml_document(const std::string& text, const std::string& file) {
  TextView view(text);
  std::istream in(&view);
  YamlBuilder builder(file, text.size());
  try {
    YAML::Parser parser(in);
    // The first call parses the document; a second one that starts another document is stopped at its start.
    if (parser.HandleNextDocument(builder)) parser.HandleNextDocument(builder);
  } catch (const SecondDocument& second) {
    throw InputError(where(file, second.mark) +
                     ": a second YAML document ('---'); stasim reads exactly one document per file");
  } catch (const YAML::ParserException& e) {
    throw InputError(where(file, e.mark) + ": malformed YAML: " + e.msg);
  }
  return builder.root();
}

YamlNode::Type YamlNode::type() const {
  return arena_ ? static_cast<Type>(arena_->nodes[index_].type) : Type::undefined;
}

std::string YamlNode::scalar() const {
  if (!is_scalar()) return "";
  const YamlArena::Node& n = arena_->nodes[index_];
  return arena_->text.substr(n.a, n.b);
}

std::uint32_t YamlNode::line() const { return arena_ ? arena_->nodes[index_].line : 0; }
std::uint32_t YamlNode::column() const { return arena_ ? arena_->nodes[index_].column : 0; }
bool YamlNode::from_override() const { return arena_ && arena_->nodes[index_].from_override; }

std::size_t YamlNode::size() const { return is_sequence() || is_map() ? arena_->nodes[index_].b : 0; }

std::uint32_t YamlNode::child(std::size_t i) const { return arena_->children[arena_->nodes[index_].a + i]; }

YamlNode YamlNode::operator[](std::size_t i) const {
  if (!is_sequence() || i >= size()) return YamlNode();
  return YamlNode(arena_, child(i));
}

YamlNode YamlNode::operator[](const std::string& key) const {
  if (!is_map()) return YamlNode();
  const YamlArena& a = *arena_;
  for (std::size_t i = 0; i < size(); ++i) {
    const YamlArena::Node& k = a.nodes[child(2 * i)];
    if (static_cast<Type>(k.type) == Type::scalar && k.b == key.size() && a.text.compare(k.a, k.b, key) == 0)
      return YamlNode(arena_, child(2 * i + 1));
  }
  return YamlNode();
}

YamlNode::Entry YamlNode::entry(std::size_t i) const {
  if (!is_map() || i >= size()) return {};
  return {YamlNode(arena_, child(2 * i)), YamlNode(arena_, child(2 * i + 1))};
}

YamlNode::Iterator YamlNode::begin() const { return Iterator(this, 0); }
YamlNode::Iterator YamlNode::end() const { return Iterator(this, size()); }

YamlNode::Iterator::Item YamlNode::Iterator::operator*() const {
  Item item;
  if (node_->is_map()) {
    Entry e = node_->entry(i_);
    item.first = e.first;
    item.second = e.second;
  } else {
    static_cast<YamlNode&>(item) = (*node_)[i_];
  }
  return item;
}

namespace {

// Copies the subtree at `index` of `from` into `to`, returning its new index. Shared (aliased) nodes are copied
// once per appearance; the source's expansion limit bounds the work.
std::uint32_t copy_into(YamlArena& to, const YamlArena& from, std::uint32_t index) {
  YamlArena::Node n = from.nodes[index];
  const auto type = static_cast<YamlNode::Type>(n.type);
  if (type == YamlNode::Type::scalar) {
    n.a = static_cast<std::uint32_t>(to.text.size());
    to.text.append(from.text, from.nodes[index].a, from.nodes[index].b);
  } else if (type == YamlNode::Type::sequence || type == YamlNode::Type::map) {
    std::size_t links = type == YamlNode::Type::map ? 2 * std::size_t{n.b} : n.b;
    std::vector<std::uint32_t> copied;
    copied.reserve(links);
    for (std::size_t i = 0; i < links; ++i) copied.push_back(copy_into(to, from, from.children[n.a + i]));
    n.a = static_cast<std::uint32_t>(to.children.size());
    to.children.insert(to.children.end(), copied.begin(), copied.end());
  }
  to.nodes.push_back(n);
  return static_cast<std::uint32_t>(to.nodes.size() - 1);
}

// A node of `to` itself is linked as it is; one of another document is copied in.
std::uint32_t import_node(YamlArena& to, const std::shared_ptr<YamlArena>& from, std::uint32_t index) {
  if (from.get() == &to) return index;
  return copy_into(to, *from, index);
}

}  // namespace

void YamlNode::replace_entry(std::size_t i, const YamlNode& key, const YamlNode& value) {
  if (!is_map() || i >= size() || !key.arena_ || !value.arena_) return;
  std::uint32_t k = import_node(*arena_, key.arena_, key.index_);
  std::uint32_t v = import_node(*arena_, value.arena_, value.index_);
  std::uint32_t at = arena_->nodes[index_].a + static_cast<std::uint32_t>(2 * i);
  arena_->children[at] = k;
  arena_->children[at + 1] = v;
}

void YamlNode::mark_override() {
  if (!arena_) return;
  std::vector<std::uint32_t> todo{index_};
  while (!todo.empty()) {
    std::uint32_t i = todo.back();
    todo.pop_back();
    YamlArena::Node& n = arena_->nodes[i];
    if (n.from_override) continue;  // shared by an alias: already done
    n.from_override = true;
    const auto type = static_cast<Type>(n.type);
    if (type == Type::sequence || type == Type::map) {
      std::size_t links = type == Type::map ? 2 * std::size_t{n.b} : n.b;
      for (std::size_t c = 0; c < links; ++c) todo.push_back(arena_->children[n.a + c]);
    }
  }
}

}  // namespace stasim
