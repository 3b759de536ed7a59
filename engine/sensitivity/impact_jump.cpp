#include "sensitivity/impact_jump.h"

#include <cmath>

#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "numeric/solve_on.h"

namespace lw::sens::detail {

namespace {

// x with lane j set to direction column first + j of D
Vec<Dual> lanes(const Eigen::VectorXd& x, const Eigen::MatrixXd& D, Eigen::Index first) {
  Vec<Dual> y(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    y[i] = Dual(x[i]);
    for (int j = 0; j < kLanes && first + j < D.cols(); ++j) y[i].g[j] = D(i, first + j);
  }
  return y;
}

// the gap of contact c as a function of (x, ρ) on Dual: the position problem, then r(z)
Status gapOn(const Study& st, const dyn::TreeNumbers<Dual>& numbers, const std::vector<dyn::Dof>& dofs, double t, const Vec<Dual>& x,
             const Vec<Dual>& v, const Eigen::VectorXd& z, int c, Dual& gap) {
  dyn::MatrixROn<Dual> e;
  if (Status s = dyn::evaluateOn<Dual>(st.model, numbers, dofs, t, x, v, z, e); !s.ok()) return s;
  std::vector<Dual> gaps(events::gapSources(st.model.tree).size());
  events::contactGapsOn<Dual, Dual>(st.model.tree, numbers, e.z.data(), gaps.data());
  gap = gaps[static_cast<std::size_t>(c)];
  return {};
}

// The gap of contact c and the impact law's żⁱ⁺ at (x, v) along the lanes of x, v and the
// numbers: by the tangent's kernels set at the state (its positions' and velocities' passes,
// R^Φ's and M^d's lanes, Θ_z factored once on doubles), or — the reference, without one — the
// whole pipeline on dual numbers, twice
struct JumpLanes {
  const Study& st;
  const std::vector<dyn::Dof>& dofs;
  double t;
  const Eigen::VectorXd& z;
  const std::vector<int>& contacts;
  const std::vector<int>& plastic;
  const dyn::MatrixRTangent* tangent;
  bool isSwitch;

  Status operator()(const dyn::TreeNumbers<Dual>& numbers, bool seeded, const Vec<Dual>& x, const Vec<Dual>& v, Dual& gap, Vec<Dual>& zidPlus) const {
    const int c = contacts[0];
    events::ImpactOn<Dual> h;
    if (!tangent) {
      if (Status s = gapOn(st, numbers, dofs, t, x, v, z, c, gap); !s.ok()) return s;
      if (!isSwitch)
        if (Status s = events::impactOn<Dual>(st.model, numbers, dofs, t, x, v, z, contacts, h, plastic); !s.ok()) return s;
    } else {
      dyn::MatrixROn<Dual> ev;
      // a switch reads the gap alone
      if (Status s = impactByKernels(st, *tangent, numbers, seeded, t, x, v, contacts, plastic, ev, isSwitch ? nullptr : &h); !s.ok()) return s;
      std::vector<Dual> gaps(events::gapSources(st.model.tree).size());
      events::contactGapsOn<Dual, Dual>(st.model.tree, numbers, ev.z.data(), gaps.data());
      gap = gaps[static_cast<std::size_t>(c)];
    }
    // a switch of the equations of motion changes no velocity: h = identity (Theorem 4)
    zidPlus = isSwitch ? v : h.zidPlus;
    return {};
  }
};

}  // namespace

bool jumpTangentAt(const Study& st, const dyn::TreeNumbers<double>& values, const std::vector<dyn::Dof>& dofs, double t, const Eigen::VectorXd& x,
                   const Eigen::VectorXd& v, const Eigen::VectorXd& zStart, dyn::MatrixRTangent& tangent) {
  dyn::MatrixROn<double> e;
  return !dofs.empty() && dyn::evaluateOn<double>(st.model, values, dofs, t, x, v, zStart, e).ok() && tangent.at(st.model, values, dofs, t, e).ok();
}

Status impactByKernels(const Study& st, const dyn::MatrixRTangent& tangent, const dyn::TreeNumbers<Dual>& p, bool seeded, double t, const Vec<Dual>& x,
                       const Vec<Dual>& v, const std::vector<int>& contacts, const std::vector<int>& plastic, dyn::MatrixROn<Dual>& ev,
                       events::ImpactOn<Dual>* h) {
  num::MatrixOn<Dual> Md;
  tangent.velocitiesAlong(p, seeded, x, v, ev.z, ev.zd, ev.R, Md);
  ev.Mbar = ev.R.transpose() * (Md * ev.R);
  return h ? events::impactAt<Dual>(st.model, p, t, v, ev, contacts, *h, plastic) : Status{};
}

Status differentiableImpact(const Study& st, const std::vector<int>& contacts, double t, double normalBefore) {
  const std::vector<events::GapSource> all = events::gapSources(st.model.tree);
  std::string names;
  for (int c : contacts) names += (names.empty() ? "" : ", ") + all[static_cast<std::size_t>(c)].label();
  if (contacts.size() != 1)
    return failure(Status::Code::BadRequest, t,
                   names + " close together at t = " + shortNumber(t) +
                       " s: a perturbation parts their impact times, so the sensitivities through them do not exist");
  if (!st.resolved.drivers.empty())
    return failure(Status::Code::BadRequest, t,
                   "an impact at t = " + shortNumber(t) + " s of a driven mechanism: sensitivities through it (the jump's time derivative) are not available yet");
  // grazing where ṙ⁻ vanishes on the mechanism's scale √(g L)
  const double scale = std::sqrt(std::max(1.0, st.resolved.gravity.norm()) * std::max(1e-3, st.resolved.lengthScale()));
  if (!(std::abs(normalBefore) > 1e-6 * scale))
    return failure(Status::Code::Singular, t,
                   names + " grazes its plane or stop at t = " + shortNumber(t) + " s (normal velocity " + shortNumber(normalBefore) +
                       " m/s): the impact time's sensitivity is unbounded there");
  return {};
}

Status impactJump(const Study& st, const std::vector<dyn::Dof>& dofs, const integ::State& before, const integ::State& after,
                  const std::vector<int>& contacts, const Eigen::VectorXd& z, ImpactJump& out, const std::vector<int>& plastic,
                  const dyn::MatrixRTangent* tangent) {
  const double t = before.t;
  const auto d = static_cast<Eigen::Index>(dofs.size()), p = static_cast<Eigen::Index>(st.parameters.size());
  const int c = contacts[0];
  const NumbersOn<Dual> plain(st, {}, {});
  out.t = t;
  const bool isSwitch = events::gapSources(st.model.tree)[static_cast<std::size_t>(c)].isSwitch();
  const JumpLanes along{st, dofs, t, z, contacts, plastic, tangent, isSwitch};
  // r_x and h_x, h_v: the state's directions, eight per pass
  out.cx.resize(d);
  out.hx.resize(d, d);
  out.hv.resize(d, d);
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(2 * d, 2 * d);
  for (Eigen::Index first = 0; first < 2 * d; first += kLanes) {
    const Vec<Dual> x = lanes(before.x, I.topRows(d), first), v = lanes(before.v, I.bottomRows(d), first);
    Dual gap;
    Vec<Dual> zidPlus;
    if (Status s = along(plain.tree, false, x, v, gap, zidPlus); !s.ok()) return s;
    for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
      const int lane = static_cast<int>(j - first);
      if (j < d) out.cx[j] = gap.g[lane];
      for (Eigen::Index i = 0; i < d; ++i) (j < d ? out.hx(i, j) : out.hv(i, j - d)) = zidPlus[i].g[lane];
    }
  }
  // ṙ⁻ = r_x v⁻ (no drivers: r_t = 0)
  out.normalBefore = out.cx.dot(before.v);
  // contacts at rest from the start (touching, not moving): held closed there, no crossing whose
  // time could move; only the e = 0 law's projection of the velocities
  const bool restingFromStart = t == 0 && plastic.size() == contacts.size();
  if (restingFromStart) {
    if (!st.resolved.drivers.empty()) return differentiableImpact(st, contacts, t, out.normalBefore);
    out.cx.setZero();
  } else {
    if (Status s = differentiableImpact(st, contacts, t, out.normalBefore); !s.ok()) return s;
    out.cx /= -out.normalBefore;
  }
  // r_ρ and h_ρ: the parameters' chunks at the state
  out.cp.resize(p);
  out.hp.resize(d, p);
  for (const ParameterChunk& chunk : parameterChunks(st)) {
    const NumbersOn<Dual> seeded(st, chunk.seeded, chunk.seeds);
    const Vec<Dual> x = lanes(before.x, Eigen::MatrixXd(), 0), v = lanes(before.v, Eigen::MatrixXd(), 0);
    Dual gap;
    Vec<Dual> zidPlus;
    if (Status s = along(seeded.tree, true, x, v, gap, zidPlus); !s.ok()) return s;
    for (std::size_t j = 0; j < chunk.seeded.size(); ++j) {
      const auto col = static_cast<Eigen::Index>(chunk.first + j);
      out.cp[col] = restingFromStart ? 0.0 : -gap.g[static_cast<int>(j)] / out.normalBefore;
      for (Eigen::Index i = 0; i < d; ++i) out.hp(i, col) = zidPlus[i].g[static_cast<int>(j)];
    }
  }
  out.dv = after.v - before.v;
  out.w = out.hx * before.v + out.hv * before.a - after.a;
  return {};
}

}  // namespace lw::sens::detail
