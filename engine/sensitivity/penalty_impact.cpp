#include "sensitivity/penalty_impact.h"

#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "sensitivity/impact_jump.h"

namespace lw::sens::detail {

std::vector<dyn::Dof> penaltyImpactDofs(const Study& st, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd) {
  dyn::MatrixRData data(st.model);
  data.t = t;
  data.z = z;
  data.zd = zd;
  (void)dyn::chooseDofs(st.model, data);
  return data.dofs;
}

Status penaltyImpactAt(const Study& st, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zdBefore, const std::vector<int>& contacts,
                       double& rate, std::vector<dyn::Dof>& dofs, bool restingFromStart) {
  Eigen::VectorXd gap, rates;
  events::contactGaps(st.model.tree, z, zdBefore, gap, rates);
  rate = rates[contacts.front()];
  if (restingFromStart && !st.resolved.drivers.empty()) return differentiableImpact(st, contacts, t, rate);
  if (!restingFromStart)
    if (Status s = differentiableImpact(st, contacts, t, rate); !s.ok()) return s;
  dofs = penaltyImpactDofs(st, t, z, zdBefore);
  return {};
}

template <class S>
Status penaltyJumpOn(const Study& st, const dyn::TreeNumbers<S>& p, const std::vector<dyn::Dof>& dofs, double t, const Vec<S>& z,
                     const Vec<S>& zd, const Eigen::VectorXd& zStart, const std::vector<int>& contacts, Vec<S>& zdPlus,
                     const std::vector<int>& plastic, const dyn::MatrixRTangent* tangent) {
  // a switch of the equations of motion changes no velocity (seed 001 Theorem 4): its forces are
  // turned on and off in the numbers by the caller (events::applySwitches); the forward run takes
  // switches alone, never with an impact
  bool switches = !contacts.empty();
  for (int c : contacts) switches = switches && events::gapSources(st.model.tree)[static_cast<std::size_t>(c)].isSwitch();
  if (switches) {
    zdPlus = zd;
    return {};
  }
  Vec<S> zi, zid;
  dyn::independentOn<S>(st.model, p, dofs, z, zd, nullptr, zi, zid, nullptr);
  events::ImpactOn<S> imp;
  if constexpr (std::is_same_v<S, Dual>) {
    if (tangent) {  // the state's lanes through zⁱ, żⁱ's; seeded: the numbers may carry some
      dyn::MatrixROn<Dual> ev;
      if (Status s = impactByKernels(st, *tangent, p, true, t, zi, zid, contacts, plastic, ev, &imp); !s.ok()) return s;
      zdPlus = zd + (imp.zdPlus - imp.zdMinus);
      return {};
    }
  }
  if (Status s = events::impactOn<S>(st.model, p, dofs, t, zi, zid, zStart, contacts, imp, plastic); !s.ok()) return s;
  zdPlus = zd + (imp.zdPlus - imp.zdMinus);
  return {};
}

bool penaltyJumpTangent(const Study& st, const dyn::TreeNumbers<double>& values, const std::vector<dyn::Dof>& dofs, double t, const Eigen::VectorXd& z,
                        const Eigen::VectorXd& zd, dyn::MatrixRTangent& tangent) {
  Vec<double> zi, zid;
  dyn::independentOn<double>(st.model, values, dofs, z, zd, nullptr, zi, zid, nullptr);
  return jumpTangentAt(st, values, dofs, t, zi, zid, z, tangent);
}

template Status penaltyJumpOn<double>(const Study&, const dyn::TreeNumbers<double>&, const std::vector<dyn::Dof>&, double, const Vec<double>&,
                                      const Vec<double>&, const Eigen::VectorXd&, const std::vector<int>&, Vec<double>&,
                                      const std::vector<int>&, const dyn::MatrixRTangent*);
template Status penaltyJumpOn<Dual>(const Study&, const dyn::TreeNumbers<Dual>&, const std::vector<dyn::Dof>&, double, const Vec<Dual>&,
                                    const Vec<Dual>&, const Eigen::VectorXd&, const std::vector<int>&, Vec<Dual>&,
                                      const std::vector<int>&, const dyn::MatrixRTangent*);
template Status penaltyJumpOn<Cplx>(const Study&, const dyn::TreeNumbers<Cplx>&, const std::vector<dyn::Dof>&, double, const Vec<Cplx>&,
                                    const Vec<Cplx>&, const Eigen::VectorXd&, const std::vector<int>&, Vec<Cplx>&,
                                      const std::vector<int>&, const dyn::MatrixRTangent*);

}  // namespace lw::sens::detail
