#include "optimize/four_bar_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "topology/four_bar.h"

namespace lw::opt {
namespace {

std::string text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

// the text in parentheses when it is more than a name, a number or a call
std::string grouped(const std::string& t) { return t.find_first_of(" +-*/^") == std::string::npos ? t : "(" + t + ")"; }

// a coordinate's text: a literal as a number, an expression grouped
std::string text(const Number& n) { return n.isLiteral() ? text(n.value) : grouped(n.expression.text()); }

const NumberVector* pointOf(const Mechanism& m, const std::string& body, const std::string& point) {
  const std::vector<NamedVector>* points = nullptr;
  if (body == kGroundName) points = &m.ground.points;
  for (const auto& b : m.bodies)
    if (b.name == body) points = &b.points;
  if (!points) return nullptr;
  for (const auto& p : *points)
    if (p.name == point) return &p.value;
  return nullptr;
}

// |q − p| as an expression of the parameters (both points on one body, so in one frame)
std::string distance(const Mechanism& m, const ResolvedMechanism& r, ItemIndex a, ItemIndex b) {
  const auto& ba = r.bodies[static_cast<std::size_t>(a.body)];
  const auto& bb = r.bodies[static_cast<std::size_t>(b.body)];
  const NumberVector* p = pointOf(m, ba.name, ba.pointNames[static_cast<std::size_t>(a.index)]);
  const NumberVector* q = pointOf(m, bb.name, bb.pointNames[static_cast<std::size_t>(b.index)]);
  if (!p || !q) return {};
  std::vector<std::string> terms;
  double literal = 0;  // the literal components' squared sum
  for (std::size_t k = 0; k < std::min(p->size(), q->size()); ++k) {
    const Number& x = (*p)[k];
    const Number& y = (*q)[k];
    if (x.isLiteral() && y.isLiteral()) {
      literal += (y.value - x.value) * (y.value - x.value);
      continue;
    }
    if (x.isLiteral() && x.value == 0) terms.push_back(text(y));
    else if (y.isLiteral() && y.value == 0) terms.push_back(text(x));
    else terms.push_back("(" + text(y) + " - " + text(x) + ")");
  }
  if (terms.empty()) return text(std::sqrt(literal));
  if (terms.size() == 1 && literal == 0) {
    // one parameter's length along an axis: a name with a positive range is its own length
    const auto it = std::find_if(m.parameters.begin(), m.parameters.end(), [&](const Parameter& x) { return x.name == terms[0]; });
    if (it != m.parameters.end() && it->hasMin && it->min > 0) return terms[0];
    return "abs(" + terms[0] + ")";
  }
  std::string sum;
  for (const auto& t : terms) sum += (sum.empty() ? "" : " + ") + t + "^2";
  if (literal != 0) sum += " + " + text(literal);
  return "sqrt(" + sum + ")";
}

}  // namespace

std::vector<FourBarLimits> fourBarLimits(const Mechanism& m, double minTransmissionDeg, std::string& error) {
  std::vector<FourBarLimits> out;
  Diagnostics d;
  const auto r = resolve(m, d);
  if (!r) {
    error = d.empty() ? std::string("the mechanism does not resolve") : d.front().path + ": " + d.front().message;
    return out;
  }
  if (m.dimension != 2) {
    error = "four-bar limits are for planar mechanisms";
    return out;
  }
  const auto loops = topology::fourBarLoops(*r);
  if (loops.empty()) error = "the mechanism has no four-bar loop (two links pinned to the ground, a coupler pinned to both)";
  // to four decimals, as a designer would write it (0.766 for 40°: 40.004°)
  const double cosLimit = std::round(std::cos(minTransmissionDeg * std::numbers::pi / 180) * 1e4) / 1e4;
  for (const auto& l : loops) {
    auto name = [&](int body) { return r->bodies[static_cast<std::size_t>(body)].name; };
    const std::string a = grouped(distance(m, *r, l.inputPivot, l.inputPin));
    const std::string b = grouped(distance(m, *r, l.couplerInput, l.couplerOutput));
    const std::string c = grouped(distance(m, *r, l.outputPin, l.outputPivot));
    const std::string dd = grouped(distance(m, *r, l.groundInput, l.groundOutput));
    if (a.empty() || b.empty() || c.empty() || dd.empty()) continue;
    FourBarLimits f;
    f.loop = name(l.input) + "–" + name(l.coupler) + "–" + name(l.output);
    auto add = [&](std::vector<TuningConstraint>& to, const std::string& n, const std::string& e, bool hasMin, double min, bool hasMax, double max) {
      TuningConstraint k;
      k.name = n;
      k.expression = Expression::parseOrThrow(e);
      k.hasMin = hasMin, k.min = min, k.hasMax = hasMax, k.max = max;
      to.push_back(std::move(k));
    };
    // short names a narrow panel shows whole (μ: the transmission angle); the input link's name
    // first where there are several loops
    const std::string input = loops.size() > 1 ? name(l.input) + "_" : std::string();
    add(f.turns, input + "turns_sum", b + " + " + c + " - " + a + " - " + dd, true, 0, false, 0);
    add(f.turns, input + "turns_diff", "abs(" + a + " - " + dd + ") - abs(" + b + " - " + c + ")", true, 0, false, 0);
    if (minTransmissionDeg > 0) {
      const std::string bc = b + "^2 + " + c + "^2";
      const std::string den = " / (2*" + b + "*" + c + ")";
      // cos μ at the input folded over the ground (d − a) and stretched along it (d + a)
      add(f.transmission, input + "mu_folded", "(" + bc + " - (" + dd + " - " + a + ")^2)" + den, true, -cosLimit, true, cosLimit);
      add(f.transmission, input + "mu_stretched", "(" + bc + " - (" + dd + " + " + a + ")^2)" + den, true, -cosLimit, true, cosLimit);
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace lw::opt
