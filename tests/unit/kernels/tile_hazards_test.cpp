// The dependencies declared buffers imply (kernels/tile_hazards.hpp), without a graph.
#include <gmock/gmock.h>

#include <vector>

#include "kernels/tile_hazards.hpp"

namespace stasim {
namespace {

using testing::ElementsAre;
using testing::IsEmpty;
using testing::UnorderedElementsAre;
using Access = TileHazards::Access;

std::vector<OpId> access(TileHazards& h, OpId op, TileHazards::Part part, Access how) {
  std::vector<OpId> deps;
  h.access(op, part, how, deps);
  return deps;
}

TEST(TileHazards, ReadAfterWriteWriteAfterReadAndWriteAfterWrite) {
  TileHazards h;
  const TileHazards::Part p{3, 0};
  EXPECT_THAT(access(h, 1, p, Access::write), IsEmpty());           // nothing before it
  EXPECT_THAT(access(h, 2, p, Access::read), ElementsAre(1));       // RAW
  EXPECT_THAT(access(h, 3, p, Access::read), ElementsAre(1));       // RAW; readers do not wait for each other
  EXPECT_THAT(access(h, 4, p, Access::write), UnorderedElementsAre(1, 2, 3));  // WAW on 1, WAR on 2 and 3
  EXPECT_THAT(access(h, 5, p, Access::write), ElementsAre(4));      // WAW only: no reader since 4
  EXPECT_THAT(access(h, 6, p, Access::read), ElementsAre(5));
}

TEST(TileHazards, PartsAndSlotsAreIndependent) {
  TileHazards h;
  EXPECT_THAT(access(h, 1, {0, 0}, Access::write), IsEmpty());
  EXPECT_THAT(access(h, 2, {0, 1}, Access::write), IsEmpty());      // another tile of the block
  EXPECT_THAT(access(h, 3, {1, 0}, Access::read), IsEmpty());       // another buffer, never written
  EXPECT_THAT(access(h, 4, {0, 1}, Access::read), ElementsAre(2));
}

TEST(TileHazards, AccumulatingMatmulsFollowEachOtherWithoutWaiting) {
  TileHazards h;
  const TileHazards::Part acc{7, 0};
  // The first matmul of an accumulation overwrites: it waits for the reader of the tile's last use (the drain).
  EXPECT_THAT(access(h, 1, acc, Access::accumulate_begin), IsEmpty());
  EXPECT_THAT(access(h, 2, acc, Access::accumulate), IsEmpty());    // in the engine's order, no dependency
  EXPECT_THAT(access(h, 3, acc, Access::accumulate), IsEmpty());
  EXPECT_THAT(access(h, 4, acc, Access::read), ElementsAre(3));     // the drain waits for the last one
  // The next accumulation group into the same bank waits for that drain (WAR) and the last matmul (WAW).
  EXPECT_THAT(access(h, 5, acc, Access::accumulate_begin), UnorderedElementsAre(3, 4));
  // An accumulate after a read (no begin) is taken as a write: it waits too.
  EXPECT_THAT(access(h, 6, acc, Access::read), ElementsAre(5));
  EXPECT_THAT(access(h, 7, acc, Access::accumulate), UnorderedElementsAre(5, 6));
}

}  // namespace
}  // namespace stasim
