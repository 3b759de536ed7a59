#include "mechanism/expression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>

#include "support/numeric.h"

namespace lw {
namespace {

double eval(const std::string& text, const std::vector<std::string>& names = {},
            const std::vector<double>& values = {}) {
  return Expression::parseOrThrow(text).evaluate<double>(names, values);
}

TEST(Expression, ArithmeticAndPrecedence) {
  EXPECT_DOUBLE_EQ(eval("1 + 2*3"), 7);
  EXPECT_DOUBLE_EQ(eval("(1 + 2)*3"), 9);
  EXPECT_DOUBLE_EQ(eval("2^3^2"), 512);  // right-associative
  EXPECT_DOUBLE_EQ(eval("-2^2"), -4);    // power binds tighter than unary minus
  EXPECT_DOUBLE_EQ(eval("8/4/2"), 1);    // left-associative
  EXPECT_DOUBLE_EQ(eval("1 - 2 - 3"), -4);
  EXPECT_DOUBLE_EQ(eval("2e-3*1000"), 2);
  EXPECT_DOUBLE_EQ(eval("pi"), std::numbers::pi);
  EXPECT_DOUBLE_EQ(eval("sqrt(2)^2"), 2.0000000000000004);
  EXPECT_DOUBLE_EQ(eval("atan2(1, -1)"), 3 * std::numbers::pi / 4);
  EXPECT_DOUBLE_EQ(eval("min(3, max(1, 2))"), 2);
  EXPECT_DOUBLE_EQ(eval("abs(-0.5) + pow(2, 10)"), 1024.5);
  EXPECT_DOUBLE_EQ(eval("(-2)^3"), -8);  // integer powers of negative numbers are defined
}

TEST(Expression, SizeAndNestingAreBounded) {
  Expression e;
  ExpressionError err;
  EXPECT_FALSE(Expression::parse(std::string(300, '(') + "1" + std::string(300, ')'), e, err));
  EXPECT_EQ(err.message, "the expression is nested too deeply");
  EXPECT_FALSE(Expression::parse(std::string(500, '-') + "1", e, err));
  std::string longSum = "1";
  for (int i = 0; i < 6000; ++i) longSum += "+1";
  EXPECT_FALSE(Expression::parse(longSum, e, err));
  EXPECT_NE(err.message.find("too long"), std::string::npos);
  std::string sum = "1";
  for (int i = 0; i < 4000; ++i) sum += "+1";
  ASSERT_TRUE(Expression::parse(sum, e, err));
  EXPECT_DOUBLE_EQ(e.evaluate<double>({}, {}), 4001);
  EXPECT_EQ(e.derivative("x").evaluate<double>({}, {}), 0);
}

TEST(Expression, Variables) {
  const Expression e = Expression::parseOrThrow("L*cos(theta) + L_2");
  EXPECT_EQ(e.variables(), (std::vector<std::string>{"L", "theta", "L_2"}));
  EXPECT_DOUBLE_EQ(e.evaluate<double>(std::vector<std::string>{"theta", "L", "L_2"},
                                      std::vector<double>{0.0, 2.0, 0.5}),
                   2.5);
  EXPECT_EQ(Expression::parseOrThrow("p2.y - initial(p2.y)").variables(),
            (std::vector<std::string>{"p2.y"}));
  EXPECT_TRUE(Expression::parseOrThrow("2*pi").isConstant());
  EXPECT_THROW(e.evaluate<double>(std::vector<std::string>{"L"}, std::vector<double>{1.0}),
               std::invalid_argument);
}

TEST(Expression, ErrorsSayWhatAndWhere) {
  struct Case {
    const char* text;
    std::size_t offset;
    const char* message;
  };
  const Case cases[] = {
      {"1 +", 3, "the expression ends too early"},
      {"2 * (3 + 4", 10, "missing ')'"},
      {"sine(1)", 0, "unknown function 'sine'"},
      {"atan2(1)", 0, "atan2() takes 2 arguments, not 1"},
      {"3 # 4", 2, "unexpected '#'"},
      {"1e999", 0, "number out of range"},
      {"initial(2*x)", 0, "initial() takes the name of an output component"},
  };
  for (const auto& c : cases) {
    Expression e;
    ExpressionError err;
    EXPECT_FALSE(Expression::parse(c.text, e, err)) << c.text;
    EXPECT_EQ(err.offset, c.offset) << c.text;
    EXPECT_NE(err.message.find(c.message), std::string::npos) << c.text << ": " << err.message;
  }
}

// Symbolic derivatives checked against complex step and central differences at fixed points.
TEST(Expression, DerivativesMatchComplexStepAndFiniteDifferences) {
  const char* cases[] = {
      "x^3 - 2*x + 1",  "sin(2*x)*exp(-x)", "sqrt(1 + x^2)",     "log(2 + x)/x",
      "atan2(x, 2)",    "atan2(1.5, x)",    "tan(x/3)",          "asin(x/4) + acos(x/5)",
      "atan(x)",        "sinh(x) - cosh(x/2) + tanh(x)", "x^x", "pow(x, 2.5)",
      "abs(x - 3)",     "min(x, 2*x - 1)",  "max(x^2, 3)",       "1/(x*x + 1)",
  };
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> pick(0.3, 2.9);
  const std::vector<std::string> names{"x"};
  for (const char* text : cases) {
    const Expression e = Expression::parseOrThrow(text);
    const Expression d = e.derivative("x");
    for (int k = 0; k < 5; ++k) {
      const double x = pick(rng);
      const double analytic = d.evaluate<double>(names, std::vector<double>{x});
      const double h = 1e-30;
      const double cs =
          e.evaluate<std::complex<double>>(names, std::vector<std::complex<double>>{{x, h}}).imag() / h;
      const double fh = 1e-6;
      const double fd = (e.evaluate<double>(names, std::vector<double>{x + fh}) -
                         e.evaluate<double>(names, std::vector<double>{x - fh})) / (2 * fh);
      EXPECT_TRUE(test::near(analytic, cs, 1e-12, 1e-12)) << text << " at x = " << x;
      EXPECT_TRUE(test::near(analytic, fd, 1e-7, 1e-7)) << text << " at x = " << x;
      if (analytic != 0) {  // a flat branch (max at its constant side) is exactly 0 both ways
        EXPECT_NE(analytic, fd) << "the finite difference cannot be bit-identical: " << text;
      }
    }
  }
}

TEST(Expression, SecondDerivativeInTime) {
  const Expression f = Expression::parseOrThrow("0.5*sin(2*pi*t) + 3*t^2");
  const Expression dd = f.derivative("t").derivative("t");
  const std::vector<std::string> names{"t"};
  for (double t : {0.0, 0.13, 0.77}) {
    const double expected = -0.5 * 4 * std::numbers::pi * std::numbers::pi *
                                std::sin(2 * std::numbers::pi * t) + 6;
    EXPECT_TRUE(test::near(dd.evaluate<double>(names, std::vector<double>{t}), expected, 1e-12, 1e-12));
  }
}

TEST(Expression, SubstituteAndBind) {
  const Expression e = Expression::parseOrThrow("a*t + b");
  const std::vector<std::string> params{"a", "b"};
  const Expression s = e.substitute(params, std::vector<double>{2.0, 1.0});
  EXPECT_EQ(s.variables(), (std::vector<std::string>{"t"}));
  const std::string t[] = {"t"};
  const Expression::Bound f = s.bind(t);
  const double at3 = 3.0;
  EXPECT_DOUBLE_EQ(f(std::span<const double>(&at3, 1)), 7);
}

TEST(Expression, IdentifierRule) {
  EXPECT_TRUE(isIdentifier("L_A1"));
  EXPECT_TRUE(isIdentifier("_x"));
  EXPECT_FALSE(isIdentifier("1x"));
  EXPECT_FALSE(isIdentifier("a.b"));
  EXPECT_FALSE(isIdentifier(""));
  EXPECT_FALSE(isIdentifier("bar 1"));
}

}  // namespace
}  // namespace lw
