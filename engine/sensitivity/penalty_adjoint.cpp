#include "sensitivity/penalty_adjoint.h"

#include <Eigen/LU>
#include <algorithm>

#include "dynamics/penalty_derivatives.h"
#include "sensitivity/cost_integrand.h"
#include "events/contact_gaps.h"
#include "sensitivity/impact_jump.h"
#include "sensitivity/penalty_impact.h"
#include "sensitivity/penalty_methods.h"

namespace lw::sens::detail {
namespace {

struct State {
  double t = 0;
  Eigen::VectorXd z, zd, zdd;
};

// the outputs at a node and their derivatives with respect to the state and the parameters
struct NodeOutputs {
  Eigen::MatrixXd Oz, Od, Odd, Op;
  Eigen::VectorXd values;
};

// a step a → b linearised: F's partial derivatives at b (T = F_z + 2/h F_ż + 4/h² F_z̈, F_ż,
// F_z̈ = M, F_ρ) and the projections' (ż₁ by z₁, ż*, ρ; z̈₁ by z₁, ż*, z̈*, ρ)
struct StepJacobians {
  Eigen::MatrixXd T, Fd, M, Fp;
  Eigen::MatrixXd Pz, Pd, Pp, Qz, Qd, Qdd, Qp;
};

// the trapezoidal velocities and accelerations of the end before the projections
void trapezoidal(const State& a, double h, const Eigen::VectorXd& z1, Eigen::VectorXd& zdS, Eigen::VectorXd& zddS) {
  zdS = (2 / h) * (z1 - a.z) - a.zd;
  zddS = (4 / (h * h)) * (z1 - a.z) - (4 / h) * a.zd - a.zdd;
}

class PenaltyAdjoint {
 public:
  PenaltyAdjoint(const Study& st, double alpha) : st_(st), tree_(st.model.tree), alpha_(alpha), plain_(st, {}, {}), real_(st, {}, {}) {
    for (const ParameterChunk& c : parameterChunks(st)) {
      chunks_.push_back(std::make_unique<NumbersOn<Dual>>(st, c.seeded, c.seeds));
      firsts_.push_back(static_cast<Eigen::Index>(c.first));
      counts_.push_back(static_cast<int>(c.seeded.size()));
    }
    for (const auto& f : plain_.tree.mech.forces) initialActive_.push_back(f.active);
  }

  // Switches of the equations of motion turn forces on and off: a segment is replayed with the
  // forces as they were there, those at the start with every earlier switch applied
  void restartForces() {
    for (std::size_t f = 0; f < initialActive_.size(); ++f) {
      plain_.tree.mech.forces[f].active = initialActive_[f];
      real_.tree.mech.forces[f].active = initialActive_[f];
      for (auto& c : chunks_) c->tree.mech.forces[f].active = initialActive_[f];
    }
  }
  void applySwitches(const std::vector<int>& closing) {
    const auto sources = events::gapSources(tree_);
    events::applySwitches(tree_, sources, closing, plain_.tree);
    events::applySwitches(tree_, sources, closing, real_.tree);
    for (auto& c : chunks_) events::applySwitches(tree_, sources, closing, c->tree);
  }

  void outputs(const State& s, NodeOutputs& o) const {
    const auto nz = s.z.size(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
    o.Oz.resize(no, nz);
    o.Od.resize(no, nz);
    o.Odd.resize(no, nz);
    o.Op.resize(no, static_cast<Eigen::Index>(st_.parameters.size()));
    o.values.resize(no);
    std::vector<Dual> out(static_cast<std::size_t>(no));
    for (Eigen::Index first = 0; first < 3 * nz || first == 0; first += kLanes) {
      Vec<Dual> z = s.z.cast<Dual>(), zd = s.zd.cast<Dual>(), zdd = s.zdd.cast<Dual>();
      for (Eigen::Index j = first; j < std::min(3 * nz, first + kLanes); ++j) (j < nz ? z[j] : j < 2 * nz ? zd[j - nz] : zdd[j - 2 * nz]).g[j - first] = 1;
      analysis::outputsOn<Dual>(st_.outputs, tree_, plain_.tree, z, zd, zdd, s.t, out.data());
      for (Eigen::Index k = 0; k < no; ++k) o.values[k] = out[static_cast<std::size_t>(k)].v;
      for (Eigen::Index j = first; j < std::min(3 * nz, first + kLanes); ++j)
        for (Eigen::Index k = 0; k < no; ++k) {
          const double v = out[static_cast<std::size_t>(k)].g[j - first];
          if (j < nz) o.Oz(k, j) = v;
          else if (j < 2 * nz) o.Od(k, j - nz) = v;
          else o.Odd(k, j - 2 * nz) = v;
        }
      if (nz == 0) break;
    }
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      analysis::outputsOn<Dual>(st_.outputs, tree_, chunks_[c]->tree, s.z.cast<Dual>(), s.zd.cast<Dual>(), s.zdd.cast<Dual>(), s.t, out.data());
      for (int j = 0; j < counts_[c]; ++j)
        for (Eigen::Index k = 0; k < no; ++k) o.Op(k, firsts_[c] + j) = out[static_cast<std::size_t>(k)].g[j];
    }
  }

  // T at (z₁, the trapezoidal ż*, z̈* from a)
  Eigen::MatrixXd tangent(const State& a, double h, double t, const Eigen::VectorXd& z1) const {
    Eigen::VectorXd zdS, zddS;
    trapezoidal(a, h, z1, zdS, zddS);
    return penaltyTangent(tree_, plain_, alpha_, t, h, z1, zdS, zddS);
  }

  Status step(const State& a, const State& b, StepJacobians& J) const {
    const double h = b.t - a.t;
    const auto nz = b.z.size(), p = static_cast<Eigen::Index>(st_.parameters.size());
    Eigen::VectorXd zdS, zddS;
    trapezoidal(a, h, b.z, zdS, zddS);
    // F's partial derivatives: z, ż, z̈ in turn (3 nz columns), then the parameters
    Eigen::MatrixXd Fz(nz, nz);
    J.Fd.resize(nz, nz);
    J.M.resize(nz, nz);
    J.Fp.resize(nz, p);
    for (Eigen::Index first = 0; first < 3 * nz; first += kLanes) {
      Vec<Dual> z = b.z.cast<Dual>(), zd = zdS.cast<Dual>(), zdd = zddS.cast<Dual>(), F;
      for (Eigen::Index j = first; j < std::min(3 * nz, first + kLanes); ++j) (j < nz ? z[j] : j < 2 * nz ? zd[j - nz] : zdd[j - 2 * nz]).g[j - first] = 1;
      dyn::penaltyResidualOn<Dual>(tree_, plain_.tree, alpha_, b.t, z, zd, zdd, F);
      for (Eigen::Index j = first; j < std::min(3 * nz, first + kLanes); ++j)
        for (Eigen::Index i = 0; i < nz; ++i) (j < nz ? Fz(i, j) : j < 2 * nz ? J.Fd(i, j - nz) : J.M(i, j - 2 * nz)) = F[i].g[j - first];
    }
    J.T = Fz + (2 / h) * J.Fd + (4 / (h * h)) * J.M;
    // the projections: z₁, ż*, z̈* in turn, then the parameters
    J.Pz.resize(nz, nz);
    J.Pd.resize(nz, nz);
    J.Qz.resize(nz, nz);
    J.Qd.resize(nz, nz);
    J.Qdd.resize(nz, nz);
    J.Pp.resize(nz, p);
    J.Qp.resize(nz, p);
    for (Eigen::Index first = 0; first < 3 * nz; first += kLanes) {
      Vec<Dual> z = b.z.cast<Dual>(), zd = zdS.cast<Dual>(), zdd = zddS.cast<Dual>(), zd1, zdd1;
      for (Eigen::Index j = first; j < std::min(3 * nz, first + kLanes); ++j) (j < nz ? z[j] : j < 2 * nz ? zd[j - nz] : zdd[j - 2 * nz]).g[j - first] = 1;
      if (Status s = dyn::penaltyProjectOn<Dual>(tree_, plain_.tree, alpha_, b.t, h, z, zd, zdd, zd1, zdd1); !s.ok()) return s;
      for (Eigen::Index j = first; j < std::min(3 * nz, first + kLanes); ++j)
        for (Eigen::Index i = 0; i < nz; ++i) {
          const double dv = zd1[i].g[j - first], da = zdd1[i].g[j - first];
          if (j < nz) {
            J.Pz(i, j) = dv;
            J.Qz(i, j) = da;
          } else if (j < 2 * nz) {
            J.Pd(i, j - nz) = dv;
            J.Qd(i, j - nz) = da;
          } else {
            J.Qdd(i, j - 2 * nz) = da;  // ż₁ does not depend on z̈*
          }
        }
    }
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      Vec<Dual> F, zd1, zdd1;
      dyn::penaltyResidualOn<Dual>(tree_, chunks_[c]->tree, alpha_, b.t, b.z.cast<Dual>(), zdS.cast<Dual>(), zddS.cast<Dual>(), F);
      if (Status s = dyn::penaltyProjectOn<Dual>(tree_, chunks_[c]->tree, alpha_, b.t, h, b.z.cast<Dual>(), zdS.cast<Dual>(), zddS.cast<Dual>(), zd1, zdd1);
          !s.ok())
        return s;
      for (int j = 0; j < counts_[c]; ++j)
        for (Eigen::Index i = 0; i < nz; ++i) {
          J.Fp(i, firsts_[c] + j) = F[i].g[j];
          J.Pp(i, firsts_[c] + j) = zd1[i].g[j];
          J.Qp(i, firsts_[c] + j) = zdd1[i].g[j];
        }
    }
    return {};
  }

  // the step from a to time t1 again: Newton on F(z₁) = 0 to round-off, then the projections
  Status recompute(const State& a, double t1, State& b) const {
    const double h = t1 - a.t;
    const auto nz = a.z.size();
    Eigen::VectorXd z1 = a.z + h * a.zd + (0.5 * h * h) * a.zdd, zdS, zddS;
    Eigen::PartialPivLU<Eigen::MatrixXd> lu(tangent(a, h, t1, z1));
    double lastStep = 0;
    bool converged = nz == 0;
    for (int it = 0; it < 30 && !converged; ++it) {
      trapezoidal(a, h, z1, zdS, zddS);
      Vec<double> F;
      dyn::penaltyResidualOn<double>(tree_, real_.tree, alpha_, t1, z1, zdS, zddS, F);
      const Eigen::VectorXd dz = lu.solve(F);
      z1 -= dz;
      const double step = dz.cwiseAbs().maxCoeff(), scale = std::max(1.0, z1.cwiseAbs().maxCoeff());
      converged = step <= 1e-14 * scale || (it >= 1 && step >= 0.5 * lastStep && step <= 1e-11 * scale);
      if (!converged && step > 1e-10 * scale && it >= 1 && step > 0.25 * lastStep) lu.compute(tangent(a, h, t1, z1));  // slow: Newton's own
      lastStep = step;
    }
    if (!converged)
      return failure(Status::Code::NotConverged, t1, "the adjoint's replay of the penalty step to t = " + shortNumber(t1) + " did not converge");
    trapezoidal(a, h, z1, zdS, zddS);
    b.t = t1;
    b.z = z1;
    return dyn::penaltyProjectOn<double>(tree_, real_.tree, alpha_, t1, h, z1, zdS, zddS, b.zd, b.zdd);
  }

  // An impact linearised (penalty_impact.h): with dt/dρ = c_zᵀ Z + c_ρ, Z⁺ = Z − Δż dt/dρ,
  // Ż⁺ = h_z Z + h_ż Ż + h_ρ + w dt/dρ (w = h_z ż⁻ + h_ż z̈⁻ − z̈⁺), and z̈⁺ = S(z, ż⁺; ρ) the
  // start accelerations after it
  struct Jump {
    Eigen::VectorXd cz, dv, w;
    Eigen::RowVectorXd cp;
    Eigen::MatrixXd hz, hd, hp, Sz, Sd, Sp;
  };
  Status jump(const State& before, const State& after, const std::vector<int>& contacts, Jump& J) const {
    const auto nz = before.z.size(), p = static_cast<Eigen::Index>(st_.parameters.size());
    const double t = before.t;
    Eigen::VectorXd gap, rate;
    events::contactGaps(tree_, before.z, before.zd, gap, rate);
    const int c0 = contacts.front();
    if (Status s = differentiableImpact(st_, contacts, t, rate[c0]); !s.ok()) return s;
    const std::vector<dyn::Dof> dofs = penaltyImpactDofs(st_, t, before.z, before.zd);
    J.cz.resize(nz);
    J.hz.resize(nz, nz);
    J.hd.resize(nz, nz);
    J.Sz.resize(nz, nz);
    J.Sd.resize(nz, nz);
    std::vector<Dual> g(static_cast<std::size_t>(rate.size()));
    for (Eigen::Index first = 0; first < 2 * nz; first += kLanes) {
      Vec<Dual> z = before.z.cast<Dual>(), zd = before.zd.cast<Dual>(), zdA = after.zd.cast<Dual>(), h, S;
      for (Eigen::Index j = first; j < std::min(2 * nz, first + kLanes); ++j) {
        (j < nz ? z[j] : zd[j - nz]).g[j - first] = 1;
        if (j >= nz) zdA[j - nz].g[j - first] = 1;
      }
      events::contactGapsOn<Dual, Dual>(tree_, plain_.tree, z.data(), g.data());
      if (Status s = penaltyJumpOn<Dual>(st_, plain_.tree, dofs, t, z, zd, before.z, contacts, h); !s.ok()) return s;
      if (Status s = dyn::penaltyStartOn<Dual>(tree_, plain_.tree, alpha_, t, z, zdA, S); !s.ok()) return s;
      for (Eigen::Index j = first; j < std::min(2 * nz, first + kLanes); ++j) {
        const int lane = static_cast<int>(j - first);
        if (j < nz) J.cz[j] = -g[static_cast<std::size_t>(c0)].g[lane] / rate[c0];
        for (Eigen::Index i = 0; i < nz; ++i) {
          (j < nz ? J.hz(i, j) : J.hd(i, j - nz)) = h[i].g[lane];
          (j < nz ? J.Sz(i, j) : J.Sd(i, j - nz)) = S[i].g[lane];
        }
      }
    }
    J.cp.resize(p);
    J.hp.resize(nz, p);
    J.Sp.resize(nz, p);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const Vec<Dual> z = before.z.cast<Dual>(), zd = before.zd.cast<Dual>(), zdA = after.zd.cast<Dual>();
      Vec<Dual> h, S;
      events::contactGapsOn<Dual, Dual>(tree_, chunks_[c]->tree, z.data(), g.data());
      if (Status s = penaltyJumpOn<Dual>(st_, chunks_[c]->tree, dofs, t, z, zd, before.z, contacts, h); !s.ok()) return s;
      if (Status s = dyn::penaltyStartOn<Dual>(tree_, chunks_[c]->tree, alpha_, t, z, zdA, S); !s.ok()) return s;
      for (int j = 0; j < counts_[c]; ++j) {
        const Eigen::Index col = firsts_[c] + j;
        J.cp[col] = -g[static_cast<std::size_t>(c0)].g[j] / rate[c0];
        for (Eigen::Index i = 0; i < nz; ++i) {
          J.hp(i, col) = h[i].g[j];
          J.Sp(i, col) = S[i].g[j];
        }
      }
    }
    J.dv = after.zd - before.zd;
    J.w = J.hz * before.zd + J.hd * before.zdd - after.zdd;
    return {};
  }

  // the initial state's sensitivities (the assembly, the initial rates, z̈₀), nz × parameters each
  Status initial(const State& s0, Eigen::MatrixXd& Z, Eigen::MatrixXd& Zd, Eigen::MatrixXd& Zdd) const {
    const auto nz = s0.z.size(), p = static_cast<Eigen::Index>(st_.parameters.size());
    Z.setZero(nz, p);
    Zd.setZero(nz, p);
    Zdd.setZero(nz, p);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      Vec<Dual> z, zd, zdd;
      if (Status s = dyn::initialCoordinatesOn<Dual>(st_.model, chunks_[c]->tree, s0.z, z, zd); !s.ok()) return s;
      if (Status s = dyn::penaltyStartOn<Dual>(tree_, chunks_[c]->tree, alpha_, s0.t, z, zd, zdd); !s.ok()) return s;
      for (int j = 0; j < counts_[c]; ++j)
        for (Eigen::Index i = 0; i < nz; ++i) {
          Z(i, firsts_[c] + j) = z[i].g[j];
          Zd(i, firsts_[c] + j) = zd[i].g[j];
          Zdd(i, firsts_[c] + j) = zdd[i].g[j];
        }
    }
    return {};
  }

 private:
  const Study& st_;
  const dyn::RecursiveModel& tree_;
  double alpha_;
  NumbersOn<Dual> plain_;
  NumbersOn<double> real_;
  std::vector<std::unique_ptr<NumbersOn<Dual>>> chunks_;
  std::vector<Eigen::Index> firsts_;
  std::vector<int> counts_;
  std::vector<char> initialActive_;  // the forces' state at the start
};

}  // namespace

Status penaltyAdjointGradient(const Study& st, const PenaltyAdjointRecorder& rec, const CostSites* sites, std::vector<double>& values,
                              Eigen::MatrixXd& gradient, AdjointStats& stats) {
  PenaltyAdjoint adj(st, rec.alpha());
  const auto& times = rec.times;
  const auto nc = static_cast<Eigen::Index>(st.costs.names.size()), p = static_cast<Eigen::Index>(st.parameters.size());
  const std::size_t last = times.size() - 1;
  stats.recordBytes = rec.bytes();
  const auto& s0 = rec.saved.front();
  const State start{times[0], s0.z, s0.zd, s0.zdd};
  const auto nz = start.z.size();
  NodeOutputs o0;
  adj.outputs(start, o0);
  CostIntegrand integrand(st);
  integrand.setInitialOutputs(o0.values);
  const TargetTerms targets(st, integrand, sites);
  Eigen::MatrixXd lz = Eigen::MatrixXd::Zero(nz, nc), ld = lz, ldd = lz;
  Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(nc, p), beta = Eigen::MatrixXd::Zero(nc, o0.values.size());
  Eigen::VectorXd value = Eigen::VectorXd::Zero(nc);
  // a node's costs (weighted integrands, extremes, targets' terms): λ += gᵀ O, ∂ψ/∂ρ += g O_ρ +
  // g_ρ, β += g_init
  auto addNode = [&](const NodeOutputs& o, std::size_t n, double t) {
    const NodeCostTerms c = nodeCosts(st, integrand, targets, sites, rec.nodeSpan(n), static_cast<long>(n), t, o.values);
    value += c.g;
    lz += (c.gOut * o.Oz).transpose();
    ld += (c.gOut * o.Od).transpose();
    ldd += (c.gOut * o.Odd).transpose();
    grad += c.gOut * o.Op + c.gPar;
    beta += c.gInit;
  };
  // segments between saved states, last first: replay forward, then sweep backward
  for (std::size_t seg = rec.saved.size(); seg-- > 0;) {
    const std::size_t begin = rec.saved[seg].node, end = seg + 1 < rec.saved.size() ? rec.saved[seg + 1].node : last;
    if (end <= begin) continue;
    // the forces as they were in this segment (a switch can only end one)
    auto forcesAtStart = [&] {
      adj.restartForces();
      for (const auto& i : rec.impacts)
        if (i.node <= begin) adj.applySwitches(i.contacts);
    };
    forcesAtStart();
    std::vector<State> states(end - begin + 1);
    states[0] = {times[begin], rec.saved[seg].z, rec.saved[seg].zd, rec.saved[seg].zdd};
    for (std::size_t n = begin + 1; n <= end; ++n) {
      if (n == end && seg + 1 < rec.saved.size()) {
        const auto& sn = rec.saved[seg + 1];
        states[n - begin] = {times[n], sn.z, sn.zd, sn.zdd};
      } else {
        if (Status s = adj.recompute(states[n - begin - 1], times[n], states[n - begin]); !s.ok()) return s;
        ++stats.recomputedSteps;
      }
    }
    stats.segmentBytes = std::max(stats.segmentBytes, states.size() * 3 * static_cast<std::size_t>(nz) * sizeof(double));
    for (std::size_t n = end; n > begin; --n) {
      const State& a = states[n - begin - 1];
      const State& b = states[n - begin];
      NodeOutputs o;
      adj.outputs(b, o);
      addNode(o, n, b.t);
      if (const auto it = std::find_if(rec.impacts.begin(), rec.impacts.end(), [&](const auto& i) { return i.node == n; });
          it != rec.impacts.end()) {
        // an impact from a (just before) to b (just after): z̈⁺ = S(z, ż⁺) folded, then the
        // jump transposed with the integrands' change: s = −Δżᵀλz + wᵀλż − Δg, λz⁻ = λz +
        // h_zᵀλż + c_z s, λż⁻ = h_żᵀλż, ∂ψ/∂ρ += λżᵀ h_ρ + s c_ρ
        PenaltyAdjoint::Jump J;
        const State before{a.t, a.z, it->zdBefore, a.zdd};
        adj.applySwitches(it->contacts);  // z̈⁺ with a switch's forces; the jump itself takes none
        const Status js = adj.jump(before, b, it->contacts, J);
        forcesAtStart();
        if (!js.ok()) return js;
        lz += J.Sz.transpose() * ldd;
        ld += J.Sd.transpose() * ldd;
        grad += ldd.transpose() * J.Sp;
        NodeOutputs ob;
        adj.outputs(a, ob);
        Eigen::VectorXd gBefore, gAfter;
        Eigen::MatrixXd gOut, gInit, gPar;
        integrand(b.t, ob.values, gBefore, gOut, gInit, gPar);
        integrand(b.t, o.values, gAfter, gOut, gInit, gPar);
        Eigen::RowVectorXd dg = (gAfter - gBefore).transpose();
        for (Eigen::Index k = 0; k < dg.size(); ++k)
          if (st.costs.types[static_cast<std::size_t>(k)] != Cost::Type::Integral) dg[k] = 0;
        const Eigen::RowVectorXd sk = -J.dv.transpose() * lz + J.w.transpose() * ld - dg;
        grad += ld.transpose() * J.hp + sk.transpose() * J.cp;
        lz = lz + J.hz.transpose() * ld + J.cz * sk;
        ld = J.hd.transpose() * ld;
        ldd.setZero();
        continue;
      }
      StepJacobians J;
      if (Status s = adj.step(a, b, J); !s.ok()) return s;
      const double h = b.t - a.t;
      // the projections transposed
      const Eigen::MatrixXd mud = J.Pd.transpose() * ld + J.Qd.transpose() * ldd, mudd = J.Qdd.transpose() * ldd;
      grad += ld.transpose() * J.Pp + ldd.transpose() * J.Qp;
      // z₁ through ż* = 2/h z₁ + Ẑ', z̈* = 4/h² z₁ + Ẑ''; then F(z₁) = 0 transposed
      const Eigen::MatrixXd lZ = lz + J.Pz.transpose() * ld + J.Qz.transpose() * ldd + (2 / h) * mud + (4 / (h * h)) * mudd;
      const Eigen::MatrixXd nu = J.T.transpose().partialPivLu().solve(lZ);
      grad -= nu.transpose() * J.Fp;
      const Eigen::MatrixXd aD = mud - J.Fd.transpose() * nu, aDD = mudd - J.M.transpose() * nu;
      // Ẑ' = −(2/h Z₀ + Z'₀), Ẑ'' = −(4/h² Z₀ + 4/h Z'₀ + Z''₀)
      lz = -((2 / h) * aD + (4 / (h * h)) * aDD);
      ld = -(aD + (4 / h) * aDD);
      ldd = -aDD;
    }
  }
  // the start: its own cost, then the initial sensitivities and the initial values' derivatives
  addNode(o0, 0, start.t);
  Eigen::MatrixXd Z0, Zd0, Zdd0;
  if (Status s = adj.initial(start, Z0, Zd0, Zdd0); !s.ok()) return s;
  grad += lz.transpose() * Z0 + ld.transpose() * Zd0 + ldd.transpose() * Zdd0;
  grad += beta * (o0.Oz * Z0 + o0.Od * Zd0 + o0.Odd * Zdd0 + o0.Op);
  gradient = grad;
  values.assign(value.data(), value.data() + value.size());
  return {};
}

}  // namespace lw::sens::detail
