// Design sweeps (issue 40): a mechanism run at many values of its design parameters — a full
// factorial grid or a Latin hypercube — each variant's costs and, when asked, their exact gradients
// (the direct method or the adjoint, whichever is cheaper for the counts). Variants run on a
// oneTBB thread pool, each its own mechanism, models and data, so the numbers do not depend on the
// number of jobs; a variant that fails (does not assemble, meets a singular position) is a row
// with its reason, never the end of the sweep. The CLI's `sweep`, the Python module (also on a
// Dask cluster: a task is runSweep over a slice of the design) and the window's Sweep panel share it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "mechanism/mechanism.h"
#include "sensitivity/sensitivity.h"

namespace lw::sweep {

/// The variants of a sweep: `points` rows × parameters, row-major, each row one design.
struct Design {
  std::vector<std::string> parameters;
  std::vector<double> points;
  std::size_t count() const { return parameters.empty() ? 0 : points.size() / parameters.size(); }
  /// Rows [first, first + n) as a design of their own (a Dask task's share).
  Design slice(std::size_t first, std::size_t n) const;
};

/// A parameter's values in a full factorial design.
struct Axis {
  std::string parameter;
  std::vector<double> values;
};
/// n values from lo to hi, both included (n = 1: lo).
std::vector<double> evenlySpaced(double lo, double hi, int n);
/// Every combination of the axes' values, the first axis varying slowest (as itertools.product).
Design fullFactorial(const std::vector<Axis>& axes);

/// A parameter's interval in a Latin hypercube.
struct Interval {
  std::string parameter;
  double lo = 0, hi = 1;
};
/// `samples` points, each interval cut into `samples` strata and every stratum used once per
/// parameter (McKay, Beckman and Conover 1979), a point at random within its stratum. The same
/// seed gives the same design on every machine (a 64-bit Mersenne twister read bit by bit, not
/// the standard library's distributions, whose results are implementation-defined).
Design latinHypercube(const std::vector<Interval>& intervals, int samples, std::uint64_t seed);

struct SweepSpec {
  /// The analysis (kinematics or dynamics), its run (t_end, dt, formulation, integrator, tol), the
  /// costs reported (empty: every cost of the file), and the parameters whose gradients are
  /// reported (empty: the varied ones). Its method is chosen by the sweep.
  sens::SensitivitySpec study;
  bool gradients = false;  // every d(cost)/d(parameter) beside the costs
  int jobs = 0;            // threads; 0: every core
};

/// One row per variant: the parameters' values, each cost, then (with gradients) d<cost>/d<param>
/// for each cost and parameter; `errors` is empty for a variant that ran and its reason otherwise
/// (its costs and gradients are then NaN).
struct SweepResult {
  Status status;  // failed: the spec was refused (nothing ran); cancelled: the rows not run say so
  std::vector<std::string> parameters, costs, gradientParameters;
  std::vector<std::string> columns;  // parameters, costs, "d<cost>/d<parameter>"
  std::vector<double> table;         // rows × columns, row-major
  std::vector<std::string> errors;   // per row
  sens::Method method = sens::Method::Direct;  // of the gradients
  double seconds = 0;
  std::size_t rows() const { return errors.size(); }
  std::size_t failed() const;
};

/// Empty when `design` can be swept on `m` with `spec`; else the sentence that says why (an
/// unknown or computed parameter, a value outside a parameter's range, an unknown cost, no cost).
std::string refusal(const Mechanism& m, const Design& design, const SweepSpec& spec);

/// Which method gives the gradients for these counts: the direct method's cost grows with the
/// parameters (eight a pass), the adjoint's with the costs (one backward sweep each).
sens::Method gradientMethod(std::size_t parameters, std::size_t costs);

/// Runs every variant of `design` on `m`. progress(done, total) is called from the pool's threads,
/// one call at a time; `cancel` stops the sweep at the variants not yet finished (their rows say
/// "cancelled").
SweepResult runSweep(const Mechanism& m, const Design& design, const SweepSpec& spec,
                     const std::function<void(std::size_t, std::size_t)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

/// The rows of `parts` (slices of one design, in order) as one result.
SweepResult concatenate(const std::vector<SweepResult>& parts);

/// CSV: the columns and an "error" column, numbers as the runs' CSV writes them (the shortest
/// that read back bit for bit), a failed variant's numbers empty.
std::string toCsv(const SweepResult& r);

}  // namespace lw::sweep
