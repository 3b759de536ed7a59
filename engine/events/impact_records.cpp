#include "events/impact_records.h"

#include <algorithm>
#include <cmath>

namespace lw::events {

ImpactSpeeds impactSpeeds(const ResolvedMechanism& m) {
  const double v = std::sqrt(std::max(1.0, m.gravity.norm()) * std::max(1e-3, m.lengthScale()));
  return {1e-6 * v, 1e-5 * v};
}

EventRecord impactRecord(const std::vector<GapSource>& sources, double t, const std::vector<int>& closing,
                                 const ImpactOn<double>& imp, double eBefore, double eAfter, const ImpactSpeeds& speeds) {
  EventRecord r;
  r.t = t;
  r.kind = "impact";
  for (std::size_t j = 0; j < closing.size(); ++j) {
    const auto k = static_cast<Eigen::Index>(j);
    r.contacts.push_back(sources[static_cast<std::size_t>(closing[j])].name);
    r.normalBefore.push_back(imp.normalBefore[k]);
    r.normalAfter.push_back(imp.normalAfter[k]);
    r.impulse.push_back(imp.impulse[k] + 0.0);  // no "-0" in the log
    r.grazing = r.grazing || std::abs(imp.normalBefore[k]) < speeds.grazing;
  }
  r.energyBefore = eBefore;
  r.energyAfter = eAfter;
  return r;
}

// a switch in the log: the crossing's rate (unchanged), no impulse, the energy (unchanged)
EventRecord switchRecord(const dyn::RecursiveModel& tree, const std::vector<GapSource>& sources, double t,
                                 const std::vector<int>& closing, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double energy) {
  Eigen::VectorXd gap, rate;
  contactGaps(tree, z, zd, gap, rate);
  EventRecord r;
  r.t = t;
  r.kind = "switch";
  for (int j : closing) {
    r.contacts.push_back(sources[static_cast<std::size_t>(j)].name);
    r.normalBefore.push_back(rate[j]);
    r.normalAfter.push_back(rate[j]);
    r.impulse.push_back(0);
  }
  r.energyBefore = r.energyAfter = energy;
  return r;
}

EventRecord openingRecord(const dyn::RecursiveModel& tree, const std::vector<GapSource>& sources, double t, int gap, const Eigen::VectorXd& z,
                          const Eigen::VectorXd& zd, double energy) {
  EventRecord r = switchRecord(tree, sources, t, {gap}, z, zd, energy);
  r.kind = "opens";
  return r;
}

Status mixedProblem(const std::vector<GapSource>& sources, const std::vector<int>& closing, double t) {
  std::string names;
  for (int j : closing) names += (names.empty() ? "" : ", ") + sources[static_cast<std::size_t>(j)].label();
  return failure(Status::Code::NotConverged, t,
                     names + " at the same time (t = " + shortNumber(t) +
                     " s): the sensitivities through an impact and a switch of the equations of motion at once are not defined (any "
                     "change of a parameter separates them); the simulation alone runs through it");
}

// a point that starts inside its plane, or a joint beyond its limit (past the assembly's
// round-off), is refused
std::string startsInside(const ResolvedMechanism& m, const std::vector<GapSource>& sources, const Eigen::VectorXd& gaps) {
  for (Eigen::Index j = 0; j < gaps.size(); ++j) {
    const auto& s = sources[static_cast<std::size_t>(j)];
    if (s.isSwitch()) continue;  // a coordinate past a switch's value waits for the next crossing
    if (gaps[j] < -1e-6 * std::max(1e-3, m.lengthScale()))
      return s.kind == GapSource::Kind::Contact
                 ? s.label() + ": the point starts " + shortNumber(-gaps[j]) + " m inside the plane: move it out (or the plane) before simulating"
                 : s.label() + ": joint '" + m.joints[static_cast<std::size_t>(s.joint)].name + "' starts " + shortNumber(-gaps[j]) +
                       " beyond it: assemble it within its limits before simulating";
  }
  return {};
}

}  // namespace lw::events
