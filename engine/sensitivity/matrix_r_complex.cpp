// Matrix R's run on complex numbers for the complex step (complex_step.h): the trapezoidal step
// solved again on complex numbers (a₁ = f(x̂ + h²/4 a₁, v̂ + h/2 a₁) by Newton with the real Newton
// matrix at the recorded end: any matrix close to it converges, to the same answer), or
// Dormand–Prince's step with its size held; changes of coordinates through the dependent state;
// impacts with the event time made complex.
#include <Eigen/LU>
#include <algorithm>

#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "sensitivity/impact_jump.h"
#include "sensitivity/matrix_r_formulation.h"

namespace lw::sens::detail {
namespace {

class MatrixRComplex final : public ComplexRun {
 public:
  MatrixRComplex(const Study& st, const std::vector<CoordinateMode>& modes, bool rungeKutta, std::size_t parameter, double eps)
      : st_(st), modes_(modes), rungeKutta_(rungeKutta), eps_(eps),
        n_(st, {parameter}, {Cplx(st.table().values()[parameter], eps)}), plain_(st, {}, {}), sources_(events::gapSources(st.model.tree)) {}

  Status start(const RunPoint& p0) override {
    at(p0);
    if (Status s = dyn::initialStateOn<Cplx>(st_.model, n_.tree, dofs(), aux_, x_, v_); !s.ok()) return s;
    return accelerations(p0.t);
  }

  Status step(const RunPoint& a, const RunPoint& b) override {
    at(b);
    const double h = b.t - a.t;
    const auto d = x_.size();
    stagesSet_ = false;
    if (rungeKutta_ && d > 0) {  // the explicit step again, on complex numbers
      Vec<Cplx> x1, v1;
      const bool quadrature = st_.costs.hasType(Cost::Type::Integral);
      if (Status s = rungeKuttaStepOn<Cplx>(st_, n_, mode(), a.t, h, x_, v_, aux_, x1, v1, quadrature ? &stages_ : nullptr); !s.ok()) return s;
      stagesSet_ = quadrature;
      x_ = x1;
      v_ = v1;
      return accelerations(b.t);
    }
    if (d == 0) return {};  // a driven mechanism: its motion is the drivers', nothing to integrate
    const Vec<Cplx> xh = x_ + h * v_ + (0.25 * h * h) * a_, vh = v_ + (0.5 * h) * a_;
    // Newton matrix I − h²/4 f_x − h/2 f_v at the recorded end, f_x and f_v by forward AD
    // (differences of f lose digits where the reduced mass matrix is ill-conditioned, and the
    // imaginary part then converges slowly)
    Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d);
    for (Eigen::Index first = 0; first < 2 * d; first += kLanes) {
      Vec<Dual> xs = b.x.cast<Dual>(), vs = b.v.cast<Dual>();
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
        if (j < d) xs[j].g[j - first] = 1;
        else vs[j - d].g[j - first] = 1;
      }
      dyn::MatrixROn<Dual> e;
      if (Status s = evaluateMode<Dual>(st_, mode(), plain_.tree, b.t, xs, vs, aux_, e); !s.ok()) return s;
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j)
        for (Eigen::Index i = 0; i < d; ++i) G(i, j % d) -= (j < d ? 0.25 * h * h : 0.5 * h) * e.zidd[i].g[j - first];
    }
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(G);
    Vec<Cplx> a1(d);
    for (Eigen::Index i = 0; i < d; ++i) a1[i] = Cplx(b.a[i], a_[i].imag());
    bool converged = false;
    double lastR = 0, lastI = 0;
    dyn::MatrixROn<Cplx> e;
    for (int it = 0; it < 50 && !converged; ++it) {
      const Status s = evaluateMode<Cplx>(st_, mode(), n_.tree, b.t, Vec<Cplx>(xh + (0.25 * h * h) * a1), Vec<Cplx>(vh + (0.5 * h) * a1), aux_, e);
      if (!s.ok()) return s;
      const Vec<Cplx> r = a1 - e.zidd;
      const Eigen::VectorXd dr = lu.solve(Eigen::VectorXd(r.real())), di = lu.solve(Eigen::VectorXd(r.imag()));
      for (Eigen::Index i = 0; i < d; ++i) a1[i] -= Cplx(dr[i], di[i]);
      const double scale = std::max(1.0, a1.real().cwiseAbs().maxCoeff()), iscale = a1.imag().cwiseAbs().maxCoeff();
      // converged when each part's correction is at its round-off: tiny, or no longer falling (the
      // real part starts at the double run's solution; the imaginary part converges linearly)
      const double er = dr.cwiseAbs().maxCoeff(), ei = di.cwiseAbs().maxCoeff();
      const bool realDone = er <= 1e-12 * scale || (it >= 1 && er >= 0.5 * lastR && er <= 1e-9 * scale);
      // the imaginary parts are eps times the sensitivities: where those are zero (a pendulum's
      // motion does not depend on its mass) the floor is eps times the state's scale
      const bool imagDone = ei <= 1e-13 * std::max(iscale, eps_ * scale) || (it >= 1 && ei >= 0.5 * lastI);
      converged = it >= 1 && realDone && imagDone;
      lastR = er;
      lastI = ei;
    }
    if (!converged) return failure(Status::Code::NotConverged, b.t, "the complex-step run's step did not converge at t = " + shortNumber(b.t));
    x_ = xh + (0.25 * h * h) * a1;
    v_ = vh + (0.5 * h) * a1;
    a_ = a1;
    return {};
  }

  // the same state in the new coordinates, through the dependent state (the accelerations with
  // the new mode's held gaps)
  Status change(const RunPoint& a, const RunPoint& b) override {
    at(b);
    const CoordinateMode before{modes_[static_cast<std::size_t>(a.coords)].dofs, mode().held};
    dyn::MatrixROn<Cplx> e;
    if (Status s = evaluateMode<Cplx>(st_, before, n_.tree, b.t, x_, v_, aux_, e); !s.ok()) return s;
    dyn::independentOn<Cplx>(st_.model, n_.tree, dofs(), e.z, e.zd, &e.zdd, x_, v_, &a_);
    return {};
  }

  Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, Cplx& dtau) override {
    at(after);
    const double t = before.t;
    const int c = contacts.front();
    dyn::MatrixROn<Cplx> e;
    if (Status s = dyn::evaluateOn<Cplx>(st_.model, n_.tree, dofs(), t, x_, v_, aux_, e); !s.ok()) return s;  // positions, velocities
    std::vector<Cplx> gaps(sources_.size());
    events::contactGapsOn<Cplx, Cplx>(st_.model.tree, n_.tree, e.z.data(), gaps.data());
    Eigen::VectorXd gap, rate;
    events::contactGaps(st_.model.tree, e.z.real(), e.zd.real(), gap, rate);
    const std::vector<int> plastic = plasticAt(before, after);
    if (t == 0 && plastic.size() == contacts.size()) {
      dtau = 0.0;  // at rest from the start: no crossing (impact_jump.h)
    } else {
      if (Status s = differentiableImpact(st_, contacts, t, rate[c]); !s.ok()) return s;
      // the imaginary part only: the real event time is the run's (the replayed state's gap is
      // round-off of the replay's Newton tolerance, and a real shift would mix it into the
      // derivative parts at second order)
      dtau = Cplx(0.0, -gaps[static_cast<std::size_t>(c)].imag() / rate[c]);
    }
    const Vec<Cplx> xc = x_ + v_ * dtau, vc = v_ + a_ * dtau;
    events::ImpactOn<Cplx> jump;
    if (events::applySwitches(st_.model.tree, sources_, contacts, n_.tree)) {
      events::applySwitches(st_.model.tree, sources_, contacts, plain_.tree);
      jump.zidPlus = vc;  // the equations of motion switch; the velocities stay
    } else if (Status s = events::impactOn<Cplx>(st_.model, n_.tree, dofs(), t, xc, vc, aux_, contacts, jump, plastic); !s.ok()) {
      return s;
    }
    if (Status s = evaluateMode<Cplx>(st_, mode(), n_.tree, t, xc, jump.zidPlus, aux_, e); !s.ok()) return s;
    x_ = xc - jump.zidPlus * dtau;
    v_ = jump.zidPlus - e.zidd * dtau;
    return accelerations(after.t);
  }

  // the state's evaluation: the one accelerations() made of this state and time, else a new one
  Status outputs(double t, std::vector<Cplx>& out) override {
    if (!(evaluated_ && evaluatedAt_ == t))
      if (Status s = evaluateMode<Cplx>(st_, mode(), n_.tree, t, x_, v_, aux_, e_); !s.ok()) return s;
    out.resize(st_.outputs.names.size());
    analysis::outputsOn<Cplx>(st_.outputs, st_.model.tree, n_.tree, e_.z, e_.zd, e_.zdd, t, out.data());
    return {};
  }
  const Cplx* parameters() const override { return n_.parameters.data(); }

 private:
  // the recorded point p's coordinates and dependent coordinates (the position problems' start)
  void at(const RunPoint& p) {
    coords_ = p.coords;
    aux_ = p.aux;
    evaluated_ = false;  // the state moves on
  }
  const CoordinateMode& mode() const { return modes_[static_cast<std::size_t>(coords_)]; }
  const std::vector<dyn::Dof>& dofs() const { return mode().dofs; }
  // the gaps an impact leaves held that were not before it: closed with e = 0
  std::vector<int> plasticAt(const RunPoint& before, const RunPoint& after) const {
    const auto& was = modes_[static_cast<std::size_t>(before.coords)].held;
    std::vector<int> out;
    for (int g : modes_[static_cast<std::size_t>(after.coords)].held)
      if (!std::binary_search(was.begin(), was.end(), g)) out.push_back(g);
    return out;
  }
  Status accelerations(double t) {
    if (Status s = evaluateMode<Cplx>(st_, mode(), n_.tree, t, x_, v_, aux_, e_); !s.ok()) return s;
    a_ = e_.zidd;
    evaluated_ = true;
    evaluatedAt_ = t;
    return {};
  }

  const Study& st_;
  const std::vector<CoordinateMode>& modes_;
  bool rungeKutta_;
  double eps_;
  NumbersOn<Cplx> n_;      // not const: switches turn forces on and off
  NumbersOn<Dual> plain_;  // the Newton matrices'
  std::vector<events::GapSource> sources_;
  Vec<Cplx> x_, v_, a_;
  int coords_ = 0;
  Eigen::VectorXd aux_;
  dyn::MatrixROn<Cplx> e_;  // the current state's evaluation when evaluated_ (at evaluatedAt_)
  bool evaluated_ = false;
  double evaluatedAt_ = 0;
};

}  // namespace

std::unique_ptr<ComplexRun> matrixRComplexRun(const Study& st, const std::vector<CoordinateMode>& modes, bool rungeKutta, std::size_t parameter,
                                              double eps) {
  return std::make_unique<MatrixRComplex>(st, modes, rungeKutta, parameter, eps);
}

}  // namespace lw::sens::detail
