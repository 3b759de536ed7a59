// Sustained contact (Adams' and Chrono's resting contact): a contact or joint limit that closes
// too slowly to bounce again (its bounces accumulating towards the Zeno point t∞) stays closed:
// the impact that closes it has e = 0, and from then on the gap is a bilateral constraint held by
// a normal force λ ≥ 0, until that force would pull (λ falls through zero: the contact opens, the
// velocities unchanged). The held gaps enter the reduced equations of Matrix R through their
// gradients w_j = R^Φᵀ r_{j,z}ᵀ (the impact law's, events/impact_law.h):
//   M̄ z̈ⁱ = Q̄ + W λ,   Wᵀ z̈ⁱ + γ = −2ω ṙ − ω² r   (γ = r̈ at z̈ⁱ = 0)
// so λ = (Wᵀ M̄⁻¹ W)⁺ (−2ωṙ − ω²r − r̈_free) with r̈_free the gaps' acceleration without them; the
// Baumgarte terms (ω from the mechanism's time scale √(L/g)) keep the integration's drift off the
// constraint (r and ṙ start at zero: the e = 0 impact leaves ṙ = 0). The pseudo-inverse serves
// redundant supports (a bar on three collinear points): the least-norm forces.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "dynamics/matrix_r.h"
#include "dynamics/matrix_r_derivatives.h"
#include "dynamics/penalty.h"
#include "events/contact_gaps.h"
#include "events/contact_monitor.h"
#include "events/impact_law.h"
#include "kinematics/natural_model.h"
#include "numeric/jet.h"

namespace lw::events {

/// The gaps held closed during a run (run state: the model is not changed) and their forces. To
/// the penalty formulation they are constraints like the loops' (rows of Φ, Φ_z, c), enforced by
/// its penalty; their forces are measured as Matrix R's (apply) at the step's ends.
class RestingContacts final : public dyn::ExtraConstraints {
 public:
  /// ω: the Baumgarte rate (1/s) that pulls a drifting gap back to zero, critically damped.
  /// `monitor` (optional): the run's, told which gaps are held (it does not watch them).
  RestingContacts(const dyn::RecursiveModel& tree, double omega, ContactMonitor* monitor = nullptr);
  bool any() const { return !held_.empty(); }
  const std::vector<int>& held() const { return held_; }
  bool isHeld(int gap) const;
  void hold(int gap);
  void release(int gap);
  /// The gaps `closing` (an impact with e = 0 has just closed them) held; those whose force then
  /// pulls (`measure()` gives the forces at the state) let go at once: they leave `closing`.
  Status holdAll(std::vector<int>& closing, const std::function<Status()>& measure);
  /// At a state `evaluate` has just filled: the held gaps' forces λ, added to the accelerations
  /// (data.zidd, data.zdd). Fails when a held gap cannot be moved along its normal at all.
  /// `stabilised`: with the Baumgarte terms (a run of Matrix R); without them, the force that
  /// holds r̈ = 0 (the measure of a contact another formulation holds, whose small r and ṙ are
  /// its own compliance, not drift).
  Status apply(const dyn::MatrixRModel& m, dyn::MatrixRData& d, bool stabilised = true);
  /// The held gaps' rows r, r_z and c = −żᵀ r_zz ż at (z, ż) (the penalty's constraints).
  int rows() const override { return static_cast<int>(held_.size()); }
  void evaluate(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& phi, Eigen::MatrixXd& J, Eigen::VectorXd& c) override;
  /// λ of each held gap (held() order) at the last apply: N for contacts, N or N·m for limits.
  const Eigen::VectorXd& forces() const { return force_; }
  /// The held gap whose force pulls most (below −tolerance), or −1: it opens.
  int pulling() const;
  /// A force this small (1e-9 of the mechanism's weight times its size) counts as zero.
  double forceTolerance() const { return forceTolerance_; }

 private:
  const dyn::RecursiveModel& tree_;
  std::vector<GapSource> sources_;
  std::vector<int> held_;
  double omega_;
  ContactMonitor* monitor_ = nullptr;
  double forceTolerance_;  // a force this small (of the mechanism's weight) is zero
  Eigen::VectorXd force_;
};

/// The held gaps' forces at a state evaluated on any scalar S (double, dual numbers, complex
/// steps: the sensitivities through a rest), added to e's accelerations as apply() adds them:
/// λ = (Wᵀ M̄⁻¹ W)⁻¹ (−2ωṙ − ω²r − r̈_free) (ω = 0: the force that holds r̈ = 0). `held` gap
/// indices (gapSources' order), `force` λ in held's order. Off doubles, redundant
/// supports are refused: their least-norm forces have no derivative where the rank changes.
template <class S>
Status holdOn(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p, const std::vector<int>& held, double omega, double t,
              dyn::MatrixROn<S>& e, dyn::VectorOn<S>& force);

/// The held gaps as constraint rows at z on S (the penalty formulation enforces them like the
/// loops, dynamics/penalty_derivatives.h): r, r_z and, along ż when given, c = −żᵀ r_zz ż.
template <class S>
void heldRowsOn(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p, const std::vector<int>& held, const dyn::VectorOn<S>& z,
                const dyn::VectorOn<S>* zd, dyn::VectorOn<S>& phi, Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& J, dyn::VectorOn<S>& c);

/// Where held gap `gap` opens inside a step from t0 (its forces `atStart`, held() order then) to
/// t1 (forces() now, pulling): the Illinois rule on its force between them, `forceAt(t)` taking
/// the step again from its start to t and measuring the forces there (forces() after it). The run
/// is left at the last time tried, within `timeTolerance` of the zero or where the force is within
/// forceTolerance() of it.
Status locateOpening(RestingContacts& resting, int gap, double t0, const Eigen::VectorXd& atStart, double t1, double timeTolerance,
                     const std::function<Status(double)>& forceAt);

/// The gaps `held` (gap indices) as rows of the natural model (kin::HeldGap: a contact's plane, a
/// stop's joint at its value with the numbers p, less its stored coordinate).
std::vector<kin::HeldGap> naturalHeldGaps(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<double>& p, const std::vector<int>& held);

/// The Baumgarte rate for a mechanism: 10 √(g/L) (L its length scale, g at least 1 m/s²).
double restingOmega(const ResolvedMechanism& m);

/// The contacts among `closing` (gap indices) that come to rest after the impact `imp` left the
/// mechanism at (z, ż, z̈): those whose next flight 2ṙ⁺/|r̈⁺| would be shorter than `flight`, or
/// that leave slower than `resting` (a bounce that the next ones would follow without end).
std::vector<int> comingToRest(const dyn::RecursiveModel& tree, const std::vector<int>& closing, const ImpactOn<double>& imp,
                              const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, double flight, double resting);

}  // namespace lw::events
