// Column colouring of a sparse Jacobian for compressed forward AD (Curtis–Powell–Reid): columns
// that share no row get one colour, so one AD direction per colour recovers all of them. The
// partial distance-2 colouring of the column vertices of the bipartite row–column graph is
// ColPack's (seed 004 §5.4); ColPack stays behind this header (its headers open namespace std).
#pragma once

#include <vector>

namespace lw::num {

struct ColumnColouring {
  std::vector<int> colour;  // by column, 0 .. count−1
  int count = 0;
};

/// rows[i] = the sorted columns of row i's nonzeros; ncols columns. The result is checked:
/// no two columns of one colour share a row.
ColumnColouring colourColumns(const std::vector<std::vector<int>>& rows, int ncols);

}  // namespace lw::num
