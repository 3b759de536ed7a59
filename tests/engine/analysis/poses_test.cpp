// The body poses stored with kinematic and dynamic results place every body point where the
// result's point columns say (they drive the 3D playback).
#include <gtest/gtest.h>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "scene/scene_builder.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

ResolvedMechanism load(const std::string& name) { return test::sampleResolved(name); }

template <class Result>
void checkPoses(const ResolvedMechanism& m, const Result& r, std::size_t rows, const std::string& label) {
  const std::size_t n = r.columns.size(), nb = m.bodies.size();
  ASSERT_EQ(r.poses.size(), rows * 12 * nb) << label;
  for (std::size_t i = 0; i < rows; ++i) {
    const double* pose = &r.poses[i * 12 * nb];
    const scene::SceneFrame f = scene::frameFromPoses(m, pose, r.values[i * n]);
    ASSERT_EQ(f.bodyPoses.size(), nb);
    for (std::size_t b = 1; b < nb; ++b)
      for (std::size_t p = 0; p < m.bodies[b].points.size(); ++p) {
        Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(pose + 12 * b);
        const Eigen::Vector3d x(pose[12 * b + 9], pose[12 * b + 10], pose[12 * b + 11]);
        const Eigen::Vector3d w = x + R * m.bodies[b].points[p];
        const std::string base = m.bodies[b].name + "." + m.bodies[b].pointNames[p] + ".";
        for (int k = 0; k < m.dimension; ++k) {
          const auto c = static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), base + "xyz"[k]) - r.columns.begin());
          ASSERT_LT(c, n) << base;
          EXPECT_NEAR(w[k], r.values[i * n + c], 1e-9) << label << " " << base << "xyz"[k] << " row " << i;
        }
      }
  }
}

TEST(ResultPoses, KinematicsPosesMatchThePoints) {
  for (const char* name : {"four-bar", "jansen-leg", "rssr"}) {
    const auto m = load(name);
    KinematicsSpec spec;
    spec.tEnd = 0.3;
    spec.dt = 0.05;
    const auto r = runKinematics(m, spec);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    checkPoses(m, r, r.steps(), name);
  }
}

TEST(ResultPoses, DynamicsPosesMatchThePoints) {
  for (const char* name : {"four-bar-free", "spatial-four-bar-swing"}) {
    const auto m = load(name);
    SimulationSpec spec;
    spec.tEnd = 0.05;
    spec.dt = 0.01;
    const auto r = runSimulation(m, spec);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    checkPoses(m, r, r.rows(), name);
  }
}

TEST(ResultPoses, TracedPathsFollowThePointColumns) {
  for (const char* name : {"four-bar", "jansen-leg", "slider-crank"}) {
    const auto m = load(name);
    KinematicsSpec spec;
    spec.tEnd = 1.0;
    spec.dt = 0.01;
    const auto r = runKinematics(m, spec);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    const std::size_t rows = r.steps(), n = r.columns.size();
    ASSERT_EQ(rows, 101u);
    // 7 vertices of 101 rows: every 17th row, then the last one
    const auto paths = scene::tracedPaths(m, r.poses.data(), rows, 7);
    ASSERT_FALSE(paths.empty()) << name;
    for (const auto& path : paths) {
      ASSERT_EQ(path.points.size(), 7u) << path.name;
      for (std::size_t k = 0; k < 7; ++k) {
        const std::size_t row = k < 6 ? 17 * k : 100;
        for (int c = 0; c < m.dimension; ++c) {
          const auto col = static_cast<std::size_t>(
              std::find(r.columns.begin(), r.columns.end(), path.name + "." + "xyz"[c]) - r.columns.begin());
          ASSERT_LT(col, n) << path.name;
          EXPECT_NEAR(path.points[k][static_cast<std::size_t>(c)], r.values[row * n + col], 1e-9) << path.name << " row " << row;
        }
      }
    }
    // all rows when they are few enough; no path through the ground
    const auto full = scene::tracedPaths(m, r.poses.data(), rows);
    EXPECT_EQ(full.front().points.size(), rows);
    for (const auto& path : full) EXPECT_NE(path.name.rfind("ground.", 0), 0u) << path.name;
  }
}

// the points traced are the coupler points and those the outputs follow; the joints only when a
// mechanism has neither (the grid's 58 joints used to be traced, cluttering the view)
TEST(ResultPoses, TracedPathsAreTheCouplerPointsAndTheOutputs) {
  auto names = [](const ResolvedMechanism& m) {
    const std::vector<double> poses(12 * m.bodies.size(), 0.0);  // one row: only the names matter here
    std::vector<std::string> out;
    for (const auto& p : scene::tracedPaths(m, poses.data(), 1)) out.push_back(p.name);
    return out;
  };
  EXPECT_EQ(names(load("grid-1x15")), (std::vector<std::string>{"v_0_15.bottom", "v_1_15.bottom", "v_0_8.bottom"}));
  ResolvedMechanism grid = load("grid-1x15");
  grid.outputPoints.clear();  // no outputs: every joint between two moving bodies
  EXPECT_EQ(names(grid).size(), grid.joints.size() - 2);
  ResolvedMechanism fourBar = load("four-bar");
  const auto withOutputs = names(fourBar);
  fourBar.outputPoints.clear();
  EXPECT_EQ(names(fourBar), (std::vector<std::string>{"coupler.P"}));  // its coupler point
  EXPECT_EQ(withOutputs.front(), "coupler.P");
}

TEST(ResultPoses, VelocityArrowsScaleThePointVelocities) {
  const auto m = load("four-bar");
  KinematicsSpec spec;
  spec.tEnd = 1.0;
  spec.dt = 0.01;
  const auto r = runKinematics(m, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const std::size_t n = r.columns.size();
  const auto points = scene::pointVelocityColumns(r.columns);
  std::size_t bodyPoints = 0;
  for (std::size_t b = 1; b < m.bodies.size(); ++b) bodyPoints += m.bodies[b].points.size();
  ASSERT_EQ(points.size(), bodyPoints);
  const double scale = scene::velocityArrowScale(points, r.values, n, 0.2);
  ASSERT_GT(scale, 0);
  // the longest arrow over the run is 0.2 of the swept region
  double longest = 0, sweep = 0;
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(1e300), hi = -lo;
  for (std::size_t row = 0; row < r.steps(); ++row) {
    for (const auto& a : scene::velocityArrows(points, &r.values[row * n], scale)) {
      longest = std::max(longest, std::hypot(a.vector[0], a.vector[1], a.vector[2]));
      const Eigen::Vector3d x(a.from[0], a.from[1], a.from[2]);
      lo = lo.cwiseMin(x);
      hi = hi.cwiseMax(x);
    }
  }
  sweep = (hi - lo).norm();
  EXPECT_NEAR(longest, 0.2 * sweep, 1e-9 * sweep);
  // one arrow per distinct place: the joints' two points share one; the crank's pivot is at rest
  const auto arrows = scene::velocityArrows(points, &r.values[37 * n], scale);
  EXPECT_LT(arrows.size(), points.size());
  for (const auto& a : arrows)
    for (const auto& p : points) {
      if (std::abs(r.values[37 * n + static_cast<std::size_t>(p.position[0])] - a.from[0]) > 1e-12 ||
          std::abs(r.values[37 * n + static_cast<std::size_t>(p.position[1])] - a.from[1]) > 1e-12)
        continue;
      EXPECT_NEAR(a.vector[0], scale * r.values[37 * n + static_cast<std::size_t>(p.velocity[0])], 1e-12);
      EXPECT_NEAR(a.vector[1], scale * r.values[37 * n + static_cast<std::size_t>(p.velocity[1])], 1e-12);
    }
}

}  // namespace
}  // namespace lw::analysis
