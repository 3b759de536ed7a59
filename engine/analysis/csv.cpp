#include "analysis/csv.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace lw::analysis {

std::string tableToCsv(const std::vector<std::string>& columns, const std::vector<double>& values) {
  // shortest round-trip numbers (std::to_chars): exact, and several times faster than a stream
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c) out += ',';
    out += columns[c];
  }
  out += '\n';
  const std::size_t n = columns.size();
  if (n == 0) return out;
  char buf[32];
  for (std::size_t i = 0; i < values.size() / n; ++i) {
    for (std::size_t c = 0; c < n; ++c) {
      if (c) out += ',';
      const auto res = std::to_chars(buf, buf + sizeof buf, values[i * n + c]);
      out.append(buf, res.ptr);
    }
    out += '\n';
  }
  return out;
}

std::string nonFiniteInLastRow(const std::vector<std::string>& columns, const std::vector<double>& values) {
  if (columns.empty() || values.size() < columns.size()) return {};
  const std::size_t start = values.size() - columns.size();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const double v = values[start + c];
    if (std::isfinite(v)) continue;
    std::ostringstream s;
    s << columns[c] << " is " << (std::isnan(v) ? "not a number" : "infinite") << " at t = " << values[start]
      << ": the model's numbers are beyond double precision there (a length, mass or force near 1e308, "
         "or a function of time that is not finite)";
    return s.str();
  }
  return {};
}

}  // namespace lw::analysis
