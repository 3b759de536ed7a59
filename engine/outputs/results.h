// What every run of a mechanism over time produces, kinematic or dynamic: the table of named
// columns, the bodies' poses per row, how the run ended, and the file's costs over it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"

namespace lw::analysis {

struct RunTable {
  std::vector<std::string> columns;  // time first (see each run's toCsv)
  std::vector<double> values;        // row-major, columns.size() per row
  std::vector<double> poses;         // per row: 12 numbers per body (rotation row-major, position)
  lw::Status status;                 // ok, or the failure that stopped the run (time, place)
  // with the spec's mechanism: the file's costs over the run (integral: trapezoidal rule over the
  // steps; terminal: at the end); a cost that cannot be evaluated is in costProblem
  std::vector<std::string> costNames;
  std::vector<double> costValues;
  std::string costProblem;
  std::size_t sentRows = 0;          // rows passed to the spec's RowSink
  std::size_t rows() const { return sentRows + (columns.empty() ? 0 : values.size() / columns.size()); }
};

}  // namespace lw::analysis
