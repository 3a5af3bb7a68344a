// A synthetic schedule for benchmarking the simulator itself: a seeded random DAG over all engine kinds and
// `cores` physical cores, with local dependencies (each op depends on one or two of the previous 64), DMA
// transfers spread over 16 queues, and every matmul accumulating into a PSUM bank that a vector copy drains.
#pragma once

#include <cstdint>

#include "sim/core/schedule_graph.hpp"

namespace stasim {

ScheduleGraph random_dag(std::size_t ops, std::uint32_t cores, std::uint64_t seed);

}  // namespace stasim
