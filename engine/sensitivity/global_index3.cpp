// The index-3 step's three systems at its converged end (global_formulation.h: Index3Systems):
// what its tangent linear model differentiates and what its complex-step run solves again.
#include <Eigen/LU>

#include "numeric/dual_eigen.h"
#include "sensitivity/global_formulation.h"

namespace lw::sens::detail {

Status index3Systems(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, const RunPoint& a, const RunPoint& b, Index3Systems& out) {
  const auto n = static_cast<Eigen::Index>(m.nq), r = static_cast<Eigen::Index>(m.nrows);
  const double h = b.t - a.t, t1 = b.t;
  out.h = h;
  out.t1 = t1;
  const Eigen::VectorXd qdHat = (2 / h) * a.x + a.v, qddHat = (4 / (h * h)) * a.x + (4 / h) * a.v + a.a;
  out.qdS = (2 / h) * b.x - qdHat;
  out.qddS = (4 / (h * h)) * b.x - qddHat;
  const Eigen::MatrixXd& M = inertia.M;
  Eigen::MatrixXd& J = out.J;
  kin::evaluateJacobianDense(m, b.x, t1, J);
  Eigen::VectorXd Q;
  dyn::appliedForces(inertia, t1, b.x, out.qdS, Q);
  // the multipliers of the three systems (their residuals' top rows vanish there)
  const Eigen::FullPivLU<Eigen::MatrixXd> JJt(J * J.transpose());
  if (JJt.rank() < r)
    return failure(Status::Code::Singular, t1,
                   "the index-3 sensitivities need independent constraints: the model has redundant ones (or a singular position) at t = " +
                       shortNumber(t1) + " s (use --formulation penalty-global)");
  out.mu = JJt.solve(J * (Q - M * out.qddS));
  out.nu = -JJt.solve(J * (M * (b.v - out.qdS)));
  out.kappa = -JJt.solve(J * (M * (b.a - out.qddS)));
  dyn::ConstraintTerms T1;
  const Eigen::VectorXd none = Eigen::VectorXd::Zero(n);
  dyn::constraintTerms(m, t1, b.x, b.v, none, &out.mu, {0, 0, 0, 0}, T1);
  dyn::constraintTerms(m, t1, b.x, b.v, none, &out.nu, {0, 0, 1, 0}, out.T2);       // Φ̇ = Φ_q q̇ + Φ_t
  dyn::constraintTerms(m, t1, b.x, b.v, b.a, &out.kappa, {1, 1, 0, 0}, out.T3);     // Φ̈ = Φ_q q̈ + γ
  Eigen::MatrixXd Qq;
  dyn::forcePartials(inertia, t1, b.x, out.qdS, Qq, out.Qv);
  auto augmented = [&](const Eigen::MatrixXd& top) {
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n + r, n + r);
    A.topLeftCorner(n, n) = top;
    A.topRightCorner(n, r) = J.transpose();
    A.bottomLeftCorner(r, n) = J;
    return Eigen::PartialPivLU<Eigen::MatrixXd>(A);
  };
  out.S1 = augmented((4 / (h * h)) * M + T1.H - Qq - (2 / h) * out.Qv);
  out.A = augmented(M);
  return {};
}

template <class P>
void index3ResidualsOn(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, const dyn::TreeNumbers<P>& numbers, const dyn::NaturalOn<P>& on,
                       double h, double t1, const Vec<P>& qdHat, const Vec<P>& qddHat, const Vec<P>& x1, const Vec<P>& v1, const Vec<P>& a1,
                       const Vec<P>& mu, const Vec<P>& nu, const Vec<P>& kappa, Vec<P> res[3]) {
  const auto n = static_cast<Eigen::Index>(m.nq), r = static_cast<Eigen::Index>(m.nrows);
  const Vec<P> qdS = P(2 / h) * x1 - qdHat, qddS = P(4 / (h * h)) * x1 - qddHat;
  Vec<P> Q, phi, rate, gamma, Ja, Jtmu, Jtnu, Jtka;
  dyn::appliedForcesOn<P>(inertia, numbers, on, t1, x1, qdS, Q);
  dyn::constraintRatesOn<P>(m, on, t1, x1, v1, phi, rate, gamma);  // Φ, Φ_q q̇₁ + Φ_t, γ(q₁, q̇₁)
  dyn::jacobianTimesOn<P>(m, on, t1, x1, a1, Ja);
  dyn::jacobianTransposeTimesOn<P>(m, on, t1, x1, mu, Jtmu);
  dyn::jacobianTransposeTimesOn<P>(m, on, t1, x1, nu, Jtnu);
  dyn::jacobianTransposeTimesOn<P>(m, on, t1, x1, kappa, Jtka);
  for (int i = 0; i < 3; ++i) res[i].resize(n + r);
  res[0] << on.M * qddS + Jtmu - Q, phi;
  res[1] << on.M * Vec<P>(v1 - qdS) + Jtnu, rate;
  res[2] << on.M * Vec<P>(a1 - qddS) + Jtka, Ja + gamma;
}

template void index3ResidualsOn<Dual>(const kin::NaturalModel&, const dyn::NaturalInertia&, const dyn::TreeNumbers<Dual>&, const dyn::NaturalOn<Dual>&,
                                      double, double, const Vec<Dual>&, const Vec<Dual>&, const Vec<Dual>&, const Vec<Dual>&, const Vec<Dual>&,
                                      const Vec<Dual>&, const Vec<Dual>&, const Vec<Dual>&, Vec<Dual>[3]);
template void index3ResidualsOn<Cplx>(const kin::NaturalModel&, const dyn::NaturalInertia&, const dyn::TreeNumbers<Cplx>&, const dyn::NaturalOn<Cplx>&,
                                      double, double, const Vec<Cplx>&, const Vec<Cplx>&, const Vec<Cplx>&, const Vec<Cplx>&, const Vec<Cplx>&,
                                      const Vec<Cplx>&, const Vec<Cplx>&, const Vec<Cplx>&, Vec<Cplx>[3]);

void index3StepTangent(const Index3Systems& sys, const Eigen::MatrixXd& M, const Eigen::MatrixXd P[3], Eigen::MatrixXd& T, Eigen::MatrixXd& Tp) {
  const Eigen::Index n = M.rows(), r = sys.J.rows(), np = P[0].cols();
  const double h = sys.h;
  const Eigen::MatrixXd& Qv = sys.Qv;
  const dyn::ConstraintTerms &T2 = sys.T2, &T3 = sys.T3;
  const auto &S1 = sys.S1, &A = sys.A;
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n), Z = Eigen::MatrixXd::Zero(n, n);
  Eigen::MatrixXd Ld(n, 3 * n), Ldd(n, 3 * n);
  Ld << (2 / h) * I, I, Z;
  Ldd << (4 / (h * h)) * I, (4 / h) * I, I;
  auto solveTop = [&](const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, const Eigen::MatrixXd& top, const Eigen::MatrixXd& bottom) {
    Eigen::MatrixXd rhs(n + r, top.cols());
    rhs << top, bottom;
    return Eigen::MatrixXd(lu.solve(rhs).topRows(n));
  };
  const Eigen::MatrixXd Sx = solveTop(S1, M * Ldd - Qv * Ld, Eigen::MatrixXd::Zero(r, 3 * n));
  const Eigen::MatrixXd Sv = solveTop(A, M * ((2 / h) * Sx - Ld) - T2.H * Sx, -T2.Gq * Sx);
  const Eigen::MatrixXd Sa = solveTop(A, M * ((4 / (h * h)) * Sx - Ldd) - T3.H * Sx, -T3.Gq * Sx - T3.Gv * Sv);
  T.resize(3 * n, 3 * n);
  T << Sx, Sv, Sa;
  const Eigen::MatrixXd Xp = solveTop(S1, -P[0].topRows(n), -P[0].bottomRows(r));
  const Eigen::MatrixXd Vp = solveTop(A, M * ((2 / h) * Xp) - T2.H * Xp - P[1].topRows(n), -T2.Gq * Xp - P[1].bottomRows(r));
  const Eigen::MatrixXd Ap =
      solveTop(A, M * ((4 / (h * h)) * Xp) - T3.H * Xp - P[2].topRows(n), -T3.Gq * Xp - T3.Gv * Vp - P[2].bottomRows(r));
  Tp.resize(3 * n, np);
  Tp << Xp, Vp, Ap;
}

void index3Residuals(const kin::NaturalModel& nm, const dyn::NaturalInertia& inertia, const RunPoint& b, const Index3Systems& sys,
                     Eigen::VectorXd res[3]) {
  const auto n = static_cast<Eigen::Index>(nm.nq), r = static_cast<Eigen::Index>(nm.nrows);
  const double t1 = sys.t1;
  Eigen::MatrixXd Js;
  Eigen::VectorXd phi(r), phiT(r), gamma(r), Qs;
  kin::evaluateJacobianDense(nm, b.x, t1, Js);
  kin::evaluateConstraints(nm, b.x, t1, phi);
  kin::evaluatePhiT(nm, b.x, t1, phiT);
  kin::evaluateGamma(nm, b.x, b.v, t1, gamma);
  dyn::appliedForces(inertia, t1, b.x, sys.qdS, Qs);
  const Eigen::MatrixXd& Ms = inertia.M;
  res[0].resize(n + r);
  res[0] << Ms * sys.qddS + Js.transpose() * sys.mu - Qs, phi;
  res[1].resize(n + r);
  res[1] << Ms * (b.v - sys.qdS) + Js.transpose() * sys.nu, Js * b.v + phiT;
  res[2].resize(n + r);
  res[2] << Ms * (b.a - sys.qddS) + Js.transpose() * sys.kappa, Js * b.a + gamma;
}

}  // namespace lw::sens::detail
