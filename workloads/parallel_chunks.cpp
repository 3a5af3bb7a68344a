#include "workloads/parallel_chunks.hpp"

#include "sim/core/available_cpus.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace stasim {

int resolve_threads(int threads) { return threads > 0 ? threads : available_cpus(); }

void parallel_chunks(std::int64_t chunks, int threads, const std::function<void(std::int64_t)>& fn) {
  const int workers = static_cast<int>(std::min<std::int64_t>(resolve_threads(threads), std::max<std::int64_t>(chunks, 1)));
  if (workers <= 1) {
    for (std::int64_t c = 0; c < chunks; ++c) fn(c);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::int64_t c = next++; c < chunks && !failed; c = next++) {
      try {
        fn(c);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace stasim
