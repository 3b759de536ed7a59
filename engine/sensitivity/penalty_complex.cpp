#include "sensitivity/penalty_complex.h"
#include "sensitivity/penalty_formulation.h"

#include <Eigen/LU>
#include <algorithm>

#include "dynamics/penalty_derivatives.h"
#include "events/contact_gaps.h"
#include "sensitivity/impact_jump.h"
#include "sensitivity/penalty_impact.h"

namespace lw::sens::detail {
Status penaltyComplexRun(const Study& st, const PenaltyRecorder& rec, std::size_t parameter, std::vector<double>& gradient) {
  const double eps = 1e-30;
  NumbersOn<Cplx> n(st, {parameter}, {Cplx(st.table().values()[parameter], eps)});
  NumbersOn<Dual> plain(st, {}, {});
  const dyn::RecursiveModel& tree = st.model.tree;
  const double alpha = rec.alpha;
  analysis::CostAccumulator<Cplx> costs(st.costs);
  auto addCosts = [&](double t, const Vec<Cplx>& z, const Vec<Cplx>& zd, const Vec<Cplx>& zdd) {
    std::vector<Cplx> out(st.outputs.names.size());
    analysis::outputsOn<Cplx>(st.outputs, tree, n.tree, z, zd, zdd, t, out.data());
    costs.add(t, out.data(), n.parameters.data());
  };
  const auto& p0 = rec.points.front();
  Vec<Cplx> z, zd, zdd;
  if (Status s = dyn::initialCoordinatesOn<Cplx>(st.model, n.tree, p0.z, z, zd); !s.ok()) return s;
  if (Status s = dyn::penaltyStartOn<Cplx>(tree, n.tree, alpha, p0.t, z, zd, zdd); !s.ok()) return s;
  addCosts(p0.t, z, zd, zdd);
  const auto nz = p0.z.size();
  for (std::size_t k = 1; k < rec.points.size(); ++k) {
    const auto& end = rec.points[k];
    if (end.impact) {
      // the event time made complex (its imaginary part: the real one is the run's), the jump
      // there, and back with the motion after it (seed 001 guide §1.4)
      Eigen::VectorXd gap, rate;
      events::contactGaps(tree, end.z, end.zdBefore, gap, rate);
      const int c0 = end.contacts.front();
      if (Status s = differentiableImpact(st, end.contacts, end.t, rate[c0]); !s.ok()) return s;
      const std::vector<dyn::Dof> dofs = penaltyImpactDofs(st, end.t, end.z, end.zdBefore);
      std::vector<Cplx> g(static_cast<std::size_t>(rate.size()));
      events::contactGapsOn<Cplx, Cplx>(tree, n.tree, z.data(), g.data());
      const Cplx dtau(0.0, -g[static_cast<std::size_t>(c0)].imag() / rate[c0]);
      const auto sources = events::gapSources(tree);
      events::applySwitches(tree, sources, end.contacts, n.tree);  // a switch: its forces from here on
      events::applySwitches(tree, sources, end.contacts, plain.tree);
      const Vec<Cplx> zc = z + zd * dtau, zdc = zd + zdd * dtau;
      Vec<Cplx> zdPlus, zddPlus;
      if (Status s = penaltyJumpOn<Cplx>(st, n.tree, dofs, end.t, zc, zdc, end.z, end.contacts, zdPlus); !s.ok()) return s;
      if (Status s = dyn::penaltyStartOn<Cplx>(tree, n.tree, alpha, end.t, zc, zdPlus, zddPlus); !s.ok()) return s;
      z = zc - zdPlus * dtau;
      zd = zdPlus - zddPlus * dtau;
      if (Status s = dyn::penaltyStartOn<Cplx>(tree, n.tree, alpha, end.t, z, zd, zdd); !s.ok()) return s;
      addCosts(end.t, z, zd, zdd);
      costs.eventTimeMoves(dtau);
      continue;
    }
    const double t0 = rec.points[k - 1].t, h = end.t - t0;
    // Newton on complex numbers with the real tangent T at the recorded end (forward AD)
    const Eigen::VectorXd zdS0 = (2 / h) * (end.z - rec.points[k - 1].z) - rec.points[k - 1].zd;
    const Eigen::VectorXd zddS0 = (4 / (h * h)) * (end.z - rec.points[k - 1].z) - (4 / h) * rec.points[k - 1].zd - rec.points[k - 1].zdd;
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(penaltyTangent(tree, plain, alpha, end.t, h, end.z, zdS0, zddS0));
    Vec<Cplx> z1(nz);
    for (Eigen::Index i = 0; i < nz; ++i) z1[i] = Cplx(end.z[i], (z[i] + h * zd[i] + 0.5 * h * h * zdd[i]).imag());
    Vec<Cplx> zdS, zddS, F;
    bool converged = false;
    double lastR = 0, lastI = 0;
    for (int it = 0; it < 50 && !converged; ++it) {
      zdS = Cplx(2 / h) * (z1 - z) - zd;
      zddS = Cplx(4 / (h * h)) * (z1 - z) - Cplx(4 / h) * zd - zdd;
      dyn::penaltyResidualOn<Cplx>(tree, n.tree, alpha, end.t, z1, zdS, zddS, F);
      const Eigen::VectorXd dr = lu.solve(Eigen::VectorXd(F.real())), di = lu.solve(Eigen::VectorXd(F.imag()));
      for (Eigen::Index i = 0; i < nz; ++i) z1[i] -= Cplx(dr[i], di[i]);
      const double scale = std::max(1.0, z1.real().cwiseAbs().maxCoeff()), iscale = z1.imag().cwiseAbs().maxCoeff();
      const double er = dr.cwiseAbs().maxCoeff(), ei = di.cwiseAbs().maxCoeff();
      const bool realDone = er <= 1e-13 * scale || (it >= 1 && er >= 0.5 * lastR && er <= 1e-10 * scale);
      const bool imagDone = ei <= 1e-13 * iscale || (it >= 1 && ei >= 0.5 * lastI);
      converged = it >= 1 && realDone && imagDone;
      lastR = er;
      lastI = ei;
    }
    if (!converged)
      return failure(Status::Code::NotConverged, end.t, "the complex-step run's penalty step did not converge at t = " + shortNumber(end.t));
    zdS = Cplx(2 / h) * (z1 - z) - zd;
    zddS = Cplx(4 / (h * h)) * (z1 - z) - Cplx(4 / h) * zd - zdd;
    if (Status s = dyn::penaltyProjectOn<Cplx>(tree, n.tree, alpha, end.t, h, z1, zdS, zddS, zd, zdd); !s.ok()) return s;
    z = z1;
    addCosts(end.t, z, zd, zdd);
  }
  const auto values = costs.values();
  gradient.resize(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) gradient[k] = values[k].imag() / eps;
  return {};
}

}  // namespace lw::sens::detail
