#include "sim/core/schedule_yaml.hpp"

#include <deque>
#include <map>
#include <unordered_map>

#include "sim/core/config_reader.hpp"
#include "sim/core/instruction_set.hpp"

namespace stasim {
namespace {

bool parse_location(const std::string& text, Location& loc, std::uint8_t& peer) {
  if (text == "hbm") { loc = Location::hbm; return true; }
  if (text == "sbuf") { loc = Location::sbuf; return true; }
  if (text == "psum") { loc = Location::psum; return true; }
  if (text.size() > 4 && text.compare(0, 4, "core") == 0) {
    try {
      size_t used = 0;
      int c = std::stoi(text.substr(4), &used);
      if (used == text.size() - 4 && c >= 0 && c < 256) {
        loc = Location::peer;
        peer = static_cast<std::uint8_t>(c);
        return true;
      }
    } catch (...) {
    }
  }
  return false;
}

const std::vector<std::string> kEngines = {"tensor", "vector", "scalar", "gpsimd", "dma", "collective"};
std::vector<std::string> all_kinds() {
  std::vector<std::string> kinds;
  for (int k = 0; k <= static_cast<int>(OpKind::copy_dynamic); ++k) kinds.push_back(op_kind_name(static_cast<OpKind>(k)));
  return kinds;
}
const std::vector<std::string> kKinds = all_kinds();
const std::vector<std::string> kDgeModes = {"static", "hwdge", "swdge"};
const std::vector<std::string> kDtypes = {"bf16", "fp16", "fp32", "fp8", "mxfp8", "mxfp4", "int8"};

std::string suggest(const std::string& word, const std::vector<std::string>& options) {
  std::string near = nearest_match(word, options);
  return near.empty() ? "" : " (did you mean '" + shown_word(near) + "'?)";
}

}  // namespace

OpLocator LoadedSchedule::locator() const {
  return [this](OpId id) {
    return file + ":" + std::to_string(op_lines[id]) + ": op '" + graph.name(id) + "'";
  };
}

BufferLocator LoadedSchedule::buffer_locator() const {
  return [this](std::uint32_t i) {
    return file + ":" + std::to_string(buffer_lines[i]) + ": buffer '" + graph.buffers()[i].name + "'";
  };
}

LoadedSchedule load_schedule(const std::string& path) { return read_schedule(load_yaml_file(path), path); }

LoadedSchedule read_schedule(const YamlNode& root, const std::string& file) {
  LoadedSchedule out;
  out.file = file;
  Problems problems;
  ConfigReader top(root, file, "", problems);
  YamlNode ops = top.list("ops", true);
  YamlNode buffers = top.list("buffers", false);
  std::string description;
  top.optional("description", description);
  top.finish();
  problems.throw_if_any();

  ScheduleGraph& g = out.graph;
  std::unordered_map<std::string, std::uint32_t> buffer_ids;
  if (buffers.is_defined()) {
      for (std::size_t i = 0; i < buffers.size(); ++i) {
        ConfigReader r(buffers[i], file, "buffers[" + std::to_string(i) + "]", problems);
        Buffer b;
        std::string space = "sbuf";
        std::uint32_t core = 0;
        r.required("name", b.name).required("bytes_per_partition", b.bytes_per_partition)
            .optional("partitions", b.partitions).optional("space", space).optional("core", core);
        r.check(!b.name.empty(), "name", "must not be empty");
        r.positive("bytes_per_partition", b.bytes_per_partition);
        r.positive("partitions", b.partitions);
        if (space == "psum") b.space = Location::psum;
        else if (space != "sbuf") r.problem("space", "expected sbuf or psum, got '" + space + "'");
        r.check(core < 256, "core", "must be below 256");
        b.core = static_cast<std::uint8_t>(core);
        r.finish();
        if (buffer_ids.count(b.name)) r.problem("name", "buffer '" + b.name + "' is declared twice");
        else {
          buffer_ids[b.name] = g.add_buffer(b);
          out.buffer_lines.push_back(static_cast<int>(buffers[i].line()) + 1);
        }
      }
  }

  std::unordered_map<std::string, OpId> ids;
  std::vector<std::vector<std::string>> deps_of;
  std::vector<std::vector<std::string>> buffers_of;
  std::vector<std::string> names;
  // Accumulation groups open on each (core, bank), in the order they were opened: a release closes the oldest.
  std::map<std::pair<int, int>, std::deque<std::uint32_t>> open_groups;
  for (std::size_t i = 0; ops.is_defined() && i < ops.size(); ++i) {
    YamlNode entry = ops[i];
    std::string label = "ops[" + std::to_string(i) + "]";
    ConfigReader r(entry, file, label, problems);
    Op op;
    std::string name;
    std::string engine, kind, dtype = "bf16", src = "hbm", dst = "sbuf", group, phase, dge;
    std::uint32_t core = 0, queue = 0, elements_per_index = 1, index_bytes = 4;
    std::int64_t psum_bank = -1, releases = -1;
    double duration_ns = -1;
    std::vector<std::string> deps, used_buffers;
    std::string func;
    std::vector<std::int64_t> tile_position, tile_size;
    r.required("name", name).required("engine", engine).optional("kind", kind).optional("core", core)
        .optional("queue", queue).optional("k", op.k).optional("m", op.m).optional("n", op.n)
        .optional("free", op.free).optional("partitions", op.partitions).optional("bytes", op.bytes)
        .optional("src", src).optional("dst", dst).optional("dtype", dtype).optional("deps", deps)
        .optional("psum_bank", psum_bank).optional("psum_group", group).optional("releases_psum_bank", releases)
        .optional("cycles", op.cycles).optional("duration_ns", duration_ns).optional("phase", phase)
        .optional("buffers", used_buffers).optional("new_stationary", op.new_stationary)
        .optional("input_in_psum", op.input_in_psum).optional("contiguous_bytes", op.contiguous_bytes)
        .optional("dge", dge).optional("elements_per_index", elements_per_index).optional("index_bytes", index_bytes)
        .optional("func", func).optional("accumulate", op.accumulate).optional("transpose", op.dma_transpose)
        .optional("tile_position", tile_position).optional("tile_size", tile_size);
    r.finish();
    if (!func.empty() && !parse_activation_function(func, op.func))
      r.problem("func", "unknown activation function '" + func + "'" + suggest(func, activation_function_names()));
    // A PE tile: its size [rows, columns] each 1 to 128, its position [row, column] each 0 to 127.
    const bool size_ok = tile_size.size() == 2 && tile_size[0] >= 1 && tile_size[0] <= 128 && tile_size[1] >= 1 &&
                         tile_size[1] <= 128;
    if (!tile_size.empty() && !size_ok) r.problem("tile_size", "expected [rows, columns], each between 1 and 128");
    if (!tile_position.empty() && (tile_position.size() != 2 || tile_position[0] < 0 || tile_position[0] > 127 ||
                                   tile_position[1] < 0 || tile_position[1] > 127))
      r.problem("tile_position", "expected [row, column], each between 0 and 127");
    if (size_ok) {
      op.tile_rows = static_cast<std::uint8_t>(tile_size[0]);
      op.tile_columns = static_cast<std::uint8_t>(tile_size[1]);
    }
    if (tile_position.size() == 2 && tile_position[0] >= 0 && tile_position[0] <= 127 && tile_position[1] >= 0 &&
        tile_position[1] <= 127) {
      op.tile_row = static_cast<std::uint8_t>(tile_position[0]);
      op.tile_column = static_cast<std::uint8_t>(tile_position[1]);
      if (tile_size.empty()) r.problem("tile_position", "needs tile_size");
    }
    // An empty name could not be named by deps or in any message (and two of them were accepted).
    r.check(!name.empty(), "name", "must not be empty");
    if (!name.empty() && ids.count(name)) r.problem("name", "op name '" + name + "' is used twice");
    if (!engine.empty() && !parse_engine(engine, op.engine))
      r.problem("engine", "unknown engine '" + engine + "'" + suggest(engine, kEngines) +
                              "; engines: tensor, vector, scalar, gpsimd, dma, collective");
    if (kind.empty()) {
      if (op.engine == Engine::dma) op.kind = OpKind::transfer;
      else if (op.engine == Engine::tensor) op.kind = OpKind::matmul;
      else if (op.engine == Engine::collective) op.kind = OpKind::all_reduce;
      else if (op.cycles >= 0 || duration_ns >= 0) op.kind = OpKind::fixed;
      else r.problem("", "missing key 'kind' (the " + engine + " engine runs several kinds of op)");
    } else if (!parse_op_kind(kind, op.kind)) {
      r.problem("kind", "unknown kind '" + kind + "'" + suggest(kind, kKinds));
    }
    if (!parse_dtype(dtype, op.dtype)) r.problem("dtype", "unknown dtype '" + dtype + "'" + suggest(dtype, kDtypes));
    if (!dge.empty()) {
      if (!parse_dge_mode(dge, op.dge))
        r.problem("dge", "unknown descriptor-generation mode '" + dge + "'" + suggest(dge, kDgeModes) +
                             "; modes: static, hwdge, swdge");
      else if (op.engine != Engine::dma && !engine.empty())
        r.problem("dge", "only DMA transfers have a descriptor-generation mode");
    }
    if (r.has("elements_per_index") || r.has("index_bytes")) {
      if (op.kind != OpKind::gather)
        r.problem(r.has("elements_per_index") ? "elements_per_index" : "index_bytes", "only gather ops have it");
      r.check(elements_per_index >= 1 && elements_per_index <= 65535, "elements_per_index",
              "must be between 1 and 65535");
      r.check(index_bytes == 1 || index_bytes == 2 || index_bytes == 4, "index_bytes", "must be 1, 2 or 4");
      op.elements_per_index = static_cast<std::uint16_t>(std::min<std::uint32_t>(elements_per_index, 65535));
      op.index_bytes = static_cast<std::uint8_t>(index_bytes);
    }
    if (!parse_location(src, op.src, op.peer_core)) r.problem("src", "expected hbm, sbuf, psum or coreN, got '" + src + "'");
    std::uint8_t dst_peer = 0;
    if (!parse_location(dst, op.dst, dst_peer)) r.problem("dst", "expected hbm, sbuf, psum or coreN, got '" + dst + "'");
    if (op.dst == Location::peer) op.peer_core = dst_peer;
    r.check(core < 256, "core", "must be below 256");
    // An exchange moves data between two cores: its peer is never the op's own core.
    if ((op.src == Location::peer || op.dst == Location::peer) && core < 256 && op.peer_core == core)
      r.problem(op.dst == Location::peer ? "dst" : "src",
                "core" + std::to_string(core) + " is the op's own core (core: " + std::to_string(core) +
                    "); an exchange goes to another core");
    r.check(queue < 65536, "queue", "must be below 65536");
    r.check(queue == 0 || op.engine == Engine::dma, "queue", "only DMA ops have a queue");
    // Bounded so that a duration in integer picoseconds cannot overflow, even summed over many ops.
    constexpr double kMaxDurationNs = 1e9, kMaxCycles = 1e9;
    r.check(op.cycles < 0 || (op.cycles > 0 && op.cycles <= kMaxCycles), "cycles", "must be positive and at most 1e9");
    r.check(duration_ns < 0 || (duration_ns > 0 && duration_ns <= kMaxDurationNs), "duration_ns",
            "must be positive and at most 1e9 (one second)");
    r.check(psum_bank >= -1 && psum_bank < 64, "psum_bank", "must be between 0 and 63");
    r.check(releases >= -1 && releases < 64, "releases_psum_bank", "must be between 0 and 63");
    if (!group.empty() && psum_bank < 0) r.problem("psum_group", "needs psum_bank");
    op.core = static_cast<std::uint8_t>(core);
    op.queue = static_cast<std::uint16_t>(queue);
    op.psum_bank = static_cast<std::int8_t>(psum_bank);
    op.releases_psum_bank = static_cast<std::int8_t>(releases);
    if (duration_ns > 0) op.duration_ps = ps_from_ns(duration_ns);
    op.phase = g.phase_id(phase);
    if (!problems.empty()) continue;  // keep reading entries to report all their problems

    if (op.engine == Engine::dma && op.dge == DgeMode::swdge) {
      // Software DGE: the GpSimd op that writes the descriptors takes the transfer's dependencies.
      const std::string gen_name = name + ".dge";
      if (ids.count(gen_name)) r.problem("name", "op name '" + gen_name + "' is taken (the swdge descriptor op of '" + name + "')");
      OpId gen = g.add_descriptor_op(op, name);
      ids[gen_name] = gen;
      out.op_lines.push_back(static_cast<int>(entry.line()) + 1);
      deps_of.push_back(deps);
      buffers_of.emplace_back();
      deps = {gen_name};
    }
    OpId id = g.add_op(op, name);
    ids[name] = id;
    out.op_lines.push_back(static_cast<int>(entry.line()) + 1);
    deps_of.push_back(deps);
    buffers_of.push_back(used_buffers);
    if (op.psum_bank >= 0) {
      std::uint32_t before = static_cast<std::uint32_t>(g.psum_groups().size());
      std::uint32_t grp = g.join_psum_group(id, group.empty() ? name : group);
      if (grp >= before) open_groups[{op.core, op.psum_bank}].push_back(grp);
    }
    if (op.releases_psum_bank >= 0) {
      auto& open = open_groups[{op.core, op.releases_psum_bank}];
      if (open.empty()) {
        r.problem("releases_psum_bank", "no PSUM group is open on bank " + std::to_string(op.releases_psum_bank) +
                                            " of core " + std::to_string(op.core) + " at this point of the list");
      } else {
        g.set_release(open.front(), id);
        open.pop_front();
      }
    }
  }
  problems.throw_if_any();
  if (ids.empty()) throw InputError(file + ": the schedule has no ops");

  std::vector<std::string> all_names;
  for (const auto& [name, id] : ids) all_names.push_back(name);
  std::vector<std::string> all_buffers;
  for (const auto& [name, id] : buffer_ids) all_buffers.push_back(name);
  OpLocator where = out.locator();
  // Did-you-mean for the first kSuggested unknown names only: 10,000 unknown deps are reported at once.
  constexpr std::size_t kSuggested = 100;
  std::size_t unknown = 0;
  auto maybe_suggest = [&](const std::string& word, const std::vector<std::string>& options) {
    return ++unknown <= kSuggested ? suggest(word, options) : std::string();
  };
  for (OpId id = 0; id < deps_of.size(); ++id) {
    for (const std::string& d : deps_of[id]) {
      auto it = ids.find(d);
      if (it == ids.end())
        problems.add(where(id) + ": deps: unknown op '" + shown_word(d) + "'" + maybe_suggest(d, all_names));
      else g.add_dep(it->second, id);
    }
    for (const std::string& b : buffers_of[id]) {
      auto it = buffer_ids.find(b);
      if (it == buffer_ids.end()) problems.add(where(id) + ": buffers: unknown buffer '" + shown_word(b) + "'" +
                                                  maybe_suggest(b, all_buffers));
      else g.use_buffer(id, it->second);
    }
  }
  problems.throw_if_any();
  return out;
}

}  // namespace stasim
