#include "mechanism/parameters.h"

#include <gtest/gtest.h>

#include <functional>

#include "io/mechanism_io.h"
#include "mechanism/fields.h"
#include "mechanism/resolved.h"
#include "support/numeric.h"
#include "support/costs.h"
#include "support/samples.h"

namespace lw {
namespace {

Mechanism fiveBar() { return test::sampleMechanism("five-bar"); }

TEST(Parameters, ChangingAParameterChangesEveryFieldThatUsesIt) {
  Mechanism m = fiveBar();
  Diagnostics d;
  const auto before = resolve(m, d);
  ASSERT_TRUE(before);
  const int k = before->parameters->find("L_A1");
  ASSERT_GE(k, 0);
  m.parameters[static_cast<std::size_t>(k)].value = 1.6;
  const auto after = resolve(m, d);
  ASSERT_TRUE(after);
  const int bar = after->findBody("bar_A1");
  // the bar's far point, its centre of mass (through xG_A1 = L_A1/2) and its inertia follow
  EXPECT_DOUBLE_EQ(after->bodies[static_cast<std::size_t>(bar)].points[1].x(), 1.6);
  EXPECT_DOUBLE_EQ(after->bodies[static_cast<std::size_t>(bar)].com.x(), 0.8);
  EXPECT_NE(after->bodies[static_cast<std::size_t>(bar)].inertia(2, 2),
            before->bodies[static_cast<std::size_t>(bar)].inertia(2, 2));
}

TEST(Parameters, EveryStageCanSeeWhichFieldsDependOnWhichParameter) {
  const Mechanism m = fiveBar();
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  const auto deps = fieldsByParameter(m, *r->parameters);
  const auto& la1 = deps.at("L_A1");
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has(la1, "bodies[0].points.P1[0]"));
  EXPECT_TRUE(has(la1, "bodies[0].com[0]"));  // through xG_A1 = L_A1/2
  EXPECT_TRUE(has(deps.at("L_s1"), "forces[0].natural_length"));
  EXPECT_FALSE(has(deps.at("L_s1"), "bodies[0].mass"));
  // a parameter used only in a cost's expression was reported as used by nothing (gradient 0)
  Mechanism withCost = m;
  Parameter w;
  w.name = "w";
  w.value = 3;
  withCost.parameters.push_back(w);
  withCost.costs.push_back(test::expressionCost("weighted", Cost::Type::Terminal, "p2.y + 2*w"));
  const auto r2 = resolve(withCost, d);
  ASSERT_TRUE(r2);
  EXPECT_TRUE(has(fieldsByParameter(withCost, *r2->parameters).at("w"), "costs[" + std::to_string(withCost.costs.size() - 1) + "].expression"));
}

// d(field)/d(parameter) against central finite differences on the evaluated model
TEST(Parameters, FieldDerivativesMatchFiniteDifferences) {
  const Mechanism m = fiveBar();
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  const ParameterTable& p = *r->parameters;
  int checked = 0;
  for (std::size_t k = 0; k < p.names().size(); ++k) {
    const double h = 1e-6 * std::max(1.0, std::abs(p.values()[k]));
    Mechanism plus = m, minus = m;
    plus.parameters[k].value = p.values()[k] + h;
    minus.parameters[k].value = p.values()[k] - h;
    const auto tp = ParameterTable::build(plus, d), tm = ParameterTable::build(minus, d);
    ASSERT_TRUE(tp && tm);
    forEachNumber(m, [&](const FieldVisit& f) {
      if (f.number.isLiteral()) return;
      const double analytic = p.derivative(f.number, k);
      const double fd = (tp->evaluate(f.number) - tm->evaluate(f.number)) / (2 * h);
      EXPECT_TRUE(test::near(analytic, fd, 1e-8, 1e-7)) << f.path << " wrt " << p.names()[k];
      ++checked;
    });
  }
  EXPECT_GT(checked, 10);
}

TEST(Parameters, DerivedParameterChainRule) {
  Mechanism m;
  auto param = [](const char* name, Number value) {
    Parameter p;
    p.name = name;
    p.value = std::move(value);
    return p;
  };
  m.parameters = {param("a", 2.0), param("b", Number::expr("a^2")), param("c", Number::expr("3*b + a"))};
  Diagnostics d;
  const auto t = ParameterTable::build(m, d);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->values()[2], 14);
  const Number use = Number::expr("c*2");
  EXPECT_DOUBLE_EQ(t->derivative(use, 0), 2 * (3 * 2 * 2 + 1));  // d(2c)/da = 2(6a + 1)
  EXPECT_DOUBLE_EQ(t->derivative(use, 1), 6);                    // b taken as independent
  EXPECT_EQ(t->dependencies(use), (std::vector<std::size_t>{0, 1, 2}));
}

// Issue 23: a chain written in reverse (p0 = p1, p1 = p2, ..., p49999 = 1) overflowed the stack of
// the recursive sort. Here its first link squares (p0 = p1²): values 1 all along, and the total
// derivative of p0 with respect to the last parameter is 2, carried through 50 000 links without
// an n × n table
// n parameters named prefix0, prefix1, ..., the i-th valued value(i)
Mechanism withParameters(int n, const std::string& prefix, const std::function<Number(int)>& value) {
  Mechanism m;
  for (int i = 0; i < n; ++i) {
    Parameter p;
    p.name = prefix + std::to_string(i);
    p.value = value(i);
    m.parameters.push_back(std::move(p));
  }
  return m;
}

TEST(Parameters, AChainLongerThanTheStackBuildsWithoutOverflowingIt) {
  const int n = 50000;
  Mechanism m = withParameters(n, "p", [&](int i) { return i + 1 < n ? Number::expr("p" + std::to_string(i + 1)) : Number(1.0); });
  m.parameters[0].value = Number::expr("p1^2");
  Diagnostics d;
  const auto t = ParameterTable::build(m, d);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->values()[0], 1.0);
  EXPECT_DOUBLE_EQ(t->derivative(Number::expr("2 * p0"), n - 1), 4.0);  // 2 · 2 p1 · 1 ··· 1
  EXPECT_DOUBLE_EQ(t->derivative(Number::expr("2 * p0"), 1), 4.0);
  EXPECT_DOUBLE_EQ(t->derivative(Number::expr("2 * p2"), 1), 0.0);      // p1 is not upstream of p2
  EXPECT_EQ(t->dependencies(Number::expr("p0")).size(), static_cast<std::size_t>(n));
}

// Issue 23: 3 000 plain parameters took 2.8 s and 88 MB, 10 000 took 29 s and 0.9 GB (n × n
// tables); 100 000 now build (and are found by name) in linear time and memory
TEST(Parameters, AHundredThousandPlainParametersBuild) {
  Mechanism m = withParameters(100000, "q", [](int i) { return Number(0.5 * i); });
  m.parameters[7].value = Number::expr("q99999 / 2");
  Diagnostics d;
  const auto t = ParameterTable::build(m, d);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->find("q12345"), 12345);
  EXPECT_DOUBLE_EQ(t->values()[7], 0.5 * 99999 / 2);
  EXPECT_DOUBLE_EQ(t->derivative(Number::expr("q7 + q3"), 99999), 0.5);
  EXPECT_DOUBLE_EQ(t->derivative(Number::expr("q7 + q3"), 3), 1.0);
  EXPECT_DOUBLE_EQ(t->derivative(Number::expr("q7 + q3"), 4), 0.0);
}

}  // namespace
}  // namespace lw
