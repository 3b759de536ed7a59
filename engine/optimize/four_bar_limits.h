// Constraints a four-bar designer asks of a tuning (issue 22), written as expressions of the
// parameters so that they show in the constraints table and can be edited: the input link turns
// fully (the Grashof conditions for that link) and the transmission angle stays within
// [μmin, 180° − μmin] over the whole turn. The link lengths are expressions of the points'
// coordinates, so they follow whatever parameters define them.
#pragma once

#include <string>
#include <vector>

#include "mechanism/mechanism.h"

namespace lw::opt {

struct FourBarLimits {
  std::string loop;                          // "crank–coupler–rocker"
  std::vector<TuningConstraint> turns;         // the input turns fully (two conditions)
  std::vector<TuningConstraint> transmission;  // the transmission angle's two extremes
};

/// For every four-bar loop of `m` (planar, pins; see topology::fourBarLoops), with links of lengths
/// a (input), b (coupler), c (output), d (ground):
///  - "<input>_turns": (b + c) − (a + d) ≥ 0 and |a − d| − |b − c| ≥ 0, together: the input turns
///    fully relative to the ground (crank-rocker, or drag link when the ground is shortest);
///  - "<input>_transmission": the cosines of the transmission angle's extremes, reached with the
///    input collinear with the ground, (b² + c² − (d ∓ a)²) / 2bc, within ±cos μmin (to four decimals;
///    cosines, not
///    angles: smooth everywhere, also where a design does not assemble).
/// `minTransmissionDeg` ≤ 0 leaves `transmission` empty. Empty when `m` has no four-bar loop or
/// does not resolve (`error` says why).
std::vector<FourBarLimits> fourBarLimits(const Mechanism& m, double minTransmissionDeg, std::string& error);

}  // namespace lw::opt
