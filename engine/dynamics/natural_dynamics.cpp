#include "dynamics/natural_dynamics.h"

#include <algorithm>
#include <cmath>

#include "kinematics/natural_numbers.h"
#include "numeric/dual_eigen.h"
#include "numeric/scalar.h"

namespace lw::dyn {

namespace {

template <class P>
using Vec3 = Eigen::Matrix<P, 3, 1>;
template <class P>
using Mat3 = Eigen::Matrix<P, 3, 3>;

// a body's mass matrix and weight in its frame's slots (O, then its directions; dim each) added
// into M and Q_g: each slot is an entity, or a difference of two (fixed entities add nothing) —
// scattered block by block, not multiplied out over all of q
template <class P, class MB, class QB>
void scatterBody(const kin::NaturalModel& m, const std::vector<std::vector<std::pair<int, double>>>& slots, const MB& Mb, const QB& Qb,
                 Eigen::Matrix<P, Eigen::Dynamic, Eigen::Dynamic>& M, Eigen::Matrix<P, Eigen::Dynamic, 1>& gravity) {
  const int dim = m.dimension;
  auto offset = [&](int e) { return m.entities[static_cast<std::size_t>(e)].offset; };
  for (std::size_t a = 0; a < slots.size(); ++a)
    for (const auto& [ea, sa] : slots[a]) {
      if (ea < 0 || offset(ea) < 0) continue;
      gravity.segment(offset(ea), dim) += sa * Qb.segment(dim * static_cast<Eigen::Index>(a), dim);
      for (std::size_t b = 0; b < slots.size(); ++b)
        for (const auto& [eb, sb] : slots[b]) {
          if (eb < 0 || offset(eb) < 0) continue;
          M.block(offset(ea), offset(eb), dim, dim) += (sa * sb) * Mb.block(dim * static_cast<Eigen::Index>(a), dim * static_cast<Eigen::Index>(b), dim, dim);
        }
    }
}

std::vector<std::pair<int, double>> slotOf(const kin::Direction& d) { return {{d.a, 1.0}, {d.b, -1.0}}; }

// a rod held by points on one line (ball joints at both ends: kin::BodyFrame::spinFree), its
// natural coordinates O and d = P − O only. Its spin about the line is a passive freedom that no
// force at a point of the line turns: a rod whose centre of mass lies on the line and whose
// inertia is symmetric about it keeps its spin (none, from rest) whatever the line does, and with
// ω ⊥ d, T = ½ m|Ȯ|² + m a_c Ȯ·ḋ + ½ (m a_c² + I_⊥/|d|²)|ḋ|² (a_c the centre's place along d).
// Any other rod is refused with the reason: its spin would move its line.
template <class P>
bool rodBody(const kin::NaturalModel& m, const MechanismNumbers<P>& numbers, const kin::StoredShape<P>& shape, std::size_t b,
             Eigen::Matrix<P, Eigen::Dynamic, Eigen::Dynamic>& M, Eigen::Matrix<P, Eigen::Dynamic, 1>& gravity, std::string& error) {
  using std::sqrt;
  const kin::BodyFrame& f = m.bodies[b];
  const auto& body = numbers.bodies[b];
  const int bi = static_cast<int>(b);
  const Vec3<P> O0 = shape.own(bi, f.origin), d0 = shape.own(bi, f.d[0]);
  const P L2 = dot3(d0, d0);
  const Vec3<P> u = d0 / P(sqrt(L2));
  const Vec3<P> c = body.position + body.rotation * body.com - O0;  // the centre from O, world axes
  const Mat3<P> Ic = body.rotation * body.inertia * body.rotation.transpose();
  const P ac = dot3(c, d0) / L2, Ia = dot3(u, Vec3<P>(Ic * u)), Iperp = 0.5 * (Ic.trace() - Ia);
  // on the line, and symmetric about it (to the stored numbers' rounding)
  const double length = std::sqrt(num::value(L2)), scale = std::max(num::value(Ic.trace()), 1e-300);
  const Vec3<P> off = c - ac * d0;
  Mat3<P> sym = Iperp * Mat3<P>::Identity();
  sym += (Ia - Iperp) * (u * u.transpose());
  double asym = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) asym = std::max(asym, std::abs(num::value(Ic(i, j) - sym(i, j))));
  const double offLine = std::sqrt(num::value(dot3(off, off)));
  if (offLine > 1e-9 * std::max(1.0, length) || asym > 1e-9 * scale) {
    error = "body '" + m.mechanism->bodies[b].name + "' is held by points on one line only (a rod between ball joints) but its " +
            (offLine > 1e-9 * std::max(1.0, length) ? "centre of mass is off that line" : "inertia is not symmetric about that line") +
            ": its spin would move the line, and the global formulations model such a rod by its two points (use --formulation matrix-r)";
    return false;
  }
  const P mass = body.mass, J = mass * ac * ac + Iperp / L2;
  Eigen::Matrix<P, 6, 6> Mb = Eigen::Matrix<P, 6, 6>::Zero();
  Mb.template block<3, 3>(0, 0) = mass * Mat3<P>::Identity();
  Mb.template block<3, 3>(0, 3) = (mass * ac) * Mat3<P>::Identity();
  Mb.template block<3, 3>(3, 0) = (mass * ac) * Mat3<P>::Identity();
  Mb.template block<3, 3>(3, 3) = J * Mat3<P>::Identity();
  const Vec3<P> g = numbers.gravity;
  Eigen::Matrix<P, 6, 1> Qb;
  Qb << mass * g, (mass * ac) * g;
  scatterBody<P>(m, {{{f.origin, 1.0}}, slotOf(f.d[0])}, Mb, Qb, M, gravity);
  return true;
}

// a spatial body with a linear frame (O, x1, x2, x3 = d, d', w): its points are r = O + X ρ, and
// with the mass moments in ρ (m, m ρ_c, J = ∫ρρᵀ dm) T = ½ m|Ȯ|² + m Ȯ·Ẋρ_c + ½ tr(Ẋ J Ẋᵀ)
template <class P>
bool spatialBody(const kin::NaturalModel& m, const MechanismNumbers<P>& numbers, const kin::StoredShape<P>& shape, std::size_t b,
                 Eigen::Matrix<P, Eigen::Dynamic, Eigen::Dynamic>& M, Eigen::Matrix<P, Eigen::Dynamic, 1>& gravity, std::string& error) {
  const kin::BodyFrame& f = m.bodies[b];
  const auto& body = numbers.bodies[b];
  if (f.spinFree) return rodBody<P>(m, numbers, shape, b, M, gravity, error);
  if (f.d[2].a < 0) {
    error = "the natural model has no linear frames (compiled for kinematics)";
    return false;
  }
  // the frame as the body's own stored pose places it
  const int bi = static_cast<int>(b);
  Mat3<P> X0;
  X0 << shape.own(bi, f.d[0]), shape.own(bi, f.d[1]), shape.own(bi, f.d[2]);
  const Vec3<P> O0 = shape.own(bi, f.origin);
  // ρ of a body-frame point s: ρ = A s + a0
  const Mat3<P> X0inv = X0.inverse();
  const Mat3<P> A = X0inv * body.rotation;
  const Vec3<P> a0 = X0inv * (body.position - O0);
  const P mass = body.mass;
  // ∫ s sᵀ dm about the body's origin: the centre's share and E_c = ½ tr(I_c) 1 − I_c
  const Mat3<P> S = mass * body.com * body.com.transpose() + (0.5 * body.inertia.trace()) * Mat3<P>::Identity() - body.inertia;
  const Vec3<P> rc = A * body.com + a0;
  const Mat3<P> J = A * S * A.transpose() + mass * (A * body.com * a0.transpose() + a0 * body.com.transpose() * A.transpose()) +
                    mass * a0 * a0.transpose();
  Eigen::Matrix<P, 12, 12> Mb = Eigen::Matrix<P, 12, 12>::Zero();
  Mb.template block<3, 3>(0, 0) = mass * Mat3<P>::Identity();
  for (int i = 0; i < 3; ++i) {
    Mb.template block<3, 3>(0, 3 + 3 * i) = (mass * rc[i]) * Mat3<P>::Identity();
    Mb.template block<3, 3>(3 + 3 * i, 0) = (mass * rc[i]) * Mat3<P>::Identity();
    for (int j = 0; j < 3; ++j) Mb.template block<3, 3>(3 + 3 * i, 3 + 3 * j) = J(i, j) * Mat3<P>::Identity();
  }
  // the weight at the centre: r_c = O + X ρ_c; the slots y = [O; x1; x2; x3]
  const Vec3<P> g = numbers.gravity;
  Eigen::Matrix<P, 12, 1> Qb;
  Qb << mass * g, (mass * rc[0]) * g, (mass * rc[1]) * g, (mass * rc[2]) * g;
  scatterBody<P>(m, {{{f.origin, 1.0}}, slotOf(f.d[0]), slotOf(f.d[1]), slotOf(f.d[2])}, Mb, Qb, M, gravity);
  return true;
}

// M and Q_g on P (naturalInertia's, naturalOn's)
template <class P>
bool inertiaOn(const kin::NaturalModel& m, const MechanismNumbers<P>& numbers, const kin::StoredShape<P>& shape, Eigen::Matrix<P, Eigen::Dynamic, Eigen::Dynamic>& M,
               Eigen::Matrix<P, Eigen::Dynamic, 1>& gravity, std::string& error) {
  M = Eigen::Matrix<P, Eigen::Dynamic, Eigen::Dynamic>::Zero(m.nq, m.nq);
  gravity = Eigen::Matrix<P, Eigen::Dynamic, 1>::Zero(m.nq);
  if (m.dimension == 3) {
    for (std::size_t b = 1; b < m.bodies.size(); ++b)
      if (!spatialBody<P>(m, numbers, shape, b, M, gravity, error)) return false;
    return true;
  }
  using Vec2 = Eigen::Matrix<P, 2, 1>;
  using Mat2 = Eigen::Matrix<P, 2, 2>;
  const Vec2 g = numbers.gravity.template head<2>();
  for (std::size_t b = 1; b < m.bodies.size(); ++b) {
    const kin::BodyFrame& f = m.bodies[b];
    const auto& body = numbers.bodies[b];
    if (num::value(body.mass) == 0 && num::value(body.inertia(2, 2)) == 0) continue;
    // the frame at the stored configuration: the centre of mass's coefficients in it
    const int bi = static_cast<int>(b);
    const Vec2 o = shape.own(bi, f.origin).template head<2>();
    const Vec2 d = shape.own(bi, f.d[0]).template head<2>();
    const P L2 = d[0] * d[0] + d[1] * d[1];
    const Vec2 c = Vec3<P>(body.position + body.rotation * body.com).template head<2>() - o;
    const Vec2 r90d(-d[1], d[0]);
    const P ac = (c[0] * d[0] + c[1] * d[1]) / L2, bc = (c[0] * r90d[0] + c[1] * r90d[1]) / L2;
    // T = ½ m|Ȯ|² + m Ȯ·(a_c ḋ + b_c R90 ḋ) + ½ J |ḋ|², J = I_O / |d|² (a material point at
    // (a, b) is (a² + b²)|d|² from O; |ḋ| = ω|d|)
    const P m0 = body.mass, J = (body.inertia(2, 2) + m0 * (c[0] * c[0] + c[1] * c[1])) / L2;
    Mat2 C;
    C << ac, -bc, bc, ac;  // a_c 1 + b_c R90
    Eigen::Matrix<P, 4, 4> Mb;
    Mb << m0 * Mat2::Identity(), m0 * C, m0 * C.transpose(), J * Mat2::Identity();
    // the weight at the centre of mass: r_c = O + a_c d + b_c R90 d; the slots z = [O; d]
    Eigen::Matrix<P, 4, 1> Qb;
    Qb << m0 * g, m0 * C.transpose() * g;
    scatterBody<P>(m, {{{f.origin, 1.0}}, slotOf(f.d[0])}, Mb, Qb, M, gravity);
  }
  return true;
}

}  // namespace

bool naturalInertia(const kin::NaturalModel& m, NaturalInertia& out, std::string& error) {
  return inertiaOn<double>(m, numbersOf(*m.mechanism), kin::StoredShape<double>{m}, out.M, out.gravity, error);
}

template <class P>
Status naturalOn(const kin::NaturalModel& m, const MechanismNumbers<P>& numbers, NaturalOn<P>& out) {
  out.k = kin::naturalNumbersOn(m, numbers);
  std::string error;
  if (!inertiaOn<P>(m, numbers, kin::StoredShape<P>{m, &out.k}, out.M, out.gravity, error)) return failure(Status::Code::BadRequest, 0, error);
  out.massScale = P(1.0);
  for (Eigen::Index i = 0; i < out.M.rows(); ++i)
    if (num::value(out.M(i, i)) > num::value(out.massScale)) out.massScale = out.M(i, i);
  return {};
}
template Status naturalOn<num::Dual8>(const kin::NaturalModel&, const MechanismNumbers<num::Dual8>&, NaturalOn<num::Dual8>&);
template Status naturalOn<std::complex<double>>(const kin::NaturalModel&, const MechanismNumbers<std::complex<double>>&,
                                                NaturalOn<std::complex<double>>&);

GlobalOdeData::GlobalOdeData(const kin::NaturalModel& m)
    : J(m.nrows, m.nq),
      A(Eigen::MatrixXd::Zero(m.nq + m.nrows, m.nq + m.nrows)),
      phi(m.nrows),
      phiT(m.nrows),
      gamma(m.nrows),
      rhs(m.nq + m.nrows),
      solution(m.nq + m.nrows),
      Q(m.nq),
      lu(m.nq + m.nrows),
      penaltyLu(m.nq) {}

Status index1Acceleration(const kin::NaturalModel& m, const NaturalInertia& inertia, const Baumgarte& b, double t,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd) {
  const int n = m.nq, r = m.nrows;
  kin::evaluateJacobianDense(m, q, t, d.J);
  kin::evaluateConstraints(m, q, t, d.phi);
  kin::evaluatePhiT(m, q, t, d.phiT);
  kin::evaluateGamma(m, q, qd, t, d.gamma);
  d.A.topLeftCorner(n, n) = inertia.M;
  d.A.topRightCorner(n, r) = d.J.transpose();
  d.A.bottomLeftCorner(r, n) = d.J;
  appliedForces(inertia, t, q, qd, d.Q);
  d.rhs.head(n) = d.Q;
  // Φ̈ + 2αΦ̇ + β²Φ = 0: Φ_q q̈ = −γ − 2α(Φ_q q̇ + Φ_t) − β²Φ
  d.rhs.tail(r) = -d.gamma - 2 * b.alpha * (d.J * qd + d.phiT) - b.beta * b.beta * d.phi;
  d.lu.compute(d.A);
  const double pivot = d.lu.matrixLU().diagonal().cwiseAbs().minCoeff();
  if (!(pivot > 1e-12 * std::max(1.0, d.A.cwiseAbs().maxCoeff())))
    return failure(Status::Code::Singular, t,
                   "the index-1 matrix [M Φ_qᵀ; Φ_q 0] is singular: a redundant constraint or a singular position");
  d.solution = d.lu.solve(d.rhs);
  qdd = d.solution.head(n);
  return {};
}

Status globalPenaltyAcceleration(const kin::NaturalModel& m, const NaturalInertia& inertia, const GlobalPenalty& p, double t,
                                 const Eigen::VectorXd& q, const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd) {
  const int n = m.nq;
  const double alpha = p.alpha * std::max(1.0, inertia.M.diagonal().maxCoeff());
  kin::evaluateJacobianDense(m, q, t, d.J);
  kin::evaluateConstraints(m, q, t, d.phi);
  kin::evaluatePhiT(m, q, t, d.phiT);
  kin::evaluateGamma(m, q, qd, t, d.gamma);
  auto Mbar = d.A.topLeftCorner(n, n);
  Mbar = inertia.M;
  forEachConstraintGram(m, q, t, [&](std::size_t k, std::size_t a, std::size_t b, double v) {
    const auto& columns = m.constraints[k].columns;
    Mbar(columns[a], columns[b]) += alpha * v;
  });
  appliedForces(inertia, t, q, qd, d.Q);
  d.rhs.head(n) = d.Q - alpha * d.J.transpose() *
                                        (d.gamma + 2 * p.xi * p.omega * (d.J * qd + d.phiT) + p.omega * p.omega * d.phi);
  d.penaltyLu.compute(Mbar);
  if (d.penaltyLu.info() != Eigen::Success)
    return failure(Status::Code::Singular, t, "the penalty matrix M + αΦ_qᵀΦ_q is singular: a body without mass that no constraint holds");
  qdd = d.penaltyLu.solve(d.rhs.head(n));
  return {};
}

Index3Data::Index3Data(const kin::NaturalModel& m)
    : J(m.nrows, m.nq),
      tangent(m.nq, m.nq),
      phi(m.nrows),
      phiT(m.nrows),
      gamma(m.nrows),
      residual(m.nq),
      dq(m.nq),
      qHat(m.nq),
      qdHat(m.nq),
      qddHat(m.nq),
      qdd(m.nq),
      w(m.nrows),
      Q(m.nq),
      lu(m.nq) {}

namespace {

// the matrices' choice, once: sparse (KLU, compressed Φ_q and M) for large models without force
// elements needing a tangent, or as the options say
void chooseMatrices(const kin::NaturalModel& m, const NaturalInertia& inertia, const Index3Options& o, Index3Data& d) {
  if (d.sparseChosen) return;
  d.sparseChosen = true;
  const bool sparse = o.matrices == Index3Options::Matrices::Sparse ||
                      (o.matrices == Index3Options::Matrices::Auto && m.nq >= Index3Options::kSparseFrom && !inertia.stateDependent());
  if (!sparse) return;
  d.sparse = std::make_shared<Index3Sparse>(m, inertia.M);
  d.Ms = inertia.M.sparseView();
  std::vector<Eigen::Triplet<double>> entries;
  kin::evaluateJacobian(m, m.q0, 0.0, [&](int r, int c, double) { entries.emplace_back(r, c, 1.0); });
  d.Js.resize(m.nrows, m.nq);
  d.Js.setFromTriplets(entries.begin(), entries.end());
  d.Js.makeCompressed();
  d.jSlot.clear();
  for (const auto& e : entries) d.jSlot.push_back(static_cast<int>(&d.Js.coeffRef(e.row(), e.col()) - d.Js.valuePtr()));
}

// Φ_q at q into d.J (dense) or d.Js (its pattern)
void jacobianAt(const kin::NaturalModel& m, const Eigen::VectorXd& q, double t, Index3Data& d) {
  if (!d.sparse) {
    kin::evaluateJacobianDense(m, q, t, d.J);
    return;
  }
  double* values = d.Js.valuePtr();
  std::size_t k = 0;
  kin::evaluateJacobian(m, q, t, [&](int, int, double v) { values[d.jSlot[k++]] = v; });
}

}  // namespace

Status index3Start(const kin::NaturalModel& m, const NaturalInertia& inertia, const Index3Options& o, Index3State& s, Index3Data* d) {
  // q̈ and λ of the start by the augmented Lagrangian iteration (redundant constraints allowed,
  // where the index-1 matrix is singular): (M + αΦ_qᵀΦ_q) q̈ = Q − Φ_qᵀλ − αΦ_qᵀγ,
  // λ ← λ + α(Φ_q q̈ + γ), until Φ̈ = Φ_q q̈ + γ vanishes
  const double alpha = o.penalty * std::max(1.0, inertia.M.diagonal().maxCoeff()) * 1e-6;
  Eigen::VectorXd gamma(m.nrows);
  kin::evaluateGamma(m, s.q, s.qd, s.t, gamma);
  if (d) chooseMatrices(m, inertia, o, *d);
  if (d && d->sparse) {
    // M + αΦ_qᵀΦ_q on its pattern: the projections' matrix with h²/4 = 1
    jacobianAt(m, s.q, s.t, *d);
    if (!d->sparse->factor(m, 1.0, alpha, s.t, s.q, nullptr))
      return failure(Status::Code::Singular, s.t, "the start's matrix M + αΦ_qᵀΦ_q is singular: a body without mass that no constraint holds");
    s.lambda = Eigen::VectorXd::Zero(m.nrows);
    Eigen::VectorXd Q;
    appliedForces(inertia, s.t, s.q, s.qd, Q);
    for (int k = 0; k < 100; ++k) {
      s.qdd = Q - d->Js.transpose() * (s.lambda + alpha * gamma);
      d->sparse->solve(false, s.qdd);
      const Eigen::VectorXd violation = d->Js * s.qdd + gamma;
      s.lambda += alpha * violation;
      if (violation.cwiseAbs().maxCoeff() < o.tolerance * std::max(1.0, s.qdd.cwiseAbs().maxCoeff())) return {};
    }
    return failure(Status::Code::NotConverged, s.t, "the start's accelerations did not converge (inconsistent constraints?)");
  }
  Eigen::MatrixXd J;
  kin::evaluateJacobianDense(m, s.q, s.t, J);
  Eigen::MatrixXd A = inertia.M;
  A.noalias() += alpha * J.transpose() * J;
  const Eigen::LLT<Eigen::MatrixXd> llt(A);
  if (llt.info() != Eigen::Success)
    return failure(Status::Code::Singular, s.t, "the start's matrix M + αΦ_qᵀΦ_q is singular: a body without mass that no constraint holds");
  s.lambda = Eigen::VectorXd::Zero(m.nrows);
  Eigen::VectorXd Q;
  appliedForces(inertia, s.t, s.q, s.qd, Q);
  for (int k = 0; k < 100; ++k) {
    s.qdd = llt.solve(Q - J.transpose() * (s.lambda + alpha * gamma));
    const Eigen::VectorXd violation = J * s.qdd + gamma;
    s.lambda += alpha * violation;
    if (violation.cwiseAbs().maxCoeff() < o.tolerance * std::max(1.0, s.qdd.cwiseAbs().maxCoeff())) return {};
  }
  return failure(Status::Code::NotConverged, s.t, "the start's accelerations did not converge (inconsistent constraints?)");
}

void index3Residual(const kin::NaturalModel& m, const NaturalInertia& inertia, double alpha, double h, double t,
                    const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, Index3Data& d) {
  jacobianAt(m, q, t, d);
  kin::evaluateConstraints(m, q, t, d.phi);
  // f(q) = (h²/4)(M q̈ + Φ_qᵀ(αΦ + λ) − Q), q̈ = (4/h²) q − q̂̈
  d.w = alpha * d.phi + lambda;
  d.qdd = (4 / (h * h)) * q - d.qddHat;
  if (inertia.stateDependent()) {
    d.qdShift = (2 / h) * q - d.qdHat;  // the rule's q̇ at q
    appliedForces(inertia, t, q, d.qdShift, d.Q);
  } else {
    d.Q = inertia.gravity;
  }
  if (d.sparse) d.residual = (h * h / 4) * (d.Ms * d.qdd + d.Js.transpose() * d.w - d.Q);
  else d.residual = (h * h / 4) * (inertia.M * d.qdd + d.J.transpose() * d.w - d.Q);
}

void index3Tangent(const kin::NaturalModel& m, const NaturalInertia& inertia, double alpha, double h, double t, Eigen::VectorXd& q,
                   const Eigen::VectorXd& lambda, Index3Data& d) {
  // M + (h²/4)(αΦ_qᵀΦ_q + Σ w_k Φ_k,qq − ∂Q/∂q − (2/h) ∂Q/∂q̇), w = αΦ + λ: the constraints'
  // Hessians in closed form, each on its own columns; the force elements' stiffness and damping
  // (gravity has none) by central differences along (e_j, (2/h) e_j), the rule's q̇ moving with q.
  kin::evaluateJacobianDense(m, q, t, d.J);
  kin::evaluateConstraints(m, q, t, d.phi);
  d.w = alpha * d.phi + lambda;
  d.tangent = inertia.M;
  d.tangent.noalias() += (h * h / 4) * alpha * d.J.transpose() * d.J;
  for (const kin::Constraint& c : m.constraints) {
    const std::size_t nc = c.columns.size();
    if (d.hessian.size() < nc * nc) d.hessian.resize(nc * nc);
    kin::constraintHessian(m, c, q, t, d.w.data() + c.row, d.hessian.data());
    for (std::size_t b = 0; b < nc; ++b)
      for (std::size_t a = 0; a < nc; ++a) d.tangent(c.columns[a], c.columns[b]) += (h * h / 4) * d.hessian[b * nc + a];
  }
  if (!inertia.stateDependent()) return;
  d.qdShift = (2 / h) * q - d.qdHat;
  for (int j = 0; j < m.nq; ++j) {
    const double eps = 1e-6 * std::max(1.0, std::abs(q[j]));
    const double q0 = q[j], qd0 = d.qdShift[j];
    q[j] = q0 + eps, d.qdShift[j] = qd0 + (2 / h) * eps;
    appliedForces(inertia, t, q, d.qdShift, d.Qplus);
    q[j] = q0 - eps, d.qdShift[j] = qd0 - (2 / h) * eps;
    appliedForces(inertia, t, q, d.qdShift, d.Qminus);
    q[j] = q0, d.qdShift[j] = qd0;
    d.tangent.col(j) -= (h * h / 4) / (2 * eps) * (d.Qplus - d.Qminus);
  }
}

Status index3Step(const kin::NaturalModel& m, const NaturalInertia& inertia, const Index3Options& o, double h, Index3Data& d,
                  Index3State& s) {
  const double t = s.t + h;
  const double alpha = o.penalty * std::max(1.0, inertia.M.diagonal().maxCoeff());
  // the trapezoidal rule: q̇ = (2/h) q − q̂̇, q̈ = (4/h²) q − q̂̈, from the step's start
  d.qdHat = (2 / h) * s.q + s.qd;
  d.qddHat = (4 / (h * h)) * s.q + (4 / h) * s.qd + s.qdd;
  Eigen::VectorXd q = s.q + h * s.qd + (h * h / 2) * s.qdd;  // predictor
  Eigen::VectorXd lambda = s.lambda;
  d.iterations = 0;
  chooseMatrices(m, inertia, o, d);
  const double s4 = h * h / 4;
  for (;;) {
    index3Residual(m, inertia, alpha, h, t, q, lambda, d);
    // modified Newton: the tangent of the step's first iteration serves the others (a
    // factorisation saved per iteration); rebuilt when the updates stop shrinking fast
    if (d.iterations == 0 || d.rebuild) {
      if (d.sparse) {
        d.w = alpha * d.phi + lambda;
        if (!d.sparse->factor(m, s4, alpha, t, q, &d.w))
          return failure(Status::Code::Singular, t, "the index-3 iteration matrix is singular (a body without mass that no constraint holds)");
      } else {
        index3Tangent(m, inertia, alpha, h, t, q, lambda, d);
        d.lu.compute(d.tangent);
      }
      d.rebuild = false;
      ++d.tangents;
    }
    const double before = d.iterations > 0 ? d.dq.cwiseAbs().maxCoeff() : 0;
    if (d.sparse) {
      d.dq = -d.residual;
      d.sparse->solve(true, d.dq);
    } else {
      d.dq = -d.lu.solve(d.residual);
    }
    if (d.iterations > 0 && d.dq.cwiseAbs().maxCoeff() > 0.25 * before) d.rebuild = true;
    q += d.dq;
    kin::evaluateConstraints(m, q, t, d.phi);  // the multipliers take the new position's violation
    lambda += alpha * d.phi;
    ++d.iterations;
    const double scale = std::max(1.0, q.cwiseAbs().maxCoeff());
    if (d.dq.cwiseAbs().maxCoeff() < o.tolerance * scale && d.phi.cwiseAbs().maxCoeff() < o.tolerance * scale) break;
    if (d.iterations >= o.maxIterations || !q.allFinite())
      return failure(Status::Code::NotConverged, t,
                     "the index-3 step did not converge in " + std::to_string(o.maxIterations) + " iterations (a step too long, or a singular position)");
  }
  // mass-orthogonal projections onto Φ̇ = 0 and Φ̈ = 0: x minimises ½(x − x*)ᵀM(x − x*) subject to
  // Φ_q x + rate = 0. With P = M + (h²/4)αΦ_qᵀΦ_q factored (the dense matrices: small models, and
  // the runs a sensitivity differentiates) the iteration P x ← M x − (h²/4)αΦ_qᵀ rate. With the
  // sparse matrices (large models, no force element in the tangent) P is not factored: the last
  // Newton tangent A = P + (h²/4)Σ w_k Φ_k,qq (the multipliers' term, small beside M; seed 004's
  // ALI3-P projects with it too) serves the augmented Lagrangian iteration
  //   x ← x − A⁻¹(M(x − x*) + Φ_qᵀ(ν + (h²/4)α(Φ_q x + rate))),   ν ← ν + (h²/4)α(Φ_q x + rate),
  // whose fixed point is the same projection whatever A approximates P: a factorisation saved per
  // step (what stops it leaves off range(Φ_qᵀ) that term times the last correction)
  jacobianAt(m, q, t, d);
  kin::evaluatePhiT(m, q, t, d.phiT);
  bool withP = !d.sparse;  // A = P
  if (!d.sparse) {
    d.tangent = inertia.M;
    d.tangent.noalias() += s4 * alpha * d.J.transpose() * d.J;
    d.lu.compute(d.tangent);
  }
  auto solveA = [&](Eigen::VectorXd& x) {
    if (d.sparse) d.sparse->solve(!withP, x);
    else x = d.lu.solve(x);
  };
  auto times = [&](const Eigen::VectorXd& x) {  // Φ_q x
    return d.sparse ? Eigen::VectorXd(d.Js * x) : Eigen::VectorXd(d.J * x);
  };
  auto timesT = [&](const Eigen::VectorXd& y) {  // Φ_qᵀ y
    return d.sparse ? Eigen::VectorXd(d.Js.transpose() * y) : Eigen::VectorXd(d.J.transpose() * y);
  };
  auto massTimes = [&](const Eigen::VectorXd& x) { return d.sparse ? Eigen::VectorXd(d.Ms * x) : Eigen::VectorXd(inertia.M * x); };
  // each repeated until the constraint holds (one pass removes all but ~1/(1 + αh²/4·σ²/m) of the
  // violation): the fixed point Φ_q x + rate = 0 (the least-squares one when redundant)
  // The tangent's iteration starts from the multipliers the same projection ended with a step
  // before (they change little from step to step): its first pass then lands near the projection.
  auto iterate = [&](const Eigen::VectorXd& target, const Eigen::VectorXd& rate, Eigen::VectorXd& x, Eigen::VectorXd& nu) {
    x = target;
    if (nu.size() != m.nrows || withP) nu = Eigen::VectorXd::Zero(m.nrows);
    Eigen::VectorXd violation = times(x) + rate;
    if (nu.any() && !withP) {
      d.dq = timesT(nu);
      solveA(d.dq);
      x -= d.dq;
      violation = times(x) + rate;
    }
    for (int pass = 0; pass < o.maxIterations; ++pass) {
      if (violation.cwiseAbs().maxCoeff() < o.tolerance * 1e-2 * std::max(1.0, x.cwiseAbs().maxCoeff())) return true;
      if (withP) {  // A = P: the same iteration as P x ← M x − (h²/4)αΦ_qᵀ rate
        x = massTimes(x) - s4 * alpha * timesT(rate);
        solveA(x);
        violation = times(x) + rate;
        continue;
      }
      d.dq = massTimes(x - target) + timesT(nu + s4 * alpha * violation);
      solveA(d.dq);
      x -= d.dq;
      violation = times(x) + rate;
      nu += s4 * alpha * violation;
    }
    return false;
  };
  // where the tangent's iteration stalls, P factored and the projection taken again; x as far as
  // the iteration went when that does not converge either (the next step starts from it)
  auto project = [&](const Eigen::VectorXd& target, const Eigen::VectorXd& rate, Eigen::VectorXd& x, Eigen::VectorXd& nu) -> Status {
    if (iterate(target, rate, x, nu) || withP) return {};
    if (!d.sparse->factor(m, s4, alpha, t, q, nullptr))
      return failure(Status::Code::Singular, t, "the index-3 projection matrix is singular (a body without mass that no constraint holds)");
    withP = true;
    iterate(target, rate, x, nu);
    return {};
  };
  Eigen::VectorXd qd, qdd;
  if (Status e = project((2 / h) * q - d.qdHat, d.phiT, qd, d.projectionMultipliers[0]); !e.ok()) return e;
  kin::evaluateGamma(m, q, qd, t, d.gamma);  // Φ̈ = Φ_q q̈ + γ
  if (Status e = project((4 / (h * h)) * q - d.qddHat, d.gamma, qdd, d.projectionMultipliers[1]); !e.ok()) return e;
  s.t = t;
  s.q = q;
  s.qd = qd;
  s.qdd = qdd;
  s.lambda = lambda;
  return {};
}

}  // namespace lw::dyn
