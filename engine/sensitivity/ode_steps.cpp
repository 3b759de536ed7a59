#include "sensitivity/ode_steps.h"

#include <Eigen/LU>

#include "integrators/integrators.h"

namespace lw::sens::detail {
namespace {

constexpr double kA[6][5] = {{0, 0, 0, 0, 0},
                             {integ::dopri::a21, 0, 0, 0, 0},
                             {integ::dopri::a31, integ::dopri::a32, 0, 0, 0},
                             {integ::dopri::a41, integ::dopri::a42, integ::dopri::a43, 0, 0},
                             {integ::dopri::a51, integ::dopri::a52, integ::dopri::a53, integ::dopri::a54, 0},
                             {integ::dopri::a61, integ::dopri::a62, integ::dopri::a63, integ::dopri::a64, integ::dopri::a65}};
constexpr double kB[6] = {integ::dopri::b1, 0, integ::dopri::b3, integ::dopri::b4, integ::dopri::b5, integ::dopri::b6};
constexpr double kC[6] = {0, integ::dopri::c2, integ::dopri::c3, integ::dopri::c4, integ::dopri::c5, 1};

// The trapezoidal step of size h: x₁ = x̂ + h²/4 a₁, v₁ = v̂ + h/2 a₁ with x̂ = x₀ + h v₀ + h²/4 a₀,
// v̂ = v₀ + h/2 a₀, and a₁ = f(t₁, x₁, v₁; ρ). Differentiated:
//   (I − h²/4 f_x − h/2 f_v) A₁ = f_x X̂ + f_v V̂ + f_ρ
// with the step's Newton matrix at its solution (f_x, f_v, f_ρ at the end).
class TrapezoidalTangent final : public StepTangent {
 public:
  TrapezoidalTangent(double h, const PointPartials& end)
      : h_(h), fx_(end.Ax), fv_(end.Av), fp_(end.Ap), products_(end.products),
        lu_(Eigen::MatrixXd(Eigen::MatrixXd::Identity(end.Ax.rows(), end.Ax.rows()) - (0.25 * h * h) * end.Ax - (0.5 * h) * end.Av)) {}

  void reverse(StateColumns& l, Eigen::MatrixXd& grad) const override { reverseWithEndOutputs(l, grad, {}); }
  // f_ρ as the end's products (the adjoint's): the end's outputs' weights join the step's
  const ParameterProducts* endProducts() const override { return products_.get(); }
  void reverseWithEndOutputs(StateColumns& l, Eigen::MatrixXd& grad, const Eigen::MatrixXd& wO) const override {
    if (fx_.rows() == 0) {
      if (products_ && wO.size()) products_->add({}, wO, grad);
      return;
    }
    const double h = h_;
    const Eigen::MatrixXd mu = l.a + (0.25 * h * h) * l.x + (0.5 * h) * l.v;
    const Eigen::MatrixXd nu = lu_.transpose().solve(mu);
    if (products_) products_->add(nu, wO, grad);
    else grad += nu.transpose() * fp_;
    const Eigen::MatrixXd lx = l.x + fx_.transpose() * nu;
    const Eigen::MatrixXd lv = h * l.x + l.v + (h * fx_ + fv_).transpose() * nu;
    l.a = (0.25 * h * h) * l.x + (0.5 * h) * l.v + (0.25 * h * h * fx_ + 0.5 * h * fv_).transpose() * nu;
    l.x = lx;
    l.v = lv;
  }

 private:
  double h_;
  Eigen::MatrixXd fx_, fv_, fp_;
  std::shared_ptr<const ParameterProducts> products_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

// Dormand–Prince's explicit step, its stages linearised: stage i at (Xᵢ, Vᵢ) = (X₀, V₀) + h Σⱼ aᵢⱼ
// (KXⱼ, KVⱼ), KXᵢ = Vᵢ, KVᵢ = f_x Xᵢ + f_v Vᵢ + f_ρ; (X₁, V₁) = (X₀, V₀) + h Σ bᵢ (KXᵢ, KVᵢ). An
// explicit step has no acceleration among its inputs or results.
class RungeKuttaTangent final : public StepTangent {
 public:
  RungeKuttaTangent(double h, std::vector<Stage> stages) : h_(h), stages_(std::move(stages)) {}

  void reverse(StateColumns& l, Eigen::MatrixXd& grad) const override { reverseWithStageOutputs(l, grad, {}); }

  std::vector<StageOutput> stageOutputs() const override {
    std::vector<StageOutput> out;
    for (const Stage& sg : stages_)
      if (sg.outputs) out.push_back({sg.t, &sg.out.outputs});
    return out;
  }

  // κᵢ = h bᵢ λ₁ + Σ_{j>i} h a_ji ηⱼ, ηᵢ = Jᵢᵀ κᵢ with Jᵢ = [0 I; f_x f_v] at stage i;
  // λ₀ = λ₁ + Σ ηᵢ, ∂ψ/∂ρ += Σ κᵥᵢᵀ f_ρ. The quadrature's weights wᵢ on stage i's outputs
  // O(Xᵢ, Vᵢ, KVᵢ; ρ): κᵥᵢ += O_aᵀ wᵢ, ηᵢ += (O_xᵀ wᵢ, O_vᵀ wᵢ), ∂ψ/∂ρ += wᵢᵀ O_ρ
  void reverseWithStageOutputs(StateColumns& l, Eigen::MatrixXd& grad, const std::vector<Eigen::MatrixXd>& wO) const override {
    if (l.x.rows() == 0) return;
    const double h = h_;
    std::vector<Eigen::MatrixXd> ex(6), ev(6);
    Eigen::MatrixXd lx0 = l.x, lv0 = l.v;
    for (int k = 5; k >= 0; --k) {
      Eigen::MatrixXd kx = (h * kB[k]) * l.x, kv = (h * kB[k]) * l.v;
      for (int j = k + 1; j < 6; ++j) {
        kx += (h * kA[j][k]) * ex[static_cast<std::size_t>(j)];
        kv += (h * kA[j][k]) * ev[static_cast<std::size_t>(j)];
      }
      const Stage& sg = stages_[static_cast<std::size_t>(k)];
      const Eigen::MatrixXd* w = nullptr;
      if (k >= 2 && sg.outputs && wO.size() == 4) w = &wO[static_cast<std::size_t>(k - 2)];
      if (w && sg.out.Oa.size()) kv += sg.out.Oa.transpose() * *w;
      ex[static_cast<std::size_t>(k)] = sg.fx.transpose() * kv;
      ev[static_cast<std::size_t>(k)] = kx + sg.fv.transpose() * kv;
      if (w && sg.out.Ox.cols()) {
        ex[static_cast<std::size_t>(k)] += sg.out.Ox.transpose() * *w;
        ev[static_cast<std::size_t>(k)] += sg.out.Ov.transpose() * *w;
      }
      if (sg.products) {
        sg.products->add(kv, w ? *w : Eigen::MatrixXd(), grad);
      } else {
        grad += kv.transpose() * sg.fp;
        if (w) grad += w->transpose() * sg.out.Op;
      }
      lx0 += ex[static_cast<std::size_t>(k)];
      lv0 += ev[static_cast<std::size_t>(k)];
    }
    l.x = lx0;
    l.v = lv0;
    l.a.setZero(l.x.rows(), l.x.cols());
  }

 private:
  double h_;
  std::vector<Stage> stages_;
};

class LinearTangent final : public StepTangent {
 public:
  LinearTangent(Eigen::MatrixXd T, Eigen::MatrixXd Tp) : T_(std::move(T)), Tp_(std::move(Tp)) {}
  void reverse(StateColumns& l, Eigen::MatrixXd& grad) const override {
    const auto n = l.x.rows();
    Eigen::MatrixXd L(3 * n, l.x.cols());
    L << l.x, l.v, l.a;
    grad += L.transpose() * Tp_;
    const Eigen::MatrixXd L0 = T_.transpose() * L;
    l.x = L0.topRows(n);
    l.v = L0.middleRows(n, n);
    l.a = L0.bottomRows(n);
  }

 private:
  Eigen::MatrixXd T_, Tp_;
};

}  // namespace

std::unique_ptr<StepTangent> linearTangent(Eigen::MatrixXd T, Eigen::MatrixXd Tp) {
  return std::make_unique<LinearTangent>(std::move(T), std::move(Tp));
}

void sameStateChange(const PointPartials& n, CoordinateChange& map) {
  const auto d = n.Ax.rows(), p = n.Ap.cols();
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d), O = Eigen::MatrixXd::Zero(d, d);
  map.Sx.resize(3 * d, d);
  map.Sx << I, O, n.Ax;
  map.Sv.resize(3 * d, d);
  map.Sv << O, I, n.Av;
  map.Sp = Eigen::MatrixXd::Zero(3 * d, p);
  map.Sp.bottomRows(d) = n.Ap;
}

void linearAlong(const Eigen::MatrixXd& T, const Eigen::MatrixXd& Tp, StateColumns& S) {
  const auto n = S.x.rows();
  Eigen::MatrixXd S0(3 * n, S.x.cols());
  S0 << S.x, S.v, S.a;
  const Eigen::MatrixXd S1 = T * S0 + Tp;
  S.x = S1.topRows(n);
  S.v = S1.middleRows(n, n);
  S.a = S1.bottomRows(n);
}

std::unique_ptr<StepTangent> trapezoidalTangent(double h, const PointPartials& end) { return std::make_unique<TrapezoidalTangent>(h, end); }

std::unique_ptr<StepTangent> rungeKuttaTangent(double h, std::vector<Stage> stages) {
  return std::make_unique<RungeKuttaTangent>(h, std::move(stages));
}

void trapezoidalAlong(double h, const PointPartials& n, StateColumns& S) {
  const auto d = n.Ax.rows();
  const Eigen::MatrixXd Xh = S.x + h * S.v + (0.25 * h * h) * S.a, Vh = S.v + (0.5 * h) * S.a;
  const Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * n.Ax - (0.5 * h) * n.Av;
  S.a = G.partialPivLu().solve(Eigen::MatrixXd(n.Ax * Xh + n.Av * Vh + n.Ap));
  S.x = Xh + (0.25 * h * h) * S.a;
  S.v = Vh + (0.5 * h) * S.a;
}

void rungeKuttaAlong(double h, const std::vector<Stage>& stages, StateColumns& S, StageOutputs* out, std::array<StateColumns, 4>* columns) {
  std::vector<Eigen::MatrixXd> kx(6), kv(6);
  Eigen::MatrixXd X1 = S.x, V1 = S.v;
  if (out) out->set = stages.size() == 6 && stages[2].outputs;
  for (std::size_t i = 0; i < 6; ++i) {
    Eigen::MatrixXd X = S.x, V = S.v;
    for (std::size_t j = 0; j < i; ++j) {
      X += (h * kA[i][j]) * kx[j];
      V += (h * kA[i][j]) * kv[j];
    }
    kx[i] = V;
    kv[i] = stages[i].fx * X + stages[i].fv * V + stages[i].fp;
    if (out && out->set && i >= 2) {
      const PointPartials& o = stages[i].out;
      out->outputs[i - 2] = o.outputs;
      out->along[i - 2] = o.outputsAlong(StateColumns{X, V, kv[i]});
    }
    if (columns && i >= 2) (*columns)[i - 2] = {X, V, kv[i]};
    X1 += (h * kB[i]) * kx[i];
    V1 += (h * kB[i]) * kv[i];
  }
  S.x = X1;
  S.v = V1;
}

Status rungeKuttaStages(const PartialsAt& at, double t0, const Eigen::VectorXd& x0, const Eigen::VectorXd& v0, double h, std::vector<Stage>& stages,
                        bool outputs) {
  std::vector<Eigen::VectorXd> kx(6), kv(6);
  stages.assign(6, {});
  for (std::size_t i = 0; i < 6; ++i) {
    Eigen::VectorXd X = x0, V = v0;
    for (std::size_t j = 0; j < i; ++j) {
      X += (h * kA[i][j]) * kx[j];
      V += (h * kA[i][j]) * kv[j];
    }
    PointPartials n;
    if (Status s = at(t0 + kC[i] * h, X, V, kv[i], n, outputs && i >= 2); !s.ok()) return s;
    Stage& sg = stages[i];
    sg.fx = std::move(n.Ax);
    sg.fv = std::move(n.Av);
    sg.fp = std::move(n.Ap);
    sg.products = n.products;
    sg.t = t0 + kC[i] * h;
    sg.x = X;
    sg.v = V;
    sg.f = kv[i];
    if (outputs && i >= 2) {
      sg.outputs = true;
      sg.out = std::move(n);
    }
    kx[i] = V;
  }
  return {};
}

Status rungeKuttaAlongStages(const AlongAt& at, double t0, const Eigen::VectorXd& x0, const Eigen::VectorXd& v0, double h, StateColumns& S,
                             StageOutputs* out) {
  if (out) out->set = true;
  std::vector<Eigen::VectorXd> kx(6), kv(6);
  std::vector<Eigen::MatrixXd> kX(6), kV(6);
  Eigen::MatrixXd X1 = S.x, V1 = S.v;
  for (std::size_t i = 0; i < 6; ++i) {
    Eigen::VectorXd x = x0, v = v0;
    Eigen::MatrixXd X = S.x, V = S.v;
    for (std::size_t j = 0; j < i; ++j) {
      x += (h * kA[i][j]) * kx[j];
      v += (h * kA[i][j]) * kv[j];
      X += (h * kA[i][j]) * kX[j];
      V += (h * kA[i][j]) * kV[j];
    }
    const bool o = out && i >= 2;
    if (Status s = at(t0 + kC[i] * h, x, v, X, V, kv[i], kV[i], o ? &out->outputs[i - 2] : nullptr, o ? &out->along[i - 2] : nullptr); !s.ok())
      return s;
    kx[i] = v;
    kX[i] = V;
    X1 += (h * kB[i]) * kX[i];
    V1 += (h * kB[i]) * kV[i];
  }
  S.x = X1;
  S.v = V1;
  return {};
}

Status stepAlongByPartials(Formulation& f, bool rungeKutta, const StagesOf& stages, const RunPoint& a, const RunPoint& b, StateColumns& S,
                           Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong, StageOutputs* stageOutputs) {
  const double h = b.t - a.t;
  if (rungeKutta) {
    std::vector<Stage> st;
    if (Status s = stages(a, h, st, stageOutputs != nullptr); !s.ok()) return s;
    rungeKuttaAlong(h, st, S, stageOutputs);
    return f.pointAlong(b, S, outputs, outputsAlong);
  }
  PointPartials n;
  if (Status s = f.partials(b, true, n); !s.ok()) return s;
  trapezoidalAlong(h, n, S);
  outputs = n.outputs;
  outputsAlong = n.outputsAlong(S);
  return {};
}

Status pointAlongByPartials(Formulation& f, const RunPoint& p, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) {
  PointPartials n;
  if (Status s = f.partials(p, true, n); !s.ok()) return s;
  accelerationsFrom(n, S);
  outputs = n.outputs;
  outputsAlong = n.outputsAlong(S);
  return {};
}

Status lineariseByPartials(Formulation& f, bool rungeKutta, const StagesOf& stages, const RunPoint& a, const RunPoint& b,
                           std::unique_ptr<StepTangent>& tangent, PointPartials& atEnd, bool stageOutputs) {
  if (Status s = f.partials(b, true, atEnd); !s.ok()) return s;
  const double h = b.t - a.t;
  if (!rungeKutta) {
    tangent = trapezoidalTangent(h, atEnd);
    return {};
  }
  std::vector<Stage> st;
  if (Status s = stages(a, h, st, stageOutputs); !s.ok()) return s;
  tangent = rungeKuttaTangent(h, std::move(st));
  return {};
}

}  // namespace lw::sens::detail
