#include "dataflows/random_dag.hpp"

#include <algorithm>

namespace stasim {

ScheduleGraph random_dag(std::size_t count, std::uint32_t cores, std::uint64_t seed) {
  Mt19937_64 rng(seed);
  // Not std::uniform_*: identical on every platform. x % n is x & (n - 1) when n is a power of two (the dependency
  // window of 64 and the two cores, which are not constants here): the same draws without a 64-bit division.
  auto pick = [&rng](std::uint64_t n) {
    std::uint64_t x = rng();
    return (n & (n - 1)) == 0 ? x & (n - 1) : x % n;
  };
  ScheduleGraph g;
  // Names are "op" and the id in at least 7 digits ("op0000042"), the next one counted up in place from the
  // last (ids come in order): formatting each anew cost more than the rest of an op's construction. A fifth of
  // the draws is a matmul that adds its drain too, so about a sixth of the ops are matmuls, each with a PSUM
  // group of its own: room for a fifth (reserved, not touched).
  g.reserve(count, count * 2, count * (count > 10000000 ? 11 : 9), count / 5 + 1);
  char name[24] = {'o', 'p', '0', '0', '0', '0', '0', '0', '0'};
  std::size_t length = 9;
  auto add = [&](const Op& op) {
    OpId id = g.add_op(op, std::string_view(name, length));
    std::size_t digit = length;
    while (digit > 2 && name[digit - 1] == '9') name[--digit] = '0';
    if (digit > 2) {
      ++name[digit - 1];
    } else {  // all nines: one digit more, "op9999999" -> "op10000000"
      name[2] = '1';
      name[length++] = '0';
    }
    return id;
  };
  std::uint32_t next_bank = 0;
  while (g.size() < count) {
    Op op;
    op.core = static_cast<std::uint8_t>(pick(cores));
    std::uint64_t roll = pick(100);
    bool matmul = false;
    if (roll < 20 && g.size() + 1 < count) {
      op.engine = Engine::tensor;
      op.kind = OpKind::matmul;
      op.k = 128;
      op.m = 128;
      op.n = static_cast<std::uint32_t>(64 + pick(449));
      op.new_stationary = pick(2) == 0;
      op.psum_bank = static_cast<std::int8_t>(next_bank++ % 8);
      matmul = true;
    } else if (roll < 40) {
      op.engine = Engine::vector;
      op.kind = pick(2) ? OpKind::tensor_tensor : OpKind::tensor_scalar;
      op.free = static_cast<std::uint32_t>(64 + pick(2048));
    } else if (roll < 55) {
      op.engine = Engine::scalar;
      op.kind = OpKind::activation;
      op.free = static_cast<std::uint32_t>(64 + pick(2048));
    } else if (roll < 65) {
      op.engine = Engine::gpsimd;
      op.kind = pick(2) ? OpKind::gather : OpKind::iota;
      op.free = static_cast<std::uint32_t>(64 + pick(4096));
    } else {
      op.engine = Engine::dma;
      op.kind = OpKind::transfer;
      op.queue = static_cast<std::uint16_t>(pick(16));
      op.bytes = 4096 + pick(256 * 1024);
      bool store = pick(5) == 0;
      op.src = store ? Location::sbuf : Location::hbm;
      op.dst = store ? Location::hbm : Location::sbuf;
    }
    OpId id = add(op);
    std::uint64_t deps = id == 0 ? 0 : 1 + pick(2);
    for (std::uint64_t d = 0; d < deps; ++d) {
      std::uint64_t window = std::min<std::uint64_t>(id, 64);
      g.add_dep(static_cast<OpId>(id - 1 - pick(window)), id);
    }
    if (matmul) {
      // A group of its own per matmul (the builders' form: no lookup of open groups by name).
      std::uint32_t group = g.new_psum_group(op.core, op.psum_bank, g.name(id));
      g.add_to_psum_group(id, group);
      Op drain;
      drain.core = op.core;
      drain.engine = Engine::vector;
      drain.kind = OpKind::tensor_copy;
      drain.free = op.n;
      drain.input_in_psum = true;
      drain.releases_psum_bank = op.psum_bank;
      OpId d = add(drain);
      g.add_dep(id, d);
      g.set_release(group, d);
    }
  }
  return g;
}

}  // namespace stasim
