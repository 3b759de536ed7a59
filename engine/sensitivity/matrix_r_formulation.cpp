#include "sensitivity/matrix_r_formulation.h"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/matrix_r_derivatives.h"
#include "events/resting_contact.h"
#include "sensitivity/formulation_numbers.h"
#include "sensitivity/matrix_r_columns.h"
#include "sensitivity/ode_steps.h"
#include "sensitivity/open_chain_partials.h"

namespace lw::sens::detail {

template <class S>
Status evaluateMode(const Study& st, const CoordinateMode& mode, const dyn::TreeNumbers<S>& p, double t, const Vec<S>& x, const Vec<S>& v,
                    const Eigen::VectorXd& z, dyn::MatrixROn<S>& e, const dyn::TreeNumbers<double>* values) {
  Status s = dyn::evaluateOn<S>(st.model, p, mode.dofs, t, x, v, z, e, values);
  if (s.ok() && !mode.held.empty()) {
    dyn::VectorOn<S> forces;
    s = events::holdOn<S>(st.model.tree, p, mode.held, events::restingOmega(st.resolved), t, e, forces);
  }
  return s;
}
#define LW_EVALUATE_MODE(S)                                                                                                                  \
  template Status evaluateMode<S>(const Study&, const CoordinateMode&, const dyn::TreeNumbers<S>&, double, const Vec<S>&, const Vec<S>&, \
                                  const Eigen::VectorXd&, dyn::MatrixROn<S>&, const dyn::TreeNumbers<double>*);
LW_EVALUATE_MODE(double)
LW_EVALUATE_MODE(Dual)
LW_EVALUATE_MODE(Cplx)
#undef LW_EVALUATE_MODE

namespace {

// a point's partials from the columns of [f; outputs] by the state (x then v) and the parameters
void fromColumns(const Eigen::MatrixXd& Fs, const Eigen::MatrixXd& Fp, Eigen::Index d, PointPartials& n) {
  const Eigen::Index no = Fs.rows() - d;
  n.Ax = Fs.topLeftCorner(d, d);
  n.Av = Fs.topRightCorner(d, d);
  n.Ox = Fs.bottomLeftCorner(no, d);
  n.Ov = Fs.bottomRightCorner(no, d);
  n.Ap = Fp.topRows(d);
  n.Op = Fp.bottomRows(no);
  n.Oa.resize(0, 0);
}

class MatrixR final : public Formulation, private FormulationNumbers {
 public:
  MatrixR(const Study& st, bool rungeKutta, Partials partials, double delta, bool analytic)
      : FormulationNumbers(st, partials, delta), rungeKutta_(rungeKutta), analytic_(analytic), adapter_(*this),
        openChain_(openChainPartials(st, *this)), columns_(st, *this) {
    positionsOnly_ = analytic;
    for (const auto& c : st.outputs.components)
      positionsOnly_ = positionsOnly_ && (c.type == Output::Type::PointPosition || c.type == Output::Type::JointCoordinate ||
                                          c.type == Output::Type::SpringLength);
  }

  void observe(PointObserver* o, analysis::SimulationSpec& spec) override {
    adapter_.to = o;
    spec.observer = &adapter_;
  }
  std::vector<std::string> coordinateNames(int coords) const override {
    std::vector<std::string> names;
    for (const auto& f : dofs(coords)) names.push_back(f.name);
    return names;
  }
  void restartSwitches() override { FormulationNumbers::restartSwitches(); }
  void applySwitches(const std::vector<int>& contacts) override { FormulationNumbers::applySwitches(contacts); }

  Status outputValues(const RunPoint& p, Eigen::VectorXd& out) override {
    dyn::MatrixROn<double> e;
    if (Status s = evaluatePoint(p.t, p.coords, p.x, p.v, p.aux, e); !s.ok()) return s;
    out.resize(static_cast<Eigen::Index>(st_.outputs.names.size()));
    analysis::outputsOn<double>(st_.outputs, st_.model.tree, real_.tree, e.z, e.zd, e.zdd, p.t, out.data());
    return {};
  }

  // f = z̈ⁱ(x, v; ρ) and the outputs: their state columns by forward AD, eight per pass (f_x, f_v
  // are the accelerations' map A_x, A_v), their parameter columns by the route chosen
  Status partials(const RunPoint& p, bool, PointPartials& n) override {
    if (treeCovers(p) && openChain_->partials(p, n)) return {};
    if (fastCovers(p)) return lanesPartials(p, n);
    const auto& D = dofs(p.coords);
    const auto d = static_cast<Eigen::Index>(D.size()), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    if (Status s = outputValues(p, n.outputs); !s.ok()) return s;
    auto fAndOutputs = [&](const auto& nums, const auto& x, const auto& v, auto& r) { return accelerationsAndOutputs(nums, p, x, v, r); };
    Eigen::MatrixXd Fs;  // (d + no) × 2d
    auto seed = [&](Eigen::Index first) { return seededState(p.x, p.v, first); };
    if (Status s = stateColumns(2 * d, d + no, seed, [&](const auto& xv, Vec<Dual>& r) { return fAndOutputs(plain_, xv.first, xv.second, r); }, Fs);
        !s.ok())
      return s;
    Eigen::MatrixXd Fp;
    const Status s = parameterColumns(
        [&](const auto& nums, auto& r) {
          using S = typename std::decay_t<decltype(r)>::Scalar;
          return fAndOutputs(nums, Vec<S>(p.x.cast<S>()), Vec<S>(p.v.cast<S>()), r);
        },
        d + no, Fp);
    if (!s.ok()) return s;
    fromColumns(Fs, Fp, d, n);
    return {};
  }

  // the trapezoidal step differentiated along S: (I − h²/4 f_x − h/2 f_v) A₁ = f_x X̂ + f_v V̂ + f_ρ,
  // the right-hand side one pass of f along (X̂, V̂) with the parameters seeded; the outputs along
  // (X̂ + h²/4 A₁, V̂ + h/2 A₁) that pass's plus O_x h²/4 A₁ + O_v h/2 A₁. RK45: its stages on dual
  // numbers along S
  bool rungeKuttaQuadrature() const override { return rungeKutta_ && !modes_.empty() && !modes_.front().dofs.empty(); }

  Status stepAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong,
                   StageOutputs* stageOutputs) override {
    const auto& D = dofs(b.coords);
    const auto d = static_cast<Eigen::Index>(D.size()), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    const double h = b.t - a.t;
    // RK45's integral costs: the outputs at its stages (nothing integrated: no stages)
    StageOutputs* so = rungeKutta_ && d > 0 ? stageOutputs : nullptr;
    // the open chains' analytic partials cost less than the tangent's lanes, packed or not
    if (packs(b))
      return rungeKutta_ ? packedRungeKuttaAlong(a, b, S, outputs, outputsAlong, so) : packedTrapezoidalAlong(a, b, S, outputs, outputsAlong);
    if (!rungeKutta_ && treeCovers(b) && openChain_->trapezoidalAlong(a, b, S, outputs, outputsAlong)) return {};
    if (fastCovers(b)) return stepAlongByPartials(*this, rungeKutta_, stages(), a, b, S, outputs, outputsAlong, so);
    if (rungeKutta_) {
      // the whole step on dual numbers along S, its stages' outputs as more rows
      const Eigen::Index rows = 2 * d + (so ? 4 * no : 0);
      Eigen::MatrixXd R;
      Eigen::VectorXd values;
      const Status s = alongColumns(
          [&](Eigen::Index first) { return std::array<Vec<Dual>, 2>{seededBy(a.x, S.x, first), seededBy(a.v, S.v, first)}; },
          [&](const auto& nums, const auto& in, auto& r) -> Status {
            using Sc = typename std::decay_t<decltype(r)>::Scalar;
            Vec<Sc> x1, v1;
            std::array<std::vector<Sc>, 4> atStages;
            if (Status st = rungeKuttaStepOn<Sc>(st_, nums, mode(b.coords), a.t, h, in[0], in[1], a.aux, x1, v1, so ? &atStages : nullptr); !st.ok())
              return st;
            r.resize(rows);
            r.head(d) = x1;
            r.segment(d, d) = v1;
            if (so)
              for (std::size_t i = 0; i < 4; ++i)
                for (Eigen::Index k = 0; k < no; ++k) r[2 * d + static_cast<Eigen::Index>(i) * no + k] = atStages[i][static_cast<std::size_t>(k)];
            return {};
          },
          rows, R, so ? &values : nullptr);
      if (!s.ok()) return s;
      S.x = R.topRows(d);
      S.v = R.middleRows(d, d);
      if (so) {
        so->set = true;
        for (Eigen::Index i = 0; i < 4; ++i) {
          so->outputs[static_cast<std::size_t>(i)] = values.segment(2 * d + i * no, no);
          so->along[static_cast<std::size_t>(i)] = R.middleRows(2 * d + i * no, no);
        }
      }
      return pointAlong(b, S, outputs, outputsAlong);
    }
    Eigen::MatrixXd Fs;  // [f; outputs] by (x, v) at the end
    auto seed = [&](Eigen::Index first) { return seededState(b.x, b.v, first); };
    if (Status s = stateColumns(2 * d, d + no, seed,
                                [&](const auto& xv, Vec<Dual>& r) { return accelerationsAndOutputs(plain_, b, xv.first, xv.second, r); }, Fs);
        !s.ok())
      return s;
    const Eigen::MatrixXd Xh = S.x + h * S.v + (0.25 * h * h) * S.a, Vh = S.v + (0.5 * h) * S.a;
    Eigen::MatrixXd R;
    Eigen::VectorXd values;
    const Status s = alongColumns(
        [&](Eigen::Index first) { return std::array<Vec<Dual>, 2>{seededBy(b.x, Xh, first), seededBy(b.v, Vh, first)}; },
        [&](const auto& nums, const auto& in, auto& r) { return accelerationsAndOutputs(nums, b, in[0], in[1], r); }, d + no, R, &values);
    if (!s.ok()) return s;
    outputs = values.tail(no);
    if (d == 0) {
      outputsAlong = R;
      return {};
    }
    const Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * Fs.topLeftCorner(d, d) - (0.5 * h) * Fs.topRightCorner(d, d);
    const Eigen::MatrixXd A1 = G.partialPivLu().solve(Eigen::MatrixXd(R.topRows(d)));
    S.a = A1;
    S.x = Xh + (0.25 * h * h) * A1;
    S.v = Vh + (0.5 * h) * A1;
    outputsAlong = R.bottomRows(no) + Fs.bottomLeftCorner(no, d) * ((0.25 * h * h) * A1) + Fs.bottomRightCorner(no, d) * ((0.5 * h) * A1);
    return {};
  }

  Status pointAlong(const RunPoint& p, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) override {
    if (packs(p)) return packedPointAlong(p, S, outputs, outputsAlong);
    if (fastCovers(p)) return pointAlongByPartials(*this, p, S, outputs, outputsAlong);
    const auto d = p.x.size(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    Eigen::MatrixXd R;
    Eigen::VectorXd values;
    const Status s = alongColumns(
        [&](Eigen::Index first) { return std::array<Vec<Dual>, 2>{seededBy(p.x, S.x, first), seededBy(p.v, S.v, first)}; },
        [&](const auto& nums, const auto& in, auto& r) { return accelerationsAndOutputs(nums, p, in[0], in[1], r); }, d + no, R, &values);
    if (!s.ok()) return s;
    S.a = R.topRows(d);
    outputs = values.tail(no);
    outputsAlong = R.bottomRows(no);
    return {};
  }

  Status initial(const RunPoint& p0, StateColumns& S) override {
    const auto& D = dofs(p0.coords);
    const auto d = static_cast<Eigen::Index>(D.size());
    Eigen::MatrixXd XV;
    const Status s = parameterColumns(
        [&](const auto& nums, auto& r) -> Status {
          using Sc = typename std::decay_t<decltype(r)>::Scalar;
          Vec<Sc> x, v;
          const Status st = dyn::initialStateOn<Sc>(st_.model, nums.tree, D, p0.aux, x, v);
          r.resize(2 * d);
          if (st.ok()) r << x, v;
          return st;
        },
        2 * d, XV);
    S.x = XV.topRows(d);
    S.v = XV.bottomRows(d);
    return s;
  }

  Status replay(const RunPoint& a, double t1, RunPoint& b) override {
    return rungeKutta_ ? rungeKuttaReplay(a, t1, b) : trapezoidalReplay(a, t1, b);
  }

  Status linearise(const RunPoint& a, const RunPoint& b, std::unique_ptr<StepTangent>& tangent, PointPartials& atEnd) override {
    // an open chain: the parameter terms as products, at the step's end and at RK45's stages
    if (OpenChainPartials::NewtonParts parts; !rungeKutta_ && treeCovers(b) && openChain_->trapezoidalLinearised(a, b, tangent, atEnd, parts)) {
      newton_ = {b.t, b.coords, {}, {}, std::move(parts.Tz), std::move(parts.Tzd), std::move(parts.M)};
      return {};
    }
    const bool stageOutputs = rungeKuttaQuadrature() && st_.costs.hasType(Cost::Type::Integral);
    if (rungeKutta_ && productPartials(b, atEnd)) {
      const double h = b.t - a.t;
      std::vector<Stage> st;
      if (Status s = stages(true)(a, h, st, stageOutputs); !s.ok()) return s;
      tangent = rungeKuttaTangent(h, std::move(st));
      return {};
    }
    // a tree with loops: the trapezoidal step's parameter terms as its end's products
    if (!rungeKutta_ && productPartials(b, atEnd)) {
      tangent = trapezoidalTangent(b.t - a.t, atEnd);
      newton_ = {b.t, b.coords, atEnd.Ax, atEnd.Av, {}, {}, {}};
      return {};
    }
    const Status s = lineariseByPartials(*this, rungeKutta_, stages(), a, b, tangent, atEnd, stageOutputs);
    if (s.ok() && !rungeKutta_) newton_ = {b.t, b.coords, atEnd.Ax, atEnd.Av, {}, {}, {}};
    return s;
  }

  Status jump(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, ImpactJump& J) override {
    const integ::State b{before.t, before.x, before.v, before.a}, a{after.t, after.x, after.v, after.a};
    // those held from the impact on closed with e = 0
    std::vector<int> plastic;
    for (int g : mode(after.coords).held)
      if (!std::binary_search(mode(before.coords).held.begin(), mode(before.coords).held.end(), g)) plastic.push_back(g);
    // the derivative kernels' tangent at the state before, in the coordinates the jump is taken in
    // (the reference kernels, or a state the tangent cannot linearise: the pipeline on dual numbers)
    const auto& D = dofs(after.coords);
    const bool kernels = analytic_ && D == dofs(before.coords) && jumpTangentAt(st_, real_.tree, D, b.t, b.x, b.v, before.aux, jumpTangent_);
    const dyn::MatrixRTangent* tangent = kernels ? &jumpTangent_ : nullptr;
    return impactJump(st_, D, b, a, contacts, before.aux, J, plastic, tangent);
  }

  // the state through the dependent coordinates: evaluated in the old choice, mapped to the new;
  // the accelerations with the new mode's held gaps (a contact that opens: its force is zero)
  Status change(const RunPoint& a, int coords, RunPoint& b, CoordinateChange* map) override {
    const auto& after = dofs(coords);
    const CoordinateMode before{dofs(a.coords), mode(coords).held};
    auto mapped = [&](const auto& nums, const auto& x, const auto& v, auto& r) -> Status {
      using S = typename std::decay_t<decltype(r)>::Scalar;
      dyn::MatrixROn<S> e;
      Status s;
      if constexpr (std::is_same_v<S, Dual>) s = evaluateMode<Dual>(st_, before, nums.tree, a.t, x, v, a.aux, e, &real_.tree);
      else s = evaluateMode<double>(st_, before, nums.tree, a.t, x, v, a.aux, e);
      if (!s.ok()) return s;
      Vec<S> x1, v1, a1;
      dyn::independentOn<S>(st_.model, nums.tree, after, e.z, e.zd, &e.zdd, x1, v1, &a1);
      r.resize(3 * x1.size() + e.z.size());
      r << x1, v1, a1, e.z;
      return {};
    };
    Vec<double> r;
    if (Status s = mapped(real_, a.x, a.v, r); !s.ok()) return s;
    const auto d1 = static_cast<Eigen::Index>(after.size()), d0 = a.x.size();
    b = {a.t, coords, r.head(d1), r.segment(d1, d1), r.segment(2 * d1, d1), r.tail(r.size() - 3 * d1)};
    if (!map) return {};
    Eigen::MatrixXd Sxv;
    auto seed = [&](Eigen::Index first) { return seededState(a.x, a.v, first); };
    if (Status s = stateColumns(2 * d0, 3 * d1, seed, [&](const auto& xv, Vec<Dual>& out) { return mapped(plain_, xv.first, xv.second, out); }, Sxv);
        !s.ok())
      return s;
    map->Sx = Sxv.leftCols(d0);
    map->Sv = Sxv.rightCols(d0);
    return parameterColumns(
        [&](const auto& nums, auto& out) {
          using S = typename std::decay_t<decltype(out)>::Scalar;
          return mapped(nums, Vec<S>(a.x.cast<S>()), Vec<S>(a.v.cast<S>()), out);
        },
        3 * d1, map->Sp);
  }

  // [f; outputs] at (x, v) of the point p's time and coordinates, with the numbers nums
  template <class S>
  Status accelerationsAndOutputs(const NumbersOn<S>& nums, const RunPoint& p, const Vec<S>& x, const Vec<S>& v, Vec<S>& r) const {
    const auto d = static_cast<Eigen::Index>(dofs(p.coords).size()), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    if constexpr (std::is_same_v<S, Dual>) {
      if (d == 0 && positionsOnly_ && mode(p.coords).held.empty()) {
        // a driven mechanism whose outputs read positions alone: z's derivatives are all they
        // need (no velocity or acceleration pass, no dynamics)
        Vec<Dual> z;
        if (Status s = dyn::drivenPositionsOn<Dual>(st_.model, nums.tree, real_.tree, p.t, p.aux, z, &drivenFactor_); !s.ok()) return s;
        const Vec<Dual> still = Vec<Dual>::Zero(z.size());
        r.resize(no);
        analysis::outputsOn<Dual>(st_.outputs, st_.model.tree, nums.tree, z, still, still, p.t, r.data());
        return {};
      }
    }
    dyn::MatrixROn<S> e;
    Status s;
    if constexpr (std::is_same_v<S, Dual>) s = evaluateMode<Dual>(st_, mode(p.coords), nums.tree, p.t, x, v, p.aux, e, &real_.tree);
    else s = evaluateMode<S>(st_, mode(p.coords), nums.tree, p.t, x, v, p.aux, e);
    if (!s.ok()) return s;
    r.resize(d + no);
    r.head(d) = e.zidd;
    std::vector<S> out(static_cast<std::size_t>(no));
    analysis::outputsOn<S>(st_.outputs, st_.model.tree, nums.tree, e.z, e.zd, e.zdd, p.t, out.data());
    for (Eigen::Index k = 0; k < no; ++k) r[d + k] = out[static_cast<std::size_t>(k)];
    return {};
  }

  std::unique_ptr<ComplexRun> complexRun(std::size_t parameter, double step) override {
    return matrixRComplexRun(st_, modes_, rungeKutta_, parameter, step);
  }

  int coordsOf(const std::vector<dyn::Dof>& dofs, const std::vector<int>& held) {
    const CoordinateMode m{dofs, held};
    for (std::size_t i = 0; i < modes_.size(); ++i)
      if (modes_[i] == m) return static_cast<int>(i);
    modes_.push_back(m);
    return static_cast<int>(modes_.size()) - 1;
  }
  const CoordinateMode& mode(int coords) const { return modes_[static_cast<std::size_t>(coords)]; }
  const std::vector<dyn::Dof>& dofs(int coords) const { return mode(coords).dofs; }

 private:
  // ---- open chains: the tree's analytic derivative kernels (open_chain_partials.h) ----
  // An open chain integrated in its own coordinates (no loop, no driver, no quaternion's unit row:
  // z = x, M̄ = M^d, R^Φ = I)
  bool treeCovers(const RunPoint& p) const {
    const dyn::RecursiveModel& tree = st_.model.tree;
    if (!analytic_ || tree.nrows != 0 || p.x.size() != tree.nz || !mode(p.coords).held.empty()) return false;
    const auto& D = dofs(p.coords);
    for (std::size_t i = 0; i < D.size(); ++i)
      if (D[i].kind != dyn::Dof::Kind::Coordinate || D[i].z != static_cast<int>(i)) return false;
    return true;
  }

  // The partials at p with the parameter terms as products (the adjoint's), where the kernels
  // serve: an open chain's (open_chain_partials.h), a tree with loops' (MatrixRColumns)
  bool productPartials(const RunPoint& p, PointPartials& n) {
    if (treeCovers(p)) return openChain_->productsCover() && openChain_->partials(p, n, true);
    return packs(p) && columns_.productsServe() && columns_.at(p, dofs(p.coords), nullptr).ok() && columns_.productPartials(p.t, n);
  }

  // ---- any tree without quaternions: the tangent by jet-free passes ----
  // f_x, f_v eight columns a pass of MatrixRTangent (no dual-number pipeline), f_ρ and the
  // outputs' partials along each chunk's parameters the same way
  bool fastCovers(const RunPoint& p) const {
    // a driven mechanism (no independent coordinate) has no dynamics to differentiate: its
    // kinematic pipeline on dual numbers is cheaper than the tangent's setting up (Θ_z by jets, M^d,
    // the multipliers) at every point
    if (p.x.size() == 0 || !mode(p.coords).held.empty()) return false;  // held gaps: the dual-number pipeline
    return analytic_;
  }

  // the direct method's products by the tangent's lanes along S (packed with the parameters'
  // seeds), not by the point's partials: loops with AD partials
  bool packs(const RunPoint& p) const { return fastCovers(p) && !semiAnalytical() && !treeCovers(p); }

  // the state on doubles: the run's pipeline where it serves (the kernels chosen, no held gap, some
  // independent coordinate), else the pipeline on any scalar
  Status evaluatePoint(double t, int coords, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& zStart,
                       dyn::MatrixROn<double>& e) {
    if (analytic_ && x.size() > 0 && mode(coords).held.empty()) return columns_.runPipeline(t, coords, dofs(coords), x, v, zStart, e);
    return evaluateMode<double>(st_, mode(coords), real_.tree, t, x, v, zStart, e);
  }

  std::vector<int> chosen(int leadingNone = 0) const {
    std::vector<int> param(static_cast<std::size_t>(leadingNone), -1);
    for (std::size_t j = 0; j < st_.parameters.size(); ++j) param.push_back(static_cast<int>(j));
    return param;
  }
  // The trapezoidal step's sensitivities with the tangent's lanes packed: the Newton matrix needs
  // only the d columns of K = h²/4 f_x + h/2 f_v (each along (h²/4 e_k, h/2 e_k)), the right-hand
  // sides f_x X̂ + f_v V̂ + f_ρ one lane per parameter (along (X̂_j, V̂_j) with ρ_j seeded), so
  // d + p lanes a step instead of 2d + p; the outputs along S₁ = (X̂ + h²/4 A₁, V̂ + h/2 A₁) are
  // the right-hand sides' outputs plus the K columns' times A₁.
  Status packedTrapezoidalAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) {
    const auto d = b.x.size(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    const auto np = static_cast<Eigen::Index>(st_.parameters.size());
    const double h = b.t - a.t, hx = 0.25 * h * h, hv = 0.5 * h;
    if (Status s = columns_.at(b, dofs(b.coords), &outputs); !s.ok()) return s;
    const Eigen::MatrixXd Xh = S.x + h * S.v + hx * S.a, Vh = S.v + hv * S.a;
    Eigen::MatrixXd DX(d, d + np), DV(d, d + np), F;  // [f; outputs] along K's columns, then along the right-hand sides'
    DX << hx * Eigen::MatrixXd::Identity(d, d), Xh;
    DV << hv * Eigen::MatrixXd::Identity(d, d), Vh;
    columns_.columns(b.t, DX, DV, chosen(static_cast<int>(d)), F);
    const Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d) - F.topLeftCorner(d, d);
    S.a = G.partialPivLu().solve(Eigen::MatrixXd(F.topRightCorner(d, np)));
    S.x = Xh + hx * S.a;
    S.v = Vh + hv * S.a;
    outputsAlong = F.bottomRightCorner(no, np) + F.bottomLeftCorner(no, d) * S.a;
    return {};
  }

  // At a point whose S.x, S.v are known: S.a and the outputs' d/dρ along S are the tangent's lanes
  // along (S.x_j, S.v_j) with ρ_j seeded, p lanes (no state columns)
  Status packedPointAlong(const RunPoint& p, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) {
    const auto d = p.x.size(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    if (Status s = columns_.at(p, dofs(p.coords), &outputs); !s.ok()) return s;
    Eigen::MatrixXd F;
    columns_.columns(p.t, S.x, S.v, chosen(), F);
    S.a = F.topRows(d);
    outputsAlong = F.bottomRows(no);
    return {};
  }

  // Dormand–Prince's step along S stage by stage, p lanes a stage, then the end's point
  // (`stageOutputs`: the outputs at stages 3–6 along S, the lanes' output rows)
  Status packedRungeKuttaAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong,
                               StageOutputs* stageOutputs) {
    const auto d = a.x.size(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    const Status s = rungeKuttaAlongStages(
        [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::MatrixXd& SX, const Eigen::MatrixXd& SV, Eigen::VectorXd& f,
            Eigen::MatrixXd& F, Eigen::VectorXd* out, Eigen::MatrixXd* outAlong) -> Status {
          if (Status st = columns_.at(RunPoint{t, a.coords, x, v, {}, a.aux}, dofs(a.coords), out, &f); !st.ok()) return st;
          Eigen::MatrixXd FO;
          columns_.columns(t, SX, SV, chosen(), FO);
          F = FO.topRows(d);
          if (outAlong) *outAlong = FO.bottomRows(no);
          return {};
        },
        a.t, a.x, a.v, b.t - a.t, S, stageOutputs);
    if (!s.ok()) return s;
    return packedPointAlong(b, S, outputs, outputsAlong);
  }

  Status lanesPartials(const RunPoint& p, PointPartials& n) {
    const auto& D = dofs(p.coords);
    const auto d = static_cast<Eigen::Index>(D.size()), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    if (Status s = columns_.at(p, dofs(p.coords), &n.outputs); !s.ok()) return s;
    if (!semiAnalytical()) {
      // the parameters' p columns and the state's 2d packed eight lanes a pass, the parameters
      // first: a last pass of state lanes alone needs no positions' pass
      const auto np = static_cast<Eigen::Index>(st_.parameters.size());
      Eigen::MatrixXd DX = Eigen::MatrixXd::Zero(d, np + 2 * d), DV = DX, F;
      DX.middleCols(np, d).setIdentity();
      DV.rightCols(d).setIdentity();
      std::vector<int> param = chosen();
      param.resize(static_cast<std::size_t>(np + 2 * d), -1);
      columns_.columns(p.t, DX, DV, param, F);
      fromColumns(F.rightCols(2 * d), F.leftCols(np), d, n);
      return {};
    }
    // [z̈ⁱ; outputs] along the lanes of (dx, dv) and of the numbers
    auto along = [&](const dyn::TreeNumbers<Dual>& nums, const Vec<Dual>& dx, const Vec<Dual>& dv, Vec<Dual>& r) {
      columns_.alongLanes(nums, &nums != &plain_.tree, p.t, dx, dv, r);
    };
    Eigen::MatrixXd Fs;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(d);  // directions alone
    auto seed = [&](Eigen::Index first) { return seededState(zero, zero, first); };
    if (const Eigen::MatrixXd* G = nullptr; columns_.stateProducts(p.t, G)) {
      Fs = *G;
    } else if (Status s = stateColumns(2 * d, d + no, seed, [&](const auto& xv, Vec<Dual>& r) -> Status {
                 along(plain_.tree, xv.first, xv.second, r);
                 return {};
               }, Fs);
               !s.ok()) {
      return s;
    }
    Eigen::MatrixXd Fp;
    const Vec<Dual> none = Vec<Dual>::Zero(d);
    const Status s = parameterColumns(
        [&](const auto& nums, auto& r) -> Status {
          using S = typename std::decay_t<decltype(r)>::Scalar;
          if constexpr (std::is_same_v<S, Dual>) {
            along(nums.tree, none, none, r);
            return {};
          } else {
            return accelerationsAndOutputs(nums, p, p.x.cast<S>().eval(), p.v.cast<S>().eval(), r);  // GSAM, LSAM: f itself on the moved numbers
          }
        },
        d + no, Fp);
    if (!s.ok()) return s;
    fromColumns(Fs, Fp, d, n);
    return {};
  }

  // one trapezoidal step again, from a to t1: Newton on a₁ with the Jacobian at the step's start
  // (the last linearised end when that is a: what the adjoint's replay has at hand)
  Status trapezoidalReplay(const RunPoint& a, double t1, RunPoint& b) {
    const double h = t1 - a.t;
    const auto d = a.x.size();
    const Eigen::VectorXd xh = a.x + h * a.v + (0.25 * h * h) * a.a, vh = a.v + (0.5 * h) * a.a;
    auto newtonMatrix = [&](const Eigen::MatrixXd& fx, const Eigen::MatrixXd& fv) {
      return Eigen::MatrixXd(Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * fx - (0.5 * h) * fv);
    };
    Eigen::PartialPivLU<Eigen::MatrixXd> lu;
    if (d > 0) {
      if (Eigen::MatrixXd G; newton_.t == a.t && newton_.coords == a.coords && newton_.matrix(h, d, G)) {
        lu.compute(G);
      } else {
        // a segment's first step, or the first after a change of coordinates: the start's own
        // matrix (the identity alone lets Newton diverge at large steps)
        PointPartials n;
        if (Status s = partials(a, true, n); !s.ok()) return s;
        lu.compute(newtonMatrix(n.Ax, n.Av));
      }
    }
    dyn::MatrixROn<double> e;
    Eigen::VectorXd zs = a.aux;  // each position problem starts from the last one's solution
    // the residual acc − f(x̂ + h²/4 acc, v̂ + h/2 acc) at a trial acceleration
    auto residual = [&](const Eigen::VectorXd& acc, Eigen::VectorXd& r) -> Status {
      const Status s = evaluatePoint(t1, a.coords, Eigen::VectorXd(xh + (0.25 * h * h) * acc), Eigen::VectorXd(vh + (0.5 * h) * acc), zs, e);
      if (s.ok()) {
        zs = e.z;
        r = acc - e.zidd;
      }
      return s;
    };
    Eigen::VectorXd acc = a.a, r, trial, rt;
    bool converged = d == 0;
    // with no independent coordinate (a kinematic run) nothing is integrated, but the drivers
    // move the positions: solved at the step's end all the same
    if (Status s = residual(acc, r); !s.ok()) return s;
    double lastStep = 0;
    for (int iter = 0; iter < 40 && !converged; ++iter) {
      const Eigen::VectorXd da = lu.solve(r);
      // damped: halve the update while the trial's position problem fails or its residual grows
      // (next to a singular position f is strongly nonlinear within a step)
      double lambda = 1;
      bool accepted = false;
      for (int half = 0; half < 12 && !accepted; ++half, lambda *= 0.5) {
        trial = acc - lambda * da;
        const Eigen::VectorXd zKeep = zs;
        const Status s = residual(trial, rt);
        accepted = s.ok() && (rt.norm() < r.norm() || lambda * da.cwiseAbs().maxCoeff() <= 1e-7 * std::max(1.0, acc.cwiseAbs().maxCoeff()));
        if (!accepted) zs = zKeep;
      }
      if (!accepted) break;
      lambda *= 2;  // the one taken
      const double step = lambda * da.cwiseAbs().maxCoeff(), scale = std::max(1.0, trial.cwiseAbs().maxCoeff());
      acc = trial;
      r = rt;
      // to round-off: tiny, or no longer falling (the evaluations' own noise: their position
      // tolerance, amplified where the reduced mass matrix is ill-conditioned, e.g. a bar's spin)
      converged = step <= 1e-13 * scale || (iter >= 1 && step >= 0.5 * lastStep && step <= 1e-7 * scale);
      if (!converged && step > 1e-10 * scale && (lambda < 1 || (iter >= 1 && step > 0.25 * lastStep))) {
        // damped or slow: the matrix at the start is stale, take Newton's own at the iterate
        PointPartials n;
        if (Status s = partials(RunPoint{t1, a.coords, xh + (0.25 * h * h) * acc, vh + (0.5 * h) * acc, acc, zs}, true, n); !s.ok()) return s;
        lu.compute(newtonMatrix(n.Ax, n.Av));
      }
      lastStep = step;
    }
    if (!converged) return failure(Status::Code::NotConverged, t1, "the replay of the step to t = " + shortNumber(t1) + " did not converge");
    b = {t1, a.coords, xh + (0.25 * h * h) * acc, vh + (0.5 * h) * acc, acc, zs};  // zs: the last residual's, at acc
    return {};
  }

  // one Dormand–Prince step again from a (its size held), and its end's acceleration
  Status rungeKuttaReplay(const RunPoint& a, double t1, RunPoint& b) {
    Vec<double> x1, v1;
    if (Status s = rungeKuttaStepOn<double>(st_, real_, mode(a.coords), a.t, t1 - a.t, a.x, a.v, a.aux, x1, v1); !s.ok()) return s;
    dyn::MatrixROn<double> e;
    if (Status s = evaluatePoint(t1, a.coords, x1, v1, a.aux, e); !s.ok()) return s;
    b = {t1, a.coords, x1, v1, e.zidd, e.z};
    return {};
  }

  // a Dormand–Prince step's stages linearised: f_x, f_v, f_ρ at each stage point
  // `products`: an open chain's parameter terms as products (the adjoint's) where they serve
  StagesOf stages(bool products = false) {
    return [this, products](const RunPoint& a, double h, std::vector<Stage>& out, bool outputs) {
      return rungeKuttaStages(
          [&](double t, const Eigen::VectorXd& X, const Eigen::VectorXd& V, Eigen::VectorXd& f, PointPartials& n, bool) -> Status {
            // the stage's f and its partials (the outputs' with them): the point's machinery at
            // the stage point
            const RunPoint stage{t, a.coords, X, V, {}, a.aux};
            if (!(products && productPartials(stage, n)))
              if (Status s = partials(stage, true, n); !s.ok()) return s;
            dyn::MatrixROn<double> e;
            if (Status s = evaluatePoint(t, a.coords, X, V, a.aux, e); !s.ok()) return s;
            f = e.zidd;
            return {};
          },
          a.t, a.x, a.v, h, out, outputs);
    };
  }

  // The Matrix R run's observer: its states, choices of coordinates and held gaps as points
  struct Adapter final : analysis::StepObserver {
    explicit Adapter(MatrixR& owner) : f(owner) {}
    MatrixR& f;
    PointObserver* to = nullptr;
    RunPoint last;
    RunPoint point(const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) {
      static const std::vector<int> none;
      return {s.t, f.coordsOf(dofs, held ? *held : none), s.x, s.v, s.a, z};
    }
    Status start(const dyn::MatrixRModel&, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) override {
      last = point(dofs, s, z);
      return to->start(last);
    }
    Status step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& s, const Eigen::VectorXd& z) override {
      RunPoint a = point(dofs, from, last.aux), b = point(dofs, s, z);
      StagePoints at;  // RK45's stages, their position problems started from the step's start
      if (stages)
        for (std::size_t i = 0; i < 4; ++i) at[i] = point(dofs, (*stages)[i], a.aux);
      const Status st = to->step(a, b, stages ? &at : nullptr);
      last = std::move(b);
      return st;
    }
    // a new choice of coordinates, or a held gap let go
    Status switched(const std::vector<dyn::Dof>&, const std::vector<dyn::Dof>& after, const integ::State& s, const Eigen::VectorXd& z) override {
      RunPoint b = point(after, s, z);
      const Status st = to->changed(last, b);
      last = std::move(b);
      return st;
    }
    // the point before it with the gaps held before it (a contact that comes to rest is held after)
    Status impact(const std::vector<dyn::Dof>& dofs, const integ::State& before, const integ::State& after, const std::vector<int>& contacts,
                  const Eigen::VectorXd& z) override {
      RunPoint a = point(dofs, before, z), b = point(dofs, after, z);
      a.coords = f.coordsOf(dofs, f.mode(last.coords).held);
      const Status st = to->impact(a, b, contacts);
      last = std::move(b);
      return st;
    }
  };

  struct NewtonCache {  // the accelerations' Jacobian at the last linearised end, or τ's partials and M^d there
    double t = -1;
    int coords = -1;
    Eigen::MatrixXd fx, fv, Tz, Tzd, M;
    // the Newton matrix I − h²/4 f_x − h/2 f_v of a step from there (d rows), where it is kept
    bool matrix(double h, Eigen::Index d, Eigen::MatrixXd& G) const {
      if (fx.rows() == d) {
        G = Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * fx - (0.5 * h) * fv;
        return true;
      }
      if (Tz.rows() != d) return false;
      G = Eigen::MatrixXd::Identity(d, d) + M.llt().solve(Eigen::MatrixXd((0.25 * h * h) * Tz + (0.5 * h) * Tzd));
      return true;
    }
  };
  bool rungeKutta_;
  bool analytic_;
  dyn::MatrixRTangent jumpTangent_;  // the impacts' derivative kernels, set at each impact
  bool positionsOnly_ = false;  // every output reads positions alone (points, joint coordinates, spring lengths)
  mutable dyn::DrivenFactor drivenFactor_;  // Θ_z at the last driven point (its parameter chunks share it)
  Adapter adapter_;
  std::vector<CoordinateMode> modes_;
  NewtonCache newton_;
  std::unique_ptr<OpenChainPartials> openChain_;  // treeCovers' points
  MatrixRColumns columns_;                         // fastCovers' points: the tangent's columns
};

}  // namespace

std::unique_ptr<Formulation> matrixRFormulation(const Study& st, bool rungeKutta, Partials partials, double delta, bool analytic) {
  return std::make_unique<MatrixR>(st, rungeKutta, partials, delta, analytic);
}

}  // namespace lw::sens::detail
