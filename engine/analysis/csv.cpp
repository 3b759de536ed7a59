#include "analysis/csv.h"

#include <charconv>

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

}  // namespace lw::analysis
