#include "events/impact_law.h"

#include <algorithm>
#include <complex>

#include "events/contact_gaps.h"
#include "numeric/jet.h"
#include "numeric/scalar.h"
#include "numeric/solve_on.h"

namespace lw::events {

template <class S>
Status impactOn(const dyn::MatrixRModel& m, const dyn::TreeNumbers<S>& p, const std::vector<dyn::Dof>& dofs, double t,
                const dyn::VectorOn<S>& zi, const dyn::VectorOn<S>& zidMinus, const Eigen::VectorXd& zStart,
                const std::vector<int>& contacts, ImpactOn<S>& out, const std::vector<int>& plastic) {
  dyn::MatrixROn<S> ev;
  if (Status s = dyn::evaluateOn<S>(m, p, dofs, t, zi, zidMinus, zStart, ev); !s.ok()) return s;
  return impactAt<S>(m, p, t, zidMinus, ev, contacts, out, plastic);
}

template <class S>
Status impactAt(const dyn::MatrixRModel& m, const dyn::TreeNumbers<S>& p, double t, const dyn::VectorOn<S>& zidMinus, const dyn::MatrixROn<S>& ev,
                const std::vector<int>& contacts, ImpactOn<S>& out, const std::vector<int>& plastic) {
  using Jet = kin::BasicJet<S>;
  using MatrixOn = num::MatrixOn<S>;
  const std::vector<GapSource> all = gapSources(m.tree);
  const int nz = m.tree.nz, d = static_cast<int>(ev.R.cols()), k = static_cast<int>(contacts.size());
  // the gaps along a direction δz of the coordinates: the first derivative part r_z δz
  std::vector<Jet> zj(static_cast<std::size_t>(nz)), g(all.size());
  auto along = [&](auto direction) {
    for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = Jet(ev.z[i], direction(i), S(0.0));
    contactGapsOn<Jet, S>(m.tree, p, zj.data(), g.data());
  };
  out.normalBefore.resize(k);
  along([&](int i) { return ev.zd[i]; });
  for (int j = 0; j < k; ++j) out.normalBefore[j] = g[static_cast<std::size_t>(contacts[static_cast<std::size_t>(j)])].d;
  MatrixOn Wc(d, k);  // w_j by column
  for (int c = 0; c < d; ++c) {
    along([&](int i) { return ev.R(i, c); });
    for (int j = 0; j < k; ++j) Wc(c, j) = g[static_cast<std::size_t>(contacts[static_cast<std::size_t>(j)])].d;
  }
  MatrixOn Y;  // W⁻¹ Wc
  const bool newton = all[static_cast<std::size_t>(contacts[0])].law == Contact::Law::Newton;
  if (newton) {
    if (!num::solveOn(ev.Mbar, Wc, Y)) return failure(Status::Code::Singular, t, "the reduced mass matrix is singular at the impact");
  } else {
    Y = Wc;
  }
  const MatrixOn A = Wc.transpose() * Y;
  MatrixOn rhs(k, 1), P;
  for (int j = 0; j < k; ++j) {
    const int c = contacts[static_cast<std::size_t>(j)];
    const bool stays = std::find(plastic.begin(), plastic.end(), c) != plastic.end();
    const S e = stays ? S(0.0) : restitutionOf(p, all[static_cast<std::size_t>(c)]);
    rhs(j, 0) = -(S(1.0) + e) * out.normalBefore[j];
  }
  // a contact whose point the mechanism holds still along the normal (its w is zero), or two
  // contacts that the mechanism moves together, have no impulse that separates them
  double scale = 0, smallest = 0;
  for (int j = 0; j < k; ++j) scale = std::max(scale, std::abs(num::value(A(j, j))));
  for (int j = 0; j < k; ++j) smallest = j == 0 ? std::abs(num::value(A(j, j))) : std::min(smallest, std::abs(num::value(A(j, j))));
  if (scale == 0 || smallest <= 1e-14 * scale || !num::solveOn(A, rhs, P)) {
    std::string names;
    for (int c : contacts) names += (names.empty() ? "" : ", ") + all[static_cast<std::size_t>(c)].label();
    return failure(Status::Code::Singular, t,
                   names + ": the mechanism cannot move the contact point along the plane's normal (or the joint along its coordinate) there, so no impulse "
                   "separates it (the point is held by the joints or drivers)");
  }
  out.impulse = P.col(0);
  out.zidPlus = zidMinus + Y * out.impulse;
  out.zdMinus = ev.zd;
  out.zdPlus = ev.zd + ev.R * (Y * out.impulse);
  out.normalAfter = out.normalBefore + A * out.impulse;
  return {};
}

#define LW_IMPACT_ON(S)                                                                                                         \
  template Status impactOn<S>(const dyn::MatrixRModel&, const dyn::TreeNumbers<S>&, const std::vector<dyn::Dof>&, double,      \
                              const dyn::VectorOn<S>&, const dyn::VectorOn<S>&, const Eigen::VectorXd&, const std::vector<int>&, \
                              ImpactOn<S>&, const std::vector<int>&);                                                     \
  template Status impactAt<S>(const dyn::MatrixRModel&, const dyn::TreeNumbers<S>&, double, const dyn::VectorOn<S>&,            \
                              const dyn::MatrixROn<S>&, const std::vector<int>&, ImpactOn<S>&, const std::vector<int>&);
LW_IMPACT_ON(double)
LW_IMPACT_ON(num::Dual8)
LW_IMPACT_ON(std::complex<double>)
#undef LW_IMPACT_ON

}  // namespace lw::events
