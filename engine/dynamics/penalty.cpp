#include "dynamics/penalty.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "dynamics/matrix_r.h"

namespace lw::dyn {

class PenaltySolvers {
 public:
  explicit PenaltySolvers(int n) : lu(n) {}
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
};

PenaltyData::PenaltyData(const RecursiveModel& m, PenaltyOptions o)
    : options(o), z(m.z0), zd(Eigen::VectorXd::Zero(m.nz)), zdd(Eigen::VectorXd::Zero(m.nz)),
      K(Eigen::MatrixXd::Zero(m.nz, m.nz)), C(Eigen::MatrixXd::Zero(m.nz, m.nz)),
      solvers(std::make_unique<PenaltySolvers>(m.nz)), tangent(std::make_unique<ForceJacobian>(m, o.tangent)) {
  // α for unit masses, scaled by the mechanism's largest body mass
  double mass = 0;
  for (const auto& b : m.mechanism->bodies) mass = std::max(mass, b.mass);
  alpha = o.alpha * std::max(mass, 1e-3);
}
PenaltyData::~PenaltyData() = default;
PenaltyData::PenaltyData(PenaltyData&&) noexcept = default;

kin::KinStatus penaltyStart(const RecursiveModel& m, PenaltyData& d, double t) {
  d.t = t;
  massAndForces(m, d.z, d.zd, t, d.Md, d.Qd);
  loopJacobian(m, d.z, t, d.J);
  loopRates(m, d.z, d.zd, t, d.phiT, d.c);
  d.A = d.Md + d.alpha * d.J.transpose() * d.J;
  // Φ̇_z ż + Φ̇_t = −c
  d.rhs = d.Qd + d.alpha * d.J.transpose() * d.c;
  d.solvers->lu.compute(d.A);
  d.zdd = d.solvers->lu.solve(d.rhs);
  return {};
}

kin::KinStatus penaltyStep(const RecursiveModel& m, PenaltyData& d, double h) {
  const double t = d.t + h;
  const double hh = h * h / 4;
  d.zhatd = -((2 / h) * d.z + d.zd);
  d.zhatdd = -((4 / (h * h)) * d.z + (4 / h) * d.zd + d.zdd);
  d.z += h * d.zd + 0.5 * h * h * d.zdd;  // predictor
  d.t = t;
  bool converged = false;
  for (d.lastIterations = 0; d.lastIterations < d.options.maxIterations; ++d.lastIterations) {
    d.zd = (2 / h) * d.z + d.zhatd;
    d.zdd = (4 / (h * h)) * d.z + d.zhatdd;
    massAndForces(m, d.z, d.zd, t, d.Md, d.Qd);
    loopConstraints(m, d.z, t, d.phi);
    loopJacobian(m, d.z, t, d.J);
    // (17) f = M z + h²/4 (Φ_zᵀ α Φ − Q + M ẑ̈)
    d.f = d.Md * d.z + hh * (d.alpha * d.J.transpose() * d.phi - d.Qd + d.Md * d.zhatdd);
    if (d.lastIterations % d.options.jacobianReuse == 0) {
      d.tangent->compute(d.z, d.zd, t, d.K, d.C, &d.zdd);
      ++d.jacobians;
    }
    // (25), (20)
    d.P = d.Md + (h / 2) * d.C + hh * d.K;
    d.A = d.P + hh * d.alpha * d.J.transpose() * d.J;
    d.solvers->lu.compute(d.A);
    d.dz = -d.solvers->lu.solve(d.f);
    d.z += d.dz;
    if (!d.z.allFinite())
      return kin::failure(kin::KinStatus::Code::NotConverged, t, "the penalty simulation diverged at t = " + kin::shortNumber(t) + " (non-finite coordinates): the step " +
                            kin::shortNumber(h) + " s is too large for this model");
    if (d.dz.cwiseAbs().maxCoeff() < d.options.tolerance * std::max(1.0, d.z.cwiseAbs().maxCoeff())) {
      converged = true;
      break;
    }
  }
  if (!converged)
    return kin::failure(kin::KinStatus::Code::NotConverged, t, "the penalty formulation's Newton iteration did not converge at t = " + kin::shortNumber(t) + " (step " +
                          kin::shortNumber(h) + " s): the step may be too large, or a body has a nearly massless freedom (such as a rod's spin "
                          "between two ball joints) that the penalty tangent cannot resolve; try a smaller step or the Matrix R formulation");
  // projections (24), (26) with the last factorisation
  const Eigen::VectorXd zdStar = (2 / h) * d.z + d.zhatd, zddStar = (4 / (h * h)) * d.z + d.zhatdd;
  loopPhiT(m, d.z, t, d.phiT);
  d.rhs = d.P * zdStar - hh * d.alpha * d.J.transpose() * d.phiT;
  d.zd = d.solvers->lu.solve(d.rhs);
  loopRates(m, d.z, d.zd, t, d.phiT, d.c);  // c = −(Φ̇_z ż + Φ̇_t) with the projected ż
  d.rhs = d.P * zddStar + hh * d.alpha * d.J.transpose() * d.c;
  d.zdd = d.solvers->lu.solve(d.rhs);
  return {};
}

}  // namespace lw::dyn
