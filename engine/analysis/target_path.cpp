#include "analysis/target_path.h"

#include <algorithm>
#include <limits>

#include "analysis/kinematics_run.h"
#include "mechanism/resolved.h"

namespace lw::analysis {

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
  spec.tEnd = m.analysis.tEnd > 0 ? m.analysis.tEnd : 1;
  spec.dt = m.analysis.dt > 0 ? m.analysis.dt : 0.01;
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
  Cost cost;
  cost.type = Cost::Type::Targets;
  for (const Eigen::Vector2d& at : positions) {
    double best = std::numeric_limits<double>::infinity(), t = 0;
    for (std::size_t row = 0; row < run.rows(); ++row) {
      const double* v = run.values.data() + row * width;
      const double d2 = (Eigen::Vector2d(v[cx], v[cy]) - at).squaredNorm();
      if (d2 < best) best = d2, t = v[0];
    }
    cost.targets.push_back({t, {at.x(), at.y()}});
  }
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
    o.name = point.body + "_" + point.item;
    for (int k = 2; taken(o.name); ++k) o.name = point.body + "_" + point.item + "_" + std::to_string(k);
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
