#include "sweep/sweep.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <charconv>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <set>

#include "analysis/run.h"
#include "outputs/csv.h"
#include "mechanism/parameters.h"
#include "optimize/optimize.h"

namespace lw::sweep {

Design Design::slice(std::size_t first, std::size_t n) const {
  Design d;
  d.parameters = parameters;
  const std::size_t np = parameters.size();
  first = std::min(first, count());
  n = std::min(n, count() - first);
  d.points.assign(points.begin() + static_cast<std::ptrdiff_t>(first * np), points.begin() + static_cast<std::ptrdiff_t>((first + n) * np));
  return d;
}

std::vector<double> evenlySpaced(double lo, double hi, int n) {
  std::vector<double> v;
  if (n <= 0) return v;
  if (n == 1) return {lo};
  for (int i = 0; i < n; ++i) v.push_back(i == n - 1 ? hi : lo + (hi - lo) * i / (n - 1));
  return v;
}

Design fullFactorial(const std::vector<Axis>& axes) {
  Design d;
  std::size_t total = axes.empty() ? 0 : 1;
  for (const auto& a : axes) {
    d.parameters.push_back(a.parameter);
    total *= a.values.size();
  }
  d.points.reserve(total * axes.size());
  std::vector<std::size_t> index(axes.size(), 0);
  for (std::size_t row = 0; row < total; ++row) {
    for (std::size_t k = 0; k < axes.size(); ++k) d.points.push_back(axes[k].values[index[k]]);
    // the last axis fastest
    for (std::size_t k = axes.size(); k-- > 0;) {
      if (++index[k] < axes[k].values.size()) break;
      index[k] = 0;
    }
  }
  return d;
}

Design latinHypercube(const std::vector<Interval>& intervals, int samples, std::uint64_t seed) {
  Design d;
  for (const auto& i : intervals) d.parameters.push_back(i.parameter);
  if (samples <= 0 || intervals.empty()) return d;
  std::mt19937_64 bits(seed);
  // uniform in [0, 1) from the top 53 bits; an index below n by rejection (no modulo bias)
  auto uniform = [&] { return static_cast<double>(bits() >> 11) * 0x1.0p-53; };
  auto below = [&](std::uint64_t n) {
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    for (;;)
      if (const std::uint64_t r = bits(); r < limit) return r % n;
  };
  const auto n = static_cast<std::size_t>(samples);
  d.points.assign(n * intervals.size(), 0);
  std::vector<std::size_t> strata(n);
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    std::iota(strata.begin(), strata.end(), 0);
    for (std::size_t i = n; i > 1; --i) std::swap(strata[i - 1], strata[below(i)]);  // Fisher–Yates
    const auto& in = intervals[k];
    for (std::size_t row = 0; row < n; ++row)
      d.points[row * intervals.size() + k] = in.lo + (in.hi - in.lo) * ((static_cast<double>(strata[row]) + uniform()) / static_cast<double>(n));
  }
  return d;
}

std::size_t SweepResult::failed() const {
  return static_cast<std::size_t>(std::count_if(errors.begin(), errors.end(), [](const std::string& e) { return !e.empty(); }));
}

namespace {

const Parameter* findParameter(const Mechanism& m, const std::string& name) {
  for (const auto& p : m.parameters)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> costNames(const Mechanism& m, const SweepSpec& spec) {
  if (!spec.study.costs.empty()) return spec.study.costs;
  std::vector<std::string> names;
  for (const auto& c : m.costs) names.push_back(c.name);
  return names;
}

std::vector<std::string> gradientNames(const Design& design, const SweepSpec& spec) {
  if (!spec.gradients) return {};
  return spec.study.parameters.empty() ? design.parameters : spec.study.parameters;
}

std::string list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::string refusal(const Mechanism& m, const Design& design, const SweepSpec& spec) {
  if (design.parameters.empty()) return "no parameter is varied";
  if (design.count() == 0) return "the design has no variant";
  std::set<std::string> seen;
  for (std::size_t k = 0; k < design.parameters.size(); ++k) {
    const std::string& name = design.parameters[k];
    if (!seen.insert(name).second) return "parameter '" + name + "' is varied twice";
    const Parameter* p = findParameter(m, name);
    if (!p) {
      std::vector<std::string> names;
      for (const auto& q : m.parameters) names.push_back(q.name);
      return "unknown parameter '" + name + "'" + (names.empty() ? std::string(" (the file has no parameters)") : " (the file's: " + list(names) + ")");
    }
    if (!p->value.isLiteral()) return "parameter '" + name + "' is an expression of others: vary those instead";
    for (std::size_t row = 0; row < design.count(); ++row) {
      const double v = design.points[row * design.parameters.size() + k];
      if (!std::isfinite(v)) return "parameter '" + name + "' is given a value that is not a number";
      if (std::string why = outsideRange(*p, v); !why.empty()) return why;
    }
  }
  const auto costs = costNames(m, spec);
  if (costs.empty()) return "the mechanism has no costs: a sweep reports costs (add one, e.g. Model > Add Cost in the window)";
  for (const auto& c : costs)
    if (std::none_of(m.costs.begin(), m.costs.end(), [&](const Cost& x) { return x.name == c; }))
      return "unknown cost '" + c + "'";
  for (const auto& g : gradientNames(design, spec))
    if (!findParameter(m, g)) return "unknown parameter '" + g + "' (for the gradients)";
  return {};
}

sens::Method gradientMethod(std::size_t parameters, std::size_t costs) {
  // a pass of the direct method carries eight parameters; the adjoint costs about 1.3 passes per cost
  const std::size_t directPasses = (parameters + 7) / 8;
  return 4 * costs < 3 * directPasses ? sens::Method::Adjoint : sens::Method::Direct;
}

namespace {

// one variant: the mechanism at its values (joints closed), its costs and gradients into `row`
std::string runVariant(const Mechanism& m, const std::vector<std::string>& names, const double* values, const SweepSpec& spec,
                       const std::vector<std::string>& costs, const std::vector<std::string>& gradientParameters, sens::Method method,
                       const std::atomic<bool>* cancel, double* row) {
  Mechanism v = m;
  const std::vector<double> at(values, values + names.size());
  if (Status s = opt::setParameters(v, names, at); !s.ok()) return s.message;
  const std::size_t nc = costs.size();
  if (spec.gradients) {
    sens::SensitivitySpec study = spec.study;
    study.method = method;
    study.parameters = gradientParameters;
    study.costs = costs;
    study.histories = nullptr;
    const sens::SensitivityResult r = sens::runSensitivity(v, study, {}, cancel);
    if (!r.status.ok()) return r.status.message;
    const sens::Gradient& g = r.methods.front();
    for (std::size_t c = 0; c < nc; ++c) {
      row[c] = g.values[c];
      for (std::size_t k = 0; k < gradientParameters.size(); ++k)
        row[nc + c * gradientParameters.size() + k] = g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k));
    }
    return {};
  }
  analysis::AnalysisSpec job;
  // the rows are not kept: a sweep reports costs
  const analysis::RowSink discard = [](const std::vector<std::string>&, std::span<const double>) {};
  if (spec.study.analysis == sens::Analysis::Kinematics) {
    analysis::KinematicsSpec k;
    k.tEnd = spec.study.run.tEnd;
    k.dt = spec.study.run.dt;
    k.rows = discard;
    job.job = k;
  } else {
    analysis::SimulationSpec s = spec.study.run;
    s.observer = nullptr;
    s.penaltyObserver = nullptr;
    s.rows = discard;
    job.job = s;
  }
  const analysis::Results r = analysis::run(v, std::move(job), {}, cancel);
  if (!r.status().ok()) return r.status().message;
  const analysis::RunTable& t = *r.table();
  if (!t.costProblem.empty()) return t.costProblem;
  for (std::size_t c = 0; c < nc; ++c) {
    const auto found = std::find(t.costNames.begin(), t.costNames.end(), costs[c]);
    if (found == t.costNames.end()) return "cost '" + costs[c] + "' was not evaluated";
    row[c] = t.costValues[static_cast<std::size_t>(found - t.costNames.begin())];
  }
  return {};
}

}  // namespace

SweepResult runSweep(const Mechanism& m, const Design& design, const SweepSpec& spec,
                     const std::function<void(std::size_t, std::size_t)>& progress, const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  SweepResult r;
  if (std::string why = refusal(m, design, spec); !why.empty()) {
    r.status = failure(Status::Code::BadRequest, 0, why);
    return r;
  }
  r.parameters = design.parameters;
  r.costs = costNames(m, spec);
  r.gradientParameters = gradientNames(design, spec);
  r.method = gradientMethod(r.gradientParameters.size(), r.costs.size());
  r.columns = r.parameters;
  for (const auto& c : r.costs) r.columns.push_back(c);
  for (const auto& c : r.costs)
    for (const auto& p : r.gradientParameters) r.columns.push_back("d" + c + "/d" + p);
  const std::size_t rows = design.count(), np = r.parameters.size(), width = r.columns.size();
  r.table.assign(rows * width, std::numeric_limits<double>::quiet_NaN());
  r.errors.assign(rows, {});
  for (std::size_t i = 0; i < rows; ++i)
    std::copy_n(design.points.begin() + static_cast<std::ptrdiff_t>(i * np), np, r.table.begin() + static_cast<std::ptrdiff_t>(i * width));

  std::mutex told;
  std::size_t done = 0;
  auto one = [&](std::size_t i) {
    double* row = r.table.data() + i * width;
    std::string error;
    if (cancel && cancel->load()) error = "cancelled";
    else {
      try {
        error = runVariant(m, r.parameters, row, spec, r.costs, r.gradientParameters, r.method, cancel, row + np);
      } catch (const std::exception& e) {
        error = std::string("internal error: ") + e.what();
      }
      if (error.empty() && cancel && cancel->load()) error = "cancelled";
    }
    if (!error.empty()) {
      std::fill(row + np, row + width, std::numeric_limits<double>::quiet_NaN());
      r.errors[i] = error;
    }
    std::lock_guard lock(told);
    ++done;
    if (progress) progress(done, rows);
  };
  const int jobs = spec.jobs > 0 ? spec.jobs : tbb::this_task_arena::max_concurrency();
  if (jobs == 1) {
    for (std::size_t i = 0; i < rows; ++i) one(i);
  } else {
    // each variant a task of its own (a variant lasts milliseconds to minutes: no grain to tune)
    tbb::task_arena arena(jobs);
    arena.execute([&] { tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rows, 1), [&](const auto& range) {
                          for (std::size_t i = range.begin(); i != range.end(); ++i) one(i);
                        }, tbb::simple_partitioner()); });
  }
  if (cancel && cancel->load()) r.status = failure(Status::Code::Cancelled, 0, "the sweep was cancelled");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

SweepResult concatenate(const std::vector<SweepResult>& parts) {
  SweepResult r;
  if (parts.empty()) return r;
  r = parts.front();
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const auto& p = parts[k];
    if (!p.status.ok() && r.status.ok()) r.status = p.status;
    r.table.insert(r.table.end(), p.table.begin(), p.table.end());
    r.errors.insert(r.errors.end(), p.errors.begin(), p.errors.end());
    r.seconds += p.seconds;
  }
  return r;
}

namespace {
// an error sentence may hold commas and quotes
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}
}  // namespace

std::string toCsv(const SweepResult& r) {
  std::string out;
  std::vector<std::string> header = r.columns;
  header.push_back("error");
  analysis::appendCsvHeader(header, out);
  const std::size_t width = r.columns.size();
  char buf[32];
  for (std::size_t i = 0; i < r.rows(); ++i) {
    for (std::size_t k = 0; k < width; ++k) {
      // the runs' CSV numbers (outputs/csv.h: shortest round trip); a failed variant's empty
      if (const double v = r.table[i * width + k]; std::isfinite(v)) out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
      out += ',';
    }
    out += csvField(r.errors[i]) + "\n";
  }
  return out;
}

}  // namespace lw::sweep
