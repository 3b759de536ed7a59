// Initial rates: each given once, and all of them held. Two rates for one joint were averaged by
// the least squares (a crank given 12.57 and 3 rad/s started at 7.78); rates beyond the freedoms
// that contradict each other were met halfway, silently.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simulation/simulation_run.h"
#include "mechanism/resolved.h"
#include "support/samples.h"

namespace lw {
namespace {

analysis::SimulationResult start(const Mechanism& m) {
  Diagnostics d;
  const auto r = resolve(m, d);
  if (!r) throw std::runtime_error("does not resolve");
  analysis::SimulationSpec s;
  s.tEnd = 0.01;
  s.dt = 0.01;
  return analysis::runSimulation(*r, s);
}

double first(const analysis::SimulationResult& r, const std::string& column) {
  for (std::size_t k = 0; k < r.columns.size(); ++k)
    if (r.columns[k] == column) return r.values[k];
  throw std::runtime_error("no column " + column);
}

TEST(InitialRates, EachIsGivenOnceAndAllHold) {
  const Mechanism free = test::sampleMechanism("four-bar-free");  // crank A at 5 rad/s
  // the same joint twice: refused at its path
  Mechanism twice = free;
  twice.initialVelocities.push_back(twice.initialVelocities.front());
  twice.initialVelocities.back().value = Number(3.0);
  Diagnostics d;
  EXPECT_FALSE(resolve(twice, d));
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().path, "initial_velocities[1]");
  EXPECT_NE(d.front().message.find("the joint 'A' already has an initial rate (initial_velocities[0])"), std::string::npos) << d.front().message;
  // a second rate that the first implies (the coupler point's vx) is held; one that contradicts it is refused
  const analysis::SimulationResult one = start(free);
  ASSERT_TRUE(one.status.ok()) << one.status.message;
  const double vx = first(one, "coupler.C.vx");
  ASSERT_GT(std::abs(vx), 0.1);
  InitialVelocity point;
  point.type = InitialVelocity::Type::PointComponent;
  point.point = {"coupler", "C"};
  point.component = Component::X;
  point.value = Number(vx);
  Mechanism consistent = free;
  consistent.initialVelocities.push_back(point);
  const analysis::SimulationResult both = start(consistent);
  ASSERT_TRUE(both.status.ok()) << both.status.message;
  EXPECT_NEAR(first(both, "coupler.C.vx"), vx, 1e-9);
  Mechanism contradicting = consistent;
  contradicting.initialVelocities.back().value = Number(vx + 1);
  const analysis::SimulationResult refused = start(contradicting);
  ASSERT_FALSE(refused.status.ok());
  EXPECT_NE(refused.status.message.find("the initial velocities cannot all hold"), std::string::npos) << refused.status.message;
}

}  // namespace
}  // namespace lw
