#include "mechanism/generators.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include "io/mechanism_io.h"
#include "mechanism/resolved.h"
#include "topology/mobility.h"

namespace lw {
namespace {

// every joint of a generated mechanism closes in the stored configuration: coinciding points,
// or (sliding joints) the second point on the first one's axis
double worstClosure(const ResolvedMechanism& r) {
  double worst = 0;
  for (const auto& j : r.joints) {
    Eigen::Vector3d gap = r.pointWorld(j.points[1]) - r.pointWorld(j.points[0]);
    if (j.type == JointType::Prismatic || j.type == JointType::Slider) {
      const Eigen::Vector3d u = r.vectorWorld(j.axes[0]);
      gap -= u * u.dot(gap);
      worst = std::max(worst, (r.vectorWorld(j.axes[1]).cross(u)).norm());
    }
    worst = std::max(worst, gap.norm());
  }
  return worst;
}

ResolvedMechanism resolveOrFail(const Mechanism& m) {
  Diagnostics d;
  auto r = resolve(m, d);
  for (const auto& x : d) ADD_FAILURE() << x.format();
  if (!r) throw std::runtime_error("does not resolve");
  return *r;
}

TEST(Generators, FourBarChainAssemblesWithTheLengthsOfSeed002) {
  for (int dyads : {1, 10, 100}) {
    const Mechanism m = generate::fourBarChain(dyads);
    const ResolvedMechanism r = resolveOrFail(m);
    EXPECT_LT(worstClosure(r), 1e-12) << dyads;
    EXPECT_EQ(static_cast<int>(m.bodies.size()), 1 + 2 * dyads);
    // nEq of the paper = dependent point coordinates: B and every C_k, 2 each
    EXPECT_EQ(2 * (1 + dyads), 2 * dyads + 2);
    const auto mob = topology::grueblerKutzbach(r);
    EXPECT_EQ(mob.grueblerKutzbach, 1);
    EXPECT_EQ(mob.remaining, 0);
    // lengths: crank 2, every rod and rocker 6
    EXPECT_NEAR((r.pointWorld({1, 1}) - r.pointWorld({1, 0})).norm(), 2, 1e-14);
    for (std::size_t b = 2; b < r.bodies.size(); ++b)
      EXPECT_NEAR(r.bodies[b].points[1].norm(), 6, 1e-14) << r.bodies[b].name;
  }
}

TEST(Generators, CrankSlider3dAssemblesAndCountsPassiveSpins) {
  for (int units : {1, 10}) {
    const Mechanism m = generate::crankSlider3d(units);
    const ResolvedMechanism r = resolveOrFail(m);
    EXPECT_LT(worstClosure(r), 1e-12) << units;
    // Grübler–Kutzbach counts one freedom plus the passive spin of each S–S rod
    EXPECT_EQ(topology::grueblerKutzbach(r).grueblerKutzbach, 1 + units);
    for (int k = 0; k < units; ++k)
      EXPECT_NEAR(r.bodies[static_cast<std::size_t>(2 + 2 * k)].points[1].norm(), 6, 1e-12);
  }
}

TEST(Generators, GridMatchesTheBenchmarkDefinition) {
  const Mechanism m = generate::grid(4, 15);
  const ResolvedMechanism r = resolveOrFail(m);
  EXPECT_EQ(m.bodies.size(), 135u);  // seed 004: 45, 135, 225 bodies for 1, 4, 7 columns
  EXPECT_LT(worstClosure(r), 1e-12);
  EXPECT_EQ(generate::grid(7, 15).bodies.size(), 225u);
  // bottom-left node N(0,15) = (0, 0, -15)
  const int v = r.findBody("v_0_15");
  ASSERT_GE(v, 0);
  EXPECT_TRUE(r.pointWorld({v, 1}).isApprox(Eigen::Vector3d(0, 0, -15)));
}

TEST(Generators, TheGridSampleIsTheGeneratorsOutput) {
  std::string text, err;
  ASSERT_TRUE(io::readFile(std::string(LW_SAMPLES_DIR) + "/grid-1x15.json", text, err)) << err;
  EXPECT_EQ(io::mechanismToString(generate::grid(1, 15)), text)
      << "regenerate with: linkwright-cli generate grid --columns 1 --rows 15 -o samples/grid-1x15.json";
}

TEST(Generators, TheGridWithParametersSampleIsTheGeneratorsOutput) {
  std::string text, err;
  ASSERT_TRUE(io::readFile(std::string(LW_SAMPLES_DIR) + "/grid-1x15-parameters.json", text, err)) << err;
  EXPECT_EQ(io::mechanismToString(generate::gridWithParameters(1, 15)), text)
      << "regenerate with: linkwright-cli generate grid --columns 1 --rows 15 --design-parameters -o samples/grid-1x15-parameters.json";
}

TEST(Generators, TheGridsParametersReproduceTheGrid) {
  // at their values the parameters give the grid's numbers: the same initial energy
  const ResolvedMechanism a = resolveOrFail(generate::grid(1, 4)), b = resolveOrFail(generate::gridWithParameters(1, 4));
  ASSERT_EQ(a.bodies.size(), b.bodies.size());
  for (std::size_t i = 0; i < a.bodies.size(); ++i) {
    EXPECT_DOUBLE_EQ(a.bodies[i].mass, b.bodies[i].mass);
    EXPECT_TRUE(a.bodies[i].inertia.isApprox(b.bodies[i].inertia, 1e-15)) << a.bodies[i].name;
  }
  EXPECT_EQ(generate::gridWithParameters(1, 4).parameters.size(), 7u);
}

TEST(Generators, RejectEmptySizes) {
  EXPECT_THROW(generate::fourBarChain(0), std::invalid_argument);
  EXPECT_THROW(generate::crankSlider3d(0), std::invalid_argument);
  EXPECT_THROW(generate::grid(0, 3), std::invalid_argument);
}

}  // namespace
}  // namespace lw
