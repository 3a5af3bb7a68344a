// `stasim align`, `stasim partition`, `stasim replay`: the route-alignment commands of docs/route-blocks.md.
// Each parses its options into a plain struct and calls the workloads/ models; bad input is an InputError
// (exit 2), a replay whose findings do not hold is a SimulationError (exit 1) after the table is printed.
#include <nlohmann/json.hpp>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "sim/core/input_file.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/input_error.hpp"
#include "tools/cli.hpp"
#include "workloads/alignment.hpp"
#include "workloads/replay_experiment.hpp"
#include "workloads/sha256.hpp"
#include "workloads/work_partition.hpp"

namespace stasim::cli {
namespace {

void write_json(const std::string& path, const nlohmann::json& doc) {
  if (path == "-") {
    stdout_data() << doc.dump(2) << '\n';
    return;
  }
  write_output_file(path, doc.dump(2) + "\n", "the JSON file (--json)");
}

void require_positive(const char* option, std::int64_t value) {
  if (value <= 0) throw InputError(std::string(option) + " must be positive, got " + std::to_string(value));
}

// ---- align -------------------------------------------------------------------------------------------

struct AlignOptions {
  std::string routes;
  bool generate = false;
  RoutingGeneratorConfig generator;
  std::string order = "native";
  std::string plan;  // file of route ids per aligned row: replaces the order
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::int64_t block_size = 0;
  bool block_size_given = false;  // otherwise the reference rule chooses
  std::string json;
};

// Route ids separated by commas, spaces or newlines; '#' starts a comment line.
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

void run_align(AlignOptions o) {
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

  std::cout << "routes: M " << trace.tokens << " x k " << trace.top_k << " = " << trace.routes() << ", E "
            << trace.experts << (o.generate ? " (generated, " + o.generator.distribution + ")" : " from " + o.routes)
            << '\n';
  std::cout << path_text(a, trace);
  std::cout << "block size " << b << (rule ? " (reference rule)" : "") << ", order " << order_name(a.order);
  const bool small = a.path.path == AlignmentPath::small_batch;
  if (a.order == AlignmentOrder::native && !small) std::cout << " seed " << a.seed;
  if (a.order == AlignmentOrder::native && small)
    std::cout << " (thread order" << (o.seed_given ? "; --seed " + std::to_string(o.seed) + " has no effect here" : "")
              << ")";
  std::cout << "\nnum_tokens_post_padded " << a.num_tokens_post_padded << ", blocks " << a.blocks() << ", capacity "
            << a.capacity << " rows, sentinel " << a.sentinel << '\n';
  std::cout << "membership fingerprint sha256 " << sha256_hex(text) << "\n\n";
  std::cout << "block  expert  j  rows (route ids, - = padding)\n";
  for (const BlockMembership& m : fingerprint)
    std::cout << std::setw(5) << m.block << "  " << std::setw(6) << m.expert << "  " << m.index_in_expert << "  "
              << row_text(a, m.block) << '\n';

  if (!o.json.empty()) {
    nlohmann::json doc;
    doc["tokens"] = trace.tokens;
    doc["top_k"] = trace.top_k;
    doc["experts"] = trace.experts;
    doc["block_size"] = b;
    doc["block_size_from_rule"] = rule;
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
    write_json(o.json, doc);
  }
}

// ---- partition ---------------------------------------------------------------------------------------

struct PartitionOptions {
  WorkPartitionConfig config{0, 0, 0, 0, 0, 0, 0, false};
  bool auto_launch = false;
  LaunchLimits limits;
  std::int64_t moe_block_size = 8;
  std::int64_t routed_tokens = 0;  // tokens x top-k, for the launch rule's small-problem clause
  std::string json;
};

char class_letter(TileClass c) { return c == TileClass::direct ? 'D' : c == TileClass::split ? 'S' : 'F'; }

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

void run_partition(PartitionOptions o) {
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
    std::cout << "launch rule: thread_k " << c.thread_k << ", thread_n " << c.thread_n << ", " << c.threads
              << " threads, " << c.blocks_per_sm << " blocks/SM x " << o.limits.sm_count << " SMs = grid " << c.grid;
    if (c.small_problem)
      std::cout << " (small-problem clause: " << o.config.n / c.thread_n << " N-tiles x " << o.routed_tokens
                << " routed tokens x 4 = " << o.config.n / c.thread_n * o.routed_tokens * 4 << " < "
                << o.limits.sm_count << " SMs x " << c.resident_limit << " resident)";
    std::cout << '\n';
  }
  const WorkPartition p = partition_work(o.config);
  std::cout << "tiles: " << p.config.blocks << " blocks x " << p.n_tiles << " N-tiles = " << p.total_tiles << " (K: "
            << p.k_tiles << " K-tiles of " << p.config.thread_k << "), grid " << p.config.grid
            << (p.config.full_k ? ", full-K (batch-invariant)" : "") << '\n';
  std::cout << "waves " << p.waves << ", direct tiles " << p.direct_tiles << ", remainder tiles " << p.remainder_tiles
            << (p.merged_wave ? " (one wave merged)" : "")
            << (p.config.full_k && p.has_remainder() ? " (tail: one full-K slice each)" : "") << '\n';
  if (p.has_remainder())
    std::cout << "remainder starts at block " << p.remainder_start_block() << ", N-tile " << p.remainder_start_n_tile();
  else
    std::cout << "no remainder: " << p.total_tiles << " tiles = " << p.waves << " full waves of " << p.config.grid;
  std::cout << "; iters " << p.iters << "; split tiles " << p.split_tiles << "\n\n";
  // Per block, one letter per N-tile (D direct, F stream-K full-K, S split); equal neighbours are merged.
  std::cout << "blocks   N-tile classes (D direct, F one full-K slice after the waves, S split)\n";
  std::int64_t first = 0;
  std::string previous;
  auto flush = [&](std::int64_t last) {
    std::ostringstream range;
    range << first;
    if (last > first) range << "-" << last;
    std::cout << std::left << std::setw(9) << range.str() << std::right << previous << '\n';
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
  if (!o.json.empty()) write_json(o.json, partition_json(p));
}

// ---- replay ------------------------------------------------------------------------------------------

struct ReplayOptions {
  ReplayConfig config;
  std::string json;
};

nlohmann::json hashes_json(const SurfaceHashes& h) {
  return {{"w13", h.w13}, {"activation", h.activation}, {"routed_w2", h.routed_w2}, {"final", h.final_output}};
}

void run_replay(const ReplayOptions& o) {
  const ReplayConfig& c = o.config;
  require_positive("--grid", c.grid);
  require_positive("--no-split-grid", c.no_split_grid);
  const ReplayResult r = run_replay_experiment(c);
  const ReplayFixture& f = r.fixture;
  std::cout << "replay: M " << c.tokens << ", k " << c.top_k << ", E " << c.experts << ", b " << c.block_size << ", H "
            << c.hidden << ", I " << c.intermediate << ", group " << c.group_size << ", tiles " << c.thread_n << "x"
            << c.thread_k << ", " << c.target_blocks << " blocks, fixture seed " << c.fixture_seed << '\n';
  std::cout << "grid " << c.grid << ": block " << f.direct_block << " direct, block " << f.split_block
            << " split (expert " << f.boundary_expert << " spans both); H0 = native seed " << f.h0_seed
            << ", H1 = native seed " << f.h1_seed << "; they differ by routes " << f.exchange_direct_route << " <-> "
            << f.exchange_split_route << '\n';
  std::cout << "alignment path: " << path_name(f.path.path) << " kernel (" << f.routing.routes() << " routes, E "
            << c.experts << "): native order from atomics, the seeds stand for two histories\n\n";
  std::cout << "cell  hist  grid  W13           act           W2            final         verdict          alignment\n";
  for (const ReplayRow& row : r.rows) {
    std::cout << std::left << std::setw(6) << row.finding << std::setw(6) << row.history << std::setw(6) << row.grid
              << std::setw(14) << row.hashes.w13.substr(0, 12) << std::setw(14) << row.hashes.activation.substr(0, 12)
              << std::setw(14) << row.hashes.routed_w2.substr(0, 12) << std::setw(14)
              << row.hashes.final_output.substr(0, 12) << std::setw(17) << row.verdict << row.plan << std::right
              << '\n';
  }
  std::cout << '\n';
  for (const ReplayFinding& finding : r.findings)
    std::cout << finding.number << ". " << finding.verdict << ": " << (finding.holds ? "holds" : "DOES NOT HOLD")
              << " - " << finding.detail << '\n';

  if (!o.json.empty()) {
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
    write_json(o.json, doc);
  }
  if (!r.all_hold()) throw SimulationError("replay: not every finding holds on this fixture (see the table above)");
}

}  // namespace

void register_route_block_commands(CLI::App& app) {
  auto align = std::make_shared<AlignOptions>();
  CLI::App* a = app.add_subcommand("align", "Align routed tokens into padded per-expert blocks (moe_align_block_size)");
  a->add_option("--routes", align->routes, "routes file: .yaml/.yml/.json ({ids, weights}) or .csv (ids then weights)");
  a->add_flag("--generate", align->generate, "generate the routing instead of reading it");
  a->add_option("--tokens", align->generator.tokens, "generated tokens M")->capture_default_str();
  a->add_option("--top-k", align->generator.top_k, "generated experts per token k")->capture_default_str();
  a->add_option("--experts", align->generator.experts, "number of experts E")->capture_default_str();
  a->add_option("--distribution", align->generator.distribution, "generated: uniform or zipf")->capture_default_str();
  a->add_option("--zipf-exponent", align->generator.zipf_exponent, "generated: Zipf exponent s")->capture_default_str();
  a->add_option("--routing-seed", align->generator.seed, "generated: routing seed")->capture_default_str();
  a->add_option("--order", align->order, "native (seeded history) or canonical (expert, route id)")->capture_default_str();
  CLI::Option* seed = a->add_option("--seed", align->seed, "native order on the large-batch path: the history seed")
                          ->capture_default_str();
  a->add_option("--plan", align->plan, "inject a plan: FILE of route ids per aligned row (M*k = padding)");
  CLI::Option* block_size = a->add_option("--block-size", align->block_size, "block size b (default: the reference rule)");
  a->add_option("--json", align->json, "write the alignment as JSON to FILE ('-' for stdout)");
  a->callback([align, block_size, seed] {
    align->block_size_given = block_size->count() > 0;
    align->seed_given = seed->count() > 0;
    run_align(*align);
  });

  auto part = std::make_shared<PartitionOptions>();
  CLI::App* p = app.add_subcommand("partition", "Work partition of the MoE GEMM: data-parallel waves + stream-K");
  // Required values and the launch given by hand have no default: --help shows none (not the 0 they start at).
  p->add_option("--blocks", part->config.blocks, "P aligned MoE blocks")->required()->default_str("");
  p->add_option("--n", part->config.n, "GEMM outputs N")->required()->default_str("");
  p->add_option("--k", part->config.k, "GEMM reduction length K")->required()->default_str("");
  CLI::Option* tn = p->add_option("--thread-n", part->config.thread_n, "tile width in N")->default_str("");
  CLI::Option* tk = p->add_option("--thread-k", part->config.thread_k, "tile depth in K")->default_str("");
  CLI::Option* grid = p->add_option("--grid", part->config.grid, "G workers (GPU thread blocks)")->default_str("");
  p->add_option("--group", part->config.group_size, "weight-scale group size in K elements (default per-channel)")
      ->default_str("");
  p->add_flag("--full-k", part->config.full_k,
              "batch-invariant variant (vLLM PR #46639): full waves, then a tail, every tile one full-K slice");
  CLI::Option* autol = p->add_flag("--auto-launch", part->auto_launch,
                                   "choose thread_n, thread_k and the grid by the reference launch rule");
  CLI::Option* sms = p->add_option("--sms", part->limits.sm_count, "auto launch: SM count")->capture_default_str();
  CLI::Option* regs = p->add_option("--registers-per-thread", part->limits.registers_per_thread,
                                    "auto launch: registers per thread of the compiled kernel")->capture_default_str();
  CLI::Option* moe_block = p->add_option("--moe-block-size", part->moe_block_size, "auto launch: rows per MoE block")
                               ->capture_default_str();
  CLI::Option* routed = p->add_option("--routed-tokens", part->routed_tokens,
                                      "auto launch: routed tokens (tokens x top-k) for the small-problem clause");
  p->add_option("--json", part->json, "write the partition as JSON to FILE ('-' for stdout)");
  autol->excludes(tn)->excludes(tk)->excludes(grid);
  for (CLI::Option* only_auto : {sms, regs, moe_block}) only_auto->needs(autol);
  p->callback([part, tn, tk, grid, autol, routed] {
    if (!autol->count() && (!tn->count() || !tk->count() || !grid->count()))
      throw InputError("partition: give --thread-n, --thread-k and --grid, or --auto-launch");
    if (autol->count() && !routed->count())
      throw InputError("partition: --auto-launch needs --routed-tokens (tokens x top-k): the launch rule's "
                       "small-problem clause depends on it");
    if (!autol->count() && routed->count())
      throw InputError("partition: --routed-tokens only applies with --auto-launch");
    run_partition(*part);
  });

  auto replay = std::make_shared<ReplayOptions>();
  CLI::App* r = app.add_subcommand("replay", "Six-cell route-block replay experiment on a seeded synthetic fixture");
  r->add_option("--seed", replay->config.fixture_seed, "fixture seed (routing, activations, weights)")->capture_default_str();
  r->add_option("--grid", replay->config.grid, "grid with a direct/split boundary")->capture_default_str();
  r->add_option("--no-split-grid", replay->config.no_split_grid, "grid without split tiles")->capture_default_str();
  r->add_option("--hidden", replay->config.hidden, "H")->capture_default_str();
  r->add_option("--intermediate", replay->config.intermediate, "I")->capture_default_str();
  r->add_option("--json", replay->json, "write hashes and verdicts as JSON to FILE ('-' for stdout)");
  r->callback([replay] { run_replay(*replay); });
}

}  // namespace stasim::cli
