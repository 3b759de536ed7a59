#include "outputs/csv.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace lw::analysis {

void appendCsvHeader(const std::vector<std::string>& columns, std::string& out) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c) out += ',';
    out += columns[c];
  }
  out += '\n';
}

void appendCsvRows(std::size_t width, std::span<const double> values, std::string& out) {
  // shortest round-trip numbers (std::to_chars): exact, and several times faster than a stream
  if (width == 0) return;
  char buf[32];
  for (std::size_t i = 0; i < values.size() / width; ++i) {
    for (std::size_t c = 0; c < width; ++c) {
      if (c) out += ',';
      const auto res = std::to_chars(buf, buf + sizeof buf, values[i * width + c]);
      out.append(buf, res.ptr);
    }
    out += '\n';
  }
}

std::string tableToCsv(const std::vector<std::string>& columns, const std::vector<double>& values) {
  std::string out;
  appendCsvHeader(columns, out);
  appendCsvRows(columns.size(), values, out);
  return out;
}

void sendRows(const RowSink& sink, const std::vector<std::string>& columns, std::vector<double>& values, std::size_t& sent) {
  if (!sink || values.empty() || columns.empty()) return;
  sink(columns, values);
  sent += values.size() / columns.size();
  values.clear();
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
