#include "scene/scene_builder.h"

#include <gtest/gtest.h>

#include "io/mechanism_io.h"
#include "support/samples.h"

namespace lw {
namespace {

ResolvedMechanism load(const std::string& sample) { return test::sampleResolved(sample); }

scene::Vec3 apply(const scene::Pose& p, const scene::Vec3& x) {
  scene::Vec3 y;
  for (std::size_t i = 0; i < 3; ++i)
    y[i] = p.position[i] + p.rotation[3 * i] * x[0] + p.rotation[3 * i + 1] * x[1] + p.rotation[3 * i + 2] * x[2];
  return y;
}

TEST(SceneBuilder, BarsOfTheFourBarEndAtItsJoints) {
  const ResolvedMechanism m = load("four-bar");
  const scene::SceneModel s = scene::buildSceneModel(m);
  const scene::SceneFrame f = scene::storedConfigurationFrame(m);
  ASSERT_EQ(s.bodies.size(), m.bodies.size());
  ASSERT_EQ(f.bodyPoses.size(), m.bodies.size());
  EXPECT_TRUE(s.bodies[0].isGround);
  EXPECT_EQ(s.dimension, 2);
  // every joint position coincides with an end of some primitive of each joined body
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    for (int side = 0; side < 2; ++side) {
      const auto b = static_cast<std::size_t>(m.joints[j].points[side].body);
      if (b == 0) continue;
      bool touches = false;
      for (const auto& prim : s.bodies[b].primitives)
        for (const auto& p : prim.points) {
          const auto w = apply(f.bodyPoses[b], p);
          const double d = std::hypot(w[0] - f.joints[j].position[0], w[1] - f.joints[j].position[1],
                                      w[2] - f.joints[j].position[2]);
          touches |= d < 1e-9;
        }
      EXPECT_TRUE(touches) << "joint " << m.joints[j].name << " body " << s.bodies[b].name;
    }
  }
  EXPECT_GT(s.drawingScale, 3.0);
}

// drawn parts follow the size of the links, not of the whole mechanism: the grid's 1 m links
// are drawn at the scale of 2.5 m although the grid is 15 m long (pins were longer than links)
TEST(SceneBuilder, DrawnPartsFollowTheLinksOfALongChain) {
  const ResolvedMechanism grid = load("grid-1x15");
  EXPECT_NEAR(grid.lengthScale(), 15.0, 1e-12);
  EXPECT_NEAR(grid.drawingScale(), 2.5, 1e-12);
  EXPECT_NEAR(scene::buildSceneModel(grid).drawingScale, 2.5, 1e-12);
  // a compact mechanism keeps its whole size
  const ResolvedMechanism four = load("four-bar");
  EXPECT_DOUBLE_EQ(four.drawingScale(), four.lengthScale());
}

TEST(SceneBuilder, SpatialJointsCarryTheirAxisAndSpringsTheirEnds) {
  const ResolvedMechanism m = load("spatial-four-bar");
  const scene::SceneFrame f = scene::storedConfigurationFrame(m);
  EXPECT_NEAR(f.joints[0].axis[0], 1, 1e-15);  // crank hinge +X
  const ResolvedMechanism five = load("five-bar");
  const scene::SceneModel s = scene::buildSceneModel(five);
  EXPECT_EQ(s.springs.size(), 2u);
  const scene::SceneFrame ff = scene::storedConfigurationFrame(five);
  ASSERT_EQ(ff.springs.size(), 2u);
  EXPECT_NEAR(ff.springs[0].from[0], 0.5, 1e-12);  // s1 from ground.B
}

TEST(SceneBuilder, BallIsASphereAndTheFloorIsDrawn) {
  const ResolvedMechanism m = load("bouncing-ball");
  const scene::SceneModel s = scene::buildSceneModel(m);
  ASSERT_EQ(s.bodies.size(), 2u);
  ASSERT_EQ(s.bodies[1].primitives.size(), 1u);
  EXPECT_EQ(s.bodies[1].primitives[0].kind, scene::Primitive::Kind::Sphere);
  bool floor = false;
  for (const auto& p : s.bodies[0].primitives) floor |= p.kind == scene::Primitive::Kind::Plate;
  EXPECT_TRUE(floor);
}

}  // namespace
}  // namespace lw
