#include "numeric/colouring.h"

#include <ColPack/ColPackHeaders.h>
#include <omp.h>

#include <map>
#include <stdexcept>
#include <string>

namespace lw::num {

ColumnColouring colourColumns(const std::vector<std::vector<int>>& rows, int ncols) {
  ColumnColouring out;
  out.colour.assign(static_cast<std::size_t>(ncols), 0);
  if (rows.empty() || ncols == 0) return out;
  // ADOL-C's compressed row format: entry 0 is the count, then the column indices
  std::vector<std::vector<unsigned int>> storage(rows.size());
  std::vector<unsigned int*> pattern(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    storage[i].push_back(static_cast<unsigned int>(rows[i].size()));
    for (int c : rows[i]) storage[i].push_back(static_cast<unsigned int>(c));
    pattern[i] = storage[i].data();
  }
  // on this thread alone (ColPack's OpenMP regions otherwise split the ordering among a thread
  // pool: a colouring once per run gains nothing from it, and its work and allocations on each
  // thread would vary from run to run); the setting is this thread's and is restored
  struct OneThread {
    int threads = omp_get_max_threads();
    OneThread() { omp_set_num_threads(1); }
    ~OneThread() { omp_set_num_threads(threads); }
  } oneThread;
  ColPack::BipartiteGraphPartialColoringInterface graph(SRC_MEM_ADOLC, pattern.data(), static_cast<int>(rows.size()), ncols);
  graph.PartialDistanceTwoColoring("SMALLEST_LAST", "COLUMN_PARTIAL_DISTANCE_TWO");
  std::vector<int> colours;
  graph.GetRightVertexColors(colours);
  if (colours.size() != static_cast<std::size_t>(ncols))
    throw std::runtime_error("ColPack returned " + std::to_string(colours.size()) + " column colours for " + std::to_string(ncols) + " columns");
  // number the colours in use 0 .. count−1
  std::map<int, int> index;
  for (int c : colours) index.emplace(c, 0);
  for (auto& [c, i] : index) i = out.count++;
  for (std::size_t j = 0; j < colours.size(); ++j) out.colour[j] = index[colours[j]];
  // a wrong colouring would silently mix columns: check that no row sees one colour twice
  std::vector<int> seen(static_cast<std::size_t>(out.count), -1);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (int c : rows[i]) {
      int& s = seen[static_cast<std::size_t>(out.colour[static_cast<std::size_t>(c)])];
      if (s == static_cast<int>(i)) throw std::runtime_error("ColPack colouring is not structurally orthogonal at row " + std::to_string(i));
      s = static_cast<int>(i);
    }
  return out;
}

}  // namespace lw::num
