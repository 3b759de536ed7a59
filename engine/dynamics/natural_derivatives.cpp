// The global ODE formulations' accelerations differentiated with respect to the state (the
// sensitivities' tangent linear model, issue 39). Both solve a linear system for q̈:
//   index-1:  [M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; −(γ + c₁Φ̇ + c₂Φ)]
//   penalty:  M q̈ + Φ_qᵀλ* = Q,  λ* = α g,  g = Φ_q q̈ + γ + c₁Φ̇ + c₂Φ
// so a direction δ of (q, q̇) moves q̈ by
//   index-1:  [M Φ_qᵀ; Φ_q 0] [δq̈; δλ] = [δQ − δ(Φ_qᵀ)λ; −δg]
//   penalty:  (M + αΦ_qᵀΦ_q) δq̈ = δQ − δ(Φ_qᵀ)λ* − αΦ_qᵀ δg
// with δg taken at q̈ held. The natural coordinates' constraints are polynomials in q (degree two
// in the plane, three in space), so Φ_qᵀλ and g are polynomials of degree at most four in (q, q̇)
// and a five-point stencil of unit steps differentiates them exactly; the force elements (springs:
// square roots) by central differences of small steps.
#include <algorithm>
#include <cmath>

#include "dynamics/natural_dynamics.h"

namespace lw::dyn {
namespace {

constexpr double kStencil[2] = {8.0 / 12.0, -1.0 / 12.0};  // f' ≈ Σ_k c_k (f(x + k h) − f(x − k h)) / h

}  // namespace

Status globalOdeAcceleration(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd, bool stabilised) {
  if (penalty) return globalPenaltyAcceleration(m, inertia, GlobalPenalty{}, t, q, qd, d, qdd);
  return index1Acceleration(m, inertia, stabilised ? Baumgarte{} : Baumgarte{0, 0}, t, q, qd, d, qdd);
}

namespace {
// the stabilisation's or the penalty's c₁, c₂ and α (scaled by the mass matrix's largest diagonal entry)
struct OdeConstants {
  double alpha = 0, c1 = 0, c2 = 0;
  OdeConstants(const NaturalInertia& inertia, bool penalty, bool stabilised) {
    const GlobalPenalty P;
    const Baumgarte B = stabilised ? Baumgarte{} : Baumgarte{0, 0};
    alpha = penalty ? P.alpha * std::max(1.0, inertia.M.diagonal().maxCoeff()) : 0.0;
    c1 = penalty ? 2 * P.xi * P.omega : 2 * B.alpha;
    c2 = penalty ? P.omega * P.omega : B.beta * B.beta;
  }
};
}  // namespace

void globalOdeResidual(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, const Eigen::VectorXd& lambda, Eigen::VectorXd& out, bool stabilised) {
  const int n = m.nq, r = m.nrows;
  const OdeConstants k(inertia, penalty, stabilised);
  Eigen::MatrixXd J(r, n);
  Eigen::VectorXd Q(n);
  kin::evaluateJacobianDense(m, q, t, J);
  appliedForces(inertia, t, q, qd, Q);
  ConstraintTerms terms;
  constraintTerms(m, t, q, qd, qdd, nullptr, {1, 1, k.c1, k.c2}, terms, false);
  const Eigen::VectorXd& g = terms.g;
  if (penalty) {
    out = Q - inertia.M * qdd - k.alpha * (J.transpose() * g);
    return;
  }
  out.resize(n + r);
  out << Q - inertia.M * qdd - J.transpose() * lambda, -g;
}

void globalOdeSolve(bool penalty, const GlobalOdeData& d, Eigen::MatrixXd& x) { x = penalty ? Eigen::MatrixXd(d.penaltyLu.solve(x)) : Eigen::MatrixXd(d.lu.solve(x)); }

Eigen::VectorXd globalOdeMultipliers(const kin::NaturalModel& m, const GlobalOdeData& d) { return d.solution.tail(m.nrows); }

void constraintTerms(const kin::NaturalModel& m, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                     const Eigen::VectorXd* w, const ConstraintCombination& k, ConstraintTerms& out, bool withPartials) {
  const int n = m.nq, r = m.nrows;
  // constraint by constraint, on its own columns (a body's few entities): its rows of g at (x, v)
  // — the jet along (q̇, 1) gives Φ, Φ̇ and γ at once — and, with columns, w_cᵀ Φ_c,a for each of
  // its columns a (into Jtw)
  kin::Jet jet[3];
  double column[3];
  auto jetPart = [&](const kin::Constraint& c, const Eigen::VectorXd& x, const Eigen::VectorXd& v, double* g) {
    kin::constraintJet(m, c, x, &v, -1, t, 1.0, jet);
    for (int i = 0; i < c.rows; ++i) g[i] = k.gamma * jet[i].dd + k.rate * jet[i].d + k.value * jet[i].v;
  };
  auto gOf = [&](const kin::Constraint& c, const Eigen::VectorXd& x, const Eigen::VectorXd& v, double* g, double* Jtw) {
    jetPart(c, x, v, g);
    for (std::size_t a = 0; a < c.columns.size(); ++a) {
      kin::detail::constraintColumn(m, c, x, t, c.columns[a], column);
      if (Jtw) Jtw[a] = 0;
      for (int i = 0; i < c.rows; ++i) {
        g[i] += k.acceleration * column[i] * qdd[c.columns[a]];  // the jet's dd is γ alone: Φ_q q̈ apart
        if (Jtw && w) Jtw[a] += (*w)[c.row + i] * column[i];
      }
    }
  };
  out.g.resize(r);
  for (const kin::Constraint& c : m.constraints) gOf(c, q, qd, out.g.data() + c.row, nullptr);
  if (!withPartials) return;
  out.H = Eigen::MatrixXd::Zero(n, n);
  out.Gq = Eigen::MatrixXd::Zero(r, n);
  out.Gv = Eigen::MatrixXd::Zero(r, n);
  Eigen::VectorXd x = q, v = qd;
  double gp[3], gm[3];
  std::vector<double> Jp, Jm;
  for (const kin::Constraint& c : m.constraints) {
    const std::size_t nc = c.columns.size();
    Jp.resize(nc);
    Jm.resize(nc);
    for (int j : c.columns)
      for (int s = 1; s <= 2; ++s) {
        const double wt = kStencil[s - 1];
        x[j] = q[j] + s;
        gOf(c, x, qd, gp, Jp.data());
        x[j] = q[j] - s;
        gOf(c, x, qd, gm, Jm.data());
        x[j] = q[j];
        for (int i = 0; i < c.rows; ++i) out.Gq(c.row + i, j) += wt * (gp[i] - gm[i]);
        if (w)
          for (std::size_t a = 0; a < nc; ++a) out.H(c.columns[a], j) += wt * (Jp[a] - Jm[a]);
        v[j] = qd[j] + s;
        jetPart(c, q, v, gp);
        v[j] = qd[j] - s;
        jetPart(c, q, v, gm);
        v[j] = qd[j];
        for (int i = 0; i < c.rows; ++i) out.Gv(c.row + i, j) += wt * (gp[i] - gm[i]);
      }
  }
}

void forcePartials(const NaturalInertia& inertia, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::MatrixXd& Qq,
                   Eigen::MatrixXd& Qv) {
  const auto n = q.size();
  Qq = Eigen::MatrixXd::Zero(n, n);
  Qv = Eigen::MatrixXd::Zero(n, n);
  if (!inertia.stateDependent()) return;  // gravity has none
  Eigen::VectorXd x = q, v = qd, Qp(n), Qm(n);
  // column j of ∂Q/∂y, y = x or v (the other held), by a central difference
  auto column = [&](Eigen::VectorXd& y, Eigen::Index j, Eigen::MatrixXd& out) {
    const double y0 = y[j], eps = 1e-6 * std::max(1.0, std::abs(y0));
    y[j] = y0 + eps;
    appliedForces(inertia, t, x, v, Qp);
    y[j] = y0 - eps;
    appliedForces(inertia, t, x, v, Qm);
    y[j] = y0;
    out.col(j) = (Qp - Qm) / (2 * eps);
  };
  for (Eigen::Index j = 0; j < n; ++j) {
    column(x, j, Qq);
    column(v, j, Qv);
  }
}

Status globalOdeJacobian(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd, Eigen::MatrixXd& Fq, Eigen::MatrixXd& Fv, bool stabilised) {
  if (Status s = globalOdeAcceleration(m, inertia, penalty, t, q, qd, d, qdd, stabilised); !s.ok()) return s;
  const int n = m.nq, r = m.nrows;
  const OdeConstants k(inertia, penalty, stabilised);
  const double alpha = k.alpha;
  const Eigen::MatrixXd J0 = d.J;
  const ConstraintCombination g{1, 1, k.c1, k.c2};
  ConstraintTerms terms;
  Eigen::VectorXd lambda;
  if (penalty) {
    constraintTerms(m, t, q, qd, qdd, nullptr, g, terms, false);
    lambda = alpha * terms.g;
  } else {
    lambda = d.solution.tail(r);
  }
  constraintTerms(m, t, q, qd, qdd, &lambda, g, terms);
  const Eigen::MatrixXd &H = terms.H, &Gq = terms.Gq, &Gv = terms.Gv;
  Eigen::MatrixXd Qq, Qv;
  forcePartials(inertia, t, q, qd, Qq, Qv);
  if (penalty) {
    Fq = d.penaltyLu.solve(Eigen::MatrixXd(Qq - H - alpha * J0.transpose() * Gq));
    Fv = d.penaltyLu.solve(Eigen::MatrixXd(Qv - alpha * J0.transpose() * Gv));
    return {};
  }
  Eigen::MatrixXd rhs(n + r, 2 * n);
  rhs << Qq - H, Qv, -Gq, -Gv;
  const Eigen::MatrixXd X = d.lu.solve(rhs);
  Fq = X.topLeftCorner(n, n);
  Fv = X.topRightCorner(n, n);
  return {};
}

}  // namespace lw::dyn
