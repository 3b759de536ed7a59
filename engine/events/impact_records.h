// What a run does at its events besides the jump (internal to the run drivers, simulation/): the
// log's records of impacts, rests, openings and switches, and the refusals: a point starting
// inside its plane, an impact and a switch at once.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "core/status.h"
#include "events/contact_gaps.h"
#include "events/event_log.h"
#include "events/impact_law.h"

namespace lw::events {

/// Events are located to this (s).
inline constexpr double kEventTime = 1e-12;

/// The speeds that tell a grazing impact (its time's sensitivity unbounded, seed 001 T9) and a
/// contact coming to rest from the mechanism's scale √(g L): a contact that leaves slower than ten
/// times the grazing speed (its next bounce rising less than 1e-10 of the mechanism's size) rests,
/// so that no run, differentiated or not, meets the grazing bounces of a Zeno sequence.
struct ImpactSpeeds {
  double grazing = 0, resting = 0;
};
ImpactSpeeds impactSpeeds(const ResolvedMechanism& m);

EventRecord impactRecord(const std::vector<GapSource>& sources, double t, const std::vector<int>& closing, const ImpactOn<double>& imp,
                         double eBefore, double eAfter, const ImpactSpeeds& speeds);
/// A switch: the crossing's rate (unchanged), no impulse, the energy (unchanged: a switch turns
/// point forces and torques on and off, which store none).
EventRecord switchRecord(const dyn::RecursiveModel& tree, const std::vector<GapSource>& sources, double t, const std::vector<int>& closing,
                         const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double energy);
/// A held contact that opens (its force would pull): no jump, no impulse, the energy unchanged.
EventRecord openingRecord(const dyn::RecursiveModel& tree, const std::vector<GapSource>& sources, double t, int gap, const Eigen::VectorXd& z,
                          const Eigen::VectorXd& zd, double energy);
Status mixedProblem(const std::vector<GapSource>& sources, const std::vector<int>& closing, double t);
/// A point that starts inside its plane, or a joint beyond its limit: the sentence, or empty.
std::string startsInside(const ResolvedMechanism& m, const std::vector<GapSource>& sources, const Eigen::VectorXd& gaps);

}  // namespace lw::events
