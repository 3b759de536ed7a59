#include "sensitivity/run_record.h"

#include <algorithm>
#include <cmath>

namespace lw::sens::detail {

void TimeList::push(double t) {
  const double k = dt_ > 0 ? std::round(t / dt_) : 0;
  const bool onGrid = dt_ > 0 && k * dt_ == t;
  if (!runs_.empty()) {
    const Run& r = runs_.back();
    if (r.grid && onGrid && k == r.k0 + static_cast<double>(size_ - r.first)) {
      ++size_;
      return;
    }
    if (!r.grid && !onGrid) {
      listed_.push_back(t);
      ++size_;
      return;
    }
  }
  if (onGrid) {
    runs_.push_back({size_, k, 0, true});
  } else {
    runs_.push_back({size_, 0, listed_.size(), false});
    listed_.push_back(t);
  }
  ++size_;
}

double TimeList::operator[](std::size_t i) const {
  const auto it = std::upper_bound(runs_.begin(), runs_.end(), i, [](std::size_t n, const Run& r) { return n < r.first; });
  const Run& r = *(it - 1);
  const std::size_t j = i - r.first;
  return r.grid ? (r.k0 + static_cast<double>(j)) * dt_ : listed_[r.listed + j];
}

void RunRecord::push(double t, int coords) {
  if (coordRuns_.empty() || coordRuns_.back().coords != coords) coordRuns_.push_back({times_.size(), coords});
  times_.push(t);
}

namespace {
std::size_t pointBytes(const RunPoint& p) {
  return sizeof(double) * static_cast<std::size_t>(p.x.size() + p.v.size() + p.a.size() + p.aux.size());
}
}  // namespace

void RunRecord::save(const RunPoint& p, bool kept) {
  saved.push_back({size() - 1, p, kept});
  savedBytes_ += pointBytes(p);
  sinceSaved_ = 0;
  if (automatic_ && savedBytes_ > budget_) thin();
}

// every other point between the kept ones dropped: the interval doubles, memory halves
void RunRecord::thin() {
  std::vector<Saved> out;
  out.reserve(saved.size() / 2 + 1);
  bool keep = false;  // after each kept point: the first dropped, the second kept, ...
  savedBytes_ = 0;
  for (auto& s : saved) {
    const bool stays = s.kept || keep;
    keep = s.kept ? false : !keep;
    if (!stays) continue;
    savedBytes_ += pointBytes(s.point);
    out.push_back(std::move(s));
  }
  const bool lastDropped = !saved.empty() && out.back().item != saved.back().item;  // moved-from items keep their index
  saved = std::move(out);
  if (lastDropped) sinceSaved_ += interval_;
  interval_ *= 2;
}

Status RunRecord::start(const RunPoint& p) {
  marks_.push_back({size(), Item::Kind::Start, -1});
  push(p.t, p.coords);
  save(p, true);
  return {};
}

Status RunRecord::step(const RunPoint& from, const RunPoint& to, const StagePoints*) {
  // a step starts where the item before it ended: its start time is not kept
  if (from.t != times_.back())
    return failure(Status::Code::BadRequest, from.t, "the run's record: a step from t = " + shortNumber(from.t) + " s does not start where the last item ended");
  push(to.t, to.coords);
  if (++sinceSaved_ >= interval_) save(to);
  return {};
}

Status RunRecord::changed(const RunPoint&, const RunPoint& after) {
  marks_.push_back({size(), Item::Kind::Change, -1});
  changes_.push_back(size());
  push(after.t, after.coords);
  save(after, true);
  return {};
}

Status RunRecord::impact(const RunPoint&, const RunPoint& after, const std::vector<int>& contacts) {
  impacts.push_back(contacts);
  marks_.push_back({size(), Item::Kind::Impact, static_cast<int>(impacts.size()) - 1});
  push(after.t, after.coords);
  save(after, true);
  return {};
}

const RunRecord::Mark* RunRecord::markAt(std::size_t i) const {
  const auto it = std::lower_bound(marks_.begin(), marks_.end(), i, [](const Mark& m, std::size_t n) { return m.item < n; });
  return it != marks_.end() && it->item == i ? &*it : nullptr;
}

RunRecord::Item RunRecord::item(std::size_t i) const {
  Item it;
  it.t1 = times_[i];
  it.t0 = i > 0 ? times_[i - 1] : it.t1;
  const auto run = std::upper_bound(coordRuns_.begin(), coordRuns_.end(), i, [](std::size_t n, const CoordsRun& r) { return n < r.first; });
  it.coords = (run - 1)->coords;
  if (const Mark* m = markAt(i)) {
    it.kind = m->kind;
    it.impact = m->impact;
    if (m->kind != Item::Kind::Step) it.t0 = it.t1;  // an instant
  }
  return it;
}

long RunRecord::nodeOf(std::size_t i) const {
  return static_cast<long>(i) - static_cast<long>(std::lower_bound(changes_.begin(), changes_.end(), i) - changes_.begin());
}

NodeSpan RunRecord::nodeSpan(std::size_t i) const {
  auto isChange = [&](std::size_t j) { return std::binary_search(changes_.begin(), changes_.end(), j); };
  NodeSpan s;
  s.last = true;
  const double t = times_[i];
  for (std::size_t j = i; j-- > 0;)
    if (!isChange(j)) {
      s.before = t - times_[j];
      break;
    }
  for (std::size_t j = i + 1; j < size(); ++j)
    if (!isChange(j)) {
      s.after = times_[j] - t;
      s.last = false;
      break;
    }
  return s;
}

std::vector<std::pair<std::size_t, std::size_t>> RunRecord::impactItems() const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const Mark& m : marks_)
    if (m.kind == Item::Kind::Impact) out.emplace_back(m.item, static_cast<std::size_t>(m.impact));
  return out;
}

std::size_t RunRecord::bytes() const {
  std::size_t b = times_.bytes() + marks_.capacity() * sizeof(Mark) + changes_.capacity() * sizeof(std::size_t) +
                  coordRuns_.capacity() * sizeof(CoordsRun) + saved.capacity() * sizeof(Saved);
  for (const auto& s : saved) b += pointBytes(s.point);
  return b;
}

}  // namespace lw::sens::detail
