#include "sim/studies/route_block_report.hpp"

#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "workloads/sha256.hpp"

namespace stasim {

void require_positive(const char* option, std::int64_t value) {
  if (value <= 0) throw InputError(std::string(option) + " must be positive, got " + std::to_string(value));
}

namespace {

std::string row_text(const Alignment& a, std::int64_t block) {
  std::ostringstream out;
  for (std::int64_t row = block * a.block_size; row < (block + 1) * a.block_size; ++row) {
    const std::int64_t r = a.rows[static_cast<size_t>(row)];
    out << (row > block * a.block_size ? " " : "");
    if (r == a.sentinel) out << "-";
    else out << r;
  }
  return out.str();
}

// Which upstream kernel this routing takes and what that means for the native order.
std::string path_text(const Alignment& a, const RoutingTrace& trace) {
  std::ostringstream out;
  out << "alignment path: " << path_name(a.path.path) << " kernel (" << trace.routes() << " routes "
      << (trace.routes() < 1024 ? "<" : ">=") << " 1024, E " << trace.experts << (trace.experts <= 64 ? " <=" : " >")
      << " 64): ";
  if (a.path.path == AlignmentPath::small_batch)
    out << a.path.threads << " counting threads, thread r mod " << a.path.threads
        << " places route r; native order is deterministic\n";
  else
    out << "atomics place the routes; native order depends on the history (a seed stands for it)\n";
  return out.str();
}

char class_letter(TileClass c) { return c == TileClass::direct ? 'D' : c == TileClass::split ? 'S' : 'F'; }

nlohmann::json hashes_json(const SurfaceHashes& h) {
  return {{"w13", h.w13}, {"activation", h.activation}, {"routed_w2", h.routed_w2}, {"final", h.final_output}};
}

}  // namespace

// ---- align -------------------------------------------------------------------------------------------

std::vector<std::int64_t> read_plan_file(const std::string& path) {
  std::istringstream in(read_input_file(path, "the plan file"));
  std::vector<std::int64_t> plan;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line[0] == '#') continue;
    for (char& ch : line)
      if (ch == ',') ch = ' ';
    std::istringstream fields(line);
    std::string field;
    while (fields >> field) {
      try {
        size_t used = 0;
        plan.push_back(std::stoll(field, &used));
        if (used != field.size()) throw std::invalid_argument(field);
      } catch (const std::exception&) {
        throw InputError(path + ":" + std::to_string(line_number) + ": route id '" + field + "' is not an integer");
      }
    }
  }
  return plan;
}

RouteAlignment report_alignment(const AlignRequest& o, std::ostream& out) {
  if (o.routes.empty() == !o.generate)
    throw InputError("align: give exactly one of --routes FILE and --generate");
  if (o.order != "native" && o.order != "canonical")
    throw InputError("align: --order must be 'native' or 'canonical', got '" + o.order + "'");
  require_positive("--experts", o.generator.experts);
  const RoutingTrace trace = o.generate ? generate_routing(o.generator) : read_routing_file(o.routes, o.generator.experts);
  const bool rule = !o.block_size_given;
  if (!rule) require_positive("--block-size", o.block_size);
  const std::int64_t b = rule ? reference_block_size(trace.routes(), trace.experts) : o.block_size;
  const AlignmentOrder order = o.order == "native" ? AlignmentOrder::native : AlignmentOrder::canonical;
  const Alignment a = o.plan.empty() ? align_routes(trace, b, order, o.seed)
                                     : align_with_plan(trace, b, read_plan_file(o.plan));
  const MembershipFingerprint fingerprint = membership_fingerprint(a);
  const std::string text = fingerprint_text(fingerprint);

  out << "routes: M " << trace.tokens << " x k " << trace.top_k << " = " << trace.routes() << ", E "
      << trace.experts << (o.generate ? " (generated, " + o.generator.distribution + ")" : " from " + o.routes)
      << '\n';
  out << path_text(a, trace);
  out << "block size " << b << (rule ? " (reference rule)" : "") << ", order " << order_name(a.order);
  const bool small = a.path.path == AlignmentPath::small_batch;
  if (a.order == AlignmentOrder::native && !small) out << " seed " << a.seed;
  if (a.order == AlignmentOrder::native && small)
    out << " (thread order" << (o.seed_given ? "; --seed " + std::to_string(o.seed) + " has no effect here" : "")
        << ")";
  out << "\nnum_tokens_post_padded " << a.num_tokens_post_padded << ", blocks " << a.blocks() << ", capacity "
      << a.capacity << " rows, sentinel " << a.sentinel << '\n';
  out << "membership fingerprint sha256 " << sha256_hex(text) << "\n\n";
  out << "block  expert  j  rows (route ids, - = padding)\n";
  for (const BlockMembership& m : fingerprint)
    out << std::setw(5) << m.block << "  " << std::setw(6) << m.expert << "  " << m.index_in_expert << "  "
        << row_text(a, m.block) << '\n';
  return {trace, rule, b, a};
}

nlohmann::json alignment_json(const RouteAlignment& result) {
  const RoutingTrace& trace = result.trace;
  const Alignment& a = result.alignment;
  const MembershipFingerprint fingerprint = membership_fingerprint(a);
  const std::string text = fingerprint_text(fingerprint);
  nlohmann::json doc;
  doc["tokens"] = trace.tokens;
  doc["top_k"] = trace.top_k;
  doc["experts"] = trace.experts;
  doc["block_size"] = result.block_size;
  doc["block_size_from_rule"] = result.block_size_from_rule;
  doc["order"] = order_name(a.order);
  doc["alignment_path"] = path_name(a.path.path);
  if (a.path.path == AlignmentPath::small_batch) doc["counting_threads"] = a.path.threads;
  doc["seed"] = a.seed;
  doc["num_tokens_post_padded"] = a.num_tokens_post_padded;
  doc["capacity"] = a.capacity;
  doc["sentinel"] = a.sentinel;
  doc["sorted_route_ids"] = a.buffer();
  doc["expert_ids"] = a.expert_ids;
  doc["fingerprint"] = text;
  doc["fingerprint_sha256"] = sha256_hex(text);
  nlohmann::json blocks = nlohmann::json::array();
  for (const BlockMembership& m : fingerprint)
    blocks.push_back({{"block", m.block}, {"expert", m.expert}, {"index_in_expert", m.index_in_expert},
                      {"members", m.routes}});
  doc["blocks"] = blocks;
  return doc;
}

// ---- partition ---------------------------------------------------------------------------------------

nlohmann::json partition_json(const WorkPartition& p) {
  nlohmann::json doc;
  doc["blocks"] = p.config.blocks;
  doc["n"] = p.config.n;
  doc["k"] = p.config.k;
  doc["thread_n"] = p.config.thread_n;
  doc["thread_k"] = p.config.thread_k;
  doc["grid"] = p.config.grid;
  doc["group_size"] = p.config.group_size;
  doc["full_k"] = p.config.full_k;
  doc["n_tiles"] = p.n_tiles;
  doc["k_tiles"] = p.k_tiles;
  doc["total_tiles"] = p.total_tiles;
  doc["waves"] = p.waves;
  doc["merged_wave"] = p.merged_wave;
  doc["direct_tiles"] = p.direct_tiles;
  doc["remainder_tiles"] = p.remainder_tiles;
  doc["remainder_start"] = p.has_remainder() ? nlohmann::json{{"block", p.remainder_start_block()},
                                                               {"n_tile", p.remainder_start_n_tile()}}
                                             : nlohmann::json();
  doc["iters"] = p.iters;
  doc["split_tiles"] = p.split_tiles;
  nlohmann::json tiles = nlohmann::json::array();
  for (std::int64_t t = 0; t < p.total_tiles; ++t) {
    const TilePlan& tile = p.tiles[static_cast<size_t>(t)];
    nlohmann::json slices = nlohmann::json::array();
    for (const KSlice& s : tile.slices)
      slices.push_back({{"worker", s.worker}, {"k_tile_begin", s.k_tile_begin}, {"k_tile_end", s.k_tile_end}});
    tiles.push_back({{"tile", t}, {"block", t / p.n_tiles}, {"n_tile", t % p.n_tiles},
                     {"class", tile_class_name(tile.tile_class)}, {"slices_in_reduction_order", slices}});
  }
  doc["tiles"] = tiles;
  return doc;
}

WorkPartition report_partition(PartitionRequest o, std::ostream& out) {
  if (o.auto_launch) {
    require_positive("--sms", o.limits.sm_count);
    require_positive("--registers-per-thread", o.limits.registers_per_thread);
    require_positive("--moe-block-size", o.moe_block_size);
    require_positive("--routed-tokens", o.routed_tokens);
    require_positive("--n", o.config.n);
    require_positive("--k", o.config.k);
    const LaunchChoice c = select_launch({o.config.n, o.config.k, o.routed_tokens, o.moe_block_size, o.config.group_size},
                                         o.limits);
    o.config.thread_n = c.thread_n;
    o.config.thread_k = c.thread_k;
    o.config.grid = c.grid;
    out << "launch rule: thread_k " << c.thread_k << ", thread_n " << c.thread_n << ", " << c.threads
        << " threads, " << c.blocks_per_sm << " blocks/SM x " << o.limits.sm_count << " SMs = grid " << c.grid;
    if (c.small_problem)
      out << " (small-problem clause: " << o.config.n / c.thread_n << " N-tiles x " << o.routed_tokens
          << " routed tokens x 4 = " << o.config.n / c.thread_n * o.routed_tokens * 4 << " < "
          << o.limits.sm_count << " SMs x " << c.resident_limit << " resident)";
    out << '\n';
  }
  const WorkPartition p = partition_work(o.config);
  out << "tiles: " << p.config.blocks << " blocks x " << p.n_tiles << " N-tiles = " << p.total_tiles << " (K: "
      << p.k_tiles << " K-tiles of " << p.config.thread_k << "), grid " << p.config.grid
      << (p.config.full_k ? ", full-K (batch-invariant)" : "") << '\n';
  out << "waves " << p.waves << ", direct tiles " << p.direct_tiles << ", remainder tiles " << p.remainder_tiles
      << (p.merged_wave ? " (one wave merged)" : "")
      << (p.config.full_k && p.has_remainder() ? " (tail: one full-K slice each)" : "") << '\n';
  if (p.has_remainder())
    out << "remainder starts at block " << p.remainder_start_block() << ", N-tile " << p.remainder_start_n_tile();
  else
    out << "no remainder: " << p.total_tiles << " tiles = " << p.waves << " full waves of " << p.config.grid;
  out << "; iters " << p.iters << "; split tiles " << p.split_tiles << "\n\n";
  // Per block, one letter per N-tile (D direct, F stream-K full-K, S split); equal neighbours are merged.
  out << "blocks   N-tile classes (D direct, F one full-K slice after the waves, S split)\n";
  std::int64_t first = 0;
  std::string previous;
  auto flush = [&](std::int64_t last) {
    std::ostringstream range;
    range << first;
    if (last > first) range << "-" << last;
    out << std::left << std::setw(9) << range.str() << std::right << previous << '\n';
  };
  for (std::int64_t block = 0; block < p.config.blocks; ++block) {
    std::string pattern;
    for (std::int64_t nt = 0; nt < p.n_tiles; ++nt) pattern += class_letter(p.tile(block, nt).tile_class);
    if (block > 0 && pattern != previous) {
      flush(block - 1);
      first = block;
    }
    previous = pattern;
  }
  flush(p.config.blocks - 1);
  return p;
}

// ---- replay ------------------------------------------------------------------------------------------

ReplayResult report_replay(const ReplayConfig& c, std::ostream& out) {
  require_positive("--grid", c.grid);
  require_positive("--no-split-grid", c.no_split_grid);
  const ReplayResult r = run_replay_experiment(c);
  const ReplayFixture& f = r.fixture;
  out << "replay: M " << c.tokens << ", k " << c.top_k << ", E " << c.experts << ", b " << c.block_size << ", H "
      << c.hidden << ", I " << c.intermediate << ", group " << c.group_size << ", tiles " << c.thread_n << "x"
      << c.thread_k << ", " << c.target_blocks << " blocks, fixture seed " << c.fixture_seed << '\n';
  out << "grid " << c.grid << ": block " << f.direct_block << " direct, block " << f.split_block
      << " split (expert " << f.boundary_expert << " spans both); H0 = native seed " << f.h0_seed
      << ", H1 = native seed " << f.h1_seed << "; they differ by routes " << f.exchange_direct_route << " <-> "
      << f.exchange_split_route << '\n';
  out << "alignment path: " << path_name(f.path.path) << " kernel (" << f.routing.routes() << " routes, E "
      << c.experts << "): native order from atomics, the seeds stand for two histories\n\n";
  out << "cell  hist  grid  W13           act           W2            final         verdict          alignment\n";
  for (const ReplayRow& row : r.rows) {
    out << std::left << std::setw(6) << row.finding << std::setw(6) << row.history << std::setw(6) << row.grid
        << std::setw(14) << row.hashes.w13.substr(0, 12) << std::setw(14) << row.hashes.activation.substr(0, 12)
        << std::setw(14) << row.hashes.routed_w2.substr(0, 12) << std::setw(14)
        << row.hashes.final_output.substr(0, 12) << std::setw(17) << row.verdict << row.plan << std::right
        << '\n';
  }
  out << '\n';
  for (const ReplayFinding& finding : r.findings)
    out << finding.number << ". " << finding.verdict << ": " << (finding.holds ? "holds" : "DOES NOT HOLD")
        << " - " << finding.detail << '\n';

  return r;
}

nlohmann::json replay_json(const ReplayConfig& c, const ReplayResult& r) {
  const ReplayFixture& f = r.fixture;
  nlohmann::json doc;
  doc["config"] = {{"tokens", c.tokens},       {"top_k", c.top_k},       {"experts", c.experts},
                   {"block_size", c.block_size}, {"blocks", c.target_blocks}, {"hidden", c.hidden},
                   {"intermediate", c.intermediate}, {"group_size", c.group_size}, {"thread_n", c.thread_n},
                   {"thread_k", c.thread_k},   {"grid", c.grid},         {"no_split_grid", c.no_split_grid},
                   {"fixture_seed", c.fixture_seed}};
  doc["fixture"] = {{"direct_block", f.direct_block}, {"split_block", f.split_block},
                    {"alignment_path", path_name(f.path.path)},
                    {"boundary_expert", f.boundary_expert}, {"h0_seed", f.h0_seed}, {"h1_seed", f.h1_seed},
                    {"exchange", {f.exchange_direct_route, f.exchange_split_route}},
                    {"expert_ids", f.routing.expert_ids}};
  nlohmann::json rows = nlohmann::json::array();
  for (const ReplayRow& row : r.rows)
    rows.push_back({{"cell", row.finding}, {"history", row.history}, {"alignment", row.plan}, {"grid", row.grid},
                    {"hashes", hashes_json(row.hashes)}, {"verdict", row.verdict}});
  doc["rows"] = rows;
  nlohmann::json findings = nlohmann::json::array();
  for (const ReplayFinding& finding : r.findings)
    findings.push_back({{"number", finding.number}, {"verdict", finding.verdict}, {"holds", finding.holds},
                        {"detail", finding.detail}});
  doc["findings"] = findings;
  doc["all_findings_hold"] = r.all_hold();
  return doc;
}

}  // namespace stasim
