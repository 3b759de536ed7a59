#include "dynamics/natural_dynamics.h"

#include <cmath>

namespace lw::dyn {

namespace {

// z = [O; d] of a planar body as q's columns: O = x(origin), d = x(a) − x(b) (or x(a), a unit
// vector); fixed entities add nothing (they do not move)
void addEntity(const kin::NaturalModel& m, int entity, double sign, int row, Eigen::Matrix<double, 4, Eigen::Dynamic>& T) {
  if (entity < 0) return;
  const kin::Entity& e = m.entities[static_cast<std::size_t>(entity)];
  if (e.fixed()) return;
  T(row, e.offset) += sign;
  T(row + 1, e.offset + 1) += sign;
}

Eigen::Vector2d entityValue(const kin::NaturalModel& m, int entity) {
  if (entity < 0) return Eigen::Vector2d::Zero();
  return m.entities[static_cast<std::size_t>(entity)].value.head<2>();
}

}  // namespace

namespace {

// a spatial body with a linear frame (O, x1, x2, x3 = d, d', w): its points are r = O + X ρ, and
// with the mass moments in ρ (m, m ρ_c, J = ∫ρρᵀ dm) T = ½ m|Ȯ|² + m Ȯ·Ẋρ_c + ½ tr(Ẋ J Ẋᵀ)
bool spatialBody(const kin::NaturalModel& m, std::size_t b, NaturalInertia& out, std::string& error) {
  const kin::BodyFrame& f = m.bodies[b];
  const auto& body = m.mechanism->bodies[b];
  if (f.spinFree || f.d[2].a < 0) {
    error = f.spinFree ? "body '" + body.name + "' is held by points on one line only (a rod between ball joints): the global formulations "
                                                "do not give it an orientation yet"
                       : "the natural model has no linear frames (compiled for kinematics)";
    return false;
  }
  auto value = [&](const kin::Direction& d) {
    Eigen::Vector3d v = m.entities[static_cast<std::size_t>(d.a)].value;
    if (d.b >= 0) v -= m.entities[static_cast<std::size_t>(d.b)].value;
    return v;
  };
  Eigen::Matrix3d X0;
  X0 << value(f.d[0]), value(f.d[1]), value(f.d[2]);
  const Eigen::Vector3d O0 = m.entities[static_cast<std::size_t>(f.origin)].value;
  // ρ of a body-frame point s: ρ = A s + a0
  const Eigen::Matrix3d X0inv = X0.inverse();
  const Eigen::Matrix3d A = X0inv * body.rotation;
  const Eigen::Vector3d a0 = X0inv * (body.position - O0);
  const double mass = body.mass;
  // ∫ s sᵀ dm about the body's origin: the centre's share and E_c = ½ tr(I_c) 1 − I_c
  const Eigen::Matrix3d S = mass * body.com * body.com.transpose() + 0.5 * body.inertia.trace() * Eigen::Matrix3d::Identity() - body.inertia;
  const Eigen::Vector3d rc = A * body.com + a0;
  const Eigen::Matrix3d J = A * S * A.transpose() + mass * (A * body.com * a0.transpose() + a0 * body.com.transpose() * A.transpose()) +
                            mass * a0 * a0.transpose();
  Eigen::Matrix<double, 12, 12> Mb = Eigen::Matrix<double, 12, 12>::Zero();
  Mb.block<3, 3>(0, 0) = mass * Eigen::Matrix3d::Identity();
  for (int i = 0; i < 3; ++i) {
    Mb.block<3, 3>(0, 3 + 3 * i) = mass * rc[i] * Eigen::Matrix3d::Identity();
    Mb.block<3, 3>(3 + 3 * i, 0) = mass * rc[i] * Eigen::Matrix3d::Identity();
    for (int j = 0; j < 3; ++j) Mb.block<3, 3>(3 + 3 * i, 3 + 3 * j) = J(i, j) * Eigen::Matrix3d::Identity();
  }
  // y = [O; x1; x2; x3] as q's columns (fixed entities add nothing)
  Eigen::Matrix<double, 12, Eigen::Dynamic> T = Eigen::Matrix<double, 12, Eigen::Dynamic>::Zero(12, m.nq);
  auto add = [&](int entity, double sign, int row) {
    if (entity < 0) return;
    const kin::Entity& e = m.entities[static_cast<std::size_t>(entity)];
    if (e.fixed()) return;
    for (int k = 0; k < 3; ++k) T(row + k, e.offset + k) += sign;
  };
  add(f.origin, 1, 0);
  for (int i = 0; i < 3; ++i) {
    add(f.d[i].a, 1, 3 + 3 * i);
    add(f.d[i].b, -1, 3 + 3 * i);
  }
  out.M.noalias() += T.transpose() * Mb * T;
  // the weight at the centre: r_c = O + X ρ_c
  const Eigen::Vector3d g = m.mechanism->gravity;
  Eigen::Matrix<double, 12, 1> Qb;
  Qb << mass * g, mass * rc[0] * g, mass * rc[1] * g, mass * rc[2] * g;
  out.gravity.noalias() += T.transpose() * Qb;
  return true;
}

}  // namespace

bool naturalInertia(const kin::NaturalModel& m, NaturalInertia& out, std::string& error) {
  const ResolvedMechanism& r = *m.mechanism;
  out.M = Eigen::MatrixXd::Zero(m.nq, m.nq);
  out.gravity = Eigen::VectorXd::Zero(m.nq);
  if (m.dimension == 3) {
    for (std::size_t b = 1; b < m.bodies.size(); ++b)
      if (!spatialBody(m, b, out, error)) return false;
    return true;
  }
  const Eigen::Vector2d g = r.gravity.head<2>();
  Eigen::Matrix2d R90;
  R90 << 0, -1, 1, 0;
  for (std::size_t b = 1; b < m.bodies.size(); ++b) {
    const kin::BodyFrame& f = m.bodies[b];
    const auto& body = r.bodies[b];
    if (body.mass == 0 && body.inertia(2, 2) == 0) continue;
    // the frame at the stored configuration: the centre of mass's coefficients in it
    const Eigen::Vector2d o = entityValue(m, f.origin);
    const Eigen::Vector2d d = entityValue(m, f.d[0].a) - (f.d[0].b >= 0 ? entityValue(m, f.d[0].b) : Eigen::Vector2d::Zero());
    const double L2 = d.squaredNorm();
    const Eigen::Vector2d c = (body.position + body.rotation * body.com).head<2>() - o;
    const double ac = c.dot(d) / L2, bc = c.dot(R90 * d) / L2;
    // T = ½ m|Ȯ|² + m Ȯ·(a_c ḋ + b_c R90 ḋ) + ½ J |ḋ|², J = I_O / |d|² (a material point at
    // (a, b) is (a² + b²)|d|² from O; |ḋ| = ω|d|)
    const double m0 = body.mass, J = (body.inertia(2, 2) + m0 * c.squaredNorm()) / L2;
    const Eigen::Matrix2d C = ac * Eigen::Matrix2d::Identity() + bc * R90;
    Eigen::Matrix4d Mb;
    Mb << m0 * Eigen::Matrix2d::Identity(), m0 * C, m0 * C.transpose(), J * Eigen::Matrix2d::Identity();
    Eigen::Matrix<double, 4, Eigen::Dynamic> T = Eigen::Matrix<double, 4, Eigen::Dynamic>::Zero(4, m.nq);
    addEntity(m, f.origin, 1, 0, T);
    addEntity(m, f.d[0].a, 1, 2, T);
    addEntity(m, f.d[0].b, -1, 2, T);
    out.M.noalias() += T.transpose() * Mb * T;
    // the weight at the centre of mass: r_c = O + a_c d + b_c R90 d
    Eigen::Vector4d Qb;
    Qb << m0 * g, m0 * C.transpose() * g;
    out.gravity.noalias() += T.transpose() * Qb;
  }
  return true;
}

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
  Mbar.noalias() += alpha * d.J.transpose() * d.J;
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
      Jw(m.nq),
      Q(m.nq),
      lu(m.nq) {}

Status index3Start(const kin::NaturalModel& m, const NaturalInertia& inertia, const Index3Options& o, Index3State& s) {
  // q̈ and λ of the start by the augmented Lagrangian iteration (redundant constraints allowed,
  // where the index-1 matrix is singular): (M + αΦ_qᵀΦ_q) q̈ = Q − Φ_qᵀλ − αΦ_qᵀγ,
  // λ ← λ + α(Φ_q q̈ + γ), until Φ̈ = Φ_q q̈ + γ vanishes
  const double alpha = o.penalty * std::max(1.0, inertia.M.diagonal().maxCoeff()) * 1e-6;
  Eigen::MatrixXd J;
  Eigen::VectorXd gamma(m.nrows);
  kin::evaluateJacobianDense(m, s.q, s.t, J);
  kin::evaluateGamma(m, s.q, s.qd, s.t, gamma);
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
  kin::evaluateJacobianDense(m, q, t, d.J);
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
  d.residual = (h * h / 4) * (inertia.M * d.qdd + d.J.transpose() * d.w - d.Q);
}

void index3Tangent(const kin::NaturalModel& m, const NaturalInertia& inertia, double alpha, double h, double t, Eigen::VectorXd& q,
                   const Eigen::VectorXd& lambda, Index3Data& d) {
  // M + (h²/4)(αΦ_qᵀΦ_q + Σ w_k Φ_k,qq − ∂Q/∂q − (2/h) ∂Q/∂q̇), w = αΦ + λ. The natural
  // coordinates' constraints are quadratic: Φ_q is affine in q, so a unit difference of Φ_qᵀw is
  // its exact derivative. The force elements' stiffness and damping (gravity has none) by
  // central differences along (e_j, (2/h) e_j), the rule's q̇ moving with q.
  kin::evaluateJacobianDense(m, q, t, d.J);
  kin::evaluateConstraints(m, q, t, d.phi);
  d.w = alpha * d.phi + lambda;
  d.tangent = inertia.M;
  d.tangent.noalias() += (h * h / 4) * alpha * d.J.transpose() * d.J;
  d.Jw.noalias() = d.J.transpose() * d.w;
  if (m.dimension == 2) {
    for (int j = 0; j < m.nq; ++j) {
      q[j] += 1;
      kin::evaluateJacobianDense(m, q, t, d.Jshift);
      q[j] -= 1;
      d.tangent.col(j).noalias() += (h * h / 4) * d.Jshift.transpose() * d.w;
      d.tangent.col(j) -= (h * h / 4) * d.Jw;
    }
  } else {
    // spatial constraints are cubic in places (a prismatic joint's (Q − P)·(u × w)): central
    // differences, exact to the square of their step
    for (int j = 0; j < m.nq; ++j) {
      const double eps = 1e-5 * std::max(1.0, std::abs(q[j])), q0 = q[j];
      q[j] = q0 + eps;
      kin::evaluateJacobianDense(m, q, t, d.Jshift);
      d.Jw = d.Jshift.transpose() * d.w;
      q[j] = q0 - eps;
      kin::evaluateJacobianDense(m, q, t, d.Jshift);
      q[j] = q0;
      d.tangent.col(j).noalias() += (h * h / 4) / (2 * eps) * (d.Jw - d.Jshift.transpose() * d.w);
    }
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
  if (!d.sparseChosen) {
    d.sparseChosen = true;
    const bool sparse = o.matrices == Index3Options::Matrices::Sparse ||
                        (o.matrices == Index3Options::Matrices::Auto && m.nq >= Index3Options::kSparseFrom && !inertia.stateDependent());
    if (sparse) d.sparse = std::make_shared<Index3Sparse>(m, inertia.M);
  }
  const double s4 = h * h / 4;
  for (;;) {
    index3Residual(m, inertia, alpha, h, t, q, lambda, d);
    // modified Newton: the tangent of the step's first iteration serves the others (its Hessian
    // term costs nq Jacobians dense); rebuilt when the updates stop shrinking fast
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
  // mass-orthogonal projections onto Φ̇ = 0 and Φ̈ = 0 with the last tangent P = M + (h²/4)αΦ_qᵀΦ_q
  kin::evaluateJacobianDense(m, q, t, d.J);
  kin::evaluatePhiT(m, q, t, d.phiT);
  if (d.sparse) {
    if (!d.sparse->factor(m, s4, alpha, t, q, nullptr))
      return failure(Status::Code::Singular, t, "the index-3 projection matrix is singular (a body without mass that no constraint holds)");
  } else {
    d.tangent = inertia.M;
    d.tangent.noalias() += s4 * alpha * d.J.transpose() * d.J;
    d.lu.compute(d.tangent);
  }
  // each projection repeated until it holds (one pass removes all but ~1/(1 + αh²/4·σ²/m) of
  // the violation): its fixed point is Φ_q q̇ + Φ_t = 0 (the least-squares one when redundant)
  auto project = [&](Eigen::VectorXd x, const Eigen::VectorXd& rate) {
    for (int pass = 0; pass < o.maxIterations; ++pass) {
      const Eigen::VectorXd violation = d.J * x + rate;
      if (violation.cwiseAbs().maxCoeff() < o.tolerance * 1e-2 * std::max(1.0, x.cwiseAbs().maxCoeff())) break;
      if (d.sparse) {
        x = inertia.M * x - s4 * alpha * d.J.transpose() * rate;
        d.sparse->solve(false, x);
      } else {
        x = d.lu.solve(inertia.M * x - s4 * alpha * d.J.transpose() * rate);
      }
    }
    return x;
  };
  const Eigen::VectorXd qd = project((2 / h) * q - d.qdHat, d.phiT);
  kin::evaluateGamma(m, q, qd, t, d.gamma);  // Φ̈ = Φ_q q̈ + γ
  const Eigen::VectorXd qdd = project((4 / (h * h)) * q - d.qddHat, d.gamma);
  s.t = t;
  s.q = q;
  s.qd = qd;
  s.qdd = qdd;
  s.lambda = lambda;
  return {};
}

}  // namespace lw::dyn
