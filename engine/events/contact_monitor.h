// Watching a run's contacts (seed 001 §2.1, Remark 7): after each accepted step, did a gap fall
// through zero inside it? A crossing is bracketed (also a dip below zero between two positive
// ends, found from the gaps' cubic Hermite interpolant in time) and its time located on the
// step's own interpolant by TOMS 748 (Boost.Math) to 1e-12 s; the driver then cuts the step there.
// Direction filtering: a contact that has just bounced (ṙ⁺ > 0) is not found again at its
// own root. A switch remembers its side of its value: once it fired it waits until its coordinate
// is seen back on the near side (at a step's end, or as a maximum above the value inside a step,
// which then crosses again in the same step), so that it neither fires twice at one crossing nor
// misses a crossing that follows within a step or two; firings that accumulate stop the run.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "dynamics/recursive_model.h"
#include "events/contact_gaps.h"

namespace lw::events {

class ContactMonitor {
 public:
  explicit ContactMonitor(const dyn::RecursiveModel& tree);
  bool active() const { return count_ > 0; }
  /// The gaps and rates at an accepted state (a run's start, after an impact): the next step's
  /// start. `closingNow` receives the contacts that touch and close there (an impact at once).
  void start(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, std::vector<int>* closingNow = nullptr);
  /// A step from the last accepted state to (t, z, ż): did a contact close inside it? When one did,
  /// `closing` holds the contacts that close first (together, within `timeTolerance`) and tEvent
  /// their time, located on `gapsAt(τ, gaps)` (the step's interpolant at τ; false when it cannot
  /// be evaluated), or without it on the gaps' cubic Hermite interpolant from their values and
  /// rates at the step's ends (no evaluation: a start for a driver that refines the step's
  /// length itself). Otherwise the end becomes the next step's start.
  Status closesWithin(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                      const std::function<bool(double, Eigen::VectorXd&)>& gapsAt, double timeTolerance, bool& found, double& tEvent,
                      std::vector<int>& closing);
  /// The step was accepted as it is (no event): its end becomes the next start.
  void accept();
  /// A gap held closed (a resting contact, events/resting_contact.h) is not watched until it is
  /// released; a released one is watched again once it has opened beyond touching(), or as soon
  /// as it sinks touching() below where it was released (it comes back to rest): a formulation
  /// that holds it by a penalty leaves it a little inside, rising slowly.
  void setHeld(int gap, bool held) {
    held_[static_cast<std::size_t>(gap)] = held ? 1 : 0;
    released_[static_cast<std::size_t>(gap)] = held ? 0 : 1;
    releasedAt_[static_cast<std::size_t>(gap)] = NAN;
  }
  /// The switches among `closing` have fired at t: past their values until they come back. Fails
  /// when a switch's firings accumulate: kChatterFirings of them within the chatter window.
  Status fired(const std::vector<int>& closing, double t);
  /// A switch that fires more often than once a step (kChatterFirings times within as many steps)
  /// chatters: its crossings accumulate faster than the run resolves them (a sliding mode), and
  /// the run stops with the reason. 0: never.
  void setChatterStep(double step) { chatterWindow_ = static_cast<double>(kChatterFirings) * step; }
  static constexpr std::size_t kChatterFirings = 8;
  /// A length below which a gap counts as touching (1e-10 of the mechanism's size).
  double touching() const { return touching_; }
  /// The gaps and rates at the last state seen (a start, or a step's end).
  const Eigen::VectorXd& gaps() const { return g1_; }
  const Eigen::VectorXd& rates() const { return r1_; }

 private:
  const dyn::RecursiveModel& tree_;
  std::vector<GapSource> sources_;
  int count_ = 0;
  double touching_ = 1e-10;
  double t0_ = 0, t1_ = 0;
  Eigen::VectorXd g0_, r0_, g1_, r1_;  // start and end of the step
  GapEvaluator gapsOf_;
  Eigen::VectorXd inside_;             // the gaps at a time inside the step (locating)
  std::vector<double> roots_;
  std::vector<signed char> side_;      // switches: +1 on the near side of the value (armed), −1 past it
  std::vector<signed char> justFired_; // switches: fired at the current start (the event's own state)
  std::vector<signed char> held_;      // contacts and limits held closed: not watched
  std::vector<signed char> released_;  // let go and not yet open beyond touching
  std::vector<double> releasedAt_;     // their gaps where they were let go (NaN: at the next start)
  std::vector<std::vector<double>> firings_;  // switches: their last firing times
  double chatterWindow_ = 0;
  void updateSides(const Eigen::VectorXd& g);
  // the time where switch j's function falls through zero inside the step (INFINITY: none)
  double switchRoot(int j, double h, const std::function<double(double, int)>& gapAt, double timeTolerance);
};

}  // namespace lw::events
