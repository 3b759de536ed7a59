// The global formulations' equations on other numbers (natural_dynamics.h: NaturalOn): the terms
// of their residuals at a state on doubles with the model's constants, mass matrix and forces on
// P — with P a chunk of parameters seeded, the residuals' parameter columns by forward AD, which
// one solve with the nominal matrix turns into the accelerations' (seed 003 §4's AD route).
#include <cmath>

#include "dynamics/natural_dynamics.h"
#include "kinematics/natural_numbers.h"
#include "numeric/dual_eigen.h"
#include "numeric/scalar.h"

namespace lw::dyn {

template <class P>
void constraintRatesOn(const kin::NaturalModel& m, const NaturalOn<P>& on, double t, const StateOn<P>& q, const StateOn<P>& qd, StateOn<P>& phi,
                       StateOn<P>& rate, StateOn<P>& gamma) {
  phi.resize(m.nrows);
  rate.resize(m.nrows);
  gamma.resize(m.nrows);
  kin::BasicJet<P> r[3];
  for (const kin::Constraint& c : m.constraints) {
    kin::constraintJetOn<P>(m, on.k, c, q, &qd, -1, t, 1.0, r);  // along (q̇, 1): Φ, Φ̇, γ
    for (int i = 0; i < c.rows; ++i) {
      phi[c.row + i] = r[i].v;
      rate[c.row + i] = r[i].d;
      gamma[c.row + i] = r[i].dd;
    }
  }
}

template <class P>
void jacobianTimesOn(const kin::NaturalModel& m, const NaturalOn<P>& on, double t, const StateOn<P>& q, const StateOn<P>& v, StateOn<P>& out) {
  out.resize(m.nrows);
  kin::BasicJet<P> r[3];
  for (const kin::Constraint& c : m.constraints) {
    kin::constraintJetOn<P>(m, on.k, c, q, &v, -1, t, 0.0, r);
    for (int i = 0; i < c.rows; ++i) out[c.row + i] = r[i].d;
  }
}

template <class P>
void jacobianTransposeTimesOn(const kin::NaturalModel& m, const NaturalOn<P>& on, double t, const StateOn<P>& q, const StateOn<P>& w,
                              StateOn<P>& out) {
  out = StateOn<P>::Zero(m.nq);
  kin::BasicJet<P> r[3];
  for (const kin::Constraint& c : m.constraints)
    for (int j : c.columns) {
      kin::constraintJetOn<P>(m, on.k, c, q, nullptr, j, t, 0.0, r);  // column j of the constraint's rows
      for (int i = 0; i < c.rows; ++i) out[j] += w[c.row + i] * r[i].d;
    }
}

template <class P>
void appliedForcesOn(const NaturalInertia& inertia, const TreeNumbers<P>& numbers, const NaturalOn<P>& on, double t, const StateOn<P>& q,
                     const StateOn<P>& qd, StateOn<P>& Q) {
  Q = on.gravity;
  if (inertia.elements) inertia.elements->addOn(numbers, on.k, t, q, qd, Q);
}

template <class P>
void globalOdeResidualOn(const kin::NaturalModel& m, const NaturalInertia& inertia, const TreeNumbers<P>& numbers, const NaturalOn<P>& on,
                         bool penalty, double t, const StateOn<P>& q, const StateOn<P>& qd, const StateOn<P>& qdd, const StateOn<P>& lambda,
                         StateOn<P>& out, bool stabilised) {
  using Vector = StateOn<P>;
  // the stabilisation's or the penalty's constants, as globalOdeResidual's (the penalty's α
  // scaled by the mass matrix's largest diagonal entry: on P, with its derivatives)
  const GlobalPenalty G;
  const Baumgarte B = stabilised ? Baumgarte{} : Baumgarte{0, 0};
  const double c1 = penalty ? 2 * G.xi * G.omega : 2 * B.alpha, c2 = penalty ? G.omega * G.omega : B.beta * B.beta;
  Vector Q, phi, rate, gamma, Jqdd;
  appliedForcesOn(inertia, numbers, on, t, q, qd, Q);
  constraintRatesOn(m, on, t, q, qd, phi, rate, gamma);
  jacobianTimesOn(m, on, t, q, qdd, Jqdd);
  const Vector g = Jqdd + gamma + c1 * rate + c2 * phi;
  const Vector Mqdd = on.M * qdd;
  Vector Jtw;
  if (penalty) {
    const P alpha = G.alpha * on.massScale;
    jacobianTransposeTimesOn(m, on, t, q, g, Jtw);
    out = Q - Mqdd - alpha * Jtw;
    return;
  }
  jacobianTransposeTimesOn(m, on, t, q, lambda, Jtw);
  out.resize(m.nq + m.nrows);
  out << Q - Mqdd - Jtw, -g;
}

#define LW_NATURAL_ON(P)                                                                                                                   \
  template void constraintRatesOn<P>(const kin::NaturalModel&, const NaturalOn<P>&, double, const StateOn<P>&, const StateOn<P>&,          \
                                     StateOn<P>&, StateOn<P>&, StateOn<P>&);                                                               \
  template void jacobianTimesOn<P>(const kin::NaturalModel&, const NaturalOn<P>&, double, const StateOn<P>&, const StateOn<P>&,            \
                                   StateOn<P>&);                                                                                           \
  template void jacobianTransposeTimesOn<P>(const kin::NaturalModel&, const NaturalOn<P>&, double, const StateOn<P>&, const StateOn<P>&,   \
                                            StateOn<P>&);                                                                                  \
  template void appliedForcesOn<P>(const NaturalInertia&, const TreeNumbers<P>&, const NaturalOn<P>&, double, const StateOn<P>&,           \
                                   const StateOn<P>&, StateOn<P>&);                                                                        \
  template void globalOdeResidualOn<P>(const kin::NaturalModel&, const NaturalInertia&, const TreeNumbers<P>&, const NaturalOn<P>&, bool,  \
                                       double, const StateOn<P>&, const StateOn<P>&, const StateOn<P>&, const StateOn<P>&, StateOn<P>&,    \
                                       bool);
LW_NATURAL_ON(num::Dual8)
LW_NATURAL_ON(std::complex<double>)
#undef LW_NATURAL_ON

}  // namespace lw::dyn
