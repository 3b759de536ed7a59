// A result table (named columns, row-major values) as CSV text: a header row, then one row per
// step with the shortest numbers that read back exactly.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace lw::analysis {

std::string tableToCsv(const std::vector<std::string>& columns, const std::vector<double>& values);
/// The header line, and rows (row-major, columns.size() each) as CSV lines, appended to `out`.
void appendCsvHeader(const std::vector<std::string>& columns, std::string& out);
void appendCsvRows(std::size_t width, std::span<const double> values, std::string& out);

/// Where a run's rows go as they are computed instead of being kept in its result (a long run
/// written to a file in flat memory): called with the columns and a block of whole rows.
using RowSink = std::function<void(const std::vector<std::string>& columns, std::span<const double> rows)>;
/// Passes the whole rows in `values` to `sink`, empties `values` and counts the rows into `sent`.
void sendRows(const RowSink& sink, const std::vector<std::string>& columns, std::vector<double>& values, std::size_t& sent);

/// Empty when the last row of `values` is all finite; otherwise the sentence naming the first
/// column that is not and the row's time (the first column), for a run to stop with.
std::string nonFiniteInLastRow(const std::vector<std::string>& columns, const std::vector<double>& values);

}  // namespace lw::analysis
