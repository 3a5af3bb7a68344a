#include "dataflows/decode_context.hpp"

#include "sim/core/input_error.hpp"

namespace stasim {

DecodeContext::DecodeContext(const ModelSpec& m, const Deployment& d, const Representation& r, const HardwareConfig& h,
                             const DataflowOptions& o, KernelBuilder& builder)
    : model(m), deployment(d), representation(r), hw(h), options(o), b(builder), lnc(h.lnc),
      tokens(static_cast<std::uint32_t>(d.batch)), hidden(static_cast<std::uint32_t>(m.hidden)),
      h_tiles(static_cast<std::uint32_t>((m.hidden + 127) / 128)), h_ready(h.lnc, kNoOp), static_gate_(h.lnc) {
  static_readers_[0].assign(h.lnc, {});
  static_readers_[1].assign(h.lnc, {});
  if (m.experts <= 0 || m.top_k <= 0) {  // no routed experts
    if (o.all_experts)
      throw InputError("--all-experts: " + m.name + " has no routed experts to run all of");
    return;
  }
  RoutingTrace trace;
  if (o.routes) {
    trace = *o.routes;
    if (trace.tokens != d.batch)
      throw InputError("the routing has " + std::to_string(trace.tokens) + " tokens but the batch is " +
                       std::to_string(d.batch) + "; give one routed token per batch entry");
    if (trace.top_k != m.top_k || trace.experts != m.experts)
      throw InputError("the routing picks " + std::to_string(trace.top_k) + " of " + std::to_string(trace.experts) +
                       " experts per token but " + m.name + " routes top-" + std::to_string(m.top_k) + " of " +
                       std::to_string(m.experts));
  } else {
    RoutingGeneratorConfig g;
    g.tokens = d.batch;
    g.top_k = m.top_k;
    g.experts = m.experts;
    g.seed = o.routing_seed;
    trace = generate_routing(g);
  }
  ShardingInputs in;
  in.cores = h.lnc;
  in.hidden = static_cast<std::uint64_t>(m.hidden);
  in.intermediate_rank = static_cast<std::uint64_t>(m.intermediate_per_rank(d.tp));
  in.all_experts = o.all_experts;
  in.split_top_k = o.split_top_k;
  experts = group_experts(trace, in);
}

void DecodeContext::begin_layer(std::int64_t layer) {
  layer_ = layer;
  std::vector<Deps>& region = static_readers_[layer & 1];
  for (std::uint32_t c = 0; c < lnc; ++c) {
    static_gate_[c] = region[c];
    region[c].clear();
  }
}

Deps DecodeContext::static_deps(std::uint32_t core) const {
  if (!options.prefetch_static) return {h_ready[core]};
  return static_gate_[core];
}

void DecodeContext::static_read(std::uint32_t core, OpId op) {
  if (op != kNoOp) static_readers_[layer_ & 1][core].push_back(op);
}

std::string label(std::uint32_t core, const std::string& block) {
  std::string out;
  out.reserve(block.size() + 4);
  out.push_back('c');
  out.append(std::to_string(core));
  out.push_back('.');
  out.append(block);
  return out;
}

std::string idx(const std::string& base, std::uint64_t i) { return base + "[" + std::to_string(i) + "]"; }

}  // namespace stasim
