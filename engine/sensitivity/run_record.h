// A forward run recorded for the adjoint and the replays (internal to engine/sensitivity): every
// point's time (compactly), the coordinate set by runs of points, the start, changes of
// coordinates and impacts as marks, and a full point at the start and after every `interval`
// steps (interval 1: the whole trajectory stored). The same record for every formulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

/// A node among the run's nodes: the time steps to the one before and after it (0 at the ends),
/// and whether it is the last.
struct NodeSpan {
  double before = 0, after = 0;
  bool last = false;
};

/// The times of a run's points, compact: a run of times on the grid k·dt (the trapezoidal rule's
/// step ends, which the run computes as k·dt) costs one entry for the whole run, other times 8
/// bytes each. What keeps a 10^6-step adjoint's record within the forward run's memory.
class TimeList {
 public:
  explicit TimeList(double dt) : dt_(dt) {}
  void push(double t);
  double operator[](std::size_t i) const;
  double back() const { return (*this)[size_ - 1]; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return runs_.capacity() * sizeof(Run) + listed_.capacity() * sizeof(double); }

 private:
  struct Run {
    std::size_t first = 0;   // the index of its first time
    double k0 = 0;           // on the grid: time j of the run is (k0 + j)·dt
    std::size_t listed = 0;  // off it: time j is listed_[listed + j]
    bool grid = false;
  };
  double dt_;
  std::vector<Run> runs_;
  std::vector<double> listed_;
  std::size_t size_ = 0;
};

class RunRecord : public PointObserver {
 public:
  /// dt: the run's nominal step (its grid). interval ≥ 1: a point saved every `interval` steps.
  /// interval 0: every point while the saved points fit in `budget` bytes (the adjoint then
  /// recomputes no step), beyond it every other one dropped, as often as it takes (the interval
  /// doubles each time; impacts' and changes' points always kept).
  RunRecord(long interval, double dt, std::size_t budget = 0)
      : times_(dt), interval_(interval < 1 ? 1 : interval), automatic_(interval < 1), budget_(budget) {}
  /// Steps between saved points (the last doubling's, for an automatic record).
  long interval() const { return interval_; }
  /// One item of the run: the start, a step, a change of coordinates or an impact.
  struct Item {
    enum class Kind : std::uint8_t { Start, Step, Change, Impact };
    double t0 = 0, t1 = 0;
    int coords = 0;
    int impact = -1;  // Impact: index into impacts (its contacts)
    Kind kind = Kind::Step;
  };
  Status start(const RunPoint& p) override;
  Status step(const RunPoint& from, const RunPoint& to, const StagePoints* stages) override;
  Status changed(const RunPoint& before, const RunPoint& after) override;
  /// An impact: the point after it saved (a segment ends at each), the contacts kept.
  Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts) override;

  std::size_t size() const { return times_.size(); }
  Item item(std::size_t i) const;
  /// The items that are not changes of coordinates (the run's points, where costs are taken) are
  /// its nodes: item i's node index, and its place among them.
  long nodeOf(std::size_t i) const;
  NodeSpan nodeSpan(std::size_t i) const;
  /// The impacts' items, in order, with their indices into impacts.
  std::vector<std::pair<std::size_t, std::size_t>> impactItems() const;
  struct Saved {
    std::size_t item = 0;  // the point after this item
    RunPoint point;
    bool kept = false;     // the start, an impact's or a change's: never thinned out
  };
  std::vector<std::vector<int>> impacts;  // their contacts
  std::vector<Saved> saved;               // in item order
  std::size_t bytes() const;              // what the recording holds

 private:
  struct Mark {  // an item that is not a step
    std::size_t item = 0;
    Item::Kind kind = Item::Kind::Start;
    int impact = -1;
  };
  struct CoordsRun {
    std::size_t first = 0;
    int coords = 0;
  };
  void push(double t, int coords);
  void save(const RunPoint& p, bool kept = false);
  void thin();
  const Mark* markAt(std::size_t i) const;
  TimeList times_;
  std::vector<Mark> marks_;
  std::vector<std::size_t> changes_;  // the changes' items, in order
  std::vector<CoordsRun> coordRuns_;
  long interval_;
  bool automatic_;
  std::size_t budget_, savedBytes_ = 0;
  long sinceSaved_ = 0;
};

}  // namespace lw::sens::detail
