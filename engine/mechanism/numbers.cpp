#include "mechanism/numbers.h"

#include <complex>
#include <stdexcept>

namespace lw {

template <class P>
Eigen::Matrix<P, 3, 3> rotationAbout(const Eigen::Matrix<P, 3, 1>& u, const P& angle) {
  using std::cos, std::sin;
  const P c = cos(angle), s = sin(angle), k = P(1.0) - c;
  Eigen::Matrix<P, 3, 3> R;
  R << c + k * u[0] * u[0], k * u[0] * u[1] - s * u[2], k * u[0] * u[2] + s * u[1],
      k * u[1] * u[0] + s * u[2], c + k * u[1] * u[1], k * u[1] * u[2] - s * u[0],
      k * u[2] * u[0] - s * u[1], k * u[2] * u[1] + s * u[0], c + k * u[2] * u[2];
  return R;
}

// ---- TimeFunctionOn ----

template <class P>
TimeFunctionOn<P>::TimeFunctionOn(const Number& f, const ParameterTable& table, std::span<const P> parameters) {
  if (f.isLiteral()) {
    constant_ = P(f.value);
    return;
  }
  literal_ = false;
  std::vector<std::string> names{"t"};
  slots_.push_back(P(0.0));
  for (const auto& v : f.expression.variables()) {
    if (v == "t") continue;
    const int k = table.find(v);
    if (k < 0) throw std::invalid_argument("unknown parameter '" + v + "'");
    names.push_back(v);
    slots_.push_back(parameters[static_cast<std::size_t>(k)]);
  }
  const Expression d = f.expression.derivative("t");
  f_ = f.expression.bind(names);
  df_ = d.bind(names);
  ddf_ = d.derivative("t").bind(names);
}

template <class P>
P TimeFunctionOn<P>::at(const Expression::Bound& e, double t) const {
  // a copy of the slots with the time in slot 0 (the function stays immutable and shareable)
  constexpr std::size_t kStack = 16;
  if (slots_.size() <= kStack) {
    P s[kStack];
    std::copy(slots_.begin(), slots_.end(), s);
    s[0] = P(t);
    return e(std::span<const P>(s, slots_.size()));
  }
  std::vector<P> s = slots_;
  s[0] = P(t);
  return e(std::span<const P>(s));
}

template <class P>
P TimeFunctionOn<P>::value(double t) const {
  if constexpr (std::is_same_v<P, double>) {
    if (fromResolved_) return resolved_.value(t);
  }
  return literal_ ? constant_ : at(f_, t);
}
template <class P>
P TimeFunctionOn<P>::rate(double t) const {
  if constexpr (std::is_same_v<P, double>) {
    if (fromResolved_) return resolved_.rate(t);
  }
  return literal_ ? P(0.0) : at(df_, t);
}
template <class P>
P TimeFunctionOn<P>::acceleration(double t) const {
  if constexpr (std::is_same_v<P, double>) {
    if (fromResolved_) return resolved_.acceleration(t);
  }
  return literal_ ? P(0.0) : at(ddf_, t);
}

// ---- numbers ----

MechanismNumbers<double> numbersOf(const ResolvedMechanism& r) {
  MechanismNumbers<double> n;
  n.gravity = r.gravity;
  for (const auto& b : r.bodies)
    n.bodies.push_back({b.position, b.rotation, b.mass, b.com, b.inertia, b.points, b.vectors});
  for (const auto& f : r.forces) {
    MechanismNumbers<double>::Force x;
    x.active = f.startsActive;
    x.stiffness = f.stiffness;
    x.damping = f.damping;
    x.naturalLength = f.naturalLength;
    x.naturalAngle = f.naturalAngle;
    x.radius = f.radius;
    x.friction = f.friction;
    x.slipVelocity = f.slipVelocity;
    x.actuatorForce = TimeFunctionOn<double>(f.actuatorForce);
    for (const auto& v : f.value) x.value.emplace_back(v);
    n.forces.push_back(std::move(x));
  }
  for (const auto& d : r.drivers) n.drivers.emplace_back(d.function);
  for (const auto& c : r.contacts) n.contacts.push_back({c.radius, c.restitution});
  for (const auto& l : r.limits) n.limits.push_back({l.min, l.max, l.restitution});
  for (const auto& s : r.switches) n.switchValues.push_back(s.value);
  for (const auto& v : r.initialRates) n.initialRates.push_back({v.value, v.velocity, v.angular});
  return n;
}

namespace {

template <class P>
struct Evaluator {
  using Vec3 = Eigen::Matrix<P, 3, 1>;
  const ParameterTable& table;
  std::span<const P> parameters;
  int dim;

  P num(const Number& n) const { return table.evaluateOn<P>(n, parameters); }
  Vec3 vec(const NumberVector& v) const {
    Vec3 x = Vec3::Zero();
    for (int i = 0; i < dim && i < static_cast<int>(v.size()); ++i) x[i] = num(v[static_cast<std::size_t>(i)]);
    return x;
  }
  std::vector<Vec3> items(const std::vector<NamedVector>& items, bool directions) const {
    std::vector<Vec3> out;
    for (const auto& it : items) out.push_back(directions ? unit3<P>(vec(it.value)) : vec(it.value));
    return out;
  }
  TimeFunctionOn<P> function(const Number& n) const { return TimeFunctionOn<P>(n, table, parameters); }
};

}  // namespace

template <class P>
MechanismNumbers<P> numbersOn(const Mechanism& m, const ResolvedMechanism& r, std::span<const P> parameters) {
  using Vec3 = Eigen::Matrix<P, 3, 1>;
  if (!r.parameters) throw std::invalid_argument("numbersOn: the mechanism has no parameter table");
  const Evaluator<P> e{*r.parameters, parameters, m.dimension};
  MechanismNumbers<P> n;
  if (!m.gravity.empty()) n.gravity = e.vec(m.gravity);
  typename MechanismNumbers<P>::Body ground;
  ground.points = e.items(m.ground.points, false);
  ground.vectors = e.items(m.ground.vectors, true);
  n.bodies.push_back(std::move(ground));
  for (const Body& b : m.bodies) {
    typename MechanismNumbers<P>::Body x;
    if (!b.position.empty()) x.position = e.vec(b.position);
    if (m.dimension == 2) x.rotation = rotationAbout<P>(Vec3(P(0.0), P(0.0), P(1.0)), e.num(b.angle));
    else if (!b.rotationAxis.empty()) x.rotation = rotationAbout<P>(unit3<P>(e.vec(b.rotationAxis)), e.num(b.rotationAngle));
    x.mass = e.num(b.mass);
    x.com = e.vec(b.com);
    const auto& in = b.inertia.values;
    if (m.dimension == 2) {
      const P izz = in.empty() ? P(0.0) : e.num(in[0]);
      x.inertia = Vec3(izz, izz, izz).asDiagonal();
    } else if (b.inertia.form == Inertia::Form::Diagonal && in.size() == 3) {
      x.inertia = Vec3(e.num(in[0]), e.num(in[1]), e.num(in[2])).asDiagonal();
    } else if (in.size() == 9) {
      for (int k = 0; k < 9; ++k) x.inertia(k / 3, k % 3) = e.num(in[static_cast<std::size_t>(k)]);
    }
    x.points = e.items(b.points, false);
    x.vectors = e.items(b.vectors, true);
    n.bodies.push_back(std::move(x));
  }
  for (const Force& f : m.forces) {
    typename MechanismNumbers<P>::Force x;
    x.active = r.forces[n.forces.size()].startsActive;
    x.stiffness = e.num(f.stiffness);
    x.damping = e.num(f.damping);
    x.naturalLength = e.num(f.naturalLength);
    x.naturalAngle = e.num(f.naturalAngle);
    x.radius = e.num(f.radius);
    x.friction = e.num(f.friction);
    x.slipVelocity = e.num(f.slipVelocity);
    x.actuatorForce = e.function(f.actuatorForce);
    for (const auto& v : f.value) x.value.push_back(e.function(v));
    n.forces.push_back(std::move(x));
  }
  for (const Driver& d : m.drivers) n.drivers.push_back(e.function(d.function));
  for (const Contact& c : m.contacts) n.contacts.push_back({e.num(c.radius), e.num(c.restitution)});
  for (const JointLimit& l : m.limits) n.limits.push_back({e.num(l.min), e.num(l.max), e.num(l.restitution)});
  for (const Switch& s : m.switches) n.switchValues.push_back(e.num(s.value));
  for (const InitialVelocity& v : m.initialVelocities) {
    typename MechanismNumbers<P>::InitialRate x;
    if (v.type == InitialVelocity::Type::Body) {
      if (!v.velocity.empty()) x.velocity = e.vec(v.velocity);
      if (m.dimension == 2 && v.angularVelocity.size() == 1) x.angular = Vec3(P(0.0), P(0.0), e.num(v.angularVelocity[0]));
      else if (m.dimension == 3 && v.angularVelocity.size() == 3) x.angular = e.vec(v.angularVelocity);
    } else {
      x.value = e.num(v.value);
    }
    n.initialRates.push_back(std::move(x));
  }
  return n;
}

#define LW_NUMBERS_ON(P)                                                                                   \
  template class TimeFunctionOn<P>;                                                                        \
  template Eigen::Matrix<P, 3, 3> rotationAbout<P>(const Eigen::Matrix<P, 3, 1>&, const P&);              \
  template MechanismNumbers<P> numbersOn<P>(const Mechanism&, const ResolvedMechanism&, std::span<const P>);
LW_NUMBERS_ON(double)
LW_NUMBERS_ON(std::complex<double>)
LW_NUMBERS_ON(num::Dual8)
#undef LW_NUMBERS_ON

}  // namespace lw
