#include "sensitivity/penalty_methods.h"

#include <Eigen/LU>
#include <algorithm>

#include "dynamics/penalty_derivatives.h"
#include "events/contact_gaps.h"
#include "sensitivity/impact_jump.h"
#include "sensitivity/penalty_impact.h"
#include "sensitivity/semi_analytical.h"

namespace lw::sens::detail {
namespace {

// x with lane j of chunk `first` set from column first + j of D
Vec<Dual> seededBy(const Eigen::VectorXd& x, const Eigen::MatrixXd& D, Eigen::Index first, int count) {
  Vec<Dual> out = x.cast<Dual>();
  for (int j = 0; j < count; ++j)
    for (Eigen::Index i = 0; i < x.size(); ++i) out[i].g[j] = D(i, first + j);
  return out;
}

class DirectObserver final : public PenaltyDirect {
 public:
  DirectObserver(const Study& st, const SensitivitySpec& spec)
      : st_(st), plain_(st, {}, {}), nominal_(st, {}, {}), chunks_(dualChunks(st)), histories_(st, spec.histories),
        ad_(spec.partials == Partials::AutomaticDifferentiation) {
    if (!ad_) {
      MovedNumbers sets = movedNumbers(st, spec.partials, spec.delta);
      deltas_ = std::move(sets.deltas);
      moved_ = std::move(sets.moved);
    }
  }

  Status start(const dyn::RecursiveModel& tree, double alpha, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
               const Eigen::VectorXd& zdd) override {
    tree_ = &tree;
    alpha_ = alpha;
    const auto nz = z.size(), p = static_cast<Eigen::Index>(st_.parameters.size());
    Z_.setZero(nz, p);
    Zd_ = Z_;
    Zdd_ = Z_;
    for (auto& c : chunks_) {
      // the assembly and the initial velocities on dual numbers (seed 003 §1.6), then z̈₀; the
      // semi-analytical route takes the parameters' partials by differences
      Vec<Dual> zD, zdD, zddD;
      if (Status s = dyn::initialCoordinatesOn<Dual>(st_.model, numbers(*c), z, zD, zdD); !s.ok()) return s;
      if (!ad_) {
        Status s = explicitPart(*c, [&](const dyn::TreeNumbers<double>& n, Vec<double>& out) {
          Vec<double> zk, zdk;
          const Status st = dyn::initialCoordinatesOn<double>(st_.model, n, z, zk, zdk);
          out.resize(2 * zk.size());
          out << zk, zdk;
          return st;
        }, {&zD, &zdD});
        if (!s.ok()) return s;
      }
      if (Status s = dyn::penaltyStartOn<Dual>(tree, numbers(*c), alpha, t, zD, zdD, zddD); !s.ok()) return s;
      if (!ad_) {
        // (M + Φ_zᵀαΦ_z) z̈ = Q + Φ_zᵀαc: z̈_ρ = −A⁻¹ R_ρ with the residual's pieces differenced apart
        const Eigen::VectorXd zv = values(zD), zdv = values(zdD), zddv = values(zddD);
        dyn::PenaltyParts p0;
        const Eigen::MatrixXd Rp = residualPartial(*c, t, zv, zdv, zddv, true, p0);
        const Eigen::MatrixXd A = p0.M + alpha * p0.J.transpose() * p0.J;
        const Eigen::MatrixXd dz = A.partialPivLu().solve(Rp);
        for (int j = 0; j < c->count; ++j)
          for (Eigen::Index i = 0; i < zv.size(); ++i) zddD[i].g[j] -= dz(i, j);
      }
      c->store(zD, Z_);
      c->store(zdD, Zd_);
      c->store(zddD, Zdd_);
      output(*c, t, zD, zdD, zddD);
    }
    histories_.send(t);
    z0_ = z;
    zd0_ = zd;
    zdd0_ = zdd;
    return {};
  }

  Status step(double t0, double t1, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) override {
    const double h = t1 - t0;
    const auto nz = z.size();
    // the trapezoidal velocities and accelerations of the end before the projections
    const Eigen::VectorXd zdS = (2 / h) * (z - z0_) - zd0_, zddS = (4 / (h * h)) * (z - z0_) - (4 / h) * zd0_ - zdd0_;
    const Eigen::MatrixXd T = penaltyTangent(*tree_, plain_, alpha_, t1, h, z, zdS, zddS);
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(T);
    const Eigen::MatrixXd Zhd = -((2 / h) * Z_ + Zd_), Zhdd = -((4 / (h * h)) * Z_ + (4 / h) * Zd_ + Zdd_);
    for (auto& c : chunks_) {
      // the rest of F's derivative: the start's sensitivities and the parameters
      Vec<Dual> zD = z.cast<Dual>(), F;
      dyn::penaltyResidualOn<Dual>(*tree_, numbers(*c), alpha_, t1, zD, seededBy(zdS, Zhd, c->first, c->count),
                                   seededBy(zddS, Zhdd, c->first, c->count), F);
      if (!ad_) {  // F = M z̈ − Q + Φ_zᵀαΦ: its parameters' partial, the pieces differenced apart
        dyn::PenaltyParts p0;
        const Eigen::MatrixXd Fp = residualPartial(*c, t1, z, zdS, zddS, false, p0);
        for (int j = 0; j < c->count; ++j)
          for (Eigen::Index i = 0; i < nz; ++i) F[i].g[j] += Fp(i, j);
      }
      Eigen::MatrixXd b(nz, c->count);
      for (int j = 0; j < c->count; ++j)
        for (Eigen::Index i = 0; i < nz; ++i) b(i, j) = F[i].g[j];
      const Eigen::MatrixXd Z1 = -lu.solve(b);
      for (int j = 0; j < c->count; ++j) Z_.col(c->first + j) = Z1.col(j);
      // the projections along them
      Eigen::MatrixXd ZdS = Zhd, ZddS = Zhdd;
      for (int j = 0; j < c->count; ++j) {
        ZdS.col(c->first + j) += (2 / h) * Z1.col(j);
        ZddS.col(c->first + j) += (4 / (h * h)) * Z1.col(j);
      }
      zD = seededBy(z, Z_, c->first, c->count);
      Vec<Dual> zdD, zddD;
      if (Status s = dyn::penaltyProjectOn<Dual>(*tree_, numbers(*c), alpha_, t1, h, zD, seededBy(zdS, ZdS, c->first, c->count),
                                                  seededBy(zddS, ZddS, c->first, c->count), zdD, zddD);
          !s.ok())
        return s;
      if (!ad_) {  // the projections' matrix M + h²/4 Φ_zᵀαΦ_z: well conditioned at a step's h
        Status s = explicitPart(*c, [&](const dyn::TreeNumbers<double>& n, Vec<double>& out) {
          Vec<double> zdk, zddk;
          const Status st = dyn::penaltyProjectOn<double>(*tree_, n, alpha_, t1, h, z, zdS, zddS, zdk, zddk);
          out.resize(2 * zdk.size());
          out << zdk, zddk;
          return st;
        }, {&zdD, &zddD});
        if (!s.ok()) return s;
      }
      c->store(zdD, Zd_);
      c->store(zddD, Zdd_);
      output(*c, t1, zD, zdD, zddD);
    }
    histories_.send(t1);
    z0_ = z;
    zd0_ = zd;
    zdd0_ = zdd;
    return {};
  }

  // an impact: seed 001's jumps in all the tree's coordinates (penalty_impact.h), the state after
  // it a node of its own, the costs' jump
  Status impact(double t, const std::vector<int>& contacts, const Eigen::VectorXd& z, const Eigen::VectorXd& zdBefore,
                const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) override {
    const auto nz = z.size();
    Eigen::VectorXd gap, rate;
    events::contactGaps(*tree_, z, zdBefore, gap, rate);
    const int c0 = contacts.front();
    if (Status s = differentiableImpact(st_, contacts, t, rate[c0]); !s.ok()) return s;
    const std::vector<dyn::Dof> dofs = penaltyImpactDofs(st_, t, z, zdBefore);
    // the jump along the motion: h_z ż⁻ + h_ż z̈⁻, one lane
    Vec<Dual> zT = z.cast<Dual>(), zdT = zdBefore.cast<Dual>(), hT;
    for (Eigen::Index i = 0; i < nz; ++i) {
      zT[i].g[0] = zdBefore[i];
      zdT[i].g[0] = zdd0_[i];
    }
    if (Status s = penaltyJumpOn<Dual>(st_, plain_.tree, dofs, t, zT, zdT, z, contacts, hT); !s.ok()) return s;
    Eigen::VectorXd w(nz);
    for (Eigen::Index i = 0; i < nz; ++i) w[i] = hT[i].g[0] - zdd[i];
    // a switch: its forces on and off from here on (z̈⁺ below and every later step)
    const auto sources = events::gapSources(st_.model.tree);
    events::applySwitches(st_.model.tree, sources, contacts, plain_.tree);
    for (auto& c : chunks_) events::applySwitches(st_.model.tree, sources, contacts, c->numbers.tree);
    events::applySwitches(st_.model.tree, sources, contacts, nominal_.tree);
    for (auto& sets : moved_)
      for (auto& set : sets) events::applySwitches(st_.model.tree, sources, contacts, set->tree);
    const Eigen::VectorXd dv = zd - zdBefore;
    std::vector<Dual> gaps(static_cast<std::size_t>(rate.size()));
    ImpactSensitivity seen;
    seen.eventTime.assign(st_.parameters.size(), 0.0);
    for (const auto& n : tree_->nodes)
      for (int k = 0; k < n.nz; ++k)
        seen.coordinates.push_back(tree_->mechanism->bodies[static_cast<std::size_t>(n.body)].name + "[" + std::to_string(k) + "]");
    seen.positionJump = -Z_;
    seen.velocityJump = -Zd_;
    for (auto& c : chunks_) {
      Vec<Dual> zD = seededBy(z, Z_, c->first, c->count), zdD = seededBy(zdBefore, Zd_, c->first, c->count), hD;
      events::contactGapsOn<Dual, Dual>(*tree_, c->numbers.tree, zD.data(), gaps.data());
      if (Status s = penaltyJumpOn<Dual>(st_, c->numbers.tree, dofs, t, zD, zdD, z, contacts, hD); !s.ok()) return s;
      Dual dt(0.0);
      for (int j = 0; j < c->count; ++j) {
        dt.g[j] = -gaps[static_cast<std::size_t>(c0)].g[j] / rate[c0];
        seen.eventTime[static_cast<std::size_t>(c->first + j)] = dt.g[j];
        const Eigen::Index col = c->first + j;
        Z_.col(col) -= dv * dt.g[j];
        for (Eigen::Index i = 0; i < nz; ++i) Zd_(i, col) = hD[i].g[j] + w[i] * dt.g[j];
      }
      zD = seededBy(z, Z_, c->first, c->count);
      zdD = seededBy(zd, Zd_, c->first, c->count);
      Vec<Dual> zddD;
      if (Status s = dyn::penaltyStartOn<Dual>(*tree_, c->numbers.tree, alpha_, t, zD, zdD, zddD); !s.ok()) return s;
      c->store(zddD, Zdd_);
      output(*c, t, zD, zdD, zddD);
      c->costs.eventTimeMoves(dt);
    }
    seen.positionJump += Z_;
    seen.velocityJump += Zd_;
    impacts_.push_back(std::move(seen));
    histories_.send(t);
    z0_ = z;
    zd0_ = zd;
    zdd0_ = zdd;
    return {};
  }

  const std::vector<ImpactSensitivity>& impacts() const override { return impacts_; }
  void finish(Gradient& g) const override { costsOfChunks(st_, chunks_, g.values, g.gradient); }
  void flush() override { histories_.flush(); }

 private:
  // the outputs on dual numbers: the costs, and the histories' row
  void output(DualChunk& c, double t, const Vec<Dual>& z, const Vec<Dual>& zd, const Vec<Dual>& zdd) {
    std::vector<Dual> out(st_.outputs.names.size());
    analysis::outputsOn<Dual>(st_.outputs, st_.model.tree, numbers(c), z, zd, zdd, t, out.data());
    if (!ad_) {  // the outputs' own parameter dependence (a point's coordinates in its body)
      const Eigen::VectorXd zv = values(z), zdv = values(zd), zddv = values(zdd);
      Vec<Dual> o(static_cast<Eigen::Index>(out.size()));
      for (std::size_t i = 0; i < out.size(); ++i) o[static_cast<Eigen::Index>(i)] = out[i];
      (void)explicitPart(c, [&](const dyn::TreeNumbers<double>& n, Vec<double>& v) {
        v.resize(o.size());
        analysis::outputsOn<double>(st_.outputs, st_.model.tree, n, zv, zdv, zddv, t, v.data());
        return Status{};
      }, {&o});
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = o[static_cast<Eigen::Index>(i)];
    }
    c.costs.add(t, out.data(), c.numbers.parameters.data());
    histories_.set(c, out);
  }

  // the numbers a chunk's evaluations take: its seeded ones (AD), or none seeded when the
  // parameters' partials come by differences
  const dyn::TreeNumbers<Dual>& numbers(const DualChunk& c) const { return ad_ ? c.numbers.tree : plain_.tree; }
  static Eigen::VectorXd values(const Vec<Dual>& x) {
    Eigen::VectorXd v(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) v[i] = x[i].v;
    return v;
  }
  // seed 003's semi-analytical partials: lane j of the vectors `into` (f's value split among
  // them in order) += Σ over parameter k's moved numbers (f(moved) − f(nominal)) / δ_k,
  // k = the chunk's parameter j
  template <class F>
  Status explicitPart(const DualChunk& c, F&& f, std::initializer_list<Vec<Dual>*> into) {
    Vec<double> f0, fk;
    if (Status s = f(nominal_.tree, f0); !s.ok()) return s;
    for (int j = 0; j < c.count; ++j) {
      const auto k = static_cast<std::size_t>(c.first + j);
      for (const auto& set : moved_[k]) {
        if (Status s = f(set->tree, fk); !s.ok()) return s;
        Eigen::Index at = 0;
        for (Vec<Dual>* v : into)
          for (Eigen::Index i = 0; i < v->size(); ++i, ++at) (*v)[i].g[j] += (fk[at] - f0[at]) / deltas_[k];
      }
    }
    return {};
  }
  // R = M a − Q + Φ_zᵀ α e at (z, ż, a) with e = Φ_z a − c (the start) or Φ (a step): its
  // partials by the chunk's parameters, M a − Q, Φ_z and e differenced apart (R differenced whole
  // would carry α δ ∂Φ_z/∂ρ ∂e/∂ρ, as large as the answer); p0: the nominal pieces
  Eigen::MatrixXd residualPartial(const DualChunk& c, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& a,
                                  bool start, dyn::PenaltyParts& p0) const {
    dyn::PenaltyParts pk;
    dyn::penaltyParts(*tree_, nominal_.tree, t, z, zd, p0);
    auto e = [&](const dyn::PenaltyParts& q) -> Eigen::VectorXd { return start ? Eigen::VectorXd(q.J * a - q.c) : q.phi; };
    const Eigen::VectorXd g0 = p0.M * a - p0.Q, e0 = e(p0);
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(z.size(), c.count);
    for (int j = 0; j < c.count; ++j) {
      const auto k = static_cast<std::size_t>(c.first + j);
      for (const auto& set : moved_[k]) {
        dyn::penaltyParts(*tree_, set->tree, t, z, zd, pk);
        out.col(j) += ((pk.M * a - pk.Q) - g0 + alpha_ * ((pk.J - p0.J).transpose() * e0 + p0.J.transpose() * (e(pk) - e0))) / deltas_[k];
      }
    }
    return out;
  }

  const Study& st_;
  NumbersOn<Dual> plain_;
  NumbersOn<double> nominal_;  // the semi-analytical route's numbers at the parameters' values
  std::vector<std::unique_ptr<DualChunk>> chunks_;
  const dyn::RecursiveModel* tree_ = nullptr;
  double alpha_ = 0;
  Eigen::VectorXd z0_, zd0_, zdd0_;  // the last step's end
  Eigen::MatrixXd Z_, Zd_, Zdd_;     // its sensitivities (nz × parameters)
  HistoryRows histories_;
  std::vector<ImpactSensitivity> impacts_;
  bool ad_ = true;
  std::vector<double> deltas_;
  std::vector<std::vector<std::unique_ptr<NumbersOn<double>>>> moved_;
};

}  // namespace

Eigen::MatrixXd penaltyTangent(const dyn::RecursiveModel& tree, const NumbersOn<Dual>& plain, double alpha, double t1, double h,
                               const Eigen::VectorXd& z1, const Eigen::VectorXd& zdS, const Eigen::VectorXd& zddS) {
  const auto nz = z1.size();
  Eigen::MatrixXd T(nz, nz);
  for (Eigen::Index first = 0; first < nz; first += kLanes) {
    Vec<Dual> z = z1.cast<Dual>(), zd = zdS.cast<Dual>(), zdd = zddS.cast<Dual>(), F;
    for (Eigen::Index j = first; j < std::min(nz, first + kLanes); ++j) {  // z₁ moved: ż*, z̈* with it
      z[j].g[j - first] = 1;
      zd[j].g[j - first] = 2 / h;
      zdd[j].g[j - first] = 4 / (h * h);
    }
    dyn::penaltyResidualOn<Dual>(tree, plain.tree, alpha, t1, z, zd, zdd, F);
    for (Eigen::Index j = first; j < std::min(nz, first + kLanes); ++j)
      for (Eigen::Index i = 0; i < nz; ++i) T(i, j) = F[i].g[j - first];
  }
  return T;
}

std::unique_ptr<PenaltyDirect> penaltyDirect(const Study& st, const SensitivitySpec& spec) {
  return std::make_unique<DirectObserver>(st, spec);
}

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
