#include "sensitivity/direct.h"
#include "events/contact_gaps.h"
#include "sensitivity/impact_jump.h"
#include "sensitivity/semi_analytical.h"

#include <Eigen/LU>
#include <algorithm>

namespace lw::sens::detail {
namespace {

// ---- direct differentiation of the discrete trapezoidal steps ----
// Step n → n+1 of size h: x₁ = x̂ + h²/4 a₁, v₁ = v̂ + h/2 a₁ with x̂ = x₀ + h v₀ + h²/4 a₀,
// v̂ = v₀ + h/2 a₀, and a₁ = f(t₁, x₁, v₁; ρ). Differentiated:
//   (I − h²/4 f_x − h/2 f_v) A₁ = f_x X̂ + f_v V̂ + f_ρ
// with X̂, V̂ built from X₀, V₀, A₀ like x̂, v̂. The matrix is the step's Newton matrix at its
// solution (exact here: f_x, f_v by forward AD); the right-hand side is one evaluation of f on
// dual numbers along (X̂, V̂) with the parameters seeded, a chunk of eight parameters per pass.
class DirectObserver final : public DirectMethod {
 public:
  DirectObserver(const Study& st, const SensitivitySpec& spec)
      : st_(st), plain_(st, {}, {}), nominal_(st, {}, {}), histories_(st, spec.histories), partials_(spec.partials),
        rungeKutta_(spec.run.integrator == analysis::Integrator::RK45), eventTimeTerms_(spec.eventTimeTerms) {
    chunks_ = dualChunks(st);
    if (partials_ != Partials::AutomaticDifferentiation) {
      MovedNumbers sets = movedNumbers(st, partials_, spec.delta);
      deltas_ = std::move(sets.deltas);
      moved_ = std::move(sets.moved);
    }
  }

  Status start(const dyn::MatrixRModel& m, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) override {
    const auto d = static_cast<Eigen::Index>(dofs.size()), p = static_cast<Eigen::Index>(st_.parameters.size());
    X_.setZero(d, p);
    V_.setZero(d, p);
    A_.setZero(d, p);
    if (partials_ != Partials::AutomaticDifferentiation) {
      // the initial state's parameter derivatives by differences of the assembly
      Vec<double> x0, v0;
      if (Status st = dyn::initialStateOn<double>(m, nominal_.tree, dofs, z, x0, v0); !st.ok()) return st;
      for (Eigen::Index k = 0; k < p; ++k)
        for (const auto& set : moved_[static_cast<std::size_t>(k)]) {
          Vec<double> xk, vk;
          if (Status st = dyn::initialStateOn<double>(m, set->tree, dofs, z, xk, vk); !st.ok()) return st;
          X_.col(k) += (xk - x0) / deltas_[static_cast<std::size_t>(k)];
          V_.col(k) += (vk - v0) / deltas_[static_cast<std::size_t>(k)];
        }
    }
    for (auto& c : chunks_) {
      Vec<Dual> x, v;
      if (partials_ == Partials::AutomaticDifferentiation) {
        if (Status st = dyn::initialStateOn<Dual>(m, c->numbers.tree, dofs, z, x, v); !st.ok()) return st;
      } else {
        x = seeded(s.x, X_, c->first);
        v = seeded(s.v, V_, c->first);
      }
      dyn::MatrixROn<Dual> e;
      std::vector<Dual> out;
      if (Status st = along(*c, dofs, s.t, x, v, z, e, &out); !st.ok()) return st;
      c->costs.add(s.t, out.data(), c->numbers.parameters.data());
      c->store(x, X_);
      c->store(v, V_);
      c->store(e.zidd, A_);
      histories_.set(*c, out);
    }
    histories_.send(s.t);
    last_ = s;
    return {};
  }

  Status step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& to, const Eigen::VectorXd& z) override {
    const double h = to.t - from.t;
    const auto d = static_cast<Eigen::Index>(dofs.size());
    if (rungeKutta_) {
      // an explicit step: its stages on dual numbers carry the sensitivities (the step's own
      // forward AD, size h held)
      for (auto& c : chunks_) {
        Vec<Dual> x1, v1;
        // every stage's accelerations with the parameters' partials of the chosen route (AD, GSAM, LSAM)
        auto stage = [&](double t, const Vec<Dual>& x, const Vec<Dual>& v, Vec<Dual>& a) -> Status {
          dyn::MatrixROn<Dual> e;
          const Status st = along(*c, dofs, t, x, v, z, e, nullptr);
          a = e.zidd;
          return st;
        };
        Status s = rungeKuttaStepWith<Dual>(stage, from.t, h, seeded(from.x, X_, c->first), seeded(from.v, V_, c->first), x1, v1);
        if (!s.ok()) return s;
        c->store(x1, X_);
        c->store(v1, V_);
        dyn::MatrixROn<Dual> e;
        std::vector<Dual> out;
        s = along(*c, dofs, to.t, seeded(to.x, X_, c->first), seeded(to.v, V_, c->first), z, e, &out);
        if (!s.ok()) return s;
        c->store(e.zidd, A_);
        c->costs.add(to.t, out.data(), c->numbers.parameters.data());
        histories_.set(*c, out);
      }
      histories_.send(to.t);
      last_ = to;
      return {};
    }
    // the step's Newton matrix at its end: I − h²/4 f_x − h/2 f_v; the outputs' state
    // derivatives O_x, O_v from the same passes
    const auto no = static_cast<Eigen::Index>(st_.outputs.names.size());
    Eigen::MatrixXd fx(d, d), fv(d, d), Ox(no, d), Ov(no, d);
    std::vector<Dual> out(static_cast<std::size_t>(no));
    for (Eigen::Index first = 0; first < 2 * d; first += kLanes) {
      Vec<Dual> x = seeded(to.x, {}, 0), v = seeded(to.v, {}, 0);
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
        if (j < d) x[j].g[j - first] = 1;
        else v[j - d].g[j - first] = 1;
      }
      dyn::MatrixROn<Dual> e;
      const Status s = dyn::evaluateOn<Dual>(st_.model, plain_.tree, dofs, to.t, x, v, z, e, &nominal_.tree);
      if (!s.ok()) return s;
      analysis::outputsOn<Dual>(st_.outputs, st_.model.tree, plain_.tree, e.z, e.zd, e.zdd, to.t, out.data());
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
        for (Eigen::Index i = 0; i < d; ++i) (j < d ? fx(i, j) : fv(i, j - d)) = e.zidd[i].g[j - first];
        for (Eigen::Index k = 0; k < no; ++k) (j < d ? Ox(k, j) : Ov(k, j - d)) = out[static_cast<std::size_t>(k)].g[j - first];
      }
    }
    const Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * fx - (0.5 * h) * fv;
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(G);
    const Eigen::MatrixXd Xh = X_ + h * V_ + (0.25 * h * h) * A_, Vh = V_ + (0.5 * h) * A_;
    for (auto& c : chunks_) {
      // f_x X̂ + f_v V̂ + f_ρ for this chunk's parameters, and the outputs along (X̂, V̂)
      dyn::MatrixROn<Dual> e;
      Status s = along(*c, dofs, to.t, seeded(to.x, Xh, c->first), seeded(to.v, Vh, c->first), z, e, &out);
      if (!s.ok()) return s;
      Eigen::MatrixXd rhs(d, c->count);
      for (int j = 0; j < c->count; ++j)
        for (Eigen::Index i = 0; i < d; ++i) rhs(i, j) = e.zidd[i].g[j];
      const Eigen::MatrixXd A1 = lu.solve(rhs);
      for (int j = 0; j < c->count; ++j) {
        const Eigen::Index col = c->first + j;
        A_.col(col) = A1.col(j);
        X_.col(col) = Xh.col(col) + (0.25 * h * h) * A1.col(j);
        V_.col(col) = Vh.col(col) + (0.5 * h) * A1.col(j);
      }
      // the outputs along (X, V) = (X̂ + h²/4 A, V̂ + h/2 A): linear in the direction, so the
      // pass along (X̂, V̂) plus O_x h²/4 A + O_v h/2 A (no evaluation more)
      const Eigen::MatrixXd shift = Ox * ((0.25 * h * h) * A1) + Ov * ((0.5 * h) * A1);
      for (Eigen::Index k = 0; k < no; ++k)
        for (int j = 0; j < c->count; ++j) out[static_cast<std::size_t>(k)].g[j] += shift(k, j);
      c->costs.add(to.t, out.data(), c->numbers.parameters.data());
      histories_.set(*c, out);
    }
    histories_.send(to.t);
    last_ = to;
    return {};
  }

  /// The rows not yet passed on.
  void flush() override { histories_.flush(); }

  // the same state in other coordinates: its sensitivities through the dependent state
  Status switched(const std::vector<dyn::Dof>& before, const std::vector<dyn::Dof>& after, const integ::State& s,
                  const Eigen::VectorXd& z) override {
    const auto d = static_cast<Eigen::Index>(after.size()), p = static_cast<Eigen::Index>(st_.parameters.size());
    Eigen::MatrixXd X(d, p), V(d, p), A(d, p);
    for (auto& c : chunks_) {
      dyn::MatrixROn<Dual> e;
      const Status st = along(*c, before, last_.t, seeded(last_.x, X_, c->first), seeded(last_.v, V_, c->first), z, e, nullptr);
      if (!st.ok()) return st;
      Vec<Dual> x, v, a;
      const bool ad = partials_ == Partials::AutomaticDifferentiation;
      dyn::independentOn<Dual>(st_.model, ad ? c->numbers.tree : plain_.tree, after, e.z, e.zd, &e.zdd, x, v, &a);
      if (!ad) {  // the map's own parameter dependence (a point's coordinates in its body) by differences
        const auto zv = values(e.z), zdv = values(e.zd), zddv = values(e.zdd);
        Vec<double> x0, v0, a0;
        dyn::independentOn<double>(st_.model, nominal_.tree, after, zv, zdv, &zddv, x0, v0, &a0);
        for (int j = 0; j < c->count; ++j) {
          const auto k = static_cast<std::size_t>(c->first + j);
          for (const auto& set : moved_[k]) {
            Vec<double> xk, vk, ak;
            dyn::independentOn<double>(st_.model, set->tree, after, zv, zdv, &zddv, xk, vk, &ak);
            for (Eigen::Index i = 0; i < d; ++i) {
              x[i].g[j] += (xk[i] - x0[i]) / deltas_[k];
              v[i].g[j] += (vk[i] - v0[i]) / deltas_[k];
              a[i].g[j] += (ak[i] - a0[i]) / deltas_[k];
            }
          }
        }
      }
      c->store(x, X);
      c->store(v, V);
      c->store(a, A);
    }
    X_ = X;
    V_ = V;
    A_ = A;
    last_ = s;
    return {};
  }

  // an impact: the jump of the sensitivities (impact_jump.h), the state after it as a node of its
  // own (the histories' second row at the event time), the costs' jump
  Status impact(const std::vector<dyn::Dof>& dofs, const integ::State& before, const integ::State& after, const std::vector<int>& contacts,
                const Eigen::VectorXd& z) override {
    ImpactJump jump;
    if (Status s = impactJump(st_, dofs, before, after, contacts, z, jump); !s.ok()) return s;
    if (!eventTimeTerms_) jump.dropEventTime();
    // a switch of the equations of motion: its forces on and off in every set of numbers here
    const auto sources = events::gapSources(st_.model.tree);
    events::applySwitches(st_.model.tree, sources, contacts, plain_.tree);
    events::applySwitches(st_.model.tree, sources, contacts, nominal_.tree);
    for (auto& sets : moved_)
      for (auto& set : sets) events::applySwitches(st_.model.tree, sources, contacts, set->tree);
    for (auto& c : chunks_) events::applySwitches(st_.model.tree, sources, contacts, c->numbers.tree);
    const Eigen::RowVectorXd dt = jump.eventTime(X_);
    ImpactSensitivity seen;
    seen.eventTime.assign(dt.data(), dt.data() + dt.size());
    for (const auto& f : dofs) seen.coordinates.push_back(f.name);
    seen.positionJump = -X_;
    seen.velocityJump = -V_;
    jump.apply(X_, V_);
    seen.positionJump += X_;
    seen.velocityJump += V_;
    impacts_.push_back(std::move(seen));
    for (auto& c : chunks_) {
      dyn::MatrixROn<Dual> e;
      std::vector<Dual> out;
      if (Status s = along(*c, dofs, after.t, seeded(after.x, X_, c->first), seeded(after.v, V_, c->first), z, e, &out); !s.ok()) return s;
      c->store(e.zidd, A_);
      c->costs.add(after.t, out.data(), c->numbers.parameters.data());
      Dual moves(0.0);
      for (int j = 0; j < c->count; ++j) moves.g[j] = dt[c->first + j];
      c->costs.eventTimeMoves(moves);
      histories_.set(*c, out);
    }
    histories_.send(after.t);
    last_ = after;
    return {};
  }

  const std::vector<ImpactSensitivity>& impacts() const override { return impacts_; }

  void finish(Gradient& g) const override {
    costsOfChunks(st_, chunks_, g.values, g.gradient);
    g.steps = deltas_;
  }


 private:
  static Eigen::VectorXd values(const Vec<Dual>& x) {
    Eigen::VectorXd v(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) v[i] = x[i].v;
    return v;
  }
  // f and the outputs along the chunk's directions: the state's by AD, the parameters' by AD
  // (the chunk's seeded numbers) or, for GSAM, by differences of the system-level evaluation
  // at the frozen state
  Status along(const DualChunk& c, const std::vector<dyn::Dof>& dofs, double t, const Vec<Dual>& x, const Vec<Dual>& v, const Eigen::VectorXd& z,
               dyn::MatrixROn<Dual>& e, std::vector<Dual>* outputs) const {
    const bool ad = partials_ == Partials::AutomaticDifferentiation;
    if (Status s = dyn::evaluateOn<Dual>(st_.model, ad ? c.numbers.tree : plain_.tree, dofs, t, x, v, z, e, &nominal_.tree); !s.ok()) return s;
    std::vector<double> explicitPart;  // GSAM: the outputs' own parameter derivatives, lane by lane
    if (!ad) {
      const Eigen::VectorXd xv = values(x), vv = values(v);
      dyn::MatrixROn<double> e0;
      if (Status s = dyn::evaluateOn<double>(st_.model, nominal_.tree, dofs, t, xv, vv, z, e0); !s.ok()) return s;
      const std::size_t no = st_.outputs.names.size();
      std::vector<double> o0(no), ok(no);
      if (outputs) {
        analysis::outputsOn<double>(st_.outputs, st_.model.tree, nominal_.tree, e0.z, e0.zd, e0.zdd, t, o0.data());
        explicitPart.assign(no * kLanes, 0.0);
      }
      for (int j = 0; j < c.count; ++j) {
        const auto k = static_cast<std::size_t>(c.first + j);
        const double inv = 1 / deltas_[k];
        for (const auto& set : moved_[k]) {  // GSAM: one set; LSAM: an element each, summed
          dyn::MatrixROn<double> ek;
          if (Status s = dyn::evaluateOn<double>(st_.model, set->tree, dofs, t, xv, vv, z, ek); !s.ok()) return s;
          for (Eigen::Index i = 0; i < e.z.size(); ++i) {
            e.z[i].g[j] += (ek.z[i] - e0.z[i]) * inv;
            e.zd[i].g[j] += (ek.zd[i] - e0.zd[i]) * inv;
            e.zdd[i].g[j] += (ek.zdd[i] - e0.zdd[i]) * inv;
          }
          for (Eigen::Index i = 0; i < e.zidd.size(); ++i) e.zidd[i].g[j] += (ek.zidd[i] - e0.zidd[i]) * inv;
          if (outputs) {
            analysis::outputsOn<double>(st_.outputs, st_.model.tree, set->tree, e0.z, e0.zd, e0.zdd, t, ok.data());
            for (std::size_t i = 0; i < no; ++i) explicitPart[i * kLanes + static_cast<std::size_t>(j)] += (ok[i] - o0[i]) * inv;
          }
        }
      }
    }
    if (!outputs) return {};
    // through the state (every lane, now that z, ż, z̈ carry them), plus GSAM's explicit part
    outputs->resize(st_.outputs.names.size());
    analysis::outputsOn<Dual>(st_.outputs, st_.model.tree, ad ? c.numbers.tree : plain_.tree, e.z, e.zd, e.zdd, t, outputs->data());
    if (!ad)
      for (std::size_t i = 0; i < outputs->size(); ++i)
        for (int j = 0; j < kLanes; ++j) (*outputs)[i].g[j] += explicitPart[i * kLanes + static_cast<std::size_t>(j)];
    return {};
  }
  // x with lanes j = columns first + j of D (D empty: no derivatives)
  static Vec<Dual> seeded(const Eigen::VectorXd& x, const Eigen::MatrixXd& D, Eigen::Index first) {
    Vec<Dual> y(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      y[i] = Dual(x[i]);
      for (int j = 0; j < kLanes && D.size() && first + j < D.cols(); ++j) y[i].g[j] = D(i, first + j);
    }
    return y;
  }

  const Study& st_;
  NumbersOn<Dual> plain_;     // no parameter seeded: f_x and f_v
  NumbersOn<double> nominal_; // GSAM: the system at the parameters' values
  // GSAM: the numbers with parameter k moved by δ_k; LSAM: the same one element at a time
  std::vector<std::vector<std::unique_ptr<NumbersOn<double>>>> moved_;
  std::vector<double> deltas_;
  std::vector<std::unique_ptr<DualChunk>> chunks_;
  Eigen::MatrixXd X_, V_, A_;  // d × p: ∂zⁱ/∂ρ, ∂żⁱ/∂ρ, ∂z̈ⁱ/∂ρ
  integ::State last_;
  HistoryRows histories_;
  Partials partials_;
  bool rungeKutta_ = false;
  bool eventTimeTerms_ = true;
  std::vector<ImpactSensitivity> impacts_;
};

}  // namespace

std::unique_ptr<DirectMethod> directMethod(const Study& st, const SensitivitySpec& spec) { return std::make_unique<DirectObserver>(st, spec); }

}  // namespace lw::sens::detail
