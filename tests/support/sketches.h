// Mechanisms drawn with the sketch's edits, as a user draws them (engine tests).
#pragma once

#include <gtest/gtest.h>

#include "mechanism/edits.h"

namespace lw::test {

/// A four-bar drawn from scratch: ground pivots A (0, 0) and D (4, 0), the crank A–B, the
/// coupler B–C and the rocker C–D pinned where they meet, the crank driven.
inline Mechanism drawnFourBar(const Eigen::Vector2d& B, const Eigen::Vector2d& C) {
  Mechanism m = edit::emptyPlanar("drawn");
  EXPECT_TRUE(edit::addGroundPoint(m, {0, 0}).ok);
  EXPECT_TRUE(edit::addGroundPoint(m, {4, 0}).ok);
  auto at = [&](const Eigen::Vector2d& p) { return edit::nearestPoint(edit::sketchPoints(m), p, 1e-6); };
  EXPECT_TRUE(edit::addLink(m, {at({0, 0}), {0, 0}}, {std::nullopt, B}).ok);
  EXPECT_TRUE(edit::addLink(m, {at(B), {}}, {std::nullopt, C}).ok);
  EXPECT_TRUE(edit::addLink(m, {at(C), {}}, {at({4, 0}), {}}).ok);
  EXPECT_TRUE(edit::addCrankDriver(m, "link1").ok);
  return m;
}

}  // namespace lw::test
