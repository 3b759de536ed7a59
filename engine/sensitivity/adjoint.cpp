#include "sensitivity/adjoint.h"

#include <Eigen/LU>
#include <algorithm>

#include "sensitivity/cost_integrand.h"
#include "events/contact_gaps.h"
#include "sensitivity/impact_jump.h"

namespace lw::sens::detail {

// ---- the recording ----

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

int AdjointRecorder::dofIndex(const std::vector<dyn::Dof>& dofs) {
  for (std::size_t i = 0; i < dofSets.size(); ++i)
    if (dofSets[i] == dofs) return static_cast<int>(i);
  dofSets.push_back(dofs);
  return static_cast<int>(dofSets.size()) - 1;
}

void AdjointRecorder::push(double t, int dofs) {
  if (dofRuns_.empty() || dofRuns_.back().dofs != dofs) dofRuns_.push_back({times_.size(), dofs});
  times_.push(t);
}

void AdjointRecorder::save(const integ::State& s, const Eigen::VectorXd& z) {
  saved.push_back({size() - 1, s.x, s.v, s.a, z});
  sinceSaved_ = 0;
}

Status AdjointRecorder::start(const dyn::MatrixRModel&, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) {
  marks_.push_back({size(), Item::Kind::Start, -1, -1});
  push(s.t, dofIndex(dofs));
  save(s, z);
  return {};
}

Status AdjointRecorder::step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& to, const Eigen::VectorXd& z) {
  // a step starts where the item before it ended: its start time is not kept
  if (from.t != times_.back())
    return failure(Status::Code::BadRequest, from.t, "the adjoint's record: a step from t = " + shortNumber(from.t) + " s does not start where the last item ended");
  push(to.t, dofIndex(dofs));
  if (++sinceSaved_ >= interval_) save(to, z);
  return {};
}

Status AdjointRecorder::switched(const std::vector<dyn::Dof>& before, const std::vector<dyn::Dof>& after, const integ::State& s,
                                 const Eigen::VectorXd& z) {
  const int b = dofIndex(before);
  marks_.push_back({size(), Item::Kind::Switch, b, -1});
  switches_.push_back(size());
  push(s.t, dofIndex(after));
  save(s, z);
  return {};
}

Status AdjointRecorder::impact(const std::vector<dyn::Dof>& dofs, const integ::State&, const integ::State& after, const std::vector<int>& contacts,
                               const Eigen::VectorXd& z) {
  impacts.push_back(contacts);
  marks_.push_back({size(), Item::Kind::Impact, -1, static_cast<int>(impacts.size()) - 1});
  push(after.t, dofIndex(dofs));
  save(after, z);
  return {};
}

const AdjointRecorder::Mark* AdjointRecorder::markAt(std::size_t i) const {
  const auto it = std::lower_bound(marks_.begin(), marks_.end(), i, [](const Mark& m, std::size_t n) { return m.item < n; });
  return it != marks_.end() && it->item == i ? &*it : nullptr;
}

AdjointRecorder::Item AdjointRecorder::item(std::size_t i) const {
  Item it;
  it.t1 = times_[i];
  it.t0 = i > 0 ? times_[i - 1] : it.t1;
  const auto run = std::upper_bound(dofRuns_.begin(), dofRuns_.end(), i, [](std::size_t n, const DofsRun& r) { return n < r.first; });
  it.dofs = (run - 1)->dofs;
  if (const Mark* m = markAt(i)) {
    it.kind = m->kind;
    it.before = m->before;
    it.impact = m->impact;
    if (m->kind != Item::Kind::Step) it.t0 = it.t1;  // an instant
  }
  return it;
}

long AdjointRecorder::nodeOf(std::size_t i) const {
  return static_cast<long>(i) - static_cast<long>(std::lower_bound(switches_.begin(), switches_.end(), i) - switches_.begin());
}

NodeSpan AdjointRecorder::nodeSpan(std::size_t i) const {
  auto isSwitch = [&](std::size_t j) { return std::binary_search(switches_.begin(), switches_.end(), j); };
  NodeSpan s;
  s.last = true;
  const double t = times_[i];
  for (std::size_t j = i; j-- > 0;)
    if (!isSwitch(j)) {
      s.before = t - times_[j];
      break;
    }
  for (std::size_t j = i + 1; j < size(); ++j)
    if (!isSwitch(j)) {
      s.after = times_[j] - t;
      s.last = false;
      break;
    }
  return s;
}

std::vector<std::pair<std::size_t, std::size_t>> AdjointRecorder::impactItems() const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const Mark& m : marks_)
    if (m.kind == Item::Kind::Impact) out.emplace_back(m.item, static_cast<std::size_t>(m.impact));
  return out;
}

std::size_t AdjointRecorder::bytes() const {
  std::size_t b = times_.bytes() + marks_.capacity() * sizeof(Mark) + switches_.capacity() * sizeof(std::size_t) +
                  dofRuns_.capacity() * sizeof(DofsRun) + saved.capacity() * sizeof(Saved);
  for (const auto& s : saved) b += sizeof(double) * static_cast<std::size_t>(s.x.size() + s.v.size() + s.a.size() + s.z.size());
  return b;
}

namespace {

// A state of the run in the coordinates `dofs`.
struct Point {
  double t = 0;
  int dofs = -1;
  Eigen::VectorXd x, v, a, z;
};

// The partial derivatives at a node: f's and the outputs' with respect to x, v and the chosen
// parameters (forward AD, eight directions per pass), the outputs' values
struct Node {
  double t = 0;
  Eigen::MatrixXd Fx, Fv, Fp, Ox, Ov, Op;
  Eigen::VectorXd outputs;
  std::size_t bytes() const {
    return sizeof(double) * static_cast<std::size_t>(Fx.size() + Fv.size() + Fp.size() + Ox.size() + Ov.size() + Op.size() + outputs.size());
  }
};

// The map of a change of coordinates: new (x, v, a) = Sx x + Sv v + Sp (linearised)
struct SwitchMap {
  Eigen::MatrixXd Sx, Sv, Sp;  // 3d × d, 3d × d, 3d × p
};

class Adjoint {
 public:
  Adjoint(const Study& st, const AdjointRecorder& rec) : st_(st), rec_(rec), plain_(st, {}, {}), real_(st, {}, {}) {
    for (const ParameterChunk& c : parameterChunks(st)) {
      chunks_.push_back(std::make_unique<NumbersOn<Dual>>(st, c.seeded, c.seeds));
      firsts_.push_back(static_cast<Eigen::Index>(c.first));
    }
    for (const auto& f : plain_.tree.mech.forces) initialActive_.push_back(f.active);
  }

  const std::vector<dyn::Dof>& dofs(int i) const { return rec_.dofSets[static_cast<std::size_t>(i)]; }

  // Switches of the equations of motion (seed 001 Theorem 4) turn forces on and off: the replay
  // of a segment evaluates with the forces as they were there — those at the start, with the
  // switches of every earlier event applied.
  void restartForces() {
    for (std::size_t f = 0; f < plain_.tree.mech.forces.size(); ++f) setActive(f, initialActive_[f]);
  }
  void applySwitches(const std::vector<int>& closing) {
    const auto sources = events::gapSources(st_.model.tree);
    events::applySwitches(st_.model.tree, sources, closing, plain_.tree);
    events::applySwitches(st_.model.tree, sources, closing, real_.tree);
    for (auto& c : chunks_) events::applySwitches(st_.model.tree, sources, closing, c->tree);
  }

  Status node(const Point& pt, Node& n) const {
    const auto& D = dofs(pt.dofs);
    const auto d = static_cast<Eigen::Index>(D.size()), p = static_cast<Eigen::Index>(st_.parameters.size());
    const auto no = static_cast<Eigen::Index>(st_.outputs.names.size());
    n.t = pt.t;
    n.Fx.resize(d, d);
    n.Fv.resize(d, d);
    n.Fp.resize(d, p);
    n.Ox.resize(no, d);
    n.Ov.resize(no, d);
    n.Op.resize(no, p);
    n.outputs.resize(no);
    std::vector<Dual> out(static_cast<std::size_t>(no));
    auto pass = [&](const NumbersOn<Dual>& nums, const Vec<Dual>& x, const Vec<Dual>& v) -> Status {
      dyn::MatrixROn<Dual> e;
      const Status s = dyn::evaluateOn<Dual>(st_.model, nums.tree, D, pt.t, x, v, pt.z, e, &real_.tree);
      if (!s.ok()) return s;
      zidd_ = e.zidd;
      analysis::outputsOn<Dual>(st_.outputs, st_.model.tree, nums.tree, e.z, e.zd, e.zdd, pt.t, out.data());
      return {};
    };
    for (Eigen::Index first = 0; first < 2 * d || first == 0; first += kLanes) {
      Vec<Dual> x = pt.x.cast<Dual>(), v = pt.v.cast<Dual>();
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
        if (j < d) x[j].g[j - first] = 1;
        else v[j - d].g[j - first] = 1;
      }
      if (Status s = pass(plain_, x, v); !s.ok()) return s;
      for (Eigen::Index k = 0; k < no; ++k) n.outputs[k] = out[static_cast<std::size_t>(k)].v;
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
        for (Eigen::Index i = 0; i < d; ++i) (j < d ? n.Fx(i, j) : n.Fv(i, j - d)) = zidd_[i].g[j - first];
        for (Eigen::Index k = 0; k < no; ++k) (j < d ? n.Ox(k, j) : n.Ov(k, j - d)) = out[static_cast<std::size_t>(k)].g[j - first];
      }
      if (2 * d == 0) break;
    }
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      if (Status s = pass(*chunks_[c], pt.x.cast<Dual>(), pt.v.cast<Dual>()); !s.ok()) return s;
      for (int j = 0; j < kLanes && firsts_[c] + j < p; ++j) {
        for (Eigen::Index i = 0; i < d; ++i) n.Fp(i, firsts_[c] + j) = zidd_[i].g[j];
        for (Eigen::Index k = 0; k < no; ++k) n.Op(k, firsts_[c] + j) = out[static_cast<std::size_t>(k)].g[j];
      }
    }
    return {};
  }


  // one trapezoidal step again, from `a` to its end (Newton with the previous node's matrix)
  Status recompute(const AdjointRecorder::Item& it, const Point& a, const Eigen::MatrixXd* Fx, const Eigen::MatrixXd* Fv, Point& b) const {
    const auto& D = dofs(it.dofs);
    const double h = it.t1 - it.t0;
    const auto d = a.x.size();
    const Eigen::VectorXd xh = a.x + h * a.v + (0.25 * h * h) * a.a, vh = a.v + (0.5 * h) * a.a;
    Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d);
    if (Fx && Fx->rows() == d) {
      G -= (0.25 * h * h) * *Fx + (0.5 * h) * *Fv;
    } else if (d > 0) {
      // a segment's first step, or the first after a change of coordinates: the start's own
      // matrix (the identity alone lets Newton diverge at large steps)
      Node n;
      if (Status s = node(a, n); !s.ok()) return s;
      G -= (0.25 * h * h) * n.Fx + (0.5 * h) * n.Fv;
    }
    Eigen::PartialPivLU<Eigen::MatrixXd> lu(G);
    dyn::MatrixROn<double> e;
    Eigen::VectorXd zs = a.z;  // each position problem starts from the last one's solution
    // the residual acc − f(x̂ + h²/4 acc, v̂ + h/2 acc) at a trial acceleration
    auto residual = [&](const Eigen::VectorXd& acc, Eigen::VectorXd& r) -> Status {
      const Status s = dyn::evaluateOn<double>(st_.model, real_.tree, D, it.t1, Eigen::VectorXd(xh + (0.25 * h * h) * acc),
                                               Eigen::VectorXd(vh + (0.5 * h) * acc), zs, e);
      if (s.ok()) {
        zs = e.z;
        r = acc - e.zidd;
      }
      return s;
    };
    Eigen::VectorXd acc = a.a, r, trial, rt;
    bool converged = d == 0;
    // with no independent coordinate (a kinematic run) nothing is integrated, but the drivers
    // move the positions: solved at the step's end all the same
    if (Status s = residual(acc, r); !s.ok()) return s;
    double lastStep = 0;
    for (int iter = 0; iter < 40 && !converged; ++iter) {
      const Eigen::VectorXd da = lu.solve(r);
      // damped: halve the update while the trial's position problem fails or its residual grows
      // (next to a singular position f is strongly nonlinear within a step)
      double lambda = 1;
      bool accepted = false;
      for (int half = 0; half < 12 && !accepted; ++half, lambda *= 0.5) {
        trial = acc - lambda * da;
        const Eigen::VectorXd zKeep = zs;
        const Status s = residual(trial, rt);
        accepted = s.ok() && (rt.norm() < r.norm() || lambda * da.cwiseAbs().maxCoeff() <= 1e-7 * std::max(1.0, acc.cwiseAbs().maxCoeff()));
        if (!accepted) zs = zKeep;
      }
      if (!accepted) break;
      lambda *= 2;  // the one taken
      const double step = lambda * da.cwiseAbs().maxCoeff(), scale = std::max(1.0, trial.cwiseAbs().maxCoeff());
      acc = trial;
      r = rt;
      // to round-off: tiny, or no longer falling (the evaluations' own noise: their position
      // tolerance, amplified where the reduced mass matrix is ill-conditioned, e.g. a bar's spin)
      converged = step <= 1e-13 * scale || (iter >= 1 && step >= 0.5 * lastStep && step <= 1e-7 * scale);
      if (!converged && step > 1e-10 * scale && (lambda < 1 || (iter >= 1 && step > 0.25 * lastStep))) {
        // damped or slow: the matrix at the start is stale, take Newton's own at the iterate
        Node n;
        if (Status s = node(Point{it.t1, it.dofs, xh + (0.25 * h * h) * acc, vh + (0.5 * h) * acc, acc, zs}, n); !s.ok()) return s;
        lu.compute(Eigen::MatrixXd(Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * n.Fx - (0.5 * h) * n.Fv));
      }
      lastStep = step;
    }
    if (!converged) return failure(Status::Code::NotConverged, it.t1, "the adjoint's replay of the step to t = " + shortNumber(it.t1) + " did not converge");
    b.t = it.t1;
    b.dofs = it.dofs;
    b.x = xh + (0.25 * h * h) * acc;
    b.v = vh + (0.5 * h) * acc;
    b.a = acc;
    b.z = zs;  // the last residual's evaluation was at acc: its dependent coordinates
    return {};
  }

  // one Dormand–Prince step again from `a` (the sizes held), and its end's acceleration
  Status rungeKuttaRecompute(const AdjointRecorder::Item& it, const Point& a, Point& b) const {
    const auto& D = dofs(it.dofs);
    Vec<double> x1, v1;
    if (Status s = rungeKuttaStepOn<double>(st_, real_, D, it.t0, it.t1 - it.t0, a.x, a.v, a.z, x1, v1); !s.ok()) return s;
    dyn::MatrixROn<double> e;
    if (Status s = dyn::evaluateOn<double>(st_.model, real_.tree, D, it.t1, x1, v1, a.z, e); !s.ok()) return s;
    b = {it.t1, it.dofs, x1, v1, e.zidd, e.z};
    return {};
  }

  // a Dormand–Prince step's stages linearised: f_x, f_v, f_ρ at each stage point (forward AD)
  struct Stage {
    Eigen::MatrixXd fx, fv, fp;
  };
  Status rungeKuttaStages(const AdjointRecorder::Item& it, const Point& a, std::vector<Stage>& stages) const {
    using namespace integ::dopri;
    const double A[6][5] = {{0, 0, 0, 0, 0}, {a21, 0, 0, 0, 0}, {a31, a32, 0, 0, 0}, {a41, a42, a43, 0, 0}, {a51, a52, a53, a54, 0},
                            {a61, a62, a63, a64, a65}};
    const double C[6] = {0, c2, c3, c4, c5, 1};
    const auto& D = dofs(it.dofs);
    const double h = it.t1 - it.t0;
    const auto d = a.x.size(), p = static_cast<Eigen::Index>(st_.parameters.size());
    std::vector<Eigen::VectorXd> kx(6), kv(6);
    stages.assign(6, {});
    for (int i = 0; i < 6; ++i) {
      Eigen::VectorXd X = a.x, V = a.v;
      for (int j = 0; j < i; ++j) {
        X += (h * A[i][j]) * kx[static_cast<std::size_t>(j)];
        V += (h * A[i][j]) * kv[static_cast<std::size_t>(j)];
      }
      const double t = it.t0 + C[i] * h;
      Stage& sg = stages[static_cast<std::size_t>(i)];
      sg.fx.resize(d, d);
      sg.fv.resize(d, d);
      sg.fp.resize(d, p);
      Eigen::VectorXd acc(d);
      for (Eigen::Index first = 0; first < 2 * d; first += kLanes) {
        Vec<Dual> x = X.cast<Dual>(), v = V.cast<Dual>();
        for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) (j < d ? x[j] : v[j - d]).g[j - first] = 1;
        dyn::MatrixROn<Dual> e;
        if (Status s = dyn::evaluateOn<Dual>(st_.model, plain_.tree, D, t, x, v, a.z, e, &real_.tree); !s.ok()) return s;
        for (Eigen::Index r = 0; r < d; ++r) acc[r] = e.zidd[r].v;
        for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j)
          for (Eigen::Index r = 0; r < d; ++r) (j < d ? sg.fx(r, j) : sg.fv(r, j - d)) = e.zidd[r].g[j - first];
      }
      for (std::size_t c = 0; c < chunks_.size(); ++c) {
        dyn::MatrixROn<Dual> e;
        if (Status s = dyn::evaluateOn<Dual>(st_.model, chunks_[c]->tree, D, t, X.cast<Dual>(), V.cast<Dual>(), a.z, e, &real_.tree); !s.ok()) return s;
        for (int j = 0; j < kLanes && firsts_[c] + j < p; ++j)
          for (Eigen::Index r = 0; r < d; ++r) sg.fp(r, firsts_[c] + j) = e.zidd[r].g[j];
      }
      kx[static_cast<std::size_t>(i)] = V;
      kv[static_cast<std::size_t>(i)] = acc;
    }
    return {};
  }

  // the state after a change of coordinates, and the change's linearisation
  Status switchAt(const AdjointRecorder::Item& it, const Point& a, Point& b, SwitchMap* map) const {
    const auto& before = dofs(it.before), &after = dofs(it.dofs);
    dyn::MatrixROn<double> e;
    Status s = dyn::evaluateOn<double>(st_.model, real_.tree, before, it.t1, a.x, a.v, a.z, e);
    if (!s.ok()) return s;
    Vec<double> x, v, acc;
    dyn::independentOn<double>(st_.model, real_.tree, after, e.z, e.zd, &e.zdd, x, v, &acc);
    b = {it.t1, it.dofs, x, v, acc, e.z};
    if (!map) return {};
    const auto d0 = a.x.size(), d1 = x.size(), p = static_cast<Eigen::Index>(st_.parameters.size());
    map->Sx.resize(3 * d1, d0);
    map->Sv.resize(3 * d1, d0);
    map->Sp.resize(3 * d1, p);
    auto columns = [&](const NumbersOn<Dual>& nums, const Vec<Dual>& xs, const Vec<Dual>& vs, auto&& put) -> Status {
      dyn::MatrixROn<Dual> ed;
      const Status st = dyn::evaluateOn<Dual>(st_.model, nums.tree, before, it.t1, xs, vs, a.z, ed, &real_.tree);
      if (!st.ok()) return st;
      Vec<Dual> x1, v1, a1;
      dyn::independentOn<Dual>(st_.model, nums.tree, after, ed.z, ed.zd, &ed.zdd, x1, v1, &a1);
      for (int lane = 0; lane < kLanes; ++lane)
        for (Eigen::Index i = 0; i < d1; ++i) put(lane, i, x1[i].g[lane], v1[i].g[lane], a1[i].g[lane]);
      return {};
    };
    for (Eigen::Index first = 0; first < 2 * d0; first += kLanes) {
      Vec<Dual> xs = a.x.cast<Dual>(), vs = a.v.cast<Dual>();
      for (Eigen::Index j = first; j < std::min(2 * d0, first + kLanes); ++j) {
        if (j < d0) xs[j].g[j - first] = 1;
        else vs[j - d0].g[j - first] = 1;
      }
      s = columns(plain_, xs, vs, [&](int lane, Eigen::Index i, double dx, double dv, double da) {
        const Eigen::Index j = first + lane;
        if (j >= 2 * d0) return;
        auto& M = j < d0 ? map->Sx : map->Sv;
        const Eigen::Index col = j < d0 ? j : j - d0;
        M(i, col) = dx;
        M(d1 + i, col) = dv;
        M(2 * d1 + i, col) = da;
      });
      if (!s.ok()) return s;
    }
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      s = columns(*chunks_[c], a.x.cast<Dual>(), a.v.cast<Dual>(), [&](int lane, Eigen::Index i, double dx, double dv, double da) {
        const Eigen::Index j = firsts_[c] + lane;
        if (j >= p) return;
        map->Sp(i, j) = dx;
        map->Sp(d1 + i, j) = dv;
        map->Sp(2 * d1 + i, j) = da;
      });
      if (!s.ok()) return s;
    }
    return {};
  }

  // the initial sensitivities ∂(zⁱ, żⁱ)/∂ρ at the start
  Status initial(const Point& pt, Eigen::MatrixXd& X0, Eigen::MatrixXd& V0) const {
    const auto& D = dofs(pt.dofs);
    const auto d = static_cast<Eigen::Index>(D.size()), p = static_cast<Eigen::Index>(st_.parameters.size());
    X0.setZero(d, p);
    V0.setZero(d, p);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      Vec<Dual> x, v;
      const Status s = dyn::initialStateOn<Dual>(st_.model, chunks_[c]->tree, D, pt.z, x, v);
      if (!s.ok()) return s;
      for (int j = 0; j < kLanes && firsts_[c] + j < p; ++j)
        for (Eigen::Index i = 0; i < d; ++i) {
          X0(i, firsts_[c] + j) = x[i].g[j];
          V0(i, firsts_[c] + j) = v[i].g[j];
        }
    }
    return {};
  }


 private:
  const Study& st_;
  const AdjointRecorder& rec_;
  NumbersOn<Dual> plain_;
  NumbersOn<double> real_;
  std::vector<std::unique_ptr<NumbersOn<Dual>>> chunks_;
  std::vector<Eigen::Index> firsts_;
  std::vector<char> initialActive_;  // the forces' state at the start (a switch's enabled ones off)
  mutable Vec<Dual> zidd_;
  void setActive(std::size_t f, bool on) {
    plain_.tree.mech.forces[f].active = on;
    real_.tree.mech.forces[f].active = on;
    for (auto& c : chunks_) c->tree.mech.forces[f].active = on;
  }
};

}  // namespace

Status adjointGradient(const Study& st, const AdjointRecorder& rec, bool rungeKutta, const CostSites* sites, std::vector<double>& values,
                       Eigen::MatrixXd& gradient, AdjointStats& stats) {
  Adjoint adj(st, rec);
  auto items = [&](std::size_t i) { return rec.item(i); };
  const auto& saved = rec.saved;
  const auto nc = static_cast<Eigen::Index>(st.costs.names.size()), p = static_cast<Eigen::Index>(st.parameters.size());
  stats.recordBytes = rec.bytes();
  // the start and its outputs (the costs' initial values)
  const auto& s0 = saved.front();
  const AdjointRecorder::Item first = items(0);
  const Point start{first.t1, first.dofs, s0.x, s0.v, s0.a, s0.z};
  Node n0;
  if (Status s = adj.node(start, n0); !s.ok()) return s;
  CostIntegrand integrand(st);
  integrand.setInitialOutputs(n0.outputs);
  const TargetTerms targets(st, integrand, sites);
  const auto d0 = start.x.size();
  Eigen::MatrixXd lx = Eigen::MatrixXd::Zero(d0, nc), lv = lx, la = lx;  // resized as coordinates change
  Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(nc, p), beta = Eigen::MatrixXd::Zero(nc, n0.outputs.size());
  Eigen::VectorXd value = Eigen::VectorXd::Zero(nc);
  // a node's costs (weighted integrands, extremes, targets' terms): λ += gᵀ O, ∂ψ/∂ρ += g O_ρ +
  // g_ρ, β += g_init
  auto addNode = [&](const Node& n, std::size_t item) {
    const NodeCostTerms c = nodeCosts(st, integrand, targets, sites, rec.nodeSpan(item), rec.nodeOf(item), n.t, n.outputs);
    value += c.g;
    if (lx.rows() != n.Fx.rows()) lx = lv = la = Eigen::MatrixXd::Zero(n.Fx.rows(), nc);
    lx += (c.gOut * n.Ox).transpose();
    lv += (c.gOut * n.Ov).transpose();
    grad += c.gOut * n.Op + c.gPar;
    beta += c.gInit;
  };
  // segments between saved states, last first: replay forward, then sweep backward
  for (std::size_t seg = saved.size(); seg-- > 0;) {
    const std::size_t begin = saved[seg].item;
    const std::size_t end = seg + 1 < saved.size() ? saved[seg + 1].item : rec.size() - 1;
    if (end <= begin) continue;
    const auto& sv = saved[seg];
    const AdjointRecorder::Item beginItem = items(begin);
    Point at{beginItem.t1, beginItem.dofs, sv.x, sv.v, sv.a, sv.z};
    // the forces as they were at this segment's start (its replay, and the RK45 stages its
    // backward sweep evaluates: a switch can only end a segment)
    auto forcesAtStart = [&] {
      adj.restartForces();
      for (const auto& [item, impact] : rec.impactItems())
        if (item <= begin) adj.applySwitches(rec.impacts[impact]);
    };
    forcesAtStart();
    std::vector<Node> nodes(end - begin);
    std::vector<SwitchMap> maps(end - begin);
    struct ImpactRecord {
      ImpactJump jump;
      Eigen::VectorXd dg;  // g⁺ − g⁻ per cost (integral costs; 0 for terminal ones)
    };
    std::vector<ImpactRecord> impacts(end - begin);
    std::vector<Point> starts(end - begin);  // RK45: each step's start, for its stages
    const Node* last = nullptr;
    if (begin == 0) last = &n0;
    std::size_t bytes = 0;
    for (std::size_t i = begin + 1; i <= end; ++i) {
      const AdjointRecorder::Item it = items(i);
      Point next;
      if (rungeKutta) starts[i - begin - 1] = at;
      if (it.kind == AdjointRecorder::Item::Kind::Switch) {
        if (Status s = adj.switchAt(it, at, next, &maps[i - begin - 1]); !s.ok()) return s;
        last = nullptr;
      } else if (it.kind == AdjointRecorder::Item::Kind::Impact) {
        // the state after it is saved (a segment ends here); the jump linearised between the two,
        // and the integrands' change across it (integral costs: Theorem 5)
        const auto& sn = saved[seg + 1];
        next = {it.t1, it.dofs, sn.x, sn.v, sn.a, sn.z};
        ImpactRecord& r = impacts[i - begin - 1];
        const integ::State before{at.t, at.x, at.v, at.a}, after{next.t, next.x, next.v, next.a};
        if (Status s = impactJump(st, adj.dofs(it.dofs), before, after, rec.impacts[static_cast<std::size_t>(it.impact)], at.z, r.jump); !s.ok())
          return s;
        Node beforeNode;
        if (Status s = adj.node(at, beforeNode); !s.ok()) return s;
        adj.applySwitches(rec.impacts[static_cast<std::size_t>(it.impact)]);  // after a switch: its forces on or off
        if (Status s = adj.node(next, nodes[i - begin - 1]); !s.ok()) return s;
        Eigen::VectorXd gBefore, gAfter;
        Eigen::MatrixXd gOut, gInit, gPar;
        integrand(it.t1, beforeNode.outputs, gBefore, gOut, gInit, gPar);
        integrand(it.t1, nodes[i - begin - 1].outputs, gAfter, gOut, gInit, gPar);
        r.dg = gAfter - gBefore;
        for (Eigen::Index k = 0; k < r.dg.size(); ++k)
          if (st.costs.types[static_cast<std::size_t>(k)] != Cost::Type::Integral) r.dg[k] = 0;
        last = &nodes[i - begin - 1];
        bytes += last->bytes();
      } else {
        if (i == end && seg + 1 < saved.size()) {
          const auto& sn = saved[seg + 1];
          next = {it.t1, it.dofs, sn.x, sn.v, sn.a, sn.z};
        } else {
          const Status s = rungeKutta ? adj.rungeKuttaRecompute(it, at, next)
                                      : adj.recompute(it, at, last ? &last->Fx : nullptr, last ? &last->Fv : nullptr, next);
          if (!s.ok()) return s;
          ++stats.recomputedSteps;
        }
        if (Status s = adj.node(next, nodes[i - begin - 1]); !s.ok()) return s;
        last = &nodes[i - begin - 1];
        bytes += last->bytes();
      }
      at = std::move(next);
    }
    stats.segmentBytes = std::max(stats.segmentBytes, bytes);
    forcesAtStart();
    for (std::size_t i = end; i > begin; --i) {
      const AdjointRecorder::Item it = items(i);
      if (it.kind == AdjointRecorder::Item::Kind::Switch) {
        const SwitchMap& m = maps[i - begin - 1];
        const auto d1 = lx.rows();
        Eigen::MatrixXd l(3 * d1, nc);
        l << lx, lv, la;
        grad += l.transpose() * m.Sp;
        lx = m.Sx.transpose() * l;
        lv = m.Sv.transpose() * l;
        la = Eigen::MatrixXd::Zero(lx.rows(), nc);
        continue;
      }
      const Node& n = nodes[i - begin - 1];
      addNode(n, i);
      if (it.kind == AdjointRecorder::Item::Kind::Impact) {
        // a⁺ = f(x, v⁺; ρ) folded into x, v⁺, then the jump transposed: with
        // s = −Δvᵀλx + wᵀλv − Δg per cost, λx⁻ = λx + h_xᵀλv + c_x s, λv⁻ = h_vᵀλv,
        // ∂ψ/∂ρ += λvᵀ h_ρ + s c_ρ (impact_jump.h's map, transposed)
        lx += n.Fx.transpose() * la;
        lv += n.Fv.transpose() * la;
        grad += la.transpose() * n.Fp;
        const ImpactRecord& r = impacts[i - begin - 1];
        const ImpactJump& J = r.jump;
        const Eigen::RowVectorXd sk = -J.dv.transpose() * lx + J.w.transpose() * lv - r.dg.transpose();
        grad += lv.transpose() * J.hp + sk.transpose() * J.cp;
        const Eigen::MatrixXd lxBefore = lx + J.hx.transpose() * lv + J.cx * sk;
        lv = J.hv.transpose() * lv;
        lx = lxBefore;
        la = Eigen::MatrixXd::Zero(lx.rows(), nc);
        continue;
      }
      // the step from its start to n, transposed
      const double h = it.t1 - it.t0;
      const auto d = n.Fx.rows();
      if (d == 0) continue;
      if (rungeKutta) {
        // the explicit stages backward: κᵢ = h bᵢ λ₁ + Σ_{j>i} h a_ji ηⱼ, ηᵢ = Jᵢᵀ κᵢ with
        // Jᵢ = [0 I; f_x f_v] at stage i; λ₀ = λ₁ + Σ ηᵢ, ∂ψ/∂ρ += Σ κᵥᵢᵀ f_ρ
        using namespace integ::dopri;
        const double A[6][5] = {{0, 0, 0, 0, 0}, {a21, 0, 0, 0, 0}, {a31, a32, 0, 0, 0}, {a41, a42, a43, 0, 0}, {a51, a52, a53, a54, 0},
                                {a61, a62, a63, a64, a65}};
        const double B[6] = {b1, 0, b3, b4, b5, b6};
        std::vector<Adjoint::Stage> stages;
        if (Status s = adj.rungeKuttaStages(it, starts[i - begin - 1], stages); !s.ok()) return s;
        std::vector<Eigen::MatrixXd> ex(6), ev(6);
        Eigen::MatrixXd lx0 = lx, lv0 = lv;  // λ₀ = λ₁ + Σ ηᵢ
        for (int k = 5; k >= 0; --k) {
          Eigen::MatrixXd kx = (h * B[k]) * lx, kv = (h * B[k]) * lv;
          for (int j = k + 1; j < 6; ++j) {
            kx += (h * A[j][k]) * ex[static_cast<std::size_t>(j)];
            kv += (h * A[j][k]) * ev[static_cast<std::size_t>(j)];
          }
          const auto& sg = stages[static_cast<std::size_t>(k)];
          ex[static_cast<std::size_t>(k)] = sg.fx.transpose() * kv;
          ev[static_cast<std::size_t>(k)] = kx + sg.fv.transpose() * kv;
          grad += kv.transpose() * sg.fp;
          lx0 += ex[static_cast<std::size_t>(k)];
          lv0 += ev[static_cast<std::size_t>(k)];
        }
        lx = lx0;
        lv = lv0;
        continue;
      }
      const Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * n.Fx - (0.5 * h) * n.Fv;
      const Eigen::MatrixXd mu = la + (0.25 * h * h) * lx + (0.5 * h) * lv;
      const Eigen::MatrixXd nu = G.transpose().partialPivLu().solve(mu);
      grad += nu.transpose() * n.Fp;
      const Eigen::MatrixXd lx1 = lx + n.Fx.transpose() * nu;
      const Eigen::MatrixXd lv1 = h * lx + lv + (h * n.Fx + n.Fv).transpose() * nu;
      const Eigen::MatrixXd la1 = (0.25 * h * h) * lx + (0.5 * h) * lv + (0.25 * h * h * n.Fx + 0.5 * h * n.Fv).transpose() * nu;
      lx = lx1;
      lv = lv1;
      la = la1;
    }
  }
  // the start: its own cost, then the initial sensitivities and the initial values' derivatives
  addNode(n0, 0);
  Eigen::MatrixXd X0, V0;
  if (Status s = adj.initial(start, X0, V0); !s.ok()) return s;
  const Eigen::MatrixXd A0 = n0.Fx * X0 + n0.Fv * V0 + n0.Fp;
  grad += lx.transpose() * X0 + lv.transpose() * V0 + la.transpose() * A0;
  grad += beta * (n0.Ox * X0 + n0.Ov * V0 + n0.Op);
  gradient = grad;
  values.assign(value.data(), value.data() + value.size());
  return {};
}

}  // namespace lw::sens::detail
