#include "outputs/outputs.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <type_traits>

#include "core/status.h"
#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/point_motion.h"
#include "dynamics/reactions.h"
#include "integrators/integrators.h"
#include "numeric/jet.h"
#include "numeric/scalar.h"

namespace lw::analysis {

int OutputComponents::find(const std::string& name) const {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

namespace {
int pointOf(const ResolvedMechanism& r, const Ref& ref, std::vector<ItemIndex>& points) {
  const int b = r.findBody(ref.body);
  if (b < 0) return -1;
  const auto& names = r.bodies[static_cast<std::size_t>(b)].pointNames;
  const auto it = std::find(names.begin(), names.end(), ref.item);
  if (it == names.end()) return -1;
  const ItemIndex at{b, static_cast<int>(it - names.begin())};
  const auto known = std::find(points.begin(), points.end(), at);
  if (known != points.end()) return static_cast<int>(known - points.begin());
  points.push_back(at);
  return static_cast<int>(points.size()) - 1;
}
}  // namespace

std::vector<std::string> columnUnits(const std::vector<std::string>& columns, const Mechanism* m) {
  auto ends = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  auto sliding = [&](const std::string& joint) {
    if (!m) return false;
    for (const auto& j : m->joints)
      if (j.name == joint) return j.type == JointType::Slider || j.type == JointType::Prismatic;
    return false;
  };
  std::vector<std::string> out;
  out.reserve(columns.size());
  for (const std::string& c : columns) {
    std::string unit;
    const std::string base = c.size() > 2 && c[c.size() - 2] == '.' ? c.substr(0, c.size() - 2) : c;
    const auto dot = c.rfind('.');
    const std::string stem = dot == std::string::npos ? c : c.substr(0, dot);  // a reaction's "RA" of "RA.fx"
    const Output* output = nullptr;
    if (m)
      for (const auto& o : m->outputs)
        if (o.name == c || o.name == base || (o.type == Output::Type::JointReaction && o.name == stem)) output = &o;
    if (c == "time") {
      unit = "s";
    } else if (c.rfind("dof.joint ", 0) == 0) {
      unit = sliding(c.substr(10)) ? "m" : "rad";
    } else if (c.rfind("energy.", 0) == 0) {
      unit = "J";
    } else if (c == "constraint.position") {
      unit = "m";
    } else if (c == "constraint.velocity") {
      unit = "m/s";
    } else if (output) {  // the file's outputs by name
      switch (output->type) {
        case Output::Type::PointPosition: unit = "m"; break;
        case Output::Type::PointVelocity: unit = "m/s"; break;
        case Output::Type::PointAcceleration: unit = "m/s²"; break;
        case Output::Type::JointCoordinate: unit = sliding(output->joint) ? "m" : "rad"; break;
        case Output::Type::JointRate: unit = sliding(output->joint) ? "m/s" : "rad/s"; break;
        case Output::Type::SpringLength: unit = "m"; break;
        case Output::Type::Energy: unit = "J"; break;
        case Output::Type::ConstraintResidual: break;
        case Output::Type::JointReaction: unit = ends(c, ".m") || ends(c, ".mx") || ends(c, ".my") || ends(c, ".mz") ? "N·m" : "N"; break;
        case Output::Type::DriverEffort: {
          const auto d = std::find_if(m->drivers.begin(), m->drivers.end(), [&](const Driver& x) { return x.name == output->driver; });
          unit = d != m->drivers.end() && d->type == Driver::Type::Joint && !sliding(d->joint) ? "N·m" : "N";
          break;
        }
      }
    } else if (ends(c, ".vx") || ends(c, ".vy") || ends(c, ".vz")) {
      unit = "m/s";
    } else if (ends(c, ".ax") || ends(c, ".ay") || ends(c, ".az")) {
      unit = "m/s²";
    } else if (ends(c, ".x") || ends(c, ".y") || ends(c, ".z")) {
      unit = "m";
    }
    out.push_back(unit);
  }
  return out;
}

OutputComponents compileOutputs(const Mechanism& m, const ResolvedMechanism& r, const dyn::RecursiveModel& tree, const std::vector<int>& rows) {
  OutputComponents o;
  o.rows = rows;
  const char* axes = "xyz";
  for (const Output& out : m.outputs) {
    OutputComponents::Component c;
    c.type = out.type;
    std::string problem;
    switch (out.type) {
      case Output::Type::PointPosition:
      case Output::Type::PointVelocity:
      case Output::Type::PointAcceleration:
        c.point = pointOf(r, out.point, o.points);
        for (int k = 0; k < m.dimension; ++k) {
          c.axis = k;
          o.names.push_back(out.name + "." + axes[k]);
          o.components.push_back(c);
          o.problems.emplace_back();
        }
        continue;
      case Output::Type::JointCoordinate:
      case Output::Type::JointRate: {
        const int j = r.findJoint(out.joint);
        c.joint = j;
        c.node = j >= 0 ? tree.treeJointNode[static_cast<std::size_t>(j)] : -1;
        if (j >= 0) {
          const JointType type = r.joints[static_cast<std::size_t>(j)].type;
          c.angle = !(type == JointType::Slider || type == JointType::Prismatic);
        }
        if (c.node >= 0) c.sign = tree.nodes[static_cast<std::size_t>(c.node)].sign;
        break;
      }
      case Output::Type::SpringLength: {
        const auto it = std::find_if(m.forces.begin(), m.forces.end(), [&](const Force& f) { return f.name == out.spring; });
        if (it != m.forces.end()) {
          c.springs[0] = pointOf(r, it->points[0], o.points);
          c.springs[1] = pointOf(r, it->points[1], o.points);
        }
        break;
      }
      case Output::Type::Energy:
        c.which = out.which;
        problem = "energies are not differentiated yet";
        break;
      case Output::Type::ConstraintResidual:
        problem = "a constraint residual (a largest absolute value) has no derivative";
        break;
      case Output::Type::JointReaction: {
        // force then moment about the joint's point: fx, fy, m in the plane; fx ... mz in space
        c.joint = r.findJoint(out.joint);
        c.body = r.findBody(out.on);
        for (const auto& [axis, suffix] : reactionComponents(m.dimension)) {
          c.axis = axis;
          o.names.push_back(out.name + "." + suffix);
          o.components.push_back(c);
          o.problems.emplace_back();
        }
        o.reactions = true;
        continue;
      }
      case Output::Type::DriverEffort:
        for (std::size_t d = 0; d < r.drivers.size(); ++d)
          if (r.drivers[d].name == out.driver) c.driver = static_cast<int>(d);
        o.reactions = true;
        break;
    }
    o.names.push_back(out.name);
    o.components.push_back(c);
    o.problems.push_back(problem);
  }
  return o;
}


namespace {
// pointMotionOn is instantiated for S (it covers every tree)
template <class S>
constexpr bool jetFreePoints = std::is_same_v<S, double> || std::is_same_v<S, num::Dual8>;
}  // namespace

template <class S>
void outputsOn(const OutputComponents& o, const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p,
               const Eigen::Matrix<S, Eigen::Dynamic, 1>& z, const Eigen::Matrix<S, Eigen::Dynamic, 1>& zd,
               const Eigen::Matrix<S, Eigen::Dynamic, 1>& zdd, double t, S* out, dyn::ReactionsOn<S>* kept) {
  using J = kin::BasicJet<S>;
  const std::size_t n = 3 * o.points.size();
  std::vector<S> r(n), v(n), a(n);
  if (o.points.empty()) {
  } else if constexpr (jetFreePoints<S>) {
    // the points from the jet-free pass (several times cheaper on dual numbers); their positions
    // alone (the frames at z) when no component reads a rate
    bool positionsOnly = true;
    for (const auto& c : o.components)
      positionsOnly = positionsOnly && (c.type == Output::Type::PointPosition || c.type == Output::Type::JointCoordinate ||
                                        c.type == Output::Type::SpringLength);
    dyn::pointMotionOn<S>(tree, p, z.data(), zd.data(), zdd.data(), o.points, r.data(), positionsOnly ? nullptr : v.data(),
                          positionsOnly ? nullptr : a.data());
  } else {
    std::vector<J> zj(static_cast<std::size_t>(tree.nz)), xyz(n);
    for (int i = 0; i < tree.nz; ++i) zj[static_cast<std::size_t>(i)] = J(z[i], zd[i], zdd[i]);
    dyn::kinematicsOn<J, S>(tree, p, zj.data(), J(S(t), S(1.0), S(0.0)), nullptr, o.points, xyz.data());
    for (std::size_t k = 0; k < n; ++k) {
      r[k] = xyz[k].v;
      v[k] = xyz[k].d;
      a[k] = xyz[k].dd;
    }
  }
  outputsFromPoints<S>(o, tree, p, z, zd, zdd, t, r.data(), v.data(), a.data(), out, kept);
}

template <class S>
void outputsFromPoints(const OutputComponents& o, const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p,
                       const Eigen::Matrix<S, Eigen::Dynamic, 1>& z, const Eigen::Matrix<S, Eigen::Dynamic, 1>& zd,
                       const Eigen::Matrix<S, Eigen::Dynamic, 1>& zdd, double t, const S* r, const S* v, const S* a, S* out,
                       dyn::ReactionsOn<S>* kept) {
  using J = kin::BasicJet<S>;
  using std::sqrt;
  std::vector<J> zj;  // z as jets, made when a loop's joint coordinate asks
  auto jets = [&]() -> const std::vector<J>& {
    if (zj.empty() && tree.nz > 0) {
      zj.resize(static_cast<std::size_t>(tree.nz));
      for (int i = 0; i < tree.nz; ++i) zj[static_cast<std::size_t>(i)] = J(z[i], zd[i], zdd[i]);
    }
    return zj;
  };
  // the joints' forces and the drivers' efforts: the multipliers and a Newton–Euler pass, once
  std::unique_ptr<dyn::ReactionsOn<S>> own;
  dyn::ReactionsOn<S>* reactions = nullptr;
  if (o.reactions) {
    if (!kept) own = std::make_unique<dyn::ReactionsOn<S>>(tree, o.rows);
    reactions = kept ? kept : own.get();
    if (!reactions->compute(p, z.data(), zd.data(), zdd.data(), t)) reactions = nullptr;  // singular loops: left zero
  }
  for (std::size_t i = 0; i < o.components.size(); ++i) {
    const auto& c = o.components[i];
    auto at = [&](int point, int axis) { return 3 * static_cast<std::size_t>(point) + static_cast<std::size_t>(axis); };
    S value(0.0);
    switch (c.type) {
      case Output::Type::PointPosition: value = r[at(c.point, c.axis)]; break;
      case Output::Type::PointVelocity: value = v[at(c.point, c.axis)]; break;
      case Output::Type::PointAcceleration: value = a[at(c.point, c.axis)]; break;
      case Output::Type::JointCoordinate:
      case Output::Type::JointRate:
        if (c.node >= 0) {
          const Eigen::Index k = tree.nodes[static_cast<std::size_t>(c.node)].z;
          value = c.type == Output::Type::JointRate ? S(zd[k] * c.sign) : S(z[k] * c.sign + dyn::storedJointCoordinate(tree, p, c.joint));
        } else if (J q; c.joint >= 0 && dyn::jointCoordinatesOn<J, S>(tree, p, jets().data(), std::span<const int>(&c.joint, 1), &q)) {
          // a joint that closes a loop: from the bodies, its rate the jet's first part
          value = c.type == Output::Type::JointRate ? q.d : q.v;
        }
        break;
      case Output::Type::SpringLength:
        if (c.springs[0] >= 0 && c.springs[1] >= 0) {
          S sum(0.0);
          for (int k = 0; k < 3; ++k) {
            const S d = r[at(c.springs[1], k)] - r[at(c.springs[0], k)];
            sum = sum + d * d;
          }
          value = sqrt(sum);
        }
        break;
      case Output::Type::Energy:
      case Output::Type::ConstraintResidual: break;
      case Output::Type::JointReaction:
        if (reactions && c.joint >= 0 && c.body >= 0) {
          S w[6];
          reactions->jointReaction(c.joint, c.body, w);
          value = w[c.axis];
        }
        break;
      case Output::Type::DriverEffort:
        if (reactions && c.driver >= 0) value = reactions->driverEffort(c.driver);
        break;
    }
    out[i] = value;
  }
}

namespace {
// a number's text that parses back to the same double
std::string exactText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
}  // namespace

std::string compileCosts(const Mechanism& m, const ResolvedMechanism& r, const OutputComponents& o,
                         const std::vector<std::string>& names, CostSet& out, bool derivatives) {
  out = CostSet{};
  std::vector<const Cost*> chosen;
  if (names.empty()) {
    for (const Cost& c : m.costs) chosen.push_back(&c);
  } else {
    for (const auto& n : names) {
      const auto it = std::find_if(m.costs.begin(), m.costs.end(), [&](const Cost& c) { return c.name == n; });
      if (it == m.costs.end()) {
        std::string known;
        for (const Cost& c : m.costs) known += (known.empty() ? "" : ", ") + c.name;
        return "unknown cost '" + n + "' (the file's costs: " + (known.empty() ? "none" : known) + ")";
      }
      chosen.push_back(&*it);
    }
  }
  if (chosen.empty()) return "the file has no costs: add one under \"costs\" (an integral or terminal expression of outputs)";
  const auto& table = *r.parameters;
  std::vector<std::string> slots{"t"};
  for (const auto& n : o.names) slots.push_back(n);
  for (const auto& n : o.names) slots.push_back("initial(" + n + ")");
  for (const auto& n : table.names()) slots.push_back(n);
  out.outputs = o.names.size();
  out.parameters = table.names().size();
  for (const Cost* c : chosen) {
    if (c->type == Cost::Type::Targets) {
      // Σ |p(t_i) − target_i|²: a term per target, on the output's components
      std::vector<CostSet::Sample> samples;
      for (std::size_t i = 0; i < c->targets.size(); ++i) {
        const auto& target = c->targets[i];
        std::string text;
        for (std::size_t k = 0; k < target.at.size(); ++k) {
          const std::string component = c->output + "." + toString(static_cast<Component>(k));
          const int slot = o.find(component);
          if (slot < 0) return "cost '" + c->name + "': '" + c->output + "' is not a point output of this mechanism";
          if (derivatives && !o.problems[static_cast<std::size_t>(slot)].empty())
            return "cost '" + c->name + "' cannot be differentiated: it uses '" + component + "' (" + o.problems[static_cast<std::size_t>(slot)] + ")";
          text += (k ? " + (" : "(") + component + " - (" + exactText(target.at[k]) + "))^2";
        }
        samples.push_back({target.t, Expression::parseOrThrow(text).bind(slots)});
      }
      out.names.push_back(c->name);
      out.types.push_back(c->type);
      out.freeTiming.push_back(c->timing == Cost::Timing::Free);
      out.expressions.push_back(Expression::constant(0).bind(slots));
      out.samples.push_back(std::move(samples));
      continue;
    }
    const Expression e = c->expression.initialsAsVariables();
    for (const auto& v : e.variables()) {
      std::string component = v;
      if (v.rfind("initial(", 0) == 0) component = v.substr(8, v.size() - 9);
      const int k = o.find(component);
      if (derivatives && k >= 0 && !o.problems[static_cast<std::size_t>(k)].empty())
        return "cost '" + c->name + "' cannot be differentiated: it uses '" + component + "' (" + o.problems[static_cast<std::size_t>(k)] + ")";
      if (k < 0 && v != "t" && table.find(v) < 0) return "cost '" + c->name + "' uses the unknown name '" + v + "'";
    }
    out.names.push_back(c->name);
    out.types.push_back(c->type);
    out.freeTiming.push_back(false);
    out.expressions.push_back(e.bind(slots));
    out.samples.emplace_back();
  }
  return {};
}

std::string compileRunCosts(const Mechanism& m, const ResolvedMechanism& r, const OutputComponents& o, double tEnd, bool withEnergies,
                            CostSet& out) {
  std::vector<std::string> kept;
  std::string problems;
  for (const Cost& c : m.costs) {
    CostSet one;
    std::string problem = compileCosts(m, r, o, {c.name}, one, !withEnergies);
    if (problem.empty()) problem = costTimesProblem(one, tEnd);
    if (problem.empty()) kept.push_back(c.name);
    else problems += (problems.empty() ? "" : "\n") + problem;
  }
  out = CostSet{};
  if (!kept.empty()) compileCosts(m, r, o, kept, out, !withEnergies);
  return problems;
}

double CostSet::lastSampleTime() const {
  double last = 0;
  for (std::size_t k = 0; k < samples.size(); ++k)
    if (!samples[k].empty() && !freeTiming[k]) last = std::max(last, samples[k].back().t);
  return last;
}

std::string costTimesProblem(const CostSet& c, double tEnd) {
  for (std::size_t k = 0; k < c.names.size(); ++k)
    for (std::size_t i = 0; i < c.samples[k].size() && !c.freeTiming[k]; ++i)
      if (c.samples[k][i].t > tEnd * (1 + 1e-12))
        return "cost '" + c.names[k] + "': target " + std::to_string(i + 1) + " at t = " + shortNumber(c.samples[k][i].t) +
               " s is after the run's end (" + shortNumber(tEnd) + " s): lengthen the run or move the target";
  return {};
}

template <class S>
void CostAccumulator<S>::add(double t, const S* outputs, const S* parameters) {
  const CostSet& c = *c_;
  slots_.resize(1 + 2 * c.outputs + c.parameters);
  slots_[0] = S(t);
  if (!started_) initial_.assign(outputs, outputs + c.outputs);
  std::copy(outputs, outputs + c.outputs, slots_.begin() + 1);
  std::copy(initial_.begin(), initial_.end(), slots_.begin() + 1 + static_cast<long>(c.outputs));
  std::copy(parameters, parameters + c.parameters, slots_.begin() + 1 + 2 * static_cast<long>(c.outputs));
  if (sum_.empty()) sum_.assign(c.names.size(), S(0.0));
  std::vector<S> g(c.names.size());
  for (std::size_t k = 0; k < c.names.size(); ++k) {
    g[k] = c.expressions[k](std::span<const S>(slots_));
    if (c.types[k] != Cost::Type::Targets) watchFinite(k, g[k], t);
  }
  if (started_ && stagesPending_) {
    // the step's quadrature: h (b₁ g₁ + b₃ g₃ + … + b₆ g₆), g₁ the last point's
    const double h = t - lastT_;
    std::vector<S>& at = stageSlots_;
    at = slots_;  // (a kept buffer: no allocation per step)
    for (std::size_t k = 0; k < g.size(); ++k)
      if (c.types[k] == Cost::Type::Integral) sum_[k] = sum_[k] + last_[k] * (h * integ::dopri::b1);
    for (std::size_t i = 0; i < 4; ++i) {
      at[0] = S(lastT_ + integ::dopri::quadratureC[i] * h);
      std::copy(stages_[i].begin(), stages_[i].end(), at.begin() + 1);
      for (std::size_t k = 0; k < g.size(); ++k) {
        if (c.types[k] != Cost::Type::Integral) continue;
        const S gi = c.expressions[k](std::span<const S>(at));
        watchFinite(k, gi, t);
        sum_[k] = sum_[k] + gi * (h * integ::dopri::quadratureB[i]);
      }
    }
  } else if (started_) {
    for (std::size_t k = 0; k < g.size(); ++k)
      if (c.types[k] == Cost::Type::Integral) sum_[k] = sum_[k] + (g[k] + last_[k]) * (0.5 * (t - lastT_));
  }
  stagesPending_ = false;
  ++node_;
  if (extreme_.empty()) {
    extreme_ = g;
    extremeNode_.assign(g.size(), -1);
    for (std::size_t k = 0; k < g.size(); ++k)
      if (c.types[k] == Cost::Type::Minimum || c.types[k] == Cost::Type::Maximum) extremeNode_[k] = node_;
  }
  for (std::size_t k = 0; k < g.size(); ++k) {
    // the first of equal values is kept: the step where the extreme is first reached
    if ((c.types[k] == Cost::Type::Minimum && num::value(g[k]) < num::value(extreme_[k])) ||
        (c.types[k] == Cost::Type::Maximum && num::value(g[k]) > num::value(extreme_[k]))) {
      extreme_[k] = g[k];
      extremeNode_[k] = node_;
    }
  }
  // targets passed since the last point: the outputs there by linear interpolation (exact at a
  // step's time; the same interpolation differentiated, so the gradient is the value's)
  if (c.hasType(Cost::Type::Targets)) {
    if (nextSample_.empty()) nextSample_.assign(c.names.size(), 0);
    std::vector<S> between;
    for (std::size_t k = 0; k < c.names.size(); ++k) {
      const auto& samples = c.samples[k];
      if (c.freeTiming[k]) {
        // each target's least term so far over the path between points (the outputs linearly
        // interpolated, as a timed target reads them): its distance moves continuously with the
        // design, not by jumps from one point to the next. The term is quadratic along a segment
        // (a sum of squares of linear functions): three values give its least exactly, and its
        // derivatives are the term's at that fixed place (the least's own derivative, where the
        // place is inside the segment)
        if (nearest_.size() != c.names.size()) nearest_.resize(c.names.size());
        nearest_[k].resize(samples.size());
        for (std::size_t i = 0; i < samples.size(); ++i) {
          double f = 1;
          if (started_) {
            between.resize(slots_.size());
            auto valueAt = [&](double frac) {
              for (std::size_t j = 0; j < slots_.size(); ++j) between[j] = lastSlots_[j] + (slots_[j] - lastSlots_[j]) * frac;
              return num::value(samples[i].expression(std::span<const S>(between)));
            };
            const double e0 = valueAt(0), eh = valueAt(0.5), e1 = valueAt(1);
            const double a = 2 * (e0 + e1 - 2 * eh), b = e1 - e0 - a;
            f = a > 0 ? std::clamp(-b / (2 * a), 0.0, 1.0) : (e1 <= e0 ? 1.0 : 0.0);
          }
          between.resize(slots_.size());
          for (std::size_t j = 0; j < slots_.size(); ++j) between[j] = started_ ? lastSlots_[j] + (slots_[j] - lastSlots_[j]) * f : slots_[j];
          between[0] = S(started_ ? lastT_ + f * (t - lastT_) : t);
          const S term = samples[i].expression(std::span<const S>(between));
          watchFinite(k, term, t);
          Nearest& n = nearest_[k][i];
          if (!n.set || num::value(term) < num::value(n.value)) n = {term, {k, i, node_, f, between}, true};
        }
        continue;
      }
      for (std::size_t& i = nextSample_[k]; i < samples.size(); ++i) {
        const double ti = samples[i].t;
        if (started_ ? ti > t : ti > t * (1 + 1e-12) + 1e-300) break;
        if (!started_ || t - lastT_ <= 0 || ti >= t) {
          sum_[k] = sum_[k] + samples[i].expression(std::span<const S>(slots_));
          watchFinite(k, sum_[k], ti);
          sites_.push_back({k, i, node_, 1.0, slots_});
          continue;
        }
        const double f = std::max(0.0, (ti - lastT_) / (t - lastT_));
        between.resize(slots_.size());
        for (std::size_t j = 0; j < slots_.size(); ++j) between[j] = lastSlots_[j] + (slots_[j] - lastSlots_[j]) * f;
        between[0] = S(ti);
        sum_[k] = sum_[k] + samples[i].expression(std::span<const S>(between));
        watchFinite(k, sum_[k], ti);
        sites_.push_back({k, i, node_, f, between});
      }
    }
    lastSlots_ = slots_;  // only a targets cost reads between points
  }
  previous_ = std::move(last_);
  last_ = std::move(g);
  lastT_ = t;
  started_ = true;
}

template <class S>
void CostAccumulator<S>::rungeKuttaStages(const std::array<const S*, 4>& stageOutputs) {
  for (std::size_t i = 0; i < 4; ++i) stages_[i].assign(stageOutputs[i], stageOutputs[i] + c_->outputs);
  stagesPending_ = true;
}

template <class S>
std::vector<typename CostAccumulator<S>::TargetSite> CostAccumulator<S>::targetSites() const {
  std::vector<TargetSite> all = sites_;
  for (const auto& cost : nearest_)
    for (const Nearest& n : cost)
      if (n.set) all.push_back(n.site);
  return all;
}

template <class S>
void CostAccumulator<S>::watchFinite(std::size_t cost, const S& term, double t) {
  if (notFiniteCost_ < 0 && !std::isfinite(num::value(term))) {
    notFiniteCost_ = static_cast<long>(cost);
    notFiniteAt_ = t;
  }
}

template <class S>
std::string CostAccumulator<S>::notFiniteProblem() const {
  if (notFiniteCost_ < 0) return {};
  return "cost '" + c_->names[static_cast<std::size_t>(notFiniteCost_)] + "' is not a finite number from t = " + shortNumber(notFiniteAt_) +
         " s on (its expression gives a NaN or an infinity there: the square root or logarithm of a negative number, a division "
         "by zero, an overflow): no value, no gradient";
}

template <class S>
void CostAccumulator<S>::eventTimeMoves(const S& dt) {
  if (previous_.size() != last_.size()) return;
  for (std::size_t k = 0; k < sum_.size(); ++k)
    if (c_->types[k] == Cost::Type::Integral) sum_[k] = sum_[k] + (previous_[k] - last_[k]) * dt;
}

template <class S>
std::vector<S> CostAccumulator<S>::values() const {
  std::vector<S> v(c_->names.size(), S(0.0));
  for (std::size_t k = 0; k < v.size(); ++k) {
    switch (c_->types[k]) {
      case Cost::Type::Integral: v[k] = sum_.empty() ? S(0.0) : sum_[k]; break;
      case Cost::Type::Targets:
        if (c_->freeTiming[k]) {
          if (k < nearest_.size())
            for (const Nearest& n : nearest_[k]) v[k] = v[k] + n.value;
        } else {
          v[k] = sum_.empty() ? S(0.0) : sum_[k];
        }
        break;
      case Cost::Type::Terminal: v[k] = last_.empty() ? S(0.0) : last_[k]; break;
      case Cost::Type::Minimum: case Cost::Type::Maximum: v[k] = extreme_.empty() ? S(0.0) : extreme_[k]; break;
    }
  }
  return v;
}

std::string keepFiniteCosts(const CostAccumulator<double>& accumulator, std::vector<std::string>& names, std::vector<double>& values) {
  std::string problems;
  const std::string first = accumulator.notFiniteProblem();
  for (std::size_t k = names.size(); k-- > 0;) {
    if (std::isfinite(values[k])) continue;
    const std::string named = "cost '" + names[k] + "'";
    problems.insert(0, (first.rfind(named, 0) == 0 ? first : named + " is not a finite number: no value") + (problems.empty() ? "" : "\n"));
    names.erase(names.begin() + static_cast<std::ptrdiff_t>(k));
    values.erase(values.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return problems;
}

bool outputPartials(const OutputComponents& o, const dyn::RecursiveModel& tree, const dyn::TreeNumbers<double>& p, const Eigen::VectorXd& z,
                    const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, double t, Eigen::VectorXd& out, Eigen::MatrixXd& Oz,
                    Eigen::MatrixXd& Ozd, Eigen::MatrixXd& Ozdd, const dyn::MotionAtState* state) {
  for (const auto& c : o.components) {
    const bool tree_joint = (c.type == Output::Type::JointCoordinate || c.type == Output::Type::JointRate) && c.node >= 0;
    const bool covered = (c.type == Output::Type::PointPosition || c.type == Output::Type::PointVelocity ||
                         c.type == Output::Type::PointAcceleration || tree_joint || c.type == Output::Type::SpringLength ||
                         c.type == Output::Type::Energy || c.type == Output::Type::ConstraintResidual);
    if (!covered) return false;
  }
  const auto no = static_cast<Eigen::Index>(o.components.size());
  out.resize(no);
  // the points' r, v, a: off the motion given (no motion pass of their own), else one pass
  thread_local std::vector<double> pr, pv, pa;
  const std::size_t np = 3 * o.points.size();
  pr.assign(np, 0.0);
  pv.assign(np, 0.0);
  pa.assign(np, 0.0);
  if (np > 0) {
    if (state) state->points(tree, p, o.points, pr.data(), pv.data(), pa.data());
    else dyn::pointMotionOn<double>(tree, p, z.data(), zd.data(), zdd.data(), o.points, pr.data(), pv.data(), pa.data());
  }
  outputsFromPoints<double>(o, tree, p, z, zd, zdd, t, pr.data(), pv.data(), pa.data(), out.data());
  Oz.setZero(no, tree.nz);
  Ozd.setZero(no, tree.nz);
  Ozdd.setZero(no, tree.nz);
  dyn::PointMotionPartials P;
  if (!o.points.empty()) {
    if (state) dyn::pointMotionDerivatives(tree, p, *state, o.points, P);
    else dyn::pointMotionDerivatives(tree, p, z, zd, zdd, o.points, P);
  }
  for (Eigen::Index i = 0; i < no; ++i) {
    const auto& c = o.components[static_cast<std::size_t>(i)];
    const Eigen::Index row = 3 * c.point + c.axis;
    switch (c.type) {
      case Output::Type::PointPosition: Oz.row(i) = P.J.row(row); break;
      case Output::Type::PointVelocity:
        Oz.row(i) = P.v_z.row(row);
        Ozd.row(i) = P.J.row(row);
        break;
      case Output::Type::PointAcceleration:
        Oz.row(i) = P.a_z.row(row);
        Ozd.row(i) = P.a_zd.row(row);
        Ozdd.row(i) = P.J.row(row);
        break;
      case Output::Type::JointCoordinate:
        Oz(i, tree.nodes[static_cast<std::size_t>(c.node)].z) = c.sign;
        break;
      case Output::Type::JointRate:
        Ozd(i, tree.nodes[static_cast<std::size_t>(c.node)].z) = c.sign;
        break;
      case Output::Type::SpringLength: {
        // L = |r₂ − r₁|: L_z = eᵀ (J₂ − J₁)
        if (c.springs[0] < 0 || c.springs[1] < 0) break;
        const Eigen::Index a = 3 * c.springs[0], b = 3 * c.springs[1];
        Eigen::Vector3d e(pr[static_cast<std::size_t>(b)] - pr[static_cast<std::size_t>(a)], pr[static_cast<std::size_t>(b + 1)] - pr[static_cast<std::size_t>(a + 1)],
                          pr[static_cast<std::size_t>(b + 2)] - pr[static_cast<std::size_t>(a + 2)]);
        if (e.norm() > 0) e.normalize();
        Oz.row(i) = e.transpose() * (P.J.middleRows<3>(b) - P.J.middleRows<3>(a));
        break;
      }
      case Output::Type::Energy:
      case Output::Type::ConstraintResidual:
      case Output::Type::JointReaction:
      case Output::Type::DriverEffort: break;
    }
  }
  return true;
}

#define LW_OUTPUTS_ON(S)                                                                                             \
  template void outputsOn<S>(const OutputComponents&, const dyn::RecursiveModel&, const dyn::TreeNumbers<S>&,       \
                             const Eigen::Matrix<S, Eigen::Dynamic, 1>&, const Eigen::Matrix<S, Eigen::Dynamic, 1>&, \
                             const Eigen::Matrix<S, Eigen::Dynamic, 1>&, double, S*, dyn::ReactionsOn<S>*);          \
  template void outputsFromPoints<S>(const OutputComponents&, const dyn::RecursiveModel&, const dyn::TreeNumbers<S>&,  \
                                     const Eigen::Matrix<S, Eigen::Dynamic, 1>&, const Eigen::Matrix<S, Eigen::Dynamic, 1>&, \
                                     const Eigen::Matrix<S, Eigen::Dynamic, 1>&, double, const S*, const S*, const S*, S*, \
                                     dyn::ReactionsOn<S>*);                                                              \
  template class CostAccumulator<S>;
LW_OUTPUTS_ON(double)
LW_OUTPUTS_ON(num::Dual8)
LW_OUTPUTS_ON(std::complex<double>)
#undef LW_OUTPUTS_ON

}  // namespace lw::analysis
