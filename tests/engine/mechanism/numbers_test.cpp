// The mechanism's numbers on any scalar: equal to the resolved ones on double, and their
// derivatives with respect to the design parameters against a complex step and central
// differences of the same function.
#include "mechanism/numbers.h"

#include <gtest/gtest.h>

#include <complex>
#include <functional>

#include "support/samples.h"

namespace lw {
namespace {

// every number of a MechanismNumbers as one list, in a fixed order (driver and force functions at
// t = 0.37, with their rates and accelerations)
template <class P>
std::vector<P> flatten(const MechanismNumbers<P>& n) {
  std::vector<P> v;
  auto vec = [&](const Eigen::Matrix<P, 3, 1>& x) { v.insert(v.end(), x.data(), x.data() + 3); };
  auto mat = [&](const Eigen::Matrix<P, 3, 3>& x) { v.insert(v.end(), x.data(), x.data() + 9); };
  auto fn = [&](const TimeFunctionOn<P>& f) {
    v.push_back(f.value(0.37));
    v.push_back(f.rate(0.37));
    v.push_back(f.acceleration(0.37));
  };
  vec(n.gravity);
  for (const auto& b : n.bodies) {
    vec(b.position);
    mat(b.rotation);
    v.push_back(b.mass);
    vec(b.com);
    mat(b.inertia);
    for (const auto& p : b.points) vec(p);
    for (const auto& p : b.vectors) vec(p);
  }
  for (const auto& f : n.forces) {
    for (const P& x : {f.stiffness, f.damping, f.naturalLength, f.naturalAngle, f.radius, f.friction, f.slipVelocity})
      v.push_back(x);
    fn(f.actuatorForce);
    for (const auto& g : f.value) fn(g);
  }
  for (const auto& d : n.drivers) fn(d);
  for (const auto& c : n.contacts) v.insert(v.end(), {c.radius, c.restitution});
  for (const auto& r : n.initialRates) {
    v.push_back(r.value);
    vec(r.velocity);
    vec(r.angular);
  }
  return v;
}

TEST(MechanismNumbers, EvaluatedAgainTheyEqualTheResolvedOnesOnEverySample) {
  for (const auto& [name, m] : test::samplesAndGenerated()) {
    SCOPED_TRACE(name);
    Diagnostics d;
    const auto r = resolve(m, d);
    ASSERT_TRUE(r);
    const auto values = r->parameters->values();
    const std::vector<double> again = flatten(numbersOn<double>(m, *r, values));
    const std::vector<double> resolved = flatten(numbersOf(*r));
    ASSERT_EQ(again.size(), resolved.size());
    for (std::size_t i = 0; i < again.size(); ++i)
      EXPECT_NEAR(again[i], resolved[i], 1e-14 * std::max(1.0, std::abs(resolved[i]))) << "number " << i;
  }
}

// d(numbers)/d(parameter k) on dual numbers (lane 0), a complex step, and central differences
void checkParameterDerivatives(const std::string& sample) {
  const Mechanism m = test::sampleMechanism(sample);
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  const ParameterTable& table = *r->parameters;
  ASSERT_GT(table.names().size(), 0u);
  int moved = 0;
  for (std::size_t k = 0; k < table.names().size(); ++k) {
    SCOPED_TRACE(table.names()[k]);
    const std::size_t seeded[] = {k};
    const double p = table.values()[k];
    num::Dual8 seed(p);
    seed.g[0] = 1;
    const auto dual = flatten(numbersOn<num::Dual8>(m, *r, table.valuesOn<num::Dual8>(seeded, std::span(&seed, 1))));
    const double h = 1e-30;
    const std::complex<double> cseed(p, h);
    const auto cs = flatten(numbersOn<std::complex<double>>(m, *r, table.valuesOn<std::complex<double>>(seeded, std::span(&cseed, 1))));
    const double dp = 1e-6 * std::max(1.0, std::abs(p));
    const double up = p + dp, down = p - dp;
    const auto plus = flatten(numbersOn<double>(m, *r, table.valuesOn<double>(seeded, std::span(&up, 1))));
    const auto minus = flatten(numbersOn<double>(m, *r, table.valuesOn<double>(seeded, std::span(&down, 1))));
    ASSERT_EQ(dual.size(), cs.size());
    for (std::size_t i = 0; i < dual.size(); ++i) {
      const double ad = dual[i].g[0], c = cs[i].imag() / h, fd = (plus[i] - minus[i]) / (2 * dp);
      EXPECT_NEAR(dual[i].v, cs[i].real(), 1e-14 * std::max(1.0, std::abs(dual[i].v)));
      EXPECT_NEAR(ad, c, 1e-12 * std::max(1.0, std::abs(c))) << "number " << i;
      EXPECT_NEAR(ad, fd, 1e-6 * std::max(1.0, std::abs(fd))) << "number " << i;
      if (ad != 0) ++moved;
    }
  }
  EXPECT_GT(moved, 0);  // some number depends on the parameters
}

TEST(MechanismNumbers, ParameterDerivativesOfTheFiveBarAgreeWithComplexStepAndDifferences) {
  checkParameterDerivatives("five-bar");
}
TEST(MechanismNumbers, ParameterDerivativesOfTheTenBarChainAgreeWithComplexStepAndDifferences) {
  checkParameterDerivatives("ten-bar-chain");
}
TEST(MechanismNumbers, ParameterDerivativesOfTheBuggyAgreeWithComplexStepAndDifferences) {
  checkParameterDerivatives("buggy");
}

TEST(MechanismNumbers, AParameterOfAParameterCarriesItsDerivativeThroughTheChain) {
  // L2 = 2·L1 + 1 and a point at L2²: d/dL1 = 2·L2·2
  Mechanism m = test::sampleMechanism("ten-bar-chain");
  Parameter extra;
  extra.name = "chained";
  extra.value = Number::expr("2*l_1 + 1");
  m.parameters.push_back(extra);
  m.bodies[0].points[0].value[0] = Number::expr("chained^2");
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r) << d.size();
  const std::size_t k = static_cast<std::size_t>(r->parameters->find("l_1"));
  const std::size_t seeded[] = {k};
  num::Dual8 seed(r->parameters->values()[k]);
  seed.g[0] = 1;
  const auto n = numbersOn<num::Dual8>(m, *r, r->parameters->valuesOn<num::Dual8>(seeded, std::span(&seed, 1)));
  const double chained = 2 * seed.v + 1;
  EXPECT_NEAR(n.bodies[1].points[0].x().v, chained * chained, 1e-12);
  EXPECT_NEAR(n.bodies[1].points[0].x().g[0], 2 * chained * 2, 1e-12);
}

}  // namespace
}  // namespace lw
