// The penalty formulation's run on complex numbers for the complex step (complex_step.h): the
// trapezoidal step F(z₁) = 0 solved again on complex numbers with the real tangent at the recorded
// end, then the projections; impacts with the event time made complex.
#include <Eigen/LU>
#include <algorithm>

#include "dynamics/penalty_derivatives.h"
#include "events/contact_gaps.h"
#include "sensitivity/impact_jump.h"
#include "sensitivity/penalty_formulation.h"
#include "sensitivity/penalty_impact.h"

namespace lw::sens::detail {
namespace {

class PenaltyComplex final : public ComplexRun {
 public:
  PenaltyComplex(const Study& st, double alpha, const HeldSets& helds, std::size_t parameter, double eps)
      : st_(st), tree_(st.model.tree), alpha_(alpha), helds_(helds), n_(st, {parameter}, {Cplx(st.table().values()[parameter], eps)}), plain_(st, {}, {}),
        sources_(events::gapSources(st.model.tree)) {}

  Status start(const RunPoint& p0) override {
    if (Status s = dyn::initialCoordinatesOn<Cplx>(st_.model, n_.tree, p0.x, z_, zd_); !s.ok()) return s;
    return accelerations(p0);
  }

  // Newton on complex numbers with the real tangent T at the recorded end (forward AD)
  Status step(const RunPoint& a, const RunPoint& b) override {
    const double h = b.t - a.t;
    const auto nz = b.x.size();
    const Eigen::VectorXd zdS0 = (2 / h) * (b.x - a.x) - a.v;
    const Eigen::VectorXd zddS0 = (4 / (h * h)) * (b.x - a.x) - (4 / h) * a.v - a.a;
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(penaltyTangent(tree_, plain_, alpha_, b.t, h, b.x, zdS0, zddS0, held(b)));
    const dyn::ExtraRowsOn<Cplx> rows = heldRows<Cplx>(tree_, n_.tree, held(b));
    Vec<Cplx> z1(nz);
    for (Eigen::Index i = 0; i < nz; ++i) z1[i] = Cplx(b.x[i], (z_[i] + h * zd_[i] + 0.5 * h * h * zdd_[i]).imag());
    Vec<Cplx> zdS, zddS, F;
    bool converged = false;
    double lastR = 0, lastI = 0;
    for (int it = 0; it < 50 && !converged; ++it) {
      zdS = Cplx(2 / h) * (z1 - z_) - zd_;
      zddS = Cplx(4 / (h * h)) * (z1 - z_) - Cplx(4 / h) * zd_ - zdd_;
      dyn::penaltyResidualOn<Cplx>(tree_, n_.tree, alpha_, b.t, z1, zdS, zddS, F, &rows);
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
    if (!converged) return failure(Status::Code::NotConverged, b.t, "the complex-step run's penalty step did not converge at t = " + shortNumber(b.t));
    zdS = Cplx(2 / h) * (z1 - z_) - zd_;
    zddS = Cplx(4 / (h * h)) * (z1 - z_) - Cplx(4 / h) * zd_ - zdd_;
    if (Status s = dyn::penaltyProjectOn<Cplx>(tree_, n_.tree, alpha_, b.t, h, z1, zdS, zddS, zd_, zdd_, &rows); !s.ok()) return s;
    z_ = z1;
    return {};
  }

  // a held gap let go: the same state, the start's accelerations without its rows
  Status change(const RunPoint&, const RunPoint& b) override { return accelerations(b); }

  // the event time made complex (its imaginary part: the real one is the run's), the jump there,
  // and back with the motion after it (seed 001 guide §1.4)
  Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, Cplx& dtau) override {
    const double t = after.t;
    double rate = 0;
    std::vector<dyn::Dof> dofs;
    std::vector<int> plastic;  // the gaps it leaves held that were not before it: e = 0
    for (int gap : held(after))
      if (!std::binary_search(held(before).begin(), held(before).end(), gap)) plastic.push_back(gap);
    const bool restingFromStart = t == 0 && plastic.size() == contacts.size();  // no crossing (impact_jump.h)
    if (Status s = penaltyImpactAt(st_, t, after.x, before.v, contacts, rate, dofs, restingFromStart); !s.ok()) return s;
    std::vector<Cplx> g(sources_.size());
    events::contactGapsOn<Cplx, Cplx>(tree_, n_.tree, z_.data(), g.data());
    dtau = restingFromStart ? Cplx(0.0) : Cplx(0.0, -g[static_cast<std::size_t>(contacts.front())].imag() / rate);
    events::applySwitches(tree_, sources_, contacts, n_.tree);  // a switch: its forces from here on
    events::applySwitches(tree_, sources_, contacts, plain_.tree);
    const Vec<Cplx> zc = z_ + zd_ * dtau, zdc = zd_ + zdd_ * dtau;
    Vec<Cplx> zdPlus, zddPlus;
    if (Status s = penaltyJumpOn<Cplx>(st_, n_.tree, dofs, t, zc, zdc, after.x, contacts, zdPlus, plastic); !s.ok()) return s;
    const dyn::ExtraRowsOn<Cplx> rows = heldRows<Cplx>(tree_, n_.tree, held(after));
    if (Status s = dyn::penaltyStartOn<Cplx>(tree_, n_.tree, alpha_, t, zc, zdPlus, zddPlus, &rows); !s.ok()) return s;
    z_ = zc - zdPlus * dtau;
    zd_ = zdPlus - zddPlus * dtau;
    return accelerations(after);
  }

  Status outputs(double t, std::vector<Cplx>& out) override {
    out.resize(st_.outputs.names.size());
    analysis::outputsOn<Cplx>(st_.outputs, tree_, n_.tree, z_, zd_, zdd_, t, out.data());
    return {};
  }
  const Cplx* parameters() const override { return n_.parameters.data(); }

 private:
  const std::vector<int>& held(const RunPoint& p) const { return helds_[static_cast<std::size_t>(p.coords)]; }
  // z̈ of the start's equations at the state, the gaps held at p as rows
  Status accelerations(const RunPoint& p) {
    const dyn::ExtraRowsOn<Cplx> rows = heldRows<Cplx>(tree_, n_.tree, held(p));
    return dyn::penaltyStartOn<Cplx>(tree_, n_.tree, alpha_, p.t, z_, zd_, zdd_, &rows);
  }

  const Study& st_;
  const dyn::RecursiveModel& tree_;
  double alpha_;
  const HeldSets& helds_;
  NumbersOn<Cplx> n_;      // not const: switches turn forces on and off
  NumbersOn<Dual> plain_;  // the tangents'
  std::vector<events::GapSource> sources_;
  Vec<Cplx> z_, zd_, zdd_;
};

}  // namespace

std::unique_ptr<ComplexRun> penaltyComplexRun(const Study& st, double alpha, const HeldSets& helds, std::size_t parameter, double eps) {
  return std::make_unique<PenaltyComplex>(st, alpha, helds, parameter, eps);
}

}  // namespace lw::sens::detail
