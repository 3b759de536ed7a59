// Matrix R's derivatives on an open chain (open_chain_partials.h): the tree's analytic kernels at
// a point, the direct method's trapezoidal step through K = M + h²/4 τ_z + h/2 τ_ż, and the
// adjoint's parameter terms as products of the lanes kernel's transpose.
#include "sensitivity/open_chain_partials.h"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "numeric/small_dense.h"
#include "sensitivity/parameter_products.h"

namespace lw::sens::detail {
namespace {

class OpenChain final : public OpenChainPartials {
 public:
  OpenChain(const Study& st, const FormulationNumbers& numbers) : st_(st), numbers_(numbers), real_(numbers.real()) {}

  // The adjoint's parameter terms on an open chain without the parameters' columns: A_ρ = −M⁻¹ τ_ρ
  // and O_ρ = O_pts pts_ρ + O_z̈ A_ρ, so wAᵀ A_ρ + wOᵀ O_ρ is one reverse pass of the lanes kernel
  // with τ weighed by −M⁻¹ (wA + O_z̈ᵀ wO) and the points by O_ptsᵀ wO, then each parameter's
  // fields dotted (dyn::inverseDynamicsNumbersAdjoint, numbersLanesProducts): its cost does not
  // grow with the parameters but for those dots.
  struct TreeProducts final : ParameterProducts {
    const OpenChain* f = nullptr;
    dyn::MotionAtState motion;
    Eigen::LLT<Eigen::MatrixXd> M;
    Eigen::MatrixXd Ozdd, Opoints;  // the outputs by z̈, by the points' [r; v; a] (3 per point each)
    void add(const Eigen::MatrixXd& wA, const Eigen::MatrixXd& wO, Eigen::MatrixXd& gradient) const override {
      const dyn::RecursiveModel& tree = f->st_.model.tree;
      const auto& points = f->st_.outputs.points;
      const auto np = static_cast<Eigen::Index>(3 * points.size());
      thread_local dyn::NumbersAdjoint adjoint;  // kept: a sweep asks at every step
      thread_local Eigen::VectorXd w, wp;
      w.resize(tree.nz);
      wp.setZero(3 * np);
      for (Eigen::Index c = 0; c < std::max(wA.cols(), wO.cols()); ++c) {
        w.setZero();
        if (wA.size()) w += wA.col(c);
        if (wO.size()) {
          if (Ozdd.size()) w += Ozdd.transpose() * wO.col(c);  // empty: the outputs at fixed z̈
          wp = Opoints.transpose() * wO.col(c);
        }
        M.solveInPlace(w);
        w = -w;
        dyn::inverseDynamicsNumbersAdjoint(tree, f->real_.tree, motion, w.data(), points, wp.data(), wp.data() + np, wp.data() + 2 * np, adjoint);
        addLanesProducts(f->st_, f->numbers_, motion, adjoint, w.data(), points, c, gradient);
      }
    }
  };
  // the products serve where the lanes kernel takes every chunk and the outputs read the points
  // and the rates alone, or nothing (energies, residuals: no derivative), no parameter of their own
  bool productsCover() const override { return parameterProductsCover(st_, numbers_); }

  // An open chain's point: the motion at the accelerations f(x, v), M^d (in Md_) and its factor,
  // τ's and the outputs' state partials there
  struct TreePoint {
    Eigen::LLT<Eigen::MatrixXd> M;
    Eigen::VectorXd zdd;
    Eigen::MatrixXd Tz, Tzd, Oz, Ozd, Ozdd;
  };
  bool state(const RunPoint& p, dyn::MotionAtState& motion, TreePoint& tp, Eigen::VectorXd& outputs) {
    const dyn::RecursiveModel& tree = st_.model.tree;
    const Eigen::VectorXd &z = p.x, &zd = p.v;
    // one motion pass for every kernel: at z̈ = 0 (M^d from its columns), then moved to the
    // accelerations f(x, v) themselves (a point's own may be a Newton iterate's, or missing at a
    // Runge–Kutta stage): M z̈ = Q^d = −τ(z, ż, 0)
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(tree.nz);
    motion.compute(tree, real_.tree, z.data(), zd.data(), zero.data(), p.t);
    motion.massMatrix(tree, real_.tree, Md_);
    tp.M.compute(Md_);
    if (tp.M.info() != Eigen::Success) return false;
    tp.zdd = -tp.M.solve(motion.tau());
    motion.setAccelerations(tree, real_.tree, tp.zdd.data());
    if (!analysis::outputPartials(st_.outputs, tree, real_.tree, z, zd, tp.zdd, p.t, outputs, tp.Oz, tp.Ozd, tp.Ozdd, &motion)) return false;
    dyn::inverseDynamicsDerivatives(tree, real_.tree, motion, tp.Tz, tp.Tzd);
    return true;
  }
  // [τ_ρ; O_ρ at fixed z̈] ((nz + outputs) × p) at the point of `motion`, the parameters' lanes by
  // the tangent pass on doubles where it takes them
  bool parameterColumnsAt(const RunPoint& p, const dyn::MotionAtState& motion, const Eigen::VectorXd& zdd, Eigen::MatrixXd& P) {
    const dyn::RecursiveModel& tree = st_.model.tree;
    const Eigen::Index d = tree.nz, no = static_cast<Eigen::Index>(st_.outputs.names.size());
    const Eigen::VectorXd &z = p.x, &zd = p.v;
    const Status s = numbers_.parameterColumns(
        [&](const auto& nums, auto& r) -> Status {
          using S = typename std::decay_t<decltype(r)>::Scalar;
          const Vec<S> zs = z.cast<S>(), zds = zd.cast<S>(), zdds = zdd.cast<S>();
          r.resize(d + no);
          // one motion pass for both: τ and the outputs' points
          const std::size_t np = 3 * st_.outputs.points.size();
          std::vector<S> pr(np), pv(np), pa(np);
          if constexpr (std::is_same_v<S, Dual>) {
            // lanes on lengths, masses, inertias: one tangent pass on doubles, no dual-number motion
            if (const dyn::NumbersLanes* lanes = numbers_.lanesOf(nums);
                lanes && dyn::inverseDynamicsAlongNumbers(tree, real_.tree, motion, *lanes, nums.tree, r.data(), st_.outputs.points, pr.data(),
                                                          pv.data(), pa.data())) {
              analysis::outputsFromPoints<S>(st_.outputs, tree, nums.tree, zs, zds, zdds, p.t, pr.data(), pv.data(), pa.data(), r.data() + d);
              return {};
            }
          }
          dyn::inverseDynamicsWithPoints<S>(tree, nums.tree, zs.data(), zds.data(), zdds.data(), p.t, r.data(), st_.outputs.points, pr.data(),
                                            pv.data(), pa.data());
          analysis::outputsFromPoints<S>(st_.outputs, tree, nums.tree, zs, zds, zdds, p.t, pr.data(), pv.data(), pa.data(), r.data() + d);
          return {};
        },
        d + no, P);
    return s.ok();
  }

  // `products`: A_ρ and O_ρ as TreeProducts (the adjoint's), without the parameters' columns
  bool partials(const RunPoint& p, PointPartials& n, bool products) override {
    std::shared_ptr<TreeProducts> owned;
    if (products) {
      owned = std::make_shared<TreeProducts>();
      owned->f = this;
    }
    dyn::MotionAtState& motion = products ? owned->motion : motion_;  // the products keep their own
    TreePoint tp;
    if (!state(p, motion, tp, n.outputs)) return false;
    const Eigen::Index d = tp.Tz.rows();
    if (products) {
      rhs_.resize(d, 2 * d);
      rhs_ << tp.Tz, tp.Tzd;
      tp.M.solveInPlace(rhs_);
      n.Ax = -rhs_.leftCols(d);
      n.Av = -rhs_.rightCols(d);
      n.Ox = tp.Oz + tp.Ozdd * n.Ax;
      n.Ov = tp.Ozd + tp.Ozdd * n.Av;
      n.Ap.resize(0, 0);
      n.Op.resize(0, 0);
      n.Oa.resize(0, 0);
      owned->M = tp.M;
      owned->Ozdd = tp.Ozdd;
      owned->Opoints = outputsByPoints(st_, numbers_, p.t, p.x, p.v, tp.zdd, motion);
      n.products = std::move(owned);
      return true;
    }
    Eigen::MatrixXd P;
    if (!parameterColumnsAt(p, motion, tp.zdd, P)) return false;
    // −M⁻¹ [τ_z τ_ż τ_ρ] in one solve
    const Eigen::Index np = P.cols(), no = n.outputs.size();
    rhs_.resize(d, 2 * d + np);
    rhs_ << tp.Tz, tp.Tzd, P.topRows(d);
    tp.M.solveInPlace(rhs_);
    n.Ax = -rhs_.leftCols(d);
    n.Av = -rhs_.middleCols(d, d);
    n.Ap = -rhs_.rightCols(np);
    n.Ox = tp.Oz + tp.Ozdd * n.Ax;
    n.Ov = tp.Ozd + tp.Ozdd * n.Av;
    n.Op = P.bottomRows(no) + tp.Ozdd * n.Ap;
    n.Oa.resize(0, 0);
    return true;
  }

  // The direct method's trapezoidal step on an open chain, without the accelerations' map: with
  // K = M + h²/4 τ_z + h/2 τ_ż (M times the step's Newton matrix I − h²/4 f_x − h/2 f_v),
  //   K A₁ = −(τ_z X̂ + τ_ż V̂ + τ_ρ),  X₁ = X̂ + h²/4 A₁,  V₁ = V̂ + h/2 A₁,
  // and the outputs along it O_z X₁ + O_ż V₁ + O_z̈ A₁ + O_ρ|z̈: one factorisation, p right-hand sides
  bool trapezoidalAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) override {
    TreePoint tp;
    if (b.x.size() == 0 || !state(b, motion_, tp, outputs)) return false;
    Eigen::MatrixXd P;
    if (!parameterColumnsAt(b, motion_, tp.zdd, P)) return false;
    const double h = b.t - a.t, hx = 0.25 * h * h, hv = 0.5 * h;
    const Eigen::Index d = tp.Tz.rows();
    const Eigen::MatrixXd Xh = S.x + h * S.v + hx * S.a, Vh = S.v + hv * S.a;
    Eigen::MatrixXd rhs = P.topRows(d);
    rhs.noalias() += tp.Tz * Xh;
    rhs.noalias() += tp.Tzd * Vh;
    const Eigen::PartialPivLU<Eigen::MatrixXd> K(Eigen::MatrixXd(Md_ + hx * tp.Tz + hv * tp.Tzd));
    num::solveSmallInPlace(K, rhs);
    S.a = -rhs;
    S.x = Xh + hx * S.a;
    S.v = Vh + hv * S.a;
    outputsAlong = P.bottomRows(P.rows() - d);
    outputsAlong.noalias() += tp.Oz * S.x;
    outputsAlong.noalias() += tp.Ozd * S.v;
    outputsAlong.noalias() += tp.Ozdd * S.a;
    return true;
  }

  // The adjoint's trapezoidal step on an open chain, transposed without the accelerations' map:
  // with K = M + h²/4 τ_z + h/2 τ_ż (= M G), μ = λa + h²/4 λx + h/2 λv and w = K⁻ᵀ μ, the step's
  // ν = G⁻ᵀ μ is M w, so f_xᵀ ν = −τ_zᵀ w, f_vᵀ ν = −τ_żᵀ w, and νᵀ f_ρ is the products' with ν
  class TreeTrapezoidalTangent final : public StepTangent {
   public:
    TreeTrapezoidalTangent(double h, const TreePoint& tp, const Eigen::MatrixXd& M, std::shared_ptr<const ParameterProducts> products)
        : h_(h), Tz_(tp.Tz), Tzd_(tp.Tzd), M_(M), products_(std::move(products)),
          lu_(Eigen::MatrixXd(M + (0.25 * h * h) * tp.Tz + (0.5 * h) * tp.Tzd)) {}
    void reverse(StateColumns& l, Eigen::MatrixXd& grad) const override { reverseWithEndOutputs(l, grad, {}); }
    const ParameterProducts* endProducts() const override { return products_.get(); }
    void reverseWithEndOutputs(StateColumns& l, Eigen::MatrixXd& grad, const Eigen::MatrixXd& wO) const override {
      const double h = h_, hx = 0.25 * h * h, hv = 0.5 * h;
      Eigen::MatrixXd w = l.a + hx * l.x + hv * l.v;
      num::solveSmallTransposedInPlace(lu_, w);
      products_->add(M_ * w, wO, grad);
      const Eigen::MatrixXd tz = Tz_.transpose() * w, tzd = Tzd_.transpose() * w;
      const Eigen::MatrixXd lx = l.x - tz;
      const Eigen::MatrixXd lv = h * l.x + l.v - h * tz - tzd;
      l.a = hx * l.x + hv * l.v - hx * tz - hv * tzd;
      l.x = lx;
      l.v = lv;
    }

   private:
    double h_;
    Eigen::MatrixXd Tz_, Tzd_, M_;
    std::shared_ptr<const ParameterProducts> products_;
    Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  };
  // The step a → b of an open chain linearised that way: the end's outputs by (z, ż, z̈) with
  // the accelerations' weight carried by λa into the step (Oa), the products' outputs at fixed z̈
  bool trapezoidalLinearised(const RunPoint& a, const RunPoint& b, std::unique_ptr<StepTangent>& tangent, PointPartials& n,
                             NewtonParts& newton) override {
    if (b.x.size() == 0 || !productsCover()) return false;
    auto owned = std::make_shared<TreeProducts>();
    owned->f = this;
    TreePoint tp;
    if (!state(b, owned->motion, tp, n.outputs)) return false;
    n.Ox = tp.Oz;
    n.Ov = tp.Ozd;
    n.Oa = tp.Ozdd;
    n.Ax.resize(0, 0);
    n.Av.resize(0, 0);
    n.Ap.resize(0, 0);
    n.Op.resize(0, 0);
    owned->M = tp.M;
    owned->Opoints = outputsByPoints(st_, numbers_, b.t, b.x, b.v, tp.zdd, owned->motion);
    n.products = owned;
    tangent = std::make_unique<TreeTrapezoidalTangent>(b.t - a.t, tp, Md_, std::move(owned));
    newton = {tp.Tz, tp.Tzd, Md_};
    return true;
  }

 private:
  const Study& st_;
  const FormulationNumbers& numbers_;
  const NumbersOn<double>& real_;  // the numbers' values and switch states
  dyn::MotionAtState motion_;      // the direct method's motion at its point
  Eigen::MatrixXd rhs_, Md_;       // and its right-hand sides, M^d there
};

}  // namespace

std::unique_ptr<OpenChainPartials> openChainPartials(const Study& st, const FormulationNumbers& numbers) {
  return std::make_unique<OpenChain>(st, numbers);
}

}  // namespace lw::sens::detail
