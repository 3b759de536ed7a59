#include "sensitivity/penalty_formulation.h"

#include <Eigen/LU>
#include <algorithm>

#include "dynamics/loop_jacobian_rates.h"
#include "dynamics/penalty_derivatives.h"
#include "events/resting_contact.h"
#include "outputs/outputs.h"
#include "sensitivity/formulation_numbers.h"
#include "sensitivity/ode_steps.h"
#include "sensitivity/parameter_products.h"
#include "sensitivity/penalty_impact.h"

namespace lw::sens::detail {

template <class S>
dyn::ExtraRowsOn<S> heldRows(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p, const std::vector<int>& held) {
  if (held.empty()) return {};
  return [&tree, &p, held](const Vec<S>& z, const Vec<S>* zd, Vec<S>& phi, Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& J, Vec<S>& c) {
    events::heldRowsOn<S>(tree, p, held, z, zd, phi, J, c);
  };
}
template dyn::ExtraRowsOn<double> heldRows<double>(const dyn::RecursiveModel&, const dyn::TreeNumbers<double>&, const std::vector<int>&);
template dyn::ExtraRowsOn<Dual> heldRows<Dual>(const dyn::RecursiveModel&, const dyn::TreeNumbers<Dual>&, const std::vector<int>&);
template dyn::ExtraRowsOn<Cplx> heldRows<Cplx>(const dyn::RecursiveModel&, const dyn::TreeNumbers<Cplx>&, const std::vector<int>&);

Eigen::MatrixXd penaltyTangent(const dyn::RecursiveModel& tree, const NumbersOn<Dual>& plain, double alpha, double t1, double h,
                               const Eigen::VectorXd& z1, const Eigen::VectorXd& zdS, const Eigen::VectorXd& zddS, const std::vector<int>& held) {
  const auto nz = z1.size();
  const dyn::ExtraRowsOn<Dual> rows = heldRows<Dual>(tree, plain.tree, held);
  Eigen::MatrixXd T(nz, nz);
  for (Eigen::Index first = 0; first < nz; first += kLanes) {
    Vec<Dual> z = z1.cast<Dual>(), zd = zdS.cast<Dual>(), zdd = zddS.cast<Dual>(), F;
    for (Eigen::Index j = first; j < std::min(nz, first + kLanes); ++j) {  // z₁ moved: ż*, z̈* with it
      z[j].g[j - first] = 1;
      zd[j].g[j - first] = 2 / h;
      zdd[j].g[j - first] = 4 / (h * h);
    }
    dyn::penaltyResidualOn<Dual>(tree, plain.tree, alpha, t1, z, zd, zdd, F, &rows);
    for (Eigen::Index j = first; j < std::min(nz, first + kLanes); ++j)
      for (Eigen::Index i = 0; i < nz; ++i) T(i, j) = F[i].g[j - first];
  }
  return T;
}

namespace {

// the trapezoidal velocities and accelerations of the end z₁ before the projections
void trapezoidal(const RunPoint& a, double h, const Eigen::VectorXd& z1, Eigen::VectorXd& zdS, Eigen::VectorXd& zddS) {
  zdS = (2 / h) * (z1 - a.x) - a.v;
  zddS = (4 / (h * h)) * (z1 - a.x) - (4 / h) * a.v - a.a;
}

// A step a → b linearised: F(z₁, ż*, z̈*; ρ) = 0 with ż* = 2/h z₁ + Ẑ', z̈* = 4/h² z₁ + Ẑ'',
// Ẑ' = −(2/h Z₀ + Z'₀), Ẑ'' = −(4/h² Z₀ + 4/h Z'₀ + Z''₀), differentiated:
//   T Z₁ = −(F_ż Ẑ' + M Ẑ'' + F_ρ), T = F_z + 2/h F_ż + 4/h² M,
// then the projections ż₁ = P(z₁, ż*; ρ), z̈₁ = Q(z₁, ż*, z̈*; ρ).
// νᵀF_ρ for the adjoint's weights ν without F_ρ's columns: one reverse pass of the lanes kernel a
// cost (dyn::penaltyResidualNumbersAdjoint), then each parameter's fields dotted — a cost that
// does not grow with the parameters
struct ResidualProducts {
  const Study* st = nullptr;
  const FormulationNumbers* numbers = nullptr;
  dyn::MotionAtState state;  // at the step's end (z₁, ż*, z̈*)
  Eigen::VectorXd z;
  double t = 0, alpha = 0;
  // grad (costs × parameters) −= νᵀF_ρ
  void subtract(const Eigen::MatrixXd& nu, Eigen::MatrixXd& grad) const {
    thread_local dyn::NumbersAdjoint adjoint;
    thread_local std::vector<ItemIndex> points;
    for (Eigen::Index c = 0; c < nu.cols(); ++c) {
      const Eigen::VectorXd w = -nu.col(c);
      dyn::penaltyResidualNumbersAdjoint(st->model.tree, numbers->real().tree, alpha, t, z, state, w, adjoint, points);
      addLanesProducts(*st, *numbers, state, adjoint, w.data(), points, c, grad);
    }
  }
};

struct PenaltyStep {
  Eigen::MatrixXd Fd, M, Fp;
  Eigen::MatrixXd Pz, Pd, Pp, Qz, Qd, Qdd, Qp;
  std::unique_ptr<const ResidualProducts> Fproducts;  // where set, F_ρ by products (Fp empty)
};
class PenaltyTangent final : public StepTangent {
 public:
  PenaltyTangent(double h, const Eigen::MatrixXd& T, PenaltyStep J) : h_(h), lu_(T), J_(std::move(J)) {}

  void reverse(StateColumns& l, Eigen::MatrixXd& grad) const override {
    const double h = h_;
    // the projections transposed
    const Eigen::MatrixXd mud = J_.Pd.transpose() * l.v + J_.Qd.transpose() * l.a, mudd = J_.Qdd.transpose() * l.a;
    grad += l.v.transpose() * J_.Pp + l.a.transpose() * J_.Qp;
    // z₁ through ż*, z̈*; then F(z₁) = 0 transposed
    const Eigen::MatrixXd lZ = l.x + J_.Pz.transpose() * l.v + J_.Qz.transpose() * l.a + (2 / h) * mud + (4 / (h * h)) * mudd;
    const Eigen::MatrixXd nu = lu_.transpose().solve(lZ);
    if (J_.Fproducts) J_.Fproducts->subtract(nu, grad);
    else grad -= nu.transpose() * J_.Fp;
    const Eigen::MatrixXd aD = mud - J_.Fd.transpose() * nu, aDD = mudd - J_.M.transpose() * nu;
    l.x = -((2 / h) * aD + (4 / (h * h)) * aDD);
    l.v = -(aD + (4 / h) * aDD);
    l.a = -aDD;
  }

 private:
  double h_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  PenaltyStep J_;
};

class Penalty final : public Formulation, private FormulationNumbers {
 public:
  Penalty(const Study& st, Partials partials, double delta, bool analytic)
      : FormulationNumbers(st, partials, delta), tree_(st.model.tree), analytic_(analytic), adapter_(*this) {}

  void observe(PointObserver* o, analysis::SimulationSpec& spec) override {
    adapter_.to = o;
    spec.penaltyObserver = &adapter_;
  }
  std::vector<std::string> coordinateNames(int) const override {
    std::vector<std::string> names;
    for (const auto& n : tree_.nodes)
      for (int k = 0; k < n.nz; ++k) names.push_back(tree_.mechanism->bodies[static_cast<std::size_t>(n.body)].name + "[" + std::to_string(k) + "]");
    return names;
  }
  void restartSwitches() override { FormulationNumbers::restartSwitches(); }
  void applySwitches(const std::vector<int>& contacts) override { FormulationNumbers::applySwitches(contacts); }

  Status outputValues(const RunPoint& p, Eigen::VectorXd& out) override {
    out.resize(static_cast<Eigen::Index>(st_.outputs.names.size()));
    analysis::outputsOn<double>(st_.outputs, tree_, real_.tree, p.x, p.v, p.a, p.t, out.data());
    return {};
  }

  // the outputs of (z, ż, z̈): 3 nz state columns; with `accelerations` the start's z̈(z, ż) of
  // (M + Φ_zᵀαΦ_z) z̈ = Q + Φ_zᵀαc
  Status partials(const RunPoint& p, bool accelerations, PointPartials& o) override {
    const auto nz = p.x.size(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    auto outputs = [&](const auto& nums, const auto& z, const auto& zd, const auto& zdd, auto& r) -> Status {
      using S = typename std::decay_t<decltype(r)>::Scalar;
      std::vector<S> out(static_cast<std::size_t>(no));
      analysis::outputsOn<S>(st_.outputs, tree_, nums.tree, z, zd, zdd, p.t, out.data());
      r.resize(no);
      for (Eigen::Index k = 0; k < no; ++k) r[k] = out[static_cast<std::size_t>(k)];
      return {};
    };
    auto seed3 = [&](Eigen::Index first) {
      std::array<Vec<Dual>, 3> s{p.x.cast<Dual>(), p.v.cast<Dual>(), p.a.cast<Dual>()};
      for (Eigen::Index j = first; j < std::min(3 * nz, first + kLanes); ++j) s[static_cast<std::size_t>(j / nz)][j % nz].g[j - first] = 1;
      return s;
    };
    // the state's and the parameters' columns by the exact kernels from one motion pass
    const bool byKernels = outputPartialsByKernels(p, o.outputs, o.Ox, o.Ov, o.Oa, o.Op);
    // else the state's columns by the outputs' exact partials (one jet-free pass); outputs they do
    // not cover (a cut joint's coordinate, reactions) and the reference kernels by forward AD
    if (!byKernels && (!analytic_ || !analysis::outputPartials(st_.outputs, tree_, real_.tree, p.x, p.v, p.a, p.t, o.outputs, o.Ox, o.Ov, o.Oa))) {
      if (Status s = outputValues(p, o.outputs); !s.ok()) return s;
      Eigen::MatrixXd Os;
      if (Status s = stateColumns(3 * nz, no, seed3, [&](const auto& s3, Vec<Dual>& r) { return outputs(plain_, s3[0], s3[1], s3[2], r); }, Os);
          !s.ok())
        return s;
      o.Ox = Os.leftCols(nz);
      o.Ov = Os.middleCols(nz, nz);
      o.Oa = Os.rightCols(nz);
    }
    if (Status s = byKernels ? Status{}
                             : parameterColumns(
                                   [&](const auto& nums, auto& r) {
                                     using S = typename std::decay_t<decltype(r)>::Scalar;
                                     return outputs(nums, Vec<S>(p.x.cast<S>()), Vec<S>(p.v.cast<S>()), Vec<S>(p.a.cast<S>()), r);
                                   },
                                   no, o.Op);
        !s.ok())
      return s;
    if (!accelerations) return {};
    auto start = [&](const auto& nums, const auto& z, const auto& zd, auto& r) {
      using S = typename std::decay_t<decltype(r)>::Scalar;
      const dyn::ExtraRowsOn<S> rows = heldRows<S>(tree_, nums.tree, held(p.coords));
      return dyn::penaltyStartOn<S>(tree_, nums.tree, alpha_, p.t, z, zd, r, &rows);
    };
    auto seed2 = [&](Eigen::Index first) {
      std::array<Vec<Dual>, 2> s{p.x.cast<Dual>(), p.v.cast<Dual>()};
      for (Eigen::Index j = first; j < std::min(2 * nz, first + kLanes); ++j) s[static_cast<std::size_t>(j / nz)][j % nz].g[j - first] = 1;
      return s;
    };
    Eigen::MatrixXd As;
    if (Status s = stateColumns(2 * nz, nz, seed2, [&](const auto& s2, Vec<Dual>& r) { return start(plain_, s2[0], s2[1], r); }, As); !s.ok())
      return s;
    o.Ax = As.leftCols(nz);
    o.Av = As.rightCols(nz);
    if (semiAnalytical()) {
      // A z̈ = R's pieces differenced apart (residualPartial): z̈_ρ = −A⁻¹ R_ρ
      dyn::PenaltyParts p0;
      const Eigen::MatrixXd Rp = residualPartial(p.t, p.coords, p.x, p.v, p.a, true, p0);
      o.Ap = -(p0.M + alpha_ * p0.J.transpose() * p0.J).partialPivLu().solve(Rp);
      return {};
    }
    return parameterColumns(
        [&](const auto& nums, auto& r) {
          using S = typename std::decay_t<decltype(r)>::Scalar;
          return start(nums, Vec<S>(p.x.cast<S>()), Vec<S>(p.v.cast<S>()), r);
        },
        nz, o.Ap);
  }

  // F(z₁) = 0 differentiated along S: T Z₁ = −(F_ż Ẑ' + M Ẑ'' + F_ρ), the right-hand side one pass
  // of F along (Ẑ', Ẑ'') with the parameters seeded; then the projections and the outputs along
  // the new sensitivities
  Status stepAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong,
                   StageOutputs*) override {  // the trapezoidal rule's: no stages
    const double h = b.t - a.t;
    const auto nz = b.x.size();
    Eigen::VectorXd zdS, zddS;
    trapezoidal(a, h, b.x, zdS, zddS);
    const Eigen::MatrixXd Zhd = -((2 / h) * S.x + S.v), Zhdd = -((4 / (h * h)) * S.x + (4 / h) * S.v + S.a);
    Eigen::MatrixXd Fb, Fz, Fzd, M;
    // by the analytic kernels: T and F_ż Ẑ' + M Ẑ'' from the residual's state partials, F_ρ from
    // the lanes kernel — no dual number; else F along S with the parameters seeded, eight a pass
    // (one motion pass at the trapezoidal state for both)
    const dyn::MotionAtState* motion = analytic_ && held(b.coords).empty() ? motionAt(b.t, b.x, zdS, zddS) : nullptr;
    if (motion && dyn::penaltyResidualJacobians(tree_, real_.tree, alpha_, b.t, b.x, zdS, zddS, Fz, Fzd, M, motion) &&
        residualAlongNumbers(b.t, b.x, zdS, zddS, Fb, motion)) {
      Fb.noalias() += Fzd * Zhd;
      Fb.noalias() += M * Zhdd;
      const Eigen::PartialPivLU<Eigen::MatrixXd> lu(Eigen::MatrixXd(Fz + (2 / h) * Fzd + (4 / (h * h)) * M));
      return stepAlongFrom(lu, b, h, zdS, zddS, Zhd, Zhdd, Fb, S, outputs, outputsAlong);
    }
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(tangentAt(b.t, h, b.x, zdS, zddS, held(b.coords)));
    Status s = alongColumns(
        [&](Eigen::Index first) {
          return std::array<Vec<Dual>, 3>{Vec<Dual>(b.x.cast<Dual>()), seededBy(zdS, Zhd, first), seededBy(zddS, Zhdd, first)};
        },
        [&](const auto& nums, const auto& in, auto& F) {
          using Sc = typename std::decay_t<decltype(F)>::Scalar;
          const dyn::ExtraRowsOn<Sc> rows = heldRows<Sc>(tree_, nums.tree, held(b.coords));
          dyn::penaltyResidualOn<Sc>(tree_, nums.tree, alpha_, b.t, in[0], in[1], in[2], F, &rows);
          return Status{};
        },
        nz, Fb, nullptr, true);
    if (!s.ok()) return s;
    if (semiAnalytical()) {
      dyn::PenaltyParts p0;
      Fb += residualPartial(b.t, b.coords, b.x, zdS, zddS, false, p0);
    }
    return stepAlongFrom(lu, b, h, zdS, zddS, Zhd, Zhdd, Fb, S, outputs, outputsAlong);
  }

  // the lanes a chunk's projections' columns take: all of its lanes where it holds a parameter
  // that moves geometry and the kernel covers them (`whole`), else those that change masses,
  // centres and inertias alone (they leave Φ and c: M_ρ e alone); null: none. Those that reach
  // the force elements alone leave M, Φ_z and c: zero columns.
  const dyn::NumbersLanes* projectionLanes(std::size_t ch, bool& whole) const {
    bool any = false, geometry = false;
    for (Eigen::Index j = 0; j < chunkSize(ch); ++j) {
      const auto k = static_cast<std::size_t>(chunkFirst(ch) + j);
      any = any || inertial()[k];
      geometry = geometry || (!inertial()[k] && !forcesOnly()[k]);
    }
    const dyn::NumbersLanes* all = geometry ? lanesOf(chunk(ch)) : nullptr;
    whole = all && dyn::numbersLanesCovered(tree_, *all, chunk(ch).tree);
    if (whole) return all;
    return any ? &inertialLanes(ch) : nullptr;
  }
  // does every chunk's projections' columns come from the lanes (projectionLanes whole, or no
  // parameter moving geometry and its inertial lanes covered)?
  bool projectionLanesCoverAll() const {
    for (std::size_t ch = 0; ch < chunkCount(); ++ch) {
      bool whole = false;
      const dyn::NumbersLanes* lanes = projectionLanes(ch, whole);
      for (Eigen::Index j = 0; j < chunkSize(ch) && !whole; ++j) {
        const auto k = static_cast<std::size_t>(chunkFirst(ch) + j);
        if (forcesOnly()[k]) continue;
        if (!inertial()[k] || !lanes || !dyn::numbersLanesCovered(tree_, *lanes, chunk(ch).tree)) return false;
      }
    }
    return true;
  }
  // the projections' columns along the parameters by the lanes kernel on doubles (the closed
  // forms' `linear`, Pz set), chunk by chunk as projectionLanes says. `laned`: by parameter, its
  // column set ([ż₁; z̈₁] in PQp, 2nz rows).
  void projectionParameterLanes(const dyn::PenaltyProjectionPartials& linear, Eigen::MatrixXd& PQp, std::vector<bool>& laned) const {
    for (std::size_t ch = 0; ch < chunkCount(); ++ch) {
      bool whole = false;
      const dyn::NumbersLanes* lanes = projectionLanes(ch, whole);
      Eigen::MatrixXd Pp, Qp;
      if (!lanes || !dyn::penaltyProjectionNumbersLanes(tree_, real_.tree, linear, *lanes, chunk(ch).tree, Pp, Qp)) continue;
      for (Eigen::Index j = 0; j < chunkSize(ch); ++j) {
        const auto k = static_cast<std::size_t>(chunkFirst(ch) + j);
        if (!whole && !inertial()[k]) continue;
        laned[k] = true;
        PQp.col(static_cast<Eigen::Index>(k)) << Pp.col(j), Qp.col(j);
      }
    }
  }

  // the projections along S by their partials in closed form and the parameters' lanes, where
  // those take every parameter and save a dual-number pass or more (a pass takes eight of S's
  // columns; the closed forms cost about one on small trees): Ṡ = Pz Z₁ + Pd Ż* + P_ρ,
  // S̈ = Qz Z₁ + Qd Ż* + Qdd Z̈* + Q_ρ. False: the dual numbers' route.
  bool projectionsAlongByPartials(const RunPoint& b, double h, const Eigen::VectorXd& zdS, const Eigen::VectorXd& zddS, const Eigen::MatrixXd& Z1,
                                  const Eigen::MatrixXd& ZdS, const Eigen::MatrixXd& ZddS, Eigen::MatrixXd& Sv, Eigen::MatrixXd& Sa) const {
    const auto np = static_cast<Eigen::Index>(st_.parameters.size());
    if (!analytic_ || semiAnalytical() || !held(b.coords).empty()) return false;
    if (tree_.nrows == 0) {  // no row: the projections are the identity
      Sv = ZdS;
      Sa = ZddS;
      return true;
    }
    // (the lanes' cover checked first: the closed forms are not worth computing for nothing)
    if (np <= kLanes || !projectionLanesCoverAll()) return false;
    thread_local dyn::PenaltyProjectionPartials linear;
    if (!dyn::penaltyProjectionPartials(tree_, real_.tree, plain_.tree, alpha_, b.t, h, b.x, zdS, linear, nullptr, nullptr, &zddS).ok() ||
        linear.Pz.size() == 0)
      return false;
    const auto nz = b.x.size();
    Eigen::MatrixXd PQp = Eigen::MatrixXd::Zero(2 * nz, np);
    std::vector<bool> laned(st_.parameters.size(), false);
    projectionParameterLanes(linear, PQp, laned);
    for (std::size_t k = 0; k < laned.size(); ++k)
      if (!laned[k] && !forcesOnly()[k]) return false;
    Sv = PQp.topRows(nz);
    Sv.noalias() += linear.Pz * Z1;
    Sv.noalias() += linear.Pd * ZdS;
    Sa = PQp.bottomRows(nz);
    Sa.noalias() += linear.Qz * Z1;
    Sa.noalias() += linear.Qd * ZdS;
    Sa.noalias() += linear.Qdd * ZddS;
    return true;
  }

  // the step's sensitivities from T's factor and F along S (Fb): Z₁ = −T⁻¹ Fb, then the
  // projections along them (by their partials, or eight columns a dual-number pass) and the
  // outputs
  Status stepAlongFrom(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, const RunPoint& b, double h, const Eigen::VectorXd& zdS,
                       const Eigen::VectorXd& zddS, const Eigen::MatrixXd& Zhd, const Eigen::MatrixXd& Zhdd, const Eigen::MatrixXd& Fb,
                       StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) {
    const auto nz = b.x.size();
    const Eigen::MatrixXd Z1 = -lu.solve(Fb);
    const Eigen::MatrixXd ZdS = Zhd + (2 / h) * Z1, ZddS = Zhdd + (4 / (h * h)) * Z1;
    if (Eigen::MatrixXd Sv, Sa; projectionsAlongByPartials(b, h, zdS, zddS, Z1, ZdS, ZddS, Sv, Sa)) {
      S.x = Z1;
      S.v = std::move(Sv);
      S.a = std::move(Sa);
      return outputsAlongS(b, S, outputs, outputsAlong);
    }
    Eigen::MatrixXd PQ;
    const Status s = alongColumns(
        [&](Eigen::Index first) {
          return std::array<Vec<Dual>, 3>{seededBy(b.x, Z1, first), seededBy(zdS, ZdS, first), seededBy(zddS, ZddS, first)};
        },
        [&](const auto& nums, const auto& in, auto& r) -> Status {
          using Sc = typename std::decay_t<decltype(r)>::Scalar;
          Vec<Sc> zd1, zdd1;
          const dyn::ExtraRowsOn<Sc> rows = heldRows<Sc>(tree_, nums.tree, held(b.coords));
          if (Status st = dyn::penaltyProjectOn<Sc>(tree_, nums.tree, alpha_, b.t, h, in[0], in[1], in[2], zd1, zdd1, &rows); !st.ok()) return st;
          r.resize(2 * nz);
          r << zd1, zdd1;
          return {};
        },
        2 * nz, PQ);
    if (!s.ok()) return s;
    S.x = Z1;
    S.v = PQ.topRows(nz);
    S.a = PQ.bottomRows(nz);
    return outputsAlongS(b, S, outputs, outputsAlong);
  }

  // z̈ of (M + Φ_zᵀαΦ_z) z̈ = Q + Φ_zᵀαc along (Z, Ż) with the parameters seeded (semi-analytical:
  // −A⁻¹ R_ρ, R's pieces differenced apart)
  Status pointAlong(const RunPoint& p, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) override {
    Eigen::MatrixXd A;
    const Status s = alongColumns(
        [&](Eigen::Index first) { return std::array<Vec<Dual>, 2>{seededBy(p.x, S.x, first), seededBy(p.v, S.v, first)}; },
        [&](const auto& nums, const auto& in, auto& r) {
          using Sc = typename std::decay_t<decltype(r)>::Scalar;
          const dyn::ExtraRowsOn<Sc> rows = heldRows<Sc>(tree_, nums.tree, held(p.coords));
          return dyn::penaltyStartOn<Sc>(tree_, nums.tree, alpha_, p.t, in[0], in[1], r, &rows);
        },
        p.x.size(), A, nullptr, true);
    if (!s.ok()) return s;
    if (semiAnalytical()) {
      dyn::PenaltyParts p0;
      const Eigen::MatrixXd Rp = residualPartial(p.t, p.coords, p.x, p.v, p.a, true, p0);
      A -= (p0.M + alpha_ * p0.J.transpose() * p0.J).partialPivLu().solve(Rp);
    }
    S.a = A;
    return outputsAlongS(p, S, outputs, outputsAlong);
  }

  // the assembly and the initial velocities (seed 003 §1.6)
  Status initial(const RunPoint& p0, StateColumns& S) override {
    const auto nz = p0.x.size();
    Eigen::MatrixXd ZZd;
    const Status s = initialCoordinateColumns(p0.x, ZZd);
    S.x = ZZd.topRows(nz);
    S.v = ZZd.bottomRows(nz);
    return s;
  }

  // the step from a to t1 again: Newton on F(z₁) = 0 to round-off, then the projections
  Status replay(const RunPoint& a, double t1, RunPoint& b) override {
    const double h = t1 - a.t;
    const auto nz = a.x.size();
    Eigen::VectorXd z1 = a.x + h * a.v + (0.5 * h * h) * a.a, zdS, zddS;
    const std::vector<int>& heldNow = held(a.coords);
    const dyn::ExtraRowsOn<double> rows = heldRows<double>(tree_, real_.tree, heldNow);
    auto newtonAt = [&](const Eigen::VectorXd& z) {
      trapezoidal(a, h, z, zdS, zddS);
      return tangentAt(t1, h, z, zdS, zddS, heldNow);
    };
    Eigen::PartialPivLU<Eigen::MatrixXd> lu(newtonAt(z1));
    double lastStep = 0;
    bool converged = nz == 0;
    for (int it = 0; it < 30 && !converged; ++it) {
      trapezoidal(a, h, z1, zdS, zddS);
      Vec<double> F;
      dyn::penaltyResidualOn<double>(tree_, real_.tree, alpha_, t1, z1, zdS, zddS, F, &rows);
      const Eigen::VectorXd dz = lu.solve(F);
      z1 -= dz;
      const double step = dz.cwiseAbs().maxCoeff(), scale = std::max(1.0, z1.cwiseAbs().maxCoeff());
      converged = step <= 1e-14 * scale || (it >= 1 && step >= 0.5 * lastStep && step <= 1e-11 * scale);
      if (!converged && step > 1e-10 * scale && it >= 1 && step > 0.25 * lastStep) lu.compute(newtonAt(z1));  // slow: Newton's own
      lastStep = step;
    }
    if (!converged) return failure(Status::Code::NotConverged, t1, "the replay of the penalty step to t = " + shortNumber(t1) + " did not converge");
    trapezoidal(a, h, z1, zdS, zddS);
    b.t = t1;
    b.coords = a.coords;
    b.x = z1;
    return dyn::penaltyProjectOn<double>(tree_, real_.tree, alpha_, t1, h, z1, zdS, zddS, b.v, b.a, &rows);
  }

  Status linearise(const RunPoint& a, const RunPoint& b, std::unique_ptr<StepTangent>& tangent, PointPartials& atEnd) override {
    if (Status s = partials(b, false, atEnd); !s.ok()) return s;
    const double h = b.t - a.t;
    const auto nz = b.x.size();
    Eigen::VectorXd zdS, zddS;
    trapezoidal(a, h, b.x, zdS, zddS);
    PenaltyStep J;
    // F's partial derivatives by z and ż (forward AD, `columns` of them); by z̈ it is M (F is
    // linear in z̈), and the projections are linear in ż*, z̈*: their partials on doubles
    auto seed = [&](Eigen::Index first, Eigen::Index columns) {
      std::array<Vec<Dual>, 3> s{b.x.cast<Dual>(), zdS.cast<Dual>(), zddS.cast<Dual>()};
      for (Eigen::Index j = first; j < std::min(columns, first + kLanes); ++j) s[static_cast<std::size_t>(j / nz)][j % nz].g[j - first] = 1;
      return s;
    };
    Eigen::MatrixXd Fs, Ps;
    auto residual = [&](const auto& nums, const auto& z, const auto& zd, const auto& zdd, auto& F) -> Status {
      using S = typename std::decay_t<decltype(F)>::Scalar;
      const dyn::ExtraRowsOn<S> rows = heldRows<S>(tree_, nums.tree, held(b.coords));
      dyn::penaltyResidualOn<S>(tree_, nums.tree, alpha_, b.t, z, zd, zdd, F, &rows);
      return {};
    };
    Eigen::MatrixXd Fz, Fzd, M;
    // (one motion pass at the trapezoidal state for these and F_ρ's lanes)
    const dyn::MotionAtState* motion = analytic_ && held(b.coords).empty() ? motionAt(b.t, b.x, zdS, zddS) : nullptr;
    if (motion && dyn::penaltyResidualJacobians(tree_, real_.tree, alpha_, b.t, b.x, zdS, zddS, Fz, Fzd, M, motion)) {
      Fs.resize(nz, 2 * nz);
      Fs << Fz, Fzd;  // the analytic kernels' (no dual number)
    } else if (Status s = stateColumns(
                   2 * nz, nz, [&](Eigen::Index first) { return seed(first, 2 * nz); },
                   [&](const auto& s3, Vec<Dual>& F) { return residual(plain_, s3[0], s3[1], s3[2], F); }, Fs);
               !s.ok()) {
      return s;
    }
    dyn::PenaltyProjectionPartials linear;
    {
      const dyn::ExtraRowsOn<double> rows = heldRows<double>(tree_, real_.tree, held(b.coords));
      const dyn::ExtraRowsOn<Dual> rows8 = heldRows<Dual>(tree_, plain_.tree, held(b.coords));
      // the closed forms (z's columns too) where the analytic kernels are asked for
      if (Status s = dyn::penaltyProjectionPartials(tree_, real_.tree, plain_.tree, alpha_, b.t, h, b.x, zdS, linear, &rows, &rows8,
                                                    analytic_ && !semiAnalytical() ? &zddS : nullptr);
          !s.ok())
        return s;
    }
    J.Fd = Fs.rightCols(nz);
    J.M = linear.M;
    const Eigen::MatrixXd T = Fs.leftCols(nz) + (2 / h) * J.Fd + (4 / (h * h)) * J.M;
    // the projections: [ż₁; z̈₁] by z₁
    auto project = [&](const auto& nums, const auto& z, const auto& zd, const auto& zdd, auto& r) -> Status {
      using S = typename std::decay_t<decltype(r)>::Scalar;
      Vec<S> zd1, zdd1;
      const dyn::ExtraRowsOn<S> rows = heldRows<S>(tree_, nums.tree, held(b.coords));
      if (Status s = dyn::penaltyProjectOn<S>(tree_, nums.tree, alpha_, b.t, h, z, zd, zdd, zd1, zdd1, &rows); !s.ok()) return s;
      r.resize(2 * nz);
      r << zd1, zdd1;
      return {};
    };
    Eigen::MatrixXd PQp;
    const bool zClosed = linear.Pz.size() > 0;  // z's columns in closed form: the parameters' alone below
    if (analytic_ && !semiAnalytical()) {
      // by z₁ and by the parameters that reach the projections in the same passes: those that
      // reach the force elements or gravity alone leave M, Φ_z and c, so their columns are zero
      std::vector<int> state, param;
      for (Eigen::Index j = 0; j < (zClosed ? 0 : nz); ++j) {
        state.push_back(static_cast<int>(j));
        param.push_back(-1);
      }
      PQp.setZero(2 * nz, static_cast<Eigen::Index>(st_.parameters.size()));
      std::vector<bool> laned(st_.parameters.size(), false);
      if (zClosed) projectionParameterLanes(linear, PQp, laned);
      for (std::size_t k = 0; k < st_.parameters.size(); ++k)
        if (!forcesOnly()[k] && !laned[k]) {
          state.push_back(-1);
          param.push_back(static_cast<int>(k));
        }
      Eigen::MatrixXd columns;
      if (Status s = mixedColumns(
              state, param, [&] { return std::array<Vec<Dual>, 3>{b.x.cast<Dual>(), zdS.cast<Dual>(), zddS.cast<Dual>()}; },
              [](std::array<Vec<Dual>, 3>& in, int j, int l) { in[0][j].g[l] = 1; },
              [&](const auto& nums, const auto& in, Vec<Dual>& r) { return project(nums, in[0], in[1], in[2], r); }, 2 * nz, columns);
          !s.ok())
        return s;
      const std::size_t first = zClosed ? 0 : static_cast<std::size_t>(nz);
      if (!zClosed) Ps = columns.leftCols(nz);
      for (std::size_t c = first; c < param.size(); ++c) PQp.col(param[c]) = columns.col(static_cast<Eigen::Index>(c));
    } else {
      if (Status s = stateColumns(
              nz, 2 * nz, [&](Eigen::Index first) { return seed(first, nz); },
              [&](const auto& s3, Vec<Dual>& r) { return project(plain_, s3[0], s3[1], s3[2], r); }, Ps);
          !s.ok())
        return s;
      if (Status s = parameterColumns(
              [&](const auto& nums, auto& r) {
                using S = typename std::decay_t<decltype(r)>::Scalar;
                return project(nums, Vec<S>(b.x.cast<S>()), Vec<S>(zdS.cast<S>()), Vec<S>(zddS.cast<S>()), r);
              },
              2 * nz, PQp);
          !s.ok())
        return s;
    }
    J.Pz = zClosed ? std::move(linear.Pz) : Eigen::MatrixXd(Ps.topRows(nz));
    J.Pd = std::move(linear.Pd);  // ż₁ does not depend on z̈*
    J.Qz = zClosed ? std::move(linear.Qz) : Eigen::MatrixXd(Ps.bottomRows(nz));
    J.Qd = std::move(linear.Qd);
    J.Qdd = std::move(linear.Qdd);
    J.Pp = PQp.topRows(nz);
    J.Qp = PQp.bottomRows(nz);
    if (semiAnalytical()) {
      dyn::PenaltyParts p0;
      J.Fp = residualPartial(b.t, b.coords, b.x, zdS, zddS, false, p0);
    } else if (motion && residualProductsServe()) {
      // few costs against the parameters' chunks: products (the state's motion kept for the sweep)
      auto products = std::make_unique<ResidualProducts>();
      products->st = &st_;
      products->numbers = this;
      products->state.compute(tree_, real_.tree, b.x.data(), zdS.data(), zddS.data(), b.t);
      products->z = b.x;
      products->t = b.t;
      products->alpha = alpha_;
      J.Fproducts = std::move(products);
    } else if (held(b.coords).empty() && residualAlongNumbers(b.t, b.x, zdS, zddS, J.Fp, motion)) {
      // the lanes kernel's, no dual number
    } else if (Status s = parameterColumns(
                   [&](const auto& nums, auto& F) {
                     using S = typename std::decay_t<decltype(F)>::Scalar;
                     return residual(nums, Vec<S>(b.x.cast<S>()), Vec<S>(zdS.cast<S>()), Vec<S>(zddS.cast<S>()), F);
                   },
                   nz, J.Fp);
               !s.ok()) {
      return s;
    }
    tangent = std::make_unique<PenaltyTangent>(h, T, std::move(J));
    return {};
  }

  // the jump of all the tree's velocities (penalty_impact.h) and the event time's sensitivity
  // c = −(r_z, r_ρ)/ṙ⁻, on dual numbers (the parameters' columns by forward AD always)
  Status jump(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, ImpactJump& J) override {
    const auto nz = before.x.size();
    const double t = before.t;
    double rate = 0;
    std::vector<dyn::Dof> dofs;
    const std::vector<int> plastic = plasticAt(before, after);
    const bool restingFromStart = t == 0 && plastic.size() == contacts.size();  // no crossing (impact_jump.h)
    if (Status s = penaltyImpactAt(st_, t, before.x, before.v, contacts, rate, dofs, restingFromStart); !s.ok()) return s;
    const int c0 = contacts.front();
    const std::size_t gaps = sources_.size();
    // the derivative kernels' tangent at the state (the reference kernels, or a state it cannot
    // linearise: the pipeline on dual numbers)
    const dyn::MatrixRTangent* tangent =
        analytic_ && penaltyJumpTangent(st_, real_.tree, dofs, t, before.x, before.v, jumpTangent_) ? &jumpTangent_ : nullptr;
    // [h; r] of (z, ż⁻) with the numbers given
    auto jumpAndGap = [&](const auto& nums, const auto& z, const auto& zd, auto& r) -> Status {
      using S = typename std::decay_t<decltype(r)>::Scalar;
      Vec<S> h;
      if (Status s = penaltyJumpOn<S>(st_, nums.tree, dofs, t, z, zd, before.x, contacts, h, plastic, tangent); !s.ok()) return s;
      std::vector<S> g(gaps);
      events::contactGapsOn<S, S>(tree_, nums.tree, z.data(), g.data());
      r.resize(nz + 1);
      r << h, g[static_cast<std::size_t>(c0)];
      return {};
    };
    auto seed2 = [&](Eigen::Index first) {
      std::array<Vec<Dual>, 2> s{before.x.cast<Dual>(), before.v.cast<Dual>()};
      for (Eigen::Index j = first; j < std::min(2 * nz, first + kLanes); ++j) s[static_cast<std::size_t>(j / nz)][j % nz].g[j - first] = 1;
      return s;
    };
    Eigen::MatrixXd Hs, Hp;
    if (Status s = stateColumns(2 * nz, nz + 1, seed2, [&](const auto& s2, Vec<Dual>& r) { return jumpAndGap(plain_, s2[0], s2[1], r); }, Hs); !s.ok())
      return s;
    if (Status s = parameterColumns(
            [&](const auto& nums, auto& r) {
              using S = typename std::decay_t<decltype(r)>::Scalar;
              return jumpAndGap(nums, Vec<S>(before.x.cast<S>()), Vec<S>(before.v.cast<S>()), r);
            },
            nz + 1, Hp, true);
        !s.ok())
      return s;
    J.t = t;
    J.normalBefore = rate;
    J.hx = Hs.topLeftCorner(nz, nz);
    J.hv = Hs.topRightCorner(nz, nz);
    J.hp = Hp.topRows(nz);
    J.cx = -Hs.bottomLeftCorner(1, nz).transpose() / rate;
    J.cp = -Hp.bottomRows(1) / rate;
    if (restingFromStart) J.dropEventTime();
    J.dv = after.v - before.v;
    J.w = J.hx * before.v + J.hv * before.a - after.a;
    return {};
  }

  std::unique_ptr<ComplexRun> complexRun(std::size_t parameter, double step) override {
    return penaltyComplexRun(st_, alpha_, helds_, parameter, step);
  }

  // the tree's motion at (z, ż, z̈, t): one pass a point for the residual's kernels, kept until
  // the next
  // Do the residual's parameter products serve the adjoint (the kernels take every chunk and its
  // rows, few costs: a reverse pass a cost against a lanes pass a chunk, as Matrix R's)?
  bool residualProductsServe() const {
    if (!analytic_ || semiAnalytical() || st_.costs.names.size() > 3 * chunkCount()) return false;
    for (std::size_t ch = 0; ch < chunkCount(); ++ch)
      if (!dyn::numbersLanesCovered(tree_, *lanesOf(chunk(ch)), chunk(ch).tree)) return false;
    std::vector<int> all(static_cast<std::size_t>(tree_.nrows));
    for (int i = 0; i < tree_.nrows; ++i) all[static_cast<std::size_t>(i)] = i;
    return dyn::loopJacobianRatesUnsupported(tree_, all).empty();
  }

  const dyn::MotionAtState* motionAt(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) const {
    thread_local dyn::MotionAtState motion;
    motion.compute(tree_, real_.tree, z.data(), zd.data(), zdd.data(), t);
    return &motion;
  }

  // F_ρ (nz × parameters) at a fixed (z, ż, z̈) by the lanes kernel chunk by chunk, where it takes
  // every chunk (AD partials, the rows cut joints' points' differences); false otherwise.
  // `motion`: the state's, computed already, or null
  bool residualAlongNumbers(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::MatrixXd& Fp,
                            const dyn::MotionAtState* motion = nullptr) const {
    if (!analytic_ || semiAnalytical()) return false;
    for (std::size_t ch = 0; ch < chunkCount(); ++ch)
      if (!dyn::numbersLanesCovered(tree_, *lanesOf(chunk(ch)), chunk(ch).tree)) return false;
    Fp.resize(z.size(), static_cast<Eigen::Index>(st_.parameters.size()));
    Eigen::MatrixXd lanes;
    for (std::size_t ch = 0; ch < chunkCount(); ++ch) {
      if (!dyn::penaltyResidualAlongNumbers(tree_, real_.tree, *lanesOf(chunk(ch)), chunk(ch).tree, alpha_, t, z, zd, zdd, lanes, motion)) return false;
      Fp.middleCols(chunkFirst(ch), chunkSize(ch)) = lanes.leftCols(chunkSize(ch));
    }
    return true;
  }

  // the step's Newton matrix T = F_z + 2/h F_ż + 4/h² M at its end: by the analytic kernels where
  // they cover the rows (no resting contact held), else by dual numbers (penaltyTangent)
  Eigen::MatrixXd tangentAt(double t1, double h, const Eigen::VectorXd& z1, const Eigen::VectorXd& zdS, const Eigen::VectorXd& zddS,
                            const std::vector<int>& heldNow) const {
    if (Eigen::MatrixXd Fz, Fzd, M;
        analytic_ && heldNow.empty() && dyn::penaltyResidualJacobians(tree_, real_.tree, alpha_, t1, z1, zdS, zddS, Fz, Fzd, M))
      return Fz + (2 / h) * Fzd + (4 / (h * h)) * M;
    return penaltyTangent(tree_, plain_, alpha_, t1, h, z1, zdS, zddS, heldNow);
  }

  // a held gap let go (the only change there is: the coordinates are all the tree's): the same z,
  // ż, the accelerations of the start's equations without its rows, (x, v, a) = (X, V, A_x X +
  // A_v V + A_ρ)
  Status change(const RunPoint& a, int coords, RunPoint& b, CoordinateChange* map) override {
    b = a;
    b.coords = coords;
    PointPartials n;
    if (Status s = partials(b, true, n); !s.ok()) return s;
    const dyn::ExtraRowsOn<double> rows = heldRows<double>(tree_, real_.tree, held(coords));
    if (Status s = dyn::penaltyStartOn<double>(tree_, real_.tree, alpha_, b.t, b.x, b.v, b.a, &rows); !s.ok()) return s;
    if (map) sameStateChange(n, *map);
    return {};
  }

 private:
  // the outputs at p and their d/dρ along S: their exact partials on doubles where they serve,
  // else the outputs on dual numbers along S
  Status outputsAlongS(const RunPoint& p, const StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& along) const {
    if (outputsAlongByKernels(p, S, outputs, along)) return {};
    const auto no = static_cast<Eigen::Index>(st_.outputs.names.size());
    return alongColumns(
        [&](Eigen::Index first) {
          return std::array<Vec<Dual>, 3>{seededBy(p.x, S.x, first), seededBy(p.v, S.v, first), seededBy(p.a, S.a, first)};
        },
        [&](const auto& nums, const auto& in, auto& r) {
          using Sc = typename std::decay_t<decltype(r)>::Scalar;
          std::vector<Sc> out(static_cast<std::size_t>(no));
          analysis::outputsOn<Sc>(st_.outputs, tree_, nums.tree, in[0], in[1], in[2], p.t, out.data());
          r.resize(no);
          for (Eigen::Index k = 0; k < no; ++k) r[k] = out[static_cast<std::size_t>(k)];
          return Status{};
        },
        no, along, &outputs);
  }

  // The outputs at p, their state partials O_z, O_ż, O_z̈ (analysis::outputPartials) and O_ρ at
  // the fixed state (the points' lanes of the lanes kernel, chunk by chunk) from one motion pass
  // on doubles — no dual-number pass of the outputs. False where either does not serve (a held
  // gap's rows, quaternions, outputs with parameters of their own, lanes on axes).
  bool outputPartialsByKernels(const RunPoint& p, Eigen::VectorXd& outputs, Eigen::MatrixXd& Oz, Eigen::MatrixXd& Ozd, Eigen::MatrixXd& Ozdd,
                               Eigen::MatrixXd& Op) const {
    if (!analytic_ || !held(p.coords).empty() || !parameterProductsCover(st_, *this)) return false;
    thread_local dyn::MotionAtState motion;  // kept: asked at every step
    motion.compute(tree_, real_.tree, p.x.data(), p.v.data(), p.a.data(), p.t);
    if (!analysis::outputPartials(st_.outputs, tree_, real_.tree, p.x, p.v, p.a, p.t, outputs, Oz, Ozd, Ozdd, &motion)) return false;
    const auto& points = st_.outputs.points;
    const std::size_t np = 3 * points.size();
    const auto no = static_cast<Eigen::Index>(st_.outputs.names.size());
    Op.setZero(no, static_cast<Eigen::Index>(st_.parameters.size()));
    if (np == 0) return true;  // joints' coordinates and rates: no parameter moves them
    std::vector<Dual> pr(np), pv(np), pa(np), out(static_cast<std::size_t>(no));
    const Vec<Dual> zs = p.x.cast<Dual>(), zds = p.v.cast<Dual>(), zdds = p.a.cast<Dual>();
    for (std::size_t ch = 0; ch < chunkCount(); ++ch) {
      const auto& nums = chunk(ch);
      if (!dyn::inverseDynamicsAlongNumbers(tree_, real_.tree, motion, *lanesOf(nums), nums.tree, nullptr, points, pr.data(), pv.data(),
                                            pa.data()))
        return false;
      analysis::outputsFromPoints<Dual>(st_.outputs, tree_, nums.tree, zs, zds, zdds, p.t, pr.data(), pv.data(), pa.data(), out.data());
      for (Eigen::Index k = 0; k < no; ++k)
        for (Eigen::Index j = 0; j < chunkSize(ch); ++j) Op(k, chunkFirst(ch) + j) = out[static_cast<std::size_t>(k)].g[j];
    }
    return true;
  }
  // O_z S.x + O_ż S.v + O_z̈ S.a + O_ρ by those partials
  bool outputsAlongByKernels(const RunPoint& p, const StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& along) const {
    Eigen::MatrixXd Oz, Ozd, Ozdd;
    if (!outputPartialsByKernels(p, outputs, Oz, Ozd, Ozdd, along)) return false;
    along.noalias() += Oz * S.x;
    along.noalias() += Ozd * S.v;
    along.noalias() += Ozdd * S.a;
    return true;
  }

  // R = M a − Q + Φ_zᵀ α e at (z, ż, a) with e = Φ_z a − c (the start) or Φ (a step): its
  // parameters' partials, M a − Q, Φ_z and e differenced apart (R differenced whole would carry
  // α δ ∂Φ_z/∂ρ ∂e/∂ρ, as large as the answer); p0: the nominal pieces
  Eigen::MatrixXd residualPartial(double t, int coords, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& a, bool start,
                                  dyn::PenaltyParts& p0) const {
    dyn::PenaltyParts pk;
    const dyn::ExtraRowsOn<double> rows = heldRows<double>(tree_, real_.tree, held(coords));
    dyn::penaltyParts(tree_, real_.tree, t, z, zd, p0, &rows);
    auto e = [&](const dyn::PenaltyParts& q) -> Eigen::VectorXd { return start ? Eigen::VectorXd(q.J * a - q.c) : q.phi; };
    const Eigen::VectorXd g0 = p0.M * a - p0.Q, e0 = e(p0);
    const auto p = static_cast<Eigen::Index>(st_.parameters.size());
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(z.size(), p);
    for (Eigen::Index k = 0; k < p; ++k)
      for (const auto& set : moved_[static_cast<std::size_t>(k)]) {
        const dyn::ExtraRowsOn<double> moved = heldRows<double>(tree_, set->tree, held(coords));
        dyn::penaltyParts(tree_, set->tree, t, z, zd, pk, &moved);
        out.col(k) +=
            ((pk.M * a - pk.Q) - g0 + alpha_ * ((pk.J - p0.J).transpose() * e0 + p0.J.transpose() * (e(pk) - e0))) / deltas_[static_cast<std::size_t>(k)];
      }
    return out;
  }

  const std::vector<int>& held(int coords) const { return helds_[static_cast<std::size_t>(coords)]; }
  int coordsOf(const std::vector<int>& held) {
    for (std::size_t i = 0; i < helds_.size(); ++i)
      if (helds_[i] == held) return static_cast<int>(i);
    helds_.push_back(held);
    return static_cast<int>(helds_.size()) - 1;
  }
  // the gaps an impact leaves held that were not before it: closed with e = 0
  std::vector<int> plasticAt(const RunPoint& before, const RunPoint& after) const {
    std::vector<int> out;
    for (int g : held(after.coords))
      if (!std::binary_search(held(before.coords).begin(), held(before.coords).end(), g)) out.push_back(g);
    return out;
  }

  // The penalty run's observer: its states as points (all the tree's coordinates, the held gaps
  // as the set), α kept
  struct Adapter final : analysis::PenaltyObserver {
    explicit Adapter(Penalty& owner) : f(owner) {}
    Penalty& f;
    PointObserver* to = nullptr;
    RunPoint last;
    int coords() {
      static const std::vector<int> none;
      return f.coordsOf(held ? *held : none);
    }
    Status start(const dyn::RecursiveModel&, double alpha, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                 const Eigen::VectorXd& zdd) override {
      f.alpha_ = alpha;
      last = {t, coords(), z, zd, zdd, {}};
      return to->start(last);
    }
    Status step(double, double t1, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) override {
      RunPoint b{t1, coords(), z, zd, zdd, {}};
      const Status s = to->step(last, b, nullptr);
      last = std::move(b);
      return s;
    }
    // before it, the gaps held before it (a contact that comes to rest is held after)
    Status impact(double t, const std::vector<int>& contacts, const Eigen::VectorXd& z, const Eigen::VectorXd& zdBefore, const Eigen::VectorXd& zd,
                  const Eigen::VectorXd& zdd) override {
      RunPoint b{t, coords(), z, zd, zdd, {}};
      const Status s = to->impact(RunPoint{t, last.coords, z, zdBefore, last.a, {}}, b, contacts);
      last = std::move(b);
      return s;
    }
    Status released(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) override {
      RunPoint b{t, coords(), z, zd, zdd, {}};
      const Status s = to->changed(last, b);
      last = std::move(b);
      return s;
    }
  };

  const dyn::RecursiveModel& tree_;
  bool analytic_;                    // the derivative kernels (false: the pipeline on dual numbers, the reference)
  dyn::MatrixRTangent jumpTangent_;  // the impacts' kernels, set at each impact
  double alpha_ = 0;
  HeldSets helds_;
  Adapter adapter_;
};

}  // namespace

std::unique_ptr<Formulation> penaltyFormulation(const Study& st, Partials partials, double delta, bool analytic) {
  return std::make_unique<Penalty>(st, partials, delta, analytic);
}

}  // namespace lw::sens::detail
