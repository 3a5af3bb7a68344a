// `stasim align`, `stasim partition`, `stasim replay`: the route-alignment commands of docs/route-blocks.md.
// Each parses its options into a request of the public API (include/stasim/route_blocks.hpp), which prints the
// table; bad input is an InputError (exit 2), a replay whose findings do not hold is a SimulationError (exit 1)
// after the table is printed.
#include <nlohmann/json.hpp>

#include <iostream>

#include "stasim/io.hpp"
#include "stasim/route_blocks.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

void write_json(const std::string& path, const nlohmann::json& doc) {
  if (path == "-") {
    stdout_data() << doc.dump(2) << '\n';
    return;
  }
  write_output_file(path, doc.dump(2) + "\n", "the JSON file (--json)");
}

struct AlignOptions : AlignRequest {
  std::string json;
};

struct PartitionOptions : PartitionRequest {
  std::string json;
};

struct ReplayOptions {
  ReplayConfig config;
  std::string json;
};

void run_align(const AlignOptions& o) {
  const RouteAlignment result = report_alignment(o, std::cout);
  if (!o.json.empty()) write_json(o.json, alignment_json(result));
}

void run_partition(const PartitionOptions& o) {
  const WorkPartition partition = report_partition(o, std::cout);
  if (!o.json.empty()) write_json(o.json, partition_json(partition));
}

void run_replay(const ReplayOptions& o) {
  const ReplayResult r = report_replay(o.config, std::cout);
  if (!o.json.empty()) write_json(o.json, replay_json(o.config, r));
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
