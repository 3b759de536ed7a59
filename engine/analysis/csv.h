// A result table (named columns, row-major values) as CSV text: a header row, then one row per
// step with the shortest numbers that read back exactly.
#pragma once

#include <string>
#include <vector>

namespace lw::analysis {

std::string tableToCsv(const std::vector<std::string>& columns, const std::vector<double>& values);

/// Empty when the last row of `values` is all finite; otherwise the sentence naming the first
/// column that is not and the row's time (the first column), for a run to stop with.
std::string nonFiniteInLastRow(const std::vector<std::string>& columns, const std::vector<double>& values);

}  // namespace lw::analysis
