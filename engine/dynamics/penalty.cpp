#include "dynamics/penalty.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"

namespace lw::dyn {

// factorisation and scratch, sized once (no allocation per step)
class PenaltySolvers {
 public:
  explicit PenaltySolvers(const RecursiveModel& m)
      : lu(m.nz), forces(m), rowColumns(&m.rowColumns), tmp(m.nz), tmp2(m.nz), zdStar(m.nz), zddStar(m.nz) {
    forces.shareFrames(recursive);
  }
  RecursiveData recursive;  // the kernels' poses and scratch (this run's own)
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  GeneralizedForces<double> forces;
  const std::vector<std::vector<int>>* rowColumns;
  Eigen::VectorXd tmp, tmp2, zdStar, zddStar;

  // A += s Φ_zᵀ Φ_z over each row's structural columns: a loop row reads few coordinates, and
  // the dense product was half of a large grid's step
  void addJtJ(const PenaltyData& d, double s, Eigen::MatrixXd& A) const {
    for (Eigen::Index r = 0; r < d.J.rows(); ++r) {
      const auto& cols = (*rowColumns)[static_cast<std::size_t>(r)];
      for (int a : cols) {
        const double v = s * d.J(r, a);
        if (v == 0.0) continue;
        for (int b : cols) A(b, a) += v * d.J(r, b);
      }
    }
  }

  // α Φ_zᵀ v into out
  void penaltyForce(const PenaltyData& d, const Eigen::VectorXd& v, Eigen::VectorXd& out) {
    out.noalias() = d.J.transpose() * v;
    out *= d.alpha;
  }
};

PenaltyData::PenaltyData(const RecursiveModel& m, PenaltyOptions o)
    : options(o), z(m.z0), zd(Eigen::VectorXd::Zero(m.nz)), zdd(Eigen::VectorXd::Zero(m.nz)),
      K(Eigen::MatrixXd::Zero(m.nz, m.nz)), C(Eigen::MatrixXd::Zero(m.nz, m.nz)),
      solvers(std::make_unique<PenaltySolvers>(m)), tangent(std::make_unique<ForceJacobian>(m, o.tangent)) {
  // α for unit masses, scaled by the mechanism's largest body mass
  double mass = 0;
  for (const auto& b : m.mechanism->bodies) mass = std::max(mass, b.mass);
  alpha = o.alpha * std::max(mass, 1e-3);
}
PenaltyData::~PenaltyData() = default;
PenaltyData::PenaltyData(PenaltyData&&) noexcept = default;

lw::Status penaltyStart(const RecursiveModel& m, PenaltyData& d, double t) {
  d.t = t;
  d.haveLast = false;
  d.tangentAge = -1;
  PenaltySolvers& s = *d.solvers;
  dyn::massAndForces(m, s.recursive, s.forces, d.z, d.zd, t, d.Md, d.Qd);
  loopJacobian(m, s.recursive, d.z, t, d.J);
  loopRates(m, s.recursive, d.z, d.zd, t, d.phiT, d.c);
  d.A = d.Md;
  s.addJtJ(d, d.alpha, d.A);
  // Φ̇_z ż + Φ̇_t = −c
  s.penaltyForce(d, d.c, s.tmp);
  d.rhs = d.Qd + s.tmp;
  d.solvers->lu.compute(d.A);
  d.zdd = d.solvers->lu.solve(d.rhs);
  return {};
}

lw::Status penaltyStep(const RecursiveModel& m, PenaltyData& d, double h) {
  const double t = d.t + h;
  const double hh = h * h / 4;
  PenaltySolvers& s = *d.solvers;
  d.zhatd = -((2 / h) * d.z + d.zd);
  d.zhatdd = -((4 / (h * h)) * d.z + (4 / h) * d.zd + d.zdd);
  // predictor: the trapezoidal rule with z̈ extrapolated linearly from the last step (constant
  // on the first); the first Newton update then is often within the tolerance
  if (d.haveLast) {
    d.dz = d.zdd + (h / d.lastH) * (d.zdd - d.lastStartZdd);
    d.z += h * d.zd + hh * (d.zdd + d.dz);
  } else {
    d.z += h * d.zd + 0.5 * h * h * d.zdd;
  }
  d.lastStartZdd = d.zdd;
  d.lastH = h;
  d.t = t;
  // the last step's K and C serve this one while they let Newton converge fast
  const bool keepTangent = d.tangentAge >= 0 && d.tangentAge < d.options.maxTangentAge && std::abs(d.tangentH - h) <= 1e-9 * h &&
                           d.lastIterations < d.options.reuseWhileIterationsAtMost;
  d.tangentAge = keepTangent ? d.tangentAge + 1 : -1;
  bool converged = false;
  for (d.lastIterations = 0; d.lastIterations < d.options.maxIterations; ++d.lastIterations) {
    ++d.iterations;
    d.zd = (2 / h) * d.z + d.zhatd;
    d.zdd = (4 / (h * h)) * d.z + d.zhatdd;
    dyn::massAndForces(m, s.recursive, s.forces, d.z, d.zd, t, d.Md, d.Qd);
    loopConstraints(m, s.recursive, d.z, t, d.phi);
    loopJacobian(m, s.recursive, d.z, t, d.J);
    // (17) f = M z + h²/4 (Φ_zᵀ α Φ − Q + M ẑ̈) = h²/4 (M z̈ + Φ_zᵀ α Φ − Q)
    s.penaltyForce(d, d.phi, s.tmp);
    s.tmp -= d.Qd;
    s.tmp.noalias() += d.Md * d.zdd;
    d.f = hh * s.tmp;
    if (d.lastIterations % d.options.jacobianReuse == 0 && !(keepTangent && d.lastIterations == 0)) {
      d.tangent->compute(d.z, d.zd, t, d.K, d.C, &d.zdd);
      ++d.jacobians;
      d.tangentAge = 0;
      d.tangentH = h;
    }
    // (25), (20)
    d.P = d.Md + (h / 2) * d.C + hh * d.K;
    d.A = d.P;
    s.addJtJ(d, hh * d.alpha, d.A);
    // the unit-quaternion rows |q|² − 1 have the Hessian 2I: their penalty force α Φ_zᵀΦ adds the
    // stiffness 2αΦ on the quaternion's diagonal (the other rows' Φ_zz αΦ are neglected, as in
    // the paper). It matters where the inertia is tiny, such as a rod's spin between ball joints.
    for (const LoopConstraint& c : m.constraints) {
      if (c.kind != LoopConstraint::Kind::UnitQuaternion) continue;
      const Node& n = m.nodes[static_cast<std::size_t>(c.index)];
      const int q = n.z + (n.kind == NodeKind::FreeSpatial ? 3 : 0);
      for (int i = 0; i < 4; ++i) d.A(q + i, q + i) += hh * d.alpha * 2 * d.phi[c.row];
    }
    s.lu.compute(d.A);
    d.dz = s.lu.solve(d.f);
    d.z -= d.dz;
    if (!d.z.allFinite())
      return lw::failure(lw::Status::Code::NotConverged, t, "the penalty simulation diverged at t = " + lw::shortNumber(t) + " (non-finite coordinates): the step " +
                            lw::shortNumber(h) + " s is too large for this model");
    if (d.dz.cwiseAbs().maxCoeff() < d.options.tolerance * std::max(1.0, d.z.cwiseAbs().maxCoeff())) {
      converged = true;
      break;
    }
  }
  if (!converged)
    return lw::failure(lw::Status::Code::NotConverged, t, "the penalty formulation's Newton iteration did not converge at t = " + lw::shortNumber(t) + " (step " +
                          lw::shortNumber(h) + " s): the step may be too large, or a body has a nearly massless freedom (such as a rod's spin "
                          "between two ball joints) that the penalty tangent cannot resolve; try a smaller step or the Matrix R formulation");
  if (d.options.massProjections) {
    // the metric M and the penalty term at the converged z, factorised afresh
    dyn::massAndForces(m, s.recursive, s.forces, d.z, d.zd, t, d.Md, d.Qd);
    loopJacobian(m, s.recursive, d.z, t, d.J);
    d.P = d.Md;
    d.A = d.P;
    s.addJtJ(d, hh * d.alpha, d.A);
    s.lu.compute(d.A);
  }
  // projections (24), (26) with the last factorisation
  s.zdStar = (2 / h) * d.z + d.zhatd;
  s.zddStar = (4 / (h * h)) * d.z + d.zhatdd;
  loopPhiT(m, s.recursive, d.z, t, d.phiT);
  s.penaltyForce(d, d.phiT, s.tmp);
  d.rhs.noalias() = d.P * s.zdStar;
  d.rhs -= hh * s.tmp;
  d.zd = s.lu.solve(d.rhs);
  loopRates(m, s.recursive, d.z, d.zd, t, d.phiT, d.c);  // c = −(Φ̇_z ż + Φ̇_t) with the projected ż
  s.penaltyForce(d, d.c, s.tmp);
  d.rhs.noalias() = d.P * s.zddStar;
  d.rhs += hh * s.tmp;
  d.zdd = s.lu.solve(d.rhs);
  d.haveLast = true;
  return {};
}

}  // namespace lw::dyn
