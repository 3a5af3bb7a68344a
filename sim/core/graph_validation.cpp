#include "sim/core/graph_validation.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "sim/core/instruction_set.hpp"

namespace stasim {
namespace {

std::uint32_t max_contraction(const HardwareConfig& hw, Dtype d) {
  if (d == Dtype::fp8) return hw.tensor.rows * hw.tensor.fp8_k_factor;
  if (d == Dtype::mxfp8 || d == Dtype::mxfp4) return hw.tensor.rows * hw.tensor.mx_k_factor;
  return hw.tensor.rows;
}

// Names the hardware key behind a limit, so a hardware value that breaks a builder's ops can be reported once,
// by that key (decode runs summarize these problems into one line).
std::string key(const char* hardware_key) { return std::string(" (") + kHardwareKeyTag + hardware_key + ")"; }

void check_op(const Op& o, OpId id, const OpLocator& who, const HardwareConfig& hw, Problems& p) {
  // The op's name is only formatted when there is a problem: this loop runs over every op of large graphs.
  auto bad = [&](const std::string& msg) { p.add(who(id) + ": " + msg); };
  if (o.core >= hw.lnc)
    bad("core " + std::to_string(o.core) + " does not exist: " + hw.name + " simulates lnc = " +
        std::to_string(hw.lnc) + " physical core(s), numbered 0.." + std::to_string(hw.lnc - 1) + key("lnc"));
  if (!engine_runs(o.engine, o.kind))
    bad(std::string("the ") + engine_name(o.engine) + " engine cannot run '" + op_kind_name(o.kind) + "' (" +
        engines_running(o.kind) + " can)");
  if (o.kind == OpKind::exponential && o.engine == Engine::vector && hw.vector.exponential_speedup <= 0)
    bad("exponential on VectorE needs NeuronCore-v4 or newer; " + hw.name + " has none" +
        key("core.engines.vector.exponential_speedup"));
  if (o.func != 0 && o.kind != OpKind::activation && o.kind != OpKind::activation_reduce)
    bad(std::string("only activations take a function (func = ") + activation_function_name(o.func) + ")");
  if (o.accumulate && o.kind != OpKind::activation && o.kind != OpKind::tensor_scalar && o.kind != OpKind::exponential)
    bad("only activation, tensor_scalar and exponential accumulate into the accumulator registers");
  if (o.dma_transpose) {
    if (o.kind != OpKind::transfer) bad("only DMA transfers transpose (dma_transpose)");
    else if (o.dtype != Dtype::bf16 && o.dtype != Dtype::fp16 && o.dtype != Dtype::fp32)
      bad(std::string("a DMA transpose moves 2- or 4-byte elements, not ") + dtype_name(o.dtype));
    else if (o.src == Location::peer || o.dst != Location::sbuf)
      bad("a DMA transpose writes SBUF, from HBM or SBUF");
  }
  if (o.kind == OpKind::matmul && (o.tile_rows > 0 || o.tile_columns > 0)) {
    const std::uint32_t rows = o.tile_rows ? o.tile_rows : hw.tensor.rows;
    const std::uint32_t cols = o.tile_columns ? o.tile_columns : hw.tensor.columns;
    auto tile_ok = [](std::uint32_t size, std::uint32_t start, std::uint32_t full, std::uint32_t min) {
      return size >= min && size <= full && full % size == 0 && (size & (size - 1)) == 0 && start % size == 0 &&
             start + size <= full;
    };
    if (!tile_ok(rows, o.tile_row, hw.tensor.rows, hw.tensor.min_tile_rows) ||
        !tile_ok(cols, o.tile_column, hw.tensor.columns, hw.tensor.min_tile_columns))
      bad("PE tile " + std::to_string(rows) + " x " + std::to_string(cols) + " at (" + std::to_string(o.tile_row) +
          ", " + std::to_string(o.tile_column) + ") is not a tile of the " + std::to_string(hw.tensor.rows) + " x " +
          std::to_string(hw.tensor.columns) + " array (sizes: powers of two from " +
          std::to_string(hw.tensor.min_tile_rows) + " rows and " + std::to_string(hw.tensor.min_tile_columns) +
          " columns, started at a multiple of the size)" + key("core.engines.tensor.min_tile_rows"));
    else if (o.k > rows || o.m > cols)
      bad("k = " + std::to_string(o.k) + " and m = " + std::to_string(o.m) + " must fit the PE tile " +
          std::to_string(rows) + " x " + std::to_string(cols));
  }
  if (o.engine == Engine::dma && o.queue >= hw.dma.queues)
    bad("DMA queue " + std::to_string(o.queue) + " does not exist (" + std::to_string(hw.dma.queues) +
        " queues per core)" + key("core.dma.queues"));
  if (o.partitions == 0 || o.partitions > hw.sbuf.partitions)
    bad("partitions = " + std::to_string(o.partitions) + " must be between 1 and " +
        std::to_string(hw.sbuf.partitions) + (o.partitions == 0 ? "" : key("core.sbuf.partitions")));
  if (o.duration_ps >= 0 || o.cycles >= 0) {
    // An explicit duration replaces the formula, so shape fields are optional.
  } else if (o.kind == OpKind::matmul) {
    if (o.k == 0 || o.m == 0 || o.n == 0) bad("matmul needs positive k, m and n");
    std::uint32_t kmax = max_contraction(hw, o.dtype);
    if (kmax == 0) bad(std::string("dtype ") + dtype_name(o.dtype) + " matmuls are not supported on " + hw.name);
    else if (o.k > kmax)
      bad("k = " + std::to_string(o.k) + " exceeds the contraction limit " + std::to_string(kmax) + " for " +
          dtype_name(o.dtype) + key("core.engines.tensor.rows"));
    if (o.m > hw.tensor.columns)
      bad("m = " + std::to_string(o.m) + " exceeds the stationary free limit " + std::to_string(hw.tensor.columns) +
          key("core.engines.tensor.columns"));
    if (o.n > hw.tensor.max_moving_free)
      bad("n = " + std::to_string(o.n) + " exceeds the moving free limit " + std::to_string(hw.tensor.max_moving_free) +
          key("core.engines.tensor.max_moving_free"));
  } else if (o.kind == OpKind::transfer || o.kind == OpKind::all_reduce || o.kind == OpKind::descriptors ||
             o.kind == OpKind::sendrecv) {
    if (o.bytes == 0)
      bad(o.kind == OpKind::all_reduce ? "an all_reduce needs positive bytes"
          : o.kind == OpKind::sendrecv ? "a sendrecv needs positive bytes"
                                       : "a DMA transfer needs positive bytes");
  } else if (o.kind == OpKind::fixed) {
    bad("kind 'fixed' needs cycles or duration_ns");
  } else if (o.free == 0) {
    bad(std::string(op_kind_name(o.kind)) + " needs a positive free size");
  }
  if (o.kind == OpKind::gather) {
    if (o.elements_per_index == 0 || (o.free > 0 && o.elements_per_index > o.free))
      bad("elements_per_index = " + std::to_string(o.elements_per_index) + " must be between 1 and the " +
          std::to_string(o.free) + " elements gathered per partition (free)");
    if (o.index_bytes != 1 && o.index_bytes != 2 && o.index_bytes != 4)
      bad("index_bytes = " + std::to_string(o.index_bytes) + " must be 1, 2 or 4");
  }
  if (o.dge != DgeMode::static_ && o.kind != OpKind::transfer && o.kind != OpKind::descriptors)
    bad(std::string("only DMA transfers have a descriptor-generation mode (dge = ") + dge_mode_name(o.dge) + ")");
  if (o.kind == OpKind::transfer && o.dge == DgeMode::hwdge && hw.dma.hwdge_instances == 0)
    bad("dge = hwdge needs a hardware descriptor-generation engine; " + hw.name +
        " has none (core.dma.hwdge_instances = 0): use swdge or static");
  if (o.kind == OpKind::transfer) {
    if (o.src == Location::peer || o.dst == Location::peer) {
      if (o.peer_core >= hw.lnc || o.peer_core == o.core)
        bad("peer core " + std::to_string(o.peer_core) + " is not another simulated core (lnc = " +
            std::to_string(hw.lnc) + ")");
    }
    if (o.src == Location::hbm && o.dst == Location::hbm) bad("an HBM-to-HBM transfer is not modelled");
  }
  if (o.psum_bank >= 0 || o.psum_group != 0xFFFFFFFFu) {
    if (o.engine != Engine::tensor) bad("only tensor-engine ops accumulate into PSUM (psum_bank)");
    if (o.psum_bank < 0) bad("psum_group needs psum_bank");
    else if (static_cast<std::uint32_t>(o.psum_bank) >= hw.psum.banks)
      bad("psum_bank " + std::to_string(o.psum_bank) + " does not exist (" + std::to_string(hw.psum.banks) +
          " banks)" + key("core.psum.banks"));
    if (o.kind == OpKind::matmul && o.n * 4ull > hw.psum.bytes_per_bank_per_partition)
      bad("n = " + std::to_string(o.n) + " FP32 outputs need " + std::to_string(o.n * 4ull) +
          " bytes per partition; a PSUM bank holds " + std::to_string(hw.psum.bytes_per_bank_per_partition) +
          key("core.psum.bytes_per_bank_per_partition"));
  }
  if (o.releases_psum_bank >= 0 && static_cast<std::uint32_t>(o.releases_psum_bank) >= hw.psum.banks)
    bad("releases_psum_bank " + std::to_string(o.releases_psum_bank) + " does not exist (" +
        std::to_string(hw.psum.banks) + " banks)" + key("core.psum.banks"));
}

// In-degree graph of dependencies plus program order (each op waits for its queue predecessor).
struct OrderGraph {
  std::vector<std::uint32_t> indegree;
  std::vector<OpId> next_in_queue;
};

OrderGraph build_order_graph(const ScheduleGraph& g) {
  OrderGraph og;
  std::size_t n = g.size();
  og.indegree.assign(n, 0);
  og.next_in_queue.assign(n, kNoOp);
  for (OpId v = 0; v < n; ++v) og.indegree[v] = static_cast<std::uint32_t>(g.in_degree(v));
  for (const Queue& q : g.queues()) {
    for (std::size_t i = 1; i < q.ops.size(); ++i) {
      og.next_in_queue[q.ops[i - 1]] = q.ops[i];
      og.indegree[q.ops[i]]++;
    }
  }
  return og;
}

// The cycle as "'a' -> 'b' -(queue order)-> 'a'", from its earliest op, which is returned in `first`.
std::string describe_cycle(const ScheduleGraph& g, const std::vector<char>& done, const OpLocator& name, OpId& first_op) {
  // Every op left over waits on another left-over op: walk waits backwards until an op repeats.
  std::size_t n = g.size();
  std::vector<OpId> prev_in_queue(n, kNoOp);
  for (const Queue& q : g.queues())
    for (std::size_t i = 1; i < q.ops.size(); ++i) prev_in_queue[q.ops[i]] = q.ops[i - 1];
  OpId start = kNoOp;
  for (OpId v = 0; v < n && start == kNoOp; ++v)
    if (!done[v]) start = v;
  std::vector<OpId> path;
  std::vector<bool> via_queue;
  std::vector<int> seen(n, -1);
  OpId cur = start;
  while (seen[cur] < 0) {
    seen[cur] = static_cast<int>(path.size());
    path.push_back(cur);
    OpId next = kNoOp;
    bool queue_edge = false;
    for (ScheduleGraph::EdgeId e : g.in_edges(cur)) {
      OpId s = g.source(e);
      if (!done[s]) { next = s; break; }
    }
    if (next == kNoOp) { next = prev_in_queue[cur]; queue_edge = true; }
    via_queue.push_back(queue_edge);
    cur = next;
  }
  // path[first..] is the cycle walked consumer -> producer; via_queue[i] is the kind of the step from path[i]
  // to its producer. List it producer -> consumer, starting from its earliest op so messages are stable.
  std::size_t first = static_cast<std::size_t>(seen[cur]);
  std::vector<OpId> nodes;
  std::vector<bool> queue_edge;  // queue_edge[k]: the edge nodes[k] -> nodes[k + 1] is program order
  for (std::size_t i = path.size(); i-- > first;) {
    nodes.push_back(path[i]);
    queue_edge.push_back(i == first ? via_queue.back() : via_queue[i - 1]);
  }
  std::size_t start_at = std::min_element(nodes.begin(), nodes.end()) - nodes.begin();
  std::string text;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    std::size_t at = (start_at + k) % nodes.size();
    text += name(nodes[at]);
    text += queue_edge[at] ? " -(queue order)-> " : " -> ";
  }
  text += name(nodes[start_at]);
  first_op = nodes[start_at];
  return text;
}

}  // namespace

std::vector<OpId> execution_order(const ScheduleGraph& g) {
  OrderGraph og = build_order_graph(g);
  std::vector<OpId> order;
  order.reserve(g.size());
  for (OpId v = 0; v < g.size(); ++v)
    if (og.indegree[v] == 0) order.push_back(v);
  for (std::size_t i = 0; i < order.size(); ++i) {
    OpId v = order[i];
    for (ScheduleGraph::EdgeId e : g.out_edges(v)) {
      OpId t = g.target(e);
      if (--og.indegree[t] == 0) order.push_back(t);
    }
    OpId nq = og.next_in_queue[v];
    if (nq != kNoOp && --og.indegree[nq] == 0) order.push_back(nq);
  }
  if (order.size() != g.size()) order.clear();
  return order;
}

void validate_graph(const ScheduleGraph& g, const HardwareConfig& hw, const OpLocator& where,
                    const BufferLocator& buffer_where) {
  OpLocator who = where ? where : [&g](OpId id) { return "op '" + g.name(id) + "'"; };
  Problems p;
  const std::size_t n = g.size();
  constexpr std::size_t kMaxReported = 50;
  for (OpId v = 0; v < n && p.list().size() < kMaxReported; ++v) check_op(g.op(v), v, who, hw, p);

  // Builders add an op's dependencies on ops made before it, and every queue lists its ops in id order (add_op
  // appends): when every edge points forward, ids themselves are an execution order, so no edge can point back
  // in its queue and there is no cycle. Only a graph with a backward edge (a hand-written schedule) needs the
  // per-queue positions and the topological sort below.
  bool forward = true;
  for (ScheduleGraph::EdgeId e = 0; e < g.edge_count() && forward; ++e) forward = g.source(e) < g.target(e);

  // A dependency on an op later in one's own queue can never be satisfied.
  std::vector<std::uint32_t> position;
  if (!forward) {
    position.assign(n, 0);
    for (const Queue& q : g.queues())
      for (std::size_t i = 0; i < q.ops.size(); ++i) position[q.ops[i]] = static_cast<std::uint32_t>(i);
  }
  for (OpId v = 0; v < n && !forward && p.list().size() < kMaxReported; ++v) {
    for (ScheduleGraph::EdgeId e : g.in_edges(v)) {
      OpId s = g.source(e);
      if (s == v) {
        p.add(who(v) + ": depends on itself");
      } else if (g.queue_of(s) == g.queue_of(v) && position[s] > position[v]) {
        p.add(who(v) + ": depends on '" + g.name(s) + "', which comes later in the same " +
              engine_name(g.op(v).engine) + " queue (positions " + std::to_string(position[v]) + " and " +
              std::to_string(position[s]) + "); program order would deadlock");
      }
    }
  }

  // An op accumulating into a bank other than its group's, or a release on another core or bank, would leave a
  // bank held forever: every later group on it would wait for a release that never comes.
  for (OpId v = 0; v < n && p.list().size() < kMaxReported; ++v) {
    const Op& o = g.op(v);
    if (o.psum_group == 0xFFFFFFFFu || o.psum_group >= g.psum_groups().size()) continue;
    const PsumGroup& grp = g.psum_groups()[o.psum_group];
    if (o.psum_bank != grp.bank || o.core != grp.core)
      p.add(who(v) + ": accumulates into PSUM bank " + std::to_string(o.psum_bank) + " of core " +
            std::to_string(o.core) + ", but its group '" + grp.name + "' holds bank " + std::to_string(grp.bank) +
            " of core " + std::to_string(grp.core) + " (from op '" + g.name(grp.first_op) + "')");
  }
  for (const PsumGroup& grp : g.psum_groups()) {
    if (grp.release_op != kNoOp) {
      const Op& r = g.op(grp.release_op);
      if (r.releases_psum_bank != grp.bank || r.core != grp.core)
        p.add(who(grp.release_op) + ": releases PSUM bank " + std::to_string(r.releases_psum_bank) + " of core " +
              std::to_string(r.core) + " for group '" + grp.name + "', which holds bank " + std::to_string(grp.bank) +
              " of core " + std::to_string(grp.core));
    }
    if (grp.release_op == kNoOp)
      p.add(who(grp.first_op) + ": PSUM group '" + grp.name + "' on bank " + std::to_string(grp.bank) +
            " is never released (give the op that drains it releases_psum_bank: " + std::to_string(grp.bank) + ")");
  }

  for (std::uint32_t i = 0; i < g.buffers().size(); ++i) {
    const Buffer& b = g.buffers()[i];
    std::string name = buffer_where ? buffer_where(i) : "buffer '" + b.name + "'";
    if (b.core >= hw.lnc) p.add(name + ": core " + std::to_string(b.core) + " does not exist");
    if (b.partitions == 0 || b.partitions > hw.sbuf.partitions)
      p.add(name + ": partitions = " + std::to_string(b.partitions) + " must be between 1 and " +
            std::to_string(hw.sbuf.partitions));
    if (b.bytes_per_partition == 0) p.add(name + ": bytes_per_partition must be positive");
    std::uint64_t limit = b.space == Location::psum ? hw.psum.banks * hw.psum.bytes_per_bank_per_partition
                                                    : hw.sbuf.usable_bytes_per_partition();
    if (b.bytes_per_partition > limit)
      p.add(name + ": " + std::to_string(b.bytes_per_partition) + " bytes per partition do not fit " +
            (b.space == Location::psum ? "PSUM" : "SBUF") + " (" + std::to_string(limit) + " usable bytes per partition)");
  }
  p.throw_if_any();

  std::vector<OpId> order;
  if (!forward) order = execution_order(g);
  if (!forward && order.empty() && n > 0) {
    OrderGraph og = build_order_graph(g);
    std::vector<char> done(n, 0);
    std::vector<OpId> ready;
    for (OpId v = 0; v < n; ++v)
      if (og.indegree[v] == 0) ready.push_back(v);
    while (!ready.empty()) {
      OpId v = ready.back();
      ready.pop_back();
      done[v] = 1;
      for (ScheduleGraph::EdgeId e : g.out_edges(v)) {
        OpId t = g.target(e);
        if (--og.indegree[t] == 0) ready.push_back(t);
      }
      OpId nq = og.next_in_queue[v];
      if (nq != kNoOp && --og.indegree[nq] == 0) ready.push_back(nq);
    }
    OpId first = kNoOp;
    std::string cycle = describe_cycle(g, done, [&g](OpId id) { return "'" + g.name(id) + "'"; }, first);
    throw InputError(who(first) + ": dependency cycle: " + cycle);
  }

  // The release of a PSUM group must wait (through deps or program order) for the group's last op, or the bank
  // could be freed under it. Search the release's ancestors, pruning ops that start before the last member in
  // an execution order (ids, when every edge points forward): the ops between the two all come after it there.
  // Most releases depend on the last member directly; the arrays of the search are made for the first that
  // does not.
  std::vector<std::uint32_t> rank;
  std::vector<OpId> prev_in_queue;
  std::vector<std::uint32_t> visited;
  auto rank_of = [&](OpId v) { return forward ? v : rank[v]; };
  std::uint32_t stamp = 0;
  std::vector<OpId> stack;  // one for every group: a search allocates nothing once it has grown
  for (const PsumGroup& grp : g.psum_groups()) {
    if (grp.release_op == kNoOp || grp.release_op == grp.last_op) continue;
    bool direct = false;
    for (ScheduleGraph::EdgeId e : g.out_edges(grp.last_op)) direct = direct || g.target(e) == grp.release_op;
    if (direct) continue;
    if (visited.empty()) {
      if (!forward) {
        rank.resize(n);
        for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = static_cast<std::uint32_t>(i);
      }
      prev_in_queue.assign(n, kNoOp);
      for (const Queue& q : g.queues())
        for (std::size_t i = 1; i < q.ops.size(); ++i) prev_in_queue[q.ops[i]] = q.ops[i - 1];
      visited.assign(n, 0xFFFFFFFFu);
    }
    ++stamp;
    bool found = false;
    stack.assign(1, grp.release_op);
    while (!stack.empty() && !found) {
      OpId v = stack.back();
      stack.pop_back();
      auto visit = [&](OpId s) {
        if (s == grp.last_op) found = true;
        if (s != kNoOp && rank_of(s) > rank_of(grp.last_op) && visited[s] != stamp) {
          visited[s] = stamp;
          stack.push_back(s);
        }
      };
      for (ScheduleGraph::EdgeId e : g.in_edges(v)) visit(g.source(e));
      visit(prev_in_queue[v]);
    }
    if (!found)
      p.add(who(grp.release_op) + ": releases PSUM bank " + std::to_string(grp.bank) + " of group '" + grp.name +
            "' but does not wait for its op '" + g.name(grp.last_op) + "' (add it to deps)");
  }
  p.throw_if_any();
}

}  // namespace stasim
