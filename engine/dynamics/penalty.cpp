#include "dynamics/penalty.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"
#include "dynamics/penalty_derivatives.h"

namespace lw::dyn {

// factorisation and scratch, sized once (no allocation per step)
// The penalty step as the Newmark loop's system (integrators/newmark.h): the residual (17), the
// iteration matrix (20) with K and C kept or rebuilt, and the projections (24), (26) at the end.
class PenaltySolvers final : public integ::NewmarkSystem {
 public:
  PenaltySolvers(const RecursiveModel& m, const TreeNumbers<double>& numbers)
      : lu(m.nz), forces(m, numbers), pattern(&m), tmp(m.nz), tmp2(m.nz) {
    forces.shareFrames(recursive);
  }
  RecursiveData recursive;  // the kernels' poses and scratch (this run's own)
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  GeneralizedForces<double> forces;
  const RecursiveModel* pattern;  // the model whose rows' columns addJtJ reads (set before any step)
  Eigen::VectorXd tmp, tmp2;
  integ::State state;  // the data's state during a step (its buffers swapped in)
  const RecursiveModel* model = nullptr;  // set for each step
  PenaltyData* data = nullptr;
  // this step's: size, time, whether K and C from an earlier step serve, the residual's point
  double h = 0, t = 0;
  bool keepTangent = false;
  const Eigen::VectorXd *z = nullptr, *zd = nullptr, *zdd = nullptr;

  void beginStep(const integ::State& /*s*/, double stepSize, int lastIterations) override {
    PenaltyData& d = *data;
    h = stepSize;
    // the last step's K and C serve this one while they let Newton converge fast
    keepTangent = d.tangentAge >= 0 && d.tangentAge < d.options.maxTangentAge && std::abs(d.tangentH - h) <= 1e-9 * h &&
                  lastIterations <= d.options.reuseWhileIterationsAtMost;
    d.tangentAge = keepTangent ? d.tangentAge + 1 : -1;
  }

  // (17) f = M z + h²/4 (Φ_zᵀ α Φ − Q + M ẑ̈) = h²/4 (M z̈ + Φ_zᵀ α Φ − Q)
  lw::Status residual(double time, const Eigen::VectorXd& zt, const Eigen::VectorXd& zdt, const Eigen::VectorXd& zddt, Eigen::VectorXd& f) override {
    PenaltyData& d = *data;
    const RecursiveModel& m = *model;
    t = time;
    z = &zt;
    zd = &zdt;
    zdd = &zddt;
    dyn::massAndForces(m, recursive, forces, zt, zdt, t, d.Md, d.Qd);
    loopConstraints(m, recursive, zt, t, d.phi);
    loopJacobian(m, recursive, zt, t, d.J);
    penaltyForce(d, d.phi, tmp);
    if (evaluateExtra(d, zt, zdt)) tmp.noalias() += d.alpha * (d.extraJ.transpose() * d.extraPhi);
    tmp -= d.Qd;
    tmp.noalias() += d.Md * zddt;
    f = (h * h / 4) * tmp;
    return {};
  }

  // (25), (20): P = M^d + (h/2) C + (h²/4) K, A = P + (h²/4) Φ_zᵀ α Φ_z, factorised each iteration
  // (M^d and Φ_z are those of the residual's point; K and C are refreshed every jacobianReuse
  // iterations, §8.4)
  lw::Status solve(int iteration, const Eigen::VectorXd& f, Eigen::VectorXd& dz) override {
    PenaltyData& d = *data;
    const RecursiveModel& m = *model;
    const double hh = h * h / 4;
    if (iteration % d.options.jacobianReuse == 0 && !(keepTangent && iteration == 0)) {
      d.tangent->compute(*z, *zd, t, d.K, d.C, zdd);
      ++d.jacobians;
      d.tangentAge = 0;
      d.tangentH = h;
    }
    d.P = d.Md + (h / 2) * d.C + hh * d.K;
    d.A = d.P;
    addJtJ(d, hh * d.alpha, d.A);
    addExtraJtJ(d, hh * d.alpha, d.A);
    // the unit-quaternion rows |q|² − 1 have the Hessian 2I: their penalty force α Φ_zᵀΦ adds the
    // stiffness 2αΦ on the quaternion's diagonal (the other rows' Φ_zz αΦ are neglected, as in
    // the paper). It matters where the inertia is tiny, such as a rod's spin between ball joints.
    for (const LoopConstraint& c : m.constraints) {
      if (c.kind != LoopConstraint::Kind::UnitQuaternion) continue;
      const Node& n = m.nodes[static_cast<std::size_t>(c.index)];
      const int q = n.z + (n.kind == NodeKind::FreeSpatial ? 3 : 0);
      for (int i = 0; i < 4; ++i) d.A(q + i, q + i) += hh * d.alpha * 2 * d.phi[c.row];
    }
    lu.compute(d.A);
    dz = lu.solve(f);
    return {};
  }

  // projections (24), (26) with the last factorisation: the rule's ż*, z̈* at the converged z
  // made consistent with the velocity and acceleration constraints
  lw::Status acceptStep(const integ::State& /*from*/, integ::State& to, int /*iterations*/) override {
    PenaltyData& d = *data;
    const RecursiveModel& m = *model;
    const double hh = h * h / 4;
    if (d.options.massProjections) {
      // the metric M and the penalty term at the converged z, factorised afresh
      dyn::massAndForces(m, recursive, forces, to.x, to.v, to.t, d.Md, d.Qd);
      loopJacobian(m, recursive, to.x, to.t, d.J);
      d.P = d.Md;
      d.A = d.P;
      addJtJ(d, hh * d.alpha, d.A);
      if (evaluateExtra(d, to.x, to.v)) addExtraJtJ(d, hh * d.alpha, d.A);
      lu.compute(d.A);
    }
    loopPhiT(m, recursive, to.x, to.t, d.phiT);
    penaltyForce(d, d.phiT, tmp);
    d.rhs.noalias() = d.P * to.v;
    d.rhs -= hh * tmp;
    to.v = lu.solve(d.rhs);
    loopRates(m, recursive, to.x, to.v, to.t, d.phiT, d.c);  // c = −(Φ̇_z ż + Φ̇_t) with the projected ż
    penaltyForce(d, d.c, tmp);
    if (evaluateExtra(d, to.x, to.v)) tmp.noalias() += d.alpha * (d.extraJ.transpose() * d.extraC);
    d.rhs.noalias() = d.P * to.a;
    d.rhs += hh * tmp;
    to.a = lu.solve(d.rhs);
    return {};
  }

  std::string failureHint(double stepSize) const override {
    return "the step " + lw::shortNumber(stepSize) +
           " s may be too large, or a body has a nearly massless freedom (such as a rod's spin between two ball joints) that the "
           "penalty tangent cannot resolve; try a smaller step or the Matrix R formulation";
  }

  // A += s Φ_zᵀ Φ_z over each row's structural columns (addRowsGram)
  void addJtJ(const PenaltyData& d, double s, Eigen::MatrixXd& A) const { addRowsGram<double>(*pattern, d.J, s, A); }

  // the extra constraints' rows at (z, ż) into the data: false when there are none
  static bool evaluateExtra(PenaltyData& d, const Eigen::VectorXd& z, const Eigen::VectorXd& zd) {
    if (!d.extra || d.extra->rows() == 0) return false;
    d.extra->evaluate(z, zd, d.extraPhi, d.extraJ, d.extraC);
    return true;
  }
  // A += s J_extraᵀ J_extra (its rows as last evaluated)
  static void addExtraJtJ(const PenaltyData& d, double s, Eigen::MatrixXd& A) {
    if (!d.extra || d.extra->rows() == 0) return;
    A.noalias() += s * (d.extraJ.transpose() * d.extraJ);
  }

  // α Φ_zᵀ v into out
  void penaltyForce(const PenaltyData& d, const Eigen::VectorXd& v, Eigen::VectorXd& out) {
    out.noalias() = d.J.transpose() * v;
    out *= d.alpha;
  }
};

PenaltyData::PenaltyData(const RecursiveModel& m, PenaltyOptions o, const TreeNumbers<double>* numbers)
    : options(o), z(m.z0), zd(Eigen::VectorXd::Zero(m.nz)), zdd(Eigen::VectorXd::Zero(m.nz)),
      newmark(m.nz, integ::NewmarkOptions{o.tolerance, o.maxIterations}), K(Eigen::MatrixXd::Zero(m.nz, m.nz)),
      C(Eigen::MatrixXd::Zero(m.nz, m.nz)), solvers(std::make_unique<PenaltySolvers>(m, numbers ? *numbers : m.numbers)), tangent(std::make_unique<ForceJacobian>(m, o.tangent, numbers)) {
  // α for unit masses, scaled by the mechanism's largest body mass
  double mass = 0;
  for (const auto& b : m.mechanism->bodies) mass = std::max(mass, b.mass);
  alpha = o.alpha * std::max(mass, 1e-3);
}
PenaltyData::~PenaltyData() = default;
PenaltyData::PenaltyData(PenaltyData&&) noexcept = default;

lw::Status penaltyStart(const RecursiveModel& m, PenaltyData& d, double t) {
  d.t = t;
  d.newmark.forgetHistory();
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
  if (PenaltySolvers::evaluateExtra(d, d.z, d.zd)) {
    PenaltySolvers::addExtraJtJ(d, d.alpha, d.A);
    d.rhs.noalias() += d.alpha * (d.extraJ.transpose() * d.extraC);
  }
  d.solvers->lu.compute(d.A);
  d.zdd = d.solvers->lu.solve(d.rhs);
  return {};
}

lw::Status penaltyStep(const RecursiveModel& m, PenaltyData& d, double h) {
  PenaltySolvers& s = *d.solvers;
  s.model = &m;
  s.data = &d;
  // the state moves into the loop's State and back (swaps, no copies)
  integ::State& st = s.state;
  st.t = d.t;
  st.x.swap(d.z);
  st.v.swap(d.zd);
  st.a.swap(d.zdd);
  const lw::Status status = d.newmark.step(s, st, h);
  d.t = st.t;
  d.z.swap(st.x);
  d.zd.swap(st.v);
  d.zdd.swap(st.a);
  d.lastIterations = d.newmark.lastIterations;
  d.iterations = d.newmark.iterations;
  return status;
}

}  // namespace lw::dyn
