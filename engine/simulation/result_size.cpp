#include "simulation/result_size.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/status.h"

namespace lw::analysis {

double defaultResultBytesLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? 0.5 * static_cast<double>(pages) * static_cast<double>(pageSize) : 4e9;
}

std::string byteSize(double bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  if (bytes >= 1e9) s << bytes / 1e9 << " GB";
  else if (bytes >= 1e6) s << bytes / 1e6 << " MB";
  else if (bytes >= 1e3) s << bytes / 1e3 << " kB";
  else s.precision(0), s << bytes << " bytes";
  return s.str();
}

std::string timeSpanProblem(double tEnd, double dt) {
  auto text = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  if (!std::isfinite(tEnd) || tEnd <= 0) return "the end time must be a finite number greater than 0 (it is " + text(tEnd) + " s)";
  if (!std::isfinite(dt) || dt <= 0) return "the time step must be a finite number greater than 0 (it is " + text(dt) + " s)";
  if (dt > tEnd) return "the time step (" + text(dt) + " s) is longer than the end time (" + text(tEnd) + " s)";
  if (tEnd / dt > kMaxSteps)
    return "the end time over the step is " + text(tEnd / dt) + " steps, more than the " + text(kMaxSteps) +
           " a run may take: lengthen the step or shorten the run";
  return {};
}

std::string wholeStepsProblem(double tEnd, double dt) {
  const double steps = tEnd / dt;
  if (std::abs(steps - std::round(steps)) <= 1e-6 * std::max(1.0, steps)) return {};
  const double below = std::floor(steps) * dt, above = std::ceil(steps) * dt;
  return "the end time (" + lw::shortNumber(tEnd) + " s) must be a whole number of steps of " + lw::shortNumber(dt) + " s: end at " +
         lw::shortNumber(below) + " or " + lw::shortNumber(above) + " s, or choose a step that divides it";
}

std::string timesProblem(const std::vector<double>& times) {
  if (static_cast<double>(times.size()) > kMaxSteps) return "more than " + std::to_string(static_cast<long long>(kMaxSteps)) + " sample times";
  for (std::size_t i = 0; i < times.size(); ++i) {
    std::ostringstream s;
    s << "sample time " << i + 1 << " (" << times[i] << " s) ";
    if (!std::isfinite(times[i]) || times[i] <= 0) return s.str() + "must be a finite number greater than 0 (t = 0 is always a row)";
    if (i > 0 && times[i] <= times[i - 1]) return s.str() + "is not after the one before it (" + std::to_string(times[i - 1]) + " s): give increasing times";
  }
  return {};
}

std::string resultSizeProblem(double rows, double perRow, double limitBytes, const std::string& remedy) {
  const double limit = limitBytes > 0 ? limitBytes : defaultResultBytesLimit();
  const double bytes = rows * perRow * static_cast<double>(sizeof(double));
  if (bytes <= limit) return {};
  return "the results would take " + byteSize(bytes) + " (" + std::to_string(std::llround(rows)) + " rows of " +
         std::to_string(std::llround(perRow)) + " numbers), more than the " + byteSize(limit) + " allowed: " + remedy;
}

}  // namespace lw::analysis
