// KernelProgram: a kernel written as a program, the way an NKI kernel is: declare HBM tensors, allocate SBUF
// and PSUM tiles, issue DMA transfers and engine instructions in loops, then simulate. Each instruction is
// appended to its engine's queue (or its trigger engine's DMA queue) in program order, and its dependencies come
// from the tiles it reads and writes (kernels/tile_hazards.hpp): read after write, write after read (a buffer
// reused by a later tile), write after write. No dependency is listed by hand.
//
// Tiles. sbuf(name, ...) / psum(name, ...) allocate a block of `count` tiles of [partitions, free] elements in
// the next of `bufs` rotating physical buffers of that name (as the compiler allocates a tile declared inside a
// loop): a later allocation that lands in the same buffer waits, through write-after-read, for every use of the
// one before. PSUM buffers take whole 2 KiB banks, assigned in declaration order. Every SBUF buffer is checked
// against the capacity over its lifetime.
//
// DMA queues follow the trigger engine (the DMA page: "the queue ID is typically tied to the trigger engine"):
// sync, act, pool, pe, dve, or a queue number.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/tile_hazards.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

std::uint32_t dtype_bytes(Dtype d);

struct TileView;

struct TileBlock {
  std::uint32_t slot = 0;           // physical buffer (index into the program's slots)
  std::uint32_t count = 1;          // tiles in the block
  std::uint32_t partitions = 128;
  std::uint32_t free = 0;           // elements per partition of one tile
  Dtype dtype = Dtype::bf16;
  Location space = Location::sbuf;
  TileView all() const;                  // every tile of the block
  TileView at(std::int64_t i) const;     // tile i
};

// A view of one tile of a block (or of all of them), optionally a column range of its free elements.
struct TileView {
  TileBlock block;
  std::int64_t index = -1;          // -1: the whole block
  std::uint32_t column = 0, columns = 0;   // columns 0: all
  std::uint32_t free() const { return columns ? columns : (index < 0 ? block.free * block.count : block.free); }
  std::uint32_t partitions() const { return block.partitions; }
  TileView at(std::int64_t i) const;
  TileView cols(std::uint32_t first, std::uint32_t n) const;
};

struct HbmTensor {
  std::string name;
  std::uint64_t rows = 0, cols = 0;  // row-major
  Dtype dtype = Dtype::bf16;
};

// A rectangle of an HBM tensor, one row per partition: `rows` rows of `cols` contiguous elements.
struct HbmSlice {
  HbmTensor tensor;
  std::uint64_t row = 0, rows = 0, col = 0, cols = 0;
};
HbmSlice slice(const HbmTensor& t, std::uint64_t row, std::uint64_t rows, std::uint64_t col, std::uint64_t cols);

// The engine whose sequencer triggers a transfer, naming its DMA queue (queue number = position here).
enum class DmaIssuer : std::uint8_t { sync, act, pool, pe, dve };
bool parse_dma_issuer(const std::string& text, DmaIssuer& out);
const char* dma_issuer_name(DmaIssuer issuer);

// Optional parts of an instruction.
struct InstructionOptions {
  std::string name;             // default: "<kind>#<n>"
  std::string func;             // activation function
  bool accumulate = false;      // activation / tensor_scalar / exponential: accumulator registers
  std::uint8_t tile_row = 0, tile_column = 0, tile_rows = 0, tile_columns = 0;  // matmul PE tile
  std::int64_t queue = -1;      // DMA: an explicit queue number instead of the issuer's
  std::string phase;
};

class KernelProgram {
 public:
  KernelProgram(HardwareConfig hw, std::string name, std::uint8_t core = 0);
  ~KernelProgram();
  KernelProgram(const KernelProgram&) = delete;
  KernelProgram& operator=(const KernelProgram&) = delete;

  const HardwareConfig& hw() const { return hw_; }
  const std::string& name() const { return name_; }

  HbmTensor hbm(const std::string& name, std::uint64_t rows, std::uint64_t cols, Dtype dtype);
  TileBlock sbuf(const std::string& name, std::uint32_t partitions, std::uint32_t free, Dtype dtype,
                 std::uint32_t count = 1, std::uint32_t bufs = 1);
  TileBlock psum(const std::string& name, std::uint32_t partitions, std::uint32_t free, Dtype dtype = Dtype::fp32,
                 std::uint32_t count = 1, std::uint32_t bufs = 1);

  // HBM -> SBUF, SBUF -> HBM, SBUF -> SBUF. A load whose element types differ casts (DMA: through FP32); it moves
  // the larger of what it reads and writes. `transpose`: a DMA transpose (the HBM slice is [free, partitions]).
  OpId load(const TileView& dst, const HbmSlice& src, DmaIssuer by = DmaIssuer::sync, const InstructionOptions& o = {});
  OpId load_transpose(const TileView& dst, const HbmSlice& src, DmaIssuer by = DmaIssuer::sync,
                      const InstructionOptions& o = {});
  OpId store(const HbmSlice& dst, const TileView& src, DmaIssuer by = DmaIssuer::sync, const InstructionOptions& o = {});
  OpId copy(const TileView& dst, const TileView& src, DmaIssuer by = DmaIssuer::sync, const InstructionOptions& o = {});

  // TensorE: dst (PSUM) [m, n] (+)= stationary[k, m]^T moving[k, n]; `accumulate` adds to what dst holds.
  OpId matmul(const TileView& dst, const TileView& stationary, const TileView& moving, bool accumulate,
              const InstructionOptions& o = {});
  // TensorE transpose of `src` [p, f] into PSUM [f, p].
  OpId transpose(const TileView& dst, const TileView& src, const InstructionOptions& o = {});
  // Any other instruction: `kind` on `engine`, writing `dst`, reading `srcs` (N = the first source's elements per
  // partition, or dst's when there is none).
  OpId instruction(Engine engine, OpKind kind, const TileView& dst, const std::vector<TileView>& srcs,
                   const InstructionOptions& o = {});
  OpId activation(const TileView& dst, const TileView& src, const std::string& func, const InstructionOptions& o = {});

  // Builds nothing more: validates and simulates what was issued. Bad input (a tile over capacity, an
  // instruction no engine runs) throws InputError naming the op.
  SimResult simulate();
  const ScheduleGraph& graph() const;
  std::size_t ops() const;

 private:
  struct Slot;
  OpId emit(Op op, const std::string& default_name, const InstructionOptions& o,
            const std::vector<std::pair<TileView, TileHazards::Access>>& accesses);
  TileBlock allocate(const std::string& name, Location space, std::uint32_t partitions, std::uint32_t free,
                     Dtype dtype, std::uint32_t count, std::uint32_t bufs);
  OpId dma(const TileView* tile, const HbmSlice* hbm, const TileView* other, bool tile_is_dst, DmaIssuer by,
           bool transpose, const InstructionOptions& o);

  HardwareConfig hw_;
  std::string name_;
  std::uint8_t core_;
  std::unique_ptr<ScheduleGraph> graph_;
  TileHazards hazards_;
  struct Ring;
  std::vector<std::unique_ptr<Ring>> rings_;
  std::vector<std::uint32_t> slot_buffer_;   // per slot: its SBUF buffer in the graph (or ~0u for PSUM)
  std::uint32_t psum_banks_used_ = 0;
  std::uint64_t counter_ = 0;
  // The last matmul's stationary operand (slot, index, column) and whether it was written since: a matmul with
  // the same one skips its LoadStationary.
  TileView last_stationary_{};
  bool have_stationary_ = false;
  bool stationary_written_ = false;
};

}  // namespace stasim
