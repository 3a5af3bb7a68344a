// Whole-buffer reads and writes on a file descriptor (the pipes between a process and the workers of its pool,
// sim/studies/worker_pool.hpp). Each returns false when the other end closed or an error stopped it before `size` bytes.
#pragma once

#include <cstddef>

namespace stasim {

bool write_all(int fd, const void* data, std::size_t size);
bool read_all(int fd, void* data, std::size_t size);

}  // namespace stasim
