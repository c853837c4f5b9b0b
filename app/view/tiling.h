#pragma once
/// The window's arrangement, computed (GUI-free): columns side by side, each a stack of slots,
/// tiling a rectangle with a gap between neighbours. Recomputed from the window's size every
/// frame, so a resize, a projector or a new UI scale always gives a whole window; only the
/// shares persist (the user drags the splitters between neighbours to change them).
#include <string>
#include <vector>

namespace attnlab::app {

struct Box {
  float x = 0, y = 0, w = 0, h = 0;
  float Right() const { return x + w; }
  float Bottom() const { return y + h; }
};

/// One slot of a column. `fixed` > 0: a strip of that height (no share, no splitter).
struct TileSlot {
  std::string key;
  float share = 1.0f;  ///< relative height among the column's other flexible slots
  float min = 0.0f;    ///< minimum height in pixels while the column has room for it
  float fixed = 0.0f;
};

struct TileColumn {
  std::string key;
  float share = 1.0f;  ///< relative width among the columns
  float min = 0.0f;    ///< minimum width in pixels while the area has room for it
  std::vector<TileSlot> slots;
};

struct Tile {
  std::string key;  ///< the slot's
  Box box;
  int column = 0, slot = 0;
};

/// The gap between two neighbours, where the user drags. `vertical`: between column `column` and
/// the next; else between slot `slot` of column `column` and the next flexible slot below it.
struct Splitter {
  Box box;
  bool vertical = false;
  int column = 0, slot = 0;
};

struct Tiling {
  std::vector<Box> columns;
  std::vector<Tile> tiles;  ///< every slot of every column, in column then slot order
  std::vector<Splitter> splitters;
};

/// Tiles `area`: every box lies inside it, boxes never overlap, neighbours are `gap` apart, and
/// every edge is on a whole pixel. Sizes follow the shares, raised to the minimums when the area
/// has room for them all (else the minimums shrink in proportion). Columns and slots keep their
/// order.
Tiling TileArea(const Box& area, const std::vector<TileColumn>& columns, float gap);

/// Moves `splitter` by `delta` pixels (right / down positive) within the last `tiling` of
/// `columns`: the two neighbours trade size, no one shrinks below its minimum, and the shares of
/// the two are rewritten so that TileArea() reproduces the new sizes (the others keep theirs).
void DragSplitter(std::vector<TileColumn>& columns, const Tiling& tiling, const Splitter& splitter,
                  float delta);

/// Splits `total` pixels among items with these shares and minimums, on whole pixels.
std::vector<float> Distribute(float total, const std::vector<float>& shares,
                              const std::vector<float>& mins);

}  // namespace attnlab::app
