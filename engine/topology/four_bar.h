// Four-bar loops of a planar mechanism (issue 24): ground, an input link, a coupler and an output
// link pinned in a ring. What linkage designers read off first: the Grashof type (whether a link
// turns fully) and the transmission angle (coupler to output; good between 40° and 140°).
#pragma once

#include <string>
#include <vector>

#include "mechanism/resolved.h"

namespace lw::topology {

struct FourBarLoop {
  int input = -1, coupler = -1, output = -1;  // bodies (ResolvedMechanism indices)
  int inputJoint = -1, outputJoint = -1;      // their pins to the ground
  ItemIndex groundInput, groundOutput;        // the ground pivots
  ItemIndex couplerInput, couplerOutput;      // the coupler's pins (on the coupler)
  ItemIndex inputPivot, inputPin;             // the input's points at the ground and the coupler
  ItemIndex outputPivot, outputPin;           // the output's points at the ground and the coupler
  double ground = 0, crank = 0, link = 0, rocker = 0;  // lengths d, a, b, c
  bool grashof = false;  // s + l ≤ p + q: some link turns fully
  bool changePoint = false;  // s + l = p + q: the links can fold flat
  std::string type;      // "crank-rocker", "double-crank", "double-rocker", "triple-rocker"
  /// Extremes of the transmission angle over the input's motion (degrees): the input collinear
  /// with the ground; 0 or 180 where the linkage folds before reaching them.
  double minTransmission = 0, maxTransmission = 180;
};

/// Every four-bar loop: two bodies pinned to the ground (input: the driven one, if any) and a
/// third body pinned to both. Pins only (planar).
std::vector<FourBarLoop> fourBarLoops(const ResolvedMechanism& m);

/// The transmission angle (degrees, in [0, 180]) at body poses `poses` (12 per body, as the
/// kinematics writes them; empty: the stored configuration): between the coupler's line (from its
/// output pin to its input pin) and the output link's (from that pin to its ground pivot).
double transmissionAngle(const ResolvedMechanism& m, const FourBarLoop& loop, const std::vector<double>& poses = {});

}  // namespace lw::topology
