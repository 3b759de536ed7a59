#include "analysis/run.h"

#include <utility>

#include "mechanism/resolved.h"

namespace lw::analysis {

const Status& Results::status() const {
  return std::visit([](const auto& r) -> const Status& { return r.status; }, of);
}

const RunTable* Results::table() const {
  if (const auto* k = std::get_if<KinematicsResult>(&of)) return k;
  if (const auto* s = std::get_if<SimulationResult>(&of)) return s;
  return nullptr;
}

RunTable* Results::table() { return const_cast<RunTable*>(std::as_const(*this).table()); }

Status unresolved(const Diagnostics& d) {
  Status why = failure(Status::Code::BadRequest, 0, "the mechanism has errors");
  for (const auto& x : d)
    if (x.isError()) {
      why.message = "the mechanism has errors: " + x.format();
      break;
    }
  return why;
}

Results run(const Mechanism& m, AnalysisSpec spec, const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  if (auto* s = std::get_if<sens::SensitivitySpec>(&spec.job)) return {sens::runSensitivity(m, *s, progress, cancel)};
  Diagnostics d;
  const auto resolved = resolve(m, d);
  if (!resolved) {
    Results r;
    if (std::holds_alternative<SimulationSpec>(spec.job)) r.of = SimulationResult{};
    r.table()->status = unresolved(d);
    return r;
  }
  if (auto* k = std::get_if<KinematicsSpec>(&spec.job)) {
    if (!k->mechanism) k->mechanism = &m;
    return {runKinematics(*resolved, *k, progress, cancel)};
  }
  auto& s = std::get<SimulationSpec>(spec.job);
  if (!s.mechanism) s.mechanism = &m;
  return {runSimulation(*resolved, s, progress, cancel)};
}

}  // namespace lw::analysis
