// How the `stasim` binary uses memory (the executable only, not the library: a program embedding stasim keeps
// its own allocator and malloc settings).
//
// operator new: large blocks (the per-op arrays of a graph and of a run: tens to hundreds of MiB for a million
// ops) are asked to be backed by 2 MiB transparent huge pages (madvise), so filling them takes one page fault
// per 2 MiB instead of one per 4 KiB. On this project's VM the 1 M-op bench spent a quarter of its wall time
// in page faults (about 55,000 of them, filling some 200 MiB). Where THP is set to `never` the advice is
// ignored. Every block of at least one huge page (2 MiB) is allocated aligned to 2 MiB and rounded up to whole
// huge pages, or the advice would cover only the whole pages inside it and leave its ends on 4 KiB pages: a
// per-op array of four bytes for a million ops (3.8 MiB) then had half its memory, or all of it below 4 MiB,
// on small pages, some 8,000 page faults of the 1 M-op bench (a page fault exception costs this VM several
// microseconds besides the zeroing): 0.71 s -> 0.65 s, median of 7. The price is the unused rest of a block's
// last huge page, which is zeroed and kept whole from its first touch: peak memory of that bench 192 -> 202
// MiB, of the 5 M-op bench 889 -> 928 MiB (195 bytes per op), of `stasim run` 42 -> 46 MiB. Before main(),
// this also puts SystemC's static 3 MiB scratch heap, zeroed at once, on huge pages (it took some 750 small
// page faults, a tenth of a `stasim run`). Memory is still malloc's (the default operator delete frees it).
// Left out under AddressSanitizer, whose own operator new must pair with its operator delete.
//
// keep_freed_memory(): blocks up to malloc's largest mmap threshold (32 MiB) come from its heap instead of a
// mapping of their own, and freed memory stays in the process, so the next block (a vector that grows, the
// next simulation of a sweep worker or of `auto`) reuses pages already mapped instead of faulting in new ones.
#include "tools/process_memory.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace stasim::cli {

void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 16 << 20);
  // The heap's first 24 MiB on huge pages: malloc serves the many small and middling blocks of a run from it
  // and keeps what is freed, so they fault in a dozen 2 MiB pages instead of thousands of 4 KiB ones.
  constexpr std::size_t kHeapBytes = std::size_t{24} << 20, kPage = std::size_t{2} << 20;
  if (void* block = std::malloc(kHeapBytes)) {
    std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(block) + kPage - 1) & ~(kPage - 1);
    std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(block) + kHeapBytes) & ~(kPage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    std::free(block);
  }
}

}  // namespace stasim::cli

// GCC says AddressSanitizer by __SANITIZE_ADDRESS__, clang (the fuzz build) by __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STASIM_ADDRESS_SANITIZER
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define STASIM_ADDRESS_SANITIZER
#endif

#if !defined(STASIM_ADDRESS_SANITIZER)
namespace {

constexpr std::uintptr_t kHugePageBytes = std::uintptr_t{2} << 20;

void advise_huge_pages(void* block, std::size_t bytes) {
  // Only whole 2 MiB pages inside the block, so the advice covers no memory of other blocks.
  std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(block) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(block) + bytes) & ~(kHugePageBytes - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
}

}  // namespace

void* operator new(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  const bool huge = bytes >= kHugePageBytes;
  if (huge) bytes = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  void* block;
  while ((block = huge ? std::aligned_alloc(kHugePageBytes, bytes) : std::malloc(bytes)) == nullptr) {
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
  if (huge) advise_huge_pages(block, bytes);
  return block;
}
#endif
