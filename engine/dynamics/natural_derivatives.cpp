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
                             const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd) {
  return penalty ? globalPenaltyAcceleration(m, inertia, GlobalPenalty{}, t, q, qd, d, qdd) : index1Acceleration(m, inertia, Baumgarte{}, t, q, qd, d, qdd);
}

namespace {
// the stabilisation's or the penalty's c₁, c₂ and α (scaled by the mass matrix's largest diagonal entry)
struct OdeConstants {
  double alpha = 0, c1 = 0, c2 = 0;
  OdeConstants(const NaturalInertia& inertia, bool penalty) {
    const GlobalPenalty P;
    const Baumgarte B;
    alpha = penalty ? P.alpha * std::max(1.0, inertia.M.diagonal().maxCoeff()) : 0.0;
    c1 = penalty ? 2 * P.xi * P.omega : 2 * B.alpha;
    c2 = penalty ? P.omega * P.omega : B.beta * B.beta;
  }
};
}  // namespace

void globalOdeResidual(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, const Eigen::VectorXd& lambda, Eigen::VectorXd& out) {
  const int n = m.nq, r = m.nrows;
  const OdeConstants k(inertia, penalty);
  Eigen::MatrixXd J(r, n);
  Eigen::VectorXd phi(r), phiT(r), gamma(r), Q(n);
  kin::evaluateJacobianDense(m, q, t, J);
  kin::evaluateConstraints(m, q, t, phi);
  kin::evaluatePhiT(m, q, t, phiT);
  kin::evaluateGamma(m, q, qd, t, gamma);
  appliedForces(inertia, t, q, qd, Q);
  const Eigen::VectorXd g = J * qdd + gamma + k.c1 * (J * qd + phiT) + k.c2 * phi;
  if (penalty) {
    out = Q - inertia.M * qdd - k.alpha * (J.transpose() * g);
    return;
  }
  out.resize(n + r);
  out << Q - inertia.M * qdd - J.transpose() * lambda, -g;
}

void globalOdeSolve(bool penalty, const GlobalOdeData& d, Eigen::MatrixXd& x) { x = penalty ? Eigen::MatrixXd(d.penaltyLu.solve(x)) : Eigen::MatrixXd(d.lu.solve(x)); }

Eigen::VectorXd globalOdeMultipliers(const kin::NaturalModel& m, const GlobalOdeData& d) { return d.solution.tail(m.nrows); }

Status globalOdeJacobian(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd, Eigen::MatrixXd& Fq, Eigen::MatrixXd& Fv) {
  if (Status s = globalOdeAcceleration(m, inertia, penalty, t, q, qd, d, qdd); !s.ok()) return s;
  const int n = m.nq, r = m.nrows;
  const OdeConstants k(inertia, penalty);
  const double alpha = k.alpha, c1 = k.c1, c2 = k.c2;
  const Eigen::MatrixXd J0 = d.J;
  // constraint by constraint, on its own columns (a body's few entities): its rows of
  // g = Φ_q q̈ + γ + c₁Φ̇ + c₂Φ at (x, v) — the jet along (q̇, 1) gives Φ, Φ̇ and γ at once — and,
  // with columns, λ_cᵀ Φ_c,a for each of its columns a (into Jtl)
  kin::Jet jet[3];
  double column[3];
  auto jetPart = [&](const kin::Constraint& c, const Eigen::VectorXd& x, const Eigen::VectorXd& v, double* out) {
    kin::constraintJet(m, c, x, &v, -1, t, 1.0, jet);
    for (int i = 0; i < c.rows; ++i) out[i] = jet[i].dd + c1 * jet[i].d + c2 * jet[i].v;
  };
  auto gOf = [&](const kin::Constraint& c, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd* lambda, double* out,
                 double* Jtl) {
    jetPart(c, x, v, out);
    for (std::size_t a = 0; a < c.columns.size(); ++a) {
      kin::detail::constraintColumn(m, c, x, t, c.columns[a], column);
      if (Jtl) Jtl[a] = 0;
      for (int i = 0; i < c.rows; ++i) {
        out[i] += column[i] * qdd[c.columns[a]];
        if (Jtl) Jtl[a] += (*lambda)[c.row + i] * column[i];
      }
    }
  };
  Eigen::VectorXd lambda(r);
  if (penalty) {
    for (const kin::Constraint& c : m.constraints) gOf(c, q, qd, nullptr, lambda.data() + c.row, nullptr);
    lambda *= alpha;
  } else {
    lambda = d.solution.tail(r);
  }
  // the constraint terms' columns: ∂(Φ_qᵀλ)/∂q (H), ∂g/∂q, ∂g/∂q̇, each constraint's on its columns
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(n, n), Gq = Eigen::MatrixXd::Zero(r, n), Gv = Eigen::MatrixXd::Zero(r, n);
  Eigen::VectorXd x = q, v = qd;
  double gp[3], gm[3];
  std::vector<double> Jp, Jm;
  for (const kin::Constraint& c : m.constraints) {
    const std::size_t nc = c.columns.size();
    Jp.resize(nc);
    Jm.resize(nc);
    for (int j : c.columns)
      for (int k = 1; k <= 2; ++k) {
        const double w = kStencil[k - 1];
        x[j] = q[j] + k;
        gOf(c, x, qd, &lambda, gp, Jp.data());
        x[j] = q[j] - k;
        gOf(c, x, qd, &lambda, gm, Jm.data());
        x[j] = q[j];
        for (int i = 0; i < c.rows; ++i) Gq(c.row + i, j) += w * (gp[i] - gm[i]);
        for (std::size_t a = 0; a < nc; ++a) H(c.columns[a], j) += w * (Jp[a] - Jm[a]);
        v[j] = qd[j] + k;
        jetPart(c, q, v, gp);
        v[j] = qd[j] - k;
        jetPart(c, q, v, gm);
        v[j] = qd[j];
        for (int i = 0; i < c.rows; ++i) Gv(c.row + i, j) += w * (gp[i] - gm[i]);
      }
  }
  // the applied forces' partials (gravity has none)
  Eigen::MatrixXd Qq = Eigen::MatrixXd::Zero(n, n), Qv = Eigen::MatrixXd::Zero(n, n);
  if (inertia.stateDependent()) {
    Eigen::VectorXd Qp(n), Qm(n);
    // column j of ∂Q/∂y, y = x or v (the other held), by a central difference
    auto column = [&](Eigen::VectorXd& y, int j, Eigen::MatrixXd& out) {
      const double y0 = y[j], eps = 1e-6 * std::max(1.0, std::abs(y0));
      y[j] = y0 + eps;
      appliedForces(inertia, t, x, v, Qp);
      y[j] = y0 - eps;
      appliedForces(inertia, t, x, v, Qm);
      y[j] = y0;
      out.col(j) = (Qp - Qm) / (2 * eps);
    };
    for (int j = 0; j < n; ++j) {
      column(x, j, Qq);
      column(v, j, Qv);
    }
  }
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
