#include "simulation/target_path.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "simulation/kinematics_run.h"
#include "mechanism/resolved.h"

namespace lw::analysis {

std::vector<double> clickTimes(const std::vector<Eigen::Vector2d>& path, const std::vector<double>& times,
                               const std::vector<Eigen::Vector2d>& clicks) {
  const std::size_t rows = path.size(), n = clicks.size();
  // a run that ends where it starts (a crank's full turns) is a loop: the first click may be
  // anywhere along it, the others follow around it; otherwise the order is the run's from t = 0
  double scale = 1e-12;
  for (const auto& p : path) scale = std::max(scale, p.norm());
  const bool loop = rows > 2 && (path.front() - path.back()).norm() < 1e-6 * scale;
  const std::size_t period = loop ? rows - 1 : rows;  // the last row of a loop is its first
  const double inf = std::numeric_limits<double>::infinity();
  double best = inf;
  std::vector<std::size_t> bestRows(n, 0);
  std::vector<double> cost(period), next(period);
  std::vector<std::vector<std::size_t>> from(n, std::vector<std::size_t>(period, 0));
  for (std::size_t start = 0; start < (loop ? period : 1); ++start) {
    // the samples in the order the point passes them from `start`; cost[r]: the least sum of
    // squared distances of clicks 0..i with click i at sample r (order k after start), the
    // clicks at strictly increasing orders
    auto sample = [&](std::size_t k) { return (start + k) % period; };
    for (std::size_t k = 0; k < period; ++k) cost[k] = (path[sample(k)] - clicks[0]).squaredNorm();
    for (std::size_t i = 1; i < n; ++i) {
      double low = inf;
      std::size_t arg = 0;
      for (std::size_t k = 0; k < period; ++k) {
        next[k] = low + (path[sample(k)] - clicks[i]).squaredNorm();
        from[i][k] = arg;
        if (cost[k] < low) low = cost[k], arg = k;
      }
      cost.swap(next);
    }
    const auto end = static_cast<std::size_t>(std::min_element(cost.begin(), cost.end()) - cost.begin());
    if (cost[end] < best) {
      best = cost[end];
      std::size_t k = end;
      for (std::size_t i = n; i-- > 0;) {
        bestRows[i] = sample(k);
        if (i > 0) k = from[i][k];
      }
    }
  }
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = times[bestRows[i]];
  if (!std::isfinite(best)) {  // more clicks than samples: each at its nearest
    for (std::size_t i = 0; i < n; ++i) {
      double d = inf;
      for (std::size_t r = 0; r < rows; ++r)
        if ((path[r] - clicks[i]).squaredNorm() < d) d = (path[r] - clicks[i]).squaredNorm(), out[i] = times[r];
    }
  }
  return out;
}

edit::EditResult addTargetPath(Mechanism& m, const Ref& point, const std::vector<Eigen::Vector2d>& positions) {
  edit::EditResult r;
  if (positions.empty()) {
    r.error = "a target path needs at least one position";
    return r;
  }
  if (point.body == kGroundName) {
    r.error = point.str() + " is on the ground: it does not move";
    return r;
  }
  if (m.dimension != 2) {
    r.error = "target paths are clicked in the planar sketch";
    return r;
  }
  Diagnostics d;
  const auto resolved = resolve(m, d);
  if (!resolved) {
    r.error = "the mechanism does not resolve: " + (d.empty() ? std::string() : d[0].format());
    return r;
  }
  const int body = resolved->findBody(point.body);
  if (body < 0) {
    r.error = "there is no link '" + point.body + "'";
    return r;
  }
  const auto& names = resolved->bodies[static_cast<std::size_t>(body)].pointNames;
  if (std::find(names.begin(), names.end(), point.item) == names.end()) {
    r.error = "link '" + point.body + "' has no point '" + point.item + "'";
    return r;
  }
  KinematicsSpec spec;
  const RunSpan span = defaultSpan(m, true);
  spec.tEnd = span.tEnd;
  spec.dt = span.dt;
  const KinematicsResult run = runKinematics(*resolved, spec);
  if (!run.status.ok() || run.rows() < 2) {
    r.error = "the mechanism does not move under its drivers (" + (run.status.ok() ? std::string("no motion") : run.status.message) +
              "): a target path needs a driven mechanism";
    return r;
  }
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(run.columns.begin(), run.columns.end(), name) - run.columns.begin());
  };
  const std::size_t cx = column(point.str() + ".x"), cy = column(point.str() + ".y"), width = run.columns.size();
  if (cx >= width || cy >= width) {
    r.error = "no positions of " + point.str() + " in the run";
    return r;
  }
  // the point's path over the run
  const std::size_t rows = run.rows();
  std::vector<Eigen::Vector2d> path(rows);
  std::vector<double> times(rows);
  for (std::size_t row = 0; row < rows; ++row) {
    const double* v = run.values.data() + row * width;
    path[row] = {v[cx], v[cy]};
    times[row] = v[0];
  }
  const std::vector<double> t = clickTimes(path, times, positions);
  Cost cost;
  cost.type = Cost::Type::Targets;
  cost.timing = Cost::Timing::Free;
  for (std::size_t i = 0; i < positions.size(); ++i) cost.targets.push_back({t[i], {positions[i].x(), positions[i].y()}});
  std::stable_sort(cost.targets.begin(), cost.targets.end(), [](const auto& a, const auto& b) { return a.t < b.t; });
  // the output it reads: an existing position output of the point, or a new one
  auto taken = [&](const std::string& n) {
    return std::any_of(m.outputs.begin(), m.outputs.end(), [&](const Output& o) { return o.name == n; }) ||
           std::any_of(m.costs.begin(), m.costs.end(), [&](const Cost& c) { return c.name == n; }) ||
           std::any_of(m.parameters.begin(), m.parameters.end(), [&](const Parameter& p) { return p.name == n; });
  };
  const auto existing = std::find_if(m.outputs.begin(), m.outputs.end(), [&](const Output& o) {
    return o.type == Output::Type::PointPosition && o.point == point;
  });
  if (existing != m.outputs.end()) {
    cost.output = existing->name;
  } else {
    Output o;
    o.type = Output::Type::PointPosition;
    o.point = point;
    o.name = edit::unusedName(point.body + "_" + point.item, taken);
    m.outputs.push_back(o);
    cost.output = o.name;
  }
  for (int k = 1;; ++k)
    if (!taken(cost.name = "path" + std::to_string(k))) break;
  m.costs.push_back(cost);
  if (!(m.analysis.tEnd > 0)) m.analysis.tEnd = spec.tEnd;
  if (!(m.analysis.dt > 0)) m.analysis.dt = spec.dt;
  r.ok = true;
  r.item = cost.name;
  r.description = "Add target path " + cost.name + " for " + point.str() + " (" + std::to_string(positions.size()) + " targets)";
  return r;
}

}  // namespace lw::analysis
