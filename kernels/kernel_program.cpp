#include "kernels/kernel_program.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "sim/core/instruction_set.hpp"
#include "sim/core/printable_text.hpp"
#include "sim/kernel/simulate.hpp"

namespace stasim {
namespace {

const char* const kIssuers[] = {"sync", "act", "pool", "pe", "dve"};

bool is_16bit(Dtype d) { return d == Dtype::bf16 || d == Dtype::fp16; }

}  // namespace

std::uint32_t dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::bf16:
    case Dtype::fp16: return 2;
    case Dtype::fp32: return 4;
    default: return 1;  // fp8, int8; MX formats are counted per element byte (scales apart)
  }
}

TileView TileBlock::all() const {
  TileView v;
  v.block = *this;
  return v;
}

TileView TileBlock::at(std::int64_t i) const { return all().at(i); }

TileView TileView::at(std::int64_t i) const {
  if (i < 0 || static_cast<std::uint64_t>(i) >= block.count)
    throw InputError("tile index " + std::to_string(i) + " is outside the block of " + std::to_string(block.count) +
                     " tiles");
  TileView v = *this;
  v.index = i;
  v.column = 0;
  v.columns = 0;
  return v;
}

TileView TileView::cols(std::uint32_t first, std::uint32_t n) const {
  const std::uint32_t base = columns ? column : 0;
  const std::uint32_t width = free();
  if (n == 0 || first + n > width)
    throw InputError("columns [" + std::to_string(first) + ", " + std::to_string(first + n) + ") are outside a view of " +
                     std::to_string(width) + " elements per partition");
  TileView v = *this;
  v.column = base + first;
  v.columns = n;
  return v;
}

HbmSlice slice(const HbmTensor& t, std::uint64_t row, std::uint64_t rows, std::uint64_t col, std::uint64_t cols) {
  if (rows == 0 || cols == 0 || row + rows > t.rows || col + cols > t.cols)
    throw InputError("HBM tensor '" + t.name + "' [" + std::to_string(t.rows) + ", " + std::to_string(t.cols) +
                     "] has no slice rows [" + std::to_string(row) + ", " + std::to_string(row + rows) + ") columns [" +
                     std::to_string(col) + ", " + std::to_string(col + cols) + ")");
  return {t, row, rows, col, cols};
}

bool parse_dma_issuer(const std::string& text, DmaIssuer& out) {
  for (std::size_t i = 0; i < std::size(kIssuers); ++i)
    if (text == kIssuers[i]) {
      out = static_cast<DmaIssuer>(i);
      return true;
    }
  return false;
}

const char* dma_issuer_name(DmaIssuer issuer) { return kIssuers[static_cast<int>(issuer)]; }

// A name's rotating buffers: `bufs` physical slots taken in turn by each allocation of the name.
struct KernelProgram::Ring {
  std::string name;
  Location space;
  std::uint32_t partitions, free, count, bufs;
  Dtype dtype;
  std::uint32_t first_slot;
  std::uint32_t next = 0;
};

namespace {

// Names a program gives (kernel, tensors, tiles, instructions, phases) reach every output like a schedule file's.
void require_printable(const std::string& what, const std::string& name) {
  const std::string problem = unprintable(name);
  if (!problem.empty())
    throw InputError(what + " '" + escape_unprintable(name) + "': the name holds " + problem +
                     " (a name is printed in every output, so it must be printable UTF-8)");
}

}  // namespace

KernelProgram::KernelProgram(HardwareConfig hw, std::string name, std::uint8_t core)
    : hw_(std::move(hw)), name_(std::move(name)), core_(core), graph_(std::make_unique<ScheduleGraph>()) {
  require_printable("kernel", name_);
  if (core_ >= hw_.lnc)
    throw InputError("kernel '" + name_ + "': core " + std::to_string(core_) + " does not exist on " + hw_.name +
                     " (lnc = " + std::to_string(hw_.lnc) + ")");
}

KernelProgram::~KernelProgram() = default;

const ScheduleGraph& KernelProgram::graph() const { return *graph_; }
std::size_t KernelProgram::ops() const { return graph_->size(); }

HbmTensor KernelProgram::hbm(const std::string& name, std::uint64_t rows, std::uint64_t cols, Dtype dtype) {
  require_printable("HBM tensor", name);
  if (rows == 0 || cols == 0) throw InputError("HBM tensor '" + name + "' needs positive rows and columns");
  return {name, rows, cols, dtype};
}

TileBlock KernelProgram::allocate(const std::string& name, Location space, std::uint32_t partitions,
                                  std::uint32_t free, Dtype dtype, std::uint32_t count, std::uint32_t bufs) {
  const char* what = space == Location::psum ? "PSUM" : "SBUF";
  require_printable(std::string(what) + " tile", name);
  if (partitions == 0 || partitions > hw_.sbuf.partitions || free == 0 || count == 0 || bufs == 0)
    throw InputError(std::string(what) + " tile '" + name + "': partitions must be 1.." +
                     std::to_string(hw_.sbuf.partitions) + ", free size, count and bufs positive");
  Ring* ring = nullptr;
  for (auto& r : rings_)
    if (r->name == name) ring = r.get();
  if (ring == nullptr) {
    auto r = std::make_unique<Ring>(Ring{name, space, partitions, free, count, bufs, dtype,
                                         static_cast<std::uint32_t>(slot_buffer_.size())});
    const std::uint64_t bytes = std::uint64_t{free} * count * dtype_bytes(dtype);
    for (std::uint32_t b = 0; b < bufs; ++b) {
      if (space == Location::sbuf) {
        Buffer buffer;
        buffer.name = bufs > 1 ? name + "[" + std::to_string(b) + "]" : name;
        buffer.core = core_;
        buffer.partitions = partitions;
        buffer.bytes_per_partition = bytes;
        slot_buffer_.push_back(graph_->add_buffer(buffer));
      } else {
        // A PSUM buffer takes whole banks (2 KiB per partition each), assigned in declaration order.
        const std::uint64_t per_bank = hw_.psum.bytes_per_bank_per_partition;
        const std::uint32_t banks = static_cast<std::uint32_t>((bytes + per_bank - 1) / per_bank);
        if (psum_banks_used_ + banks > hw_.psum.banks)
          throw InputError("PSUM tile '" + name + "': buffer " + std::to_string(b) + " needs " + std::to_string(banks) +
                           " bank(s) of " + std::to_string(per_bank) + " bytes per partition, and " +
                           std::to_string(hw_.psum.banks - psum_banks_used_) + " of the " +
                           std::to_string(hw_.psum.banks) + " banks are left");
        psum_banks_used_ += banks;
        slot_buffer_.push_back(0xFFFFFFFFu);
      }
    }
    ring = r.get();
    rings_.push_back(std::move(r));
  } else if (ring->space != space || ring->partitions != partitions || ring->free != free || ring->dtype != dtype ||
             ring->count != count || ring->bufs != bufs) {
    throw InputError(std::string(what) + " tile '" + name + "' is allocated again with another shape, type or "
                     "number of buffers (each allocation of a name takes the next of its buffers)");
  }
  TileBlock block;
  block.slot = ring->first_slot + ring->next;
  ring->next = (ring->next + 1) % ring->bufs;
  block.count = count;
  block.partitions = partitions;
  block.free = free;
  block.dtype = dtype;
  block.space = space;
  return block;
}

TileBlock KernelProgram::sbuf(const std::string& name, std::uint32_t partitions, std::uint32_t free, Dtype dtype,
                              std::uint32_t count, std::uint32_t bufs) {
  return allocate(name, Location::sbuf, partitions, free, dtype, count, bufs);
}

TileBlock KernelProgram::psum(const std::string& name, std::uint32_t partitions, std::uint32_t free, Dtype dtype,
                              std::uint32_t count, std::uint32_t bufs) {
  return allocate(name, Location::psum, partitions, free, dtype, count, bufs);
}

OpId KernelProgram::emit(Op op, const std::string& default_name, const InstructionOptions& o,
                         const std::vector<std::pair<TileView, TileHazards::Access>>& accesses) {
  require_printable("instruction", o.name);
  require_printable("phase", o.phase);
  op.core = core_;
  op.phase = graph_->phase_id(o.phase);
  const OpId id = static_cast<OpId>(graph_->size());
  std::vector<OpId> deps;
  std::vector<std::uint32_t> buffers;
  for (const auto& [view, how] : accesses) {
    const std::uint32_t first = view.index < 0 ? 0 : static_cast<std::uint32_t>(view.index);
    const std::uint32_t last = view.index < 0 ? view.block.count : first + 1;
    for (std::uint32_t i = first; i < last; ++i) hazards_.access(id, {view.block.slot, i}, how, deps);
    if (how != TileHazards::Access::read && have_stationary_ && view.block.slot == last_stationary_.block.slot)
      stationary_written_ = true;
    const std::uint32_t buffer = slot_buffer_[view.block.slot];
    if (buffer != 0xFFFFFFFFu) buffers.push_back(buffer);
  }
  const OpId added = graph_->add_op(op, o.name.empty() ? default_name + "#" + std::to_string(counter_) : o.name);
  ++counter_;
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  for (OpId d : deps)
    if (d != added) graph_->add_dep(d, added);
  std::sort(buffers.begin(), buffers.end());
  buffers.erase(std::unique(buffers.begin(), buffers.end()), buffers.end());
  for (std::uint32_t b : buffers) graph_->use_buffer(added, b);
  return added;
}

OpId KernelProgram::dma(const TileView* tile, const HbmSlice* hbm, const TileView* other, bool tile_is_dst,
                        DmaIssuer by, bool transpose, const InstructionOptions& o) {
  Op op;
  op.kind = OpKind::transfer;
  op.engine = Engine::dma;
  op.partitions = tile->partitions();
  op.dtype = tile->block.dtype;
  op.dma_transpose = transpose;
  op.queue = static_cast<std::uint16_t>(o.queue >= 0 ? o.queue : static_cast<std::int64_t>(by));
  const std::uint64_t tile_bytes = std::uint64_t{tile->partitions()} * tile->free() * dtype_bytes(tile->block.dtype);
  std::uint64_t other_bytes = tile_bytes;
  if (tile->block.space != Location::sbuf)
    throw InputError("a DMA transfer moves SBUF tiles; '" + o.name + "' names a PSUM tile (copy it to SBUF first)");
  if (hbm != nullptr) {
    // One HBM row per partition (a transpose: one HBM column per partition), its columns contiguous.
    const std::uint64_t rows = transpose ? hbm->cols : hbm->rows, cols = transpose ? hbm->rows : hbm->cols;
    if (rows != tile->partitions() || cols != tile->free())
      throw InputError("DMA '" + (o.name.empty() ? std::string("transfer") : o.name) + "': the HBM slice of '" +
                       hbm->tensor.name + "' is [" + std::to_string(hbm->rows) + ", " + std::to_string(hbm->cols) +
                       "], the tile [" + std::to_string(tile->partitions()) + ", " + std::to_string(tile->free()) + "]" +
                       (transpose ? " (transposed)" : ""));
    other_bytes = hbm->rows * hbm->cols * dtype_bytes(hbm->tensor.dtype);
    op.src = tile_is_dst ? Location::hbm : Location::sbuf;
    op.dst = tile_is_dst ? Location::sbuf : Location::hbm;
    // A row shorter than the tensor's is a run of its own; a whole row continues into the next partition's.
    if (!transpose && hbm->cols < hbm->tensor.cols)
      op.contiguous_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(hbm->cols * dtype_bytes(hbm->tensor.dtype), 0xFFFFFFFFu));
  } else {
    if (other->partitions() != tile->partitions() || other->free() != tile->free())
      throw InputError("DMA copy '" + o.name + "': the tiles differ in shape");
    other_bytes = std::uint64_t{other->partitions()} * other->free() * dtype_bytes(other->block.dtype);
    op.src = Location::sbuf;
    op.dst = Location::sbuf;
  }
  // A casting transfer reads one type and writes another: it moves the larger of the two (assumed).
  op.bytes = std::max(tile_bytes, other_bytes);
  std::vector<std::pair<TileView, TileHazards::Access>> accesses;
  accesses.push_back({*tile, tile_is_dst ? TileHazards::Access::write : TileHazards::Access::read});
  if (other) accesses.push_back({*other, TileHazards::Access::read});
  InstructionOptions named = o;
  if (named.phase.empty()) named.phase = "dma";
  return emit(op, tile_is_dst ? (hbm ? "load" : "copy") : "store", named, accesses);
}

OpId KernelProgram::load(const TileView& dst, const HbmSlice& src, DmaIssuer by, const InstructionOptions& o) {
  return dma(&dst, &src, nullptr, true, by, false, o);
}

OpId KernelProgram::load_transpose(const TileView& dst, const HbmSlice& src, DmaIssuer by, const InstructionOptions& o) {
  return dma(&dst, &src, nullptr, true, by, true, o);
}

OpId KernelProgram::store(const HbmSlice& dst, const TileView& src, DmaIssuer by, const InstructionOptions& o) {
  return dma(&src, &dst, nullptr, false, by, false, o);
}

OpId KernelProgram::copy(const TileView& dst, const TileView& src, DmaIssuer by, const InstructionOptions& o) {
  return dma(&dst, nullptr, &src, true, by, false, o);
}

OpId KernelProgram::matmul(const TileView& dst, const TileView& stationary, const TileView& moving, bool accumulate,
                           const InstructionOptions& o) {
  if (dst.block.space != Location::psum || stationary.block.space != Location::sbuf || moving.block.space != Location::sbuf)
    throw InputError("matmul '" + o.name + "' reads SBUF tiles and writes a PSUM tile (ISA nc_matmul)");
  if (stationary.partitions() != moving.partitions())
    throw InputError("matmul '" + o.name + "': stationary and moving tiles have " +
                     std::to_string(stationary.partitions()) + " and " + std::to_string(moving.partitions()) +
                     " partitions (the contraction)");
  if (dst.partitions() < stationary.free() || dst.free() != moving.free())
    throw InputError("matmul '" + o.name + "': the PSUM tile [" + std::to_string(dst.partitions()) + ", " +
                     std::to_string(dst.free()) + "] does not hold the result [" + std::to_string(stationary.free()) +
                     ", " + std::to_string(moving.free()) + "]");
  Op op;
  op.kind = OpKind::matmul;
  op.engine = Engine::tensor;
  op.dtype = moving.block.dtype;
  op.partitions = stationary.partitions();
  op.k = stationary.partitions();
  op.m = stationary.free();
  op.n = moving.free();
  op.tile_row = o.tile_row;
  op.tile_column = o.tile_column;
  op.tile_rows = o.tile_rows;
  op.tile_columns = o.tile_columns;
  // The stationary operand stays loaded when the matmul before used the same one and nothing wrote it since.
  const bool same = have_stationary_ && !stationary_written_ && stationary.block.slot == last_stationary_.block.slot &&
                    stationary.index == last_stationary_.index && stationary.column == last_stationary_.column &&
                    stationary.columns == last_stationary_.columns;
  op.new_stationary = !same;
  last_stationary_ = stationary;
  have_stationary_ = true;
  stationary_written_ = false;
  InstructionOptions named = o;
  if (named.phase.empty()) named.phase = "matmul";
  return emit(op, "matmul", named,
              {{stationary, TileHazards::Access::read},
               {moving, TileHazards::Access::read},
               {dst, accumulate ? TileHazards::Access::accumulate : TileHazards::Access::accumulate_begin}});
}

OpId KernelProgram::transpose(const TileView& dst, const TileView& src, const InstructionOptions& o) {
  if (dst.block.space != Location::psum || src.block.space != Location::sbuf)
    throw InputError("transpose '" + o.name + "' reads an SBUF tile and writes a PSUM tile (TensorE)");
  Op op;
  op.kind = OpKind::transpose;
  op.engine = Engine::tensor;
  op.dtype = src.block.dtype;
  op.partitions = src.partitions();
  op.free = src.free();
  InstructionOptions named = o;
  if (named.phase.empty()) named.phase = "transpose";
  return emit(op, "transpose", named, {{src, TileHazards::Access::read}, {dst, TileHazards::Access::write}});
}

OpId KernelProgram::instruction(Engine engine, OpKind kind, const TileView& dst, const std::vector<TileView>& srcs,
                                const InstructionOptions& o) {
  Op op;
  op.kind = kind;
  op.engine = engine;
  op.partitions = dst.partitions();
  op.free = srcs.empty() ? dst.free() : srcs.front().free();
  op.accumulate = o.accumulate;
  // The BF16 performance modes need every operand 16-bit; one wider operand runs the instruction as FP32.
  bool all_16bit = is_16bit(dst.block.dtype);
  for (const TileView& s : srcs) {
    all_16bit = all_16bit && is_16bit(s.block.dtype);
    if (s.block.space == Location::psum) op.input_in_psum = true;
  }
  op.dtype = all_16bit ? Dtype::bf16 : Dtype::fp32;
  if (!o.func.empty() && !parse_activation_function(o.func, op.func))
    throw InputError("instruction '" + o.name + "': unknown activation function '" + o.func + "'");
  std::vector<std::pair<TileView, TileHazards::Access>> accesses;
  for (const TileView& s : srcs) accesses.push_back({s, TileHazards::Access::read});
  accesses.push_back({dst, TileHazards::Access::write});
  InstructionOptions named = o;
  if (named.phase.empty()) named.phase = op_kind_name(kind);
  return emit(op, op_kind_name(kind), named, accesses);
}

OpId KernelProgram::activation(const TileView& dst, const TileView& src, const std::string& func,
                               const InstructionOptions& o) {
  InstructionOptions named = o;
  named.func = func;
  return instruction(Engine::scalar, OpKind::activation, dst, {src}, named);
}

SimResult KernelProgram::simulate() {
  if (graph_->size() == 0) throw InputError("kernel '" + name_ + "' issues no instruction");
  const ScheduleGraph& g = *graph_;
  const std::string kernel = name_;
  OpLocator where = [&g, kernel](OpId id) { return "kernel '" + kernel + "': op '" + g.name(id) + "'"; };
  BufferLocator buffer_where = [&g, kernel](std::uint32_t b) {
    return "kernel '" + kernel + "': tile '" + g.buffers()[b].name + "'";
  };
  SimResult result = stasim::simulate(g, hw_, where, buffer_where);
  // The kernel's PSUM tiles hold their banks for the whole kernel (declared buffers, ordered by the tile
  // hazards rather than by bank arbitration): the peak is what they were given.
  result.psum_peak_banks = std::max(result.psum_peak_banks, psum_banks_used_);
  return result;
}

}  // namespace stasim
