// What every formulation's derivatives evaluate with (internal to engine/sensitivity): the model's
// numbers on doubles, on dual numbers with nothing seeded (the state's partials), on each chunk
// of eight parameters seeded (their partials by forward AD) or moved one parameter at a time
// (seed 003's differences, GSAM/LSAM); their forces' switch states kept together; and the
// parameter columns of any function of the numbers by the route chosen.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "events/contact_gaps.h"
#include "mechanism/fields.h"
#include "sensitivity/semi_analytical.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

/// By chosen parameter: does it reach no field but those `within(field)` accepts?
template <class Within>
std::vector<bool> touchOnly(const Study& st, Within&& within) {
  std::vector<bool> other(st.table().names().size(), false);  // by table index: reaches another field
  forEachNumber(*st.mechanism, [&](const FieldVisit& f) {
    if (within(f)) return;
    for (std::size_t k : st.table().dependencies(f.number)) other[k] = true;
  });
  std::vector<bool> only;
  for (std::size_t k : st.parameters) only.push_back(!other[k]);
  return only;
}
/// By chosen parameter: does it reach no field but the bodies' masses and inertias? (At a fixed
/// state the motion and the loops then do not depend on it: its partials need no motion pass.)
inline std::vector<bool> touchOnlyInertia(const Study& st) {
  return touchOnly(st, [](const FieldVisit& f) { return f.quantity == Quantity::Mass || f.quantity == Quantity::Inertia; });
}
/// By chosen parameter: does it reach no field but the force elements' and gravity's? (M^d, the
/// loops' rows and their rates then do not depend on it: a projection's partials skip it.)
inline std::vector<bool> touchOnlyForces(const Study& st) {
  return touchOnly(st, [](const FieldVisit& f) { return f.path.rfind("forces[", 0) == 0 || f.path.rfind("gravity", 0) == 0; });
}

class FormulationNumbers {
 public:
  FormulationNumbers(const Study& st, Partials partials, double delta)
      : st_(st), plain_(st, {}, {}), real_(st, {}, {}), partials_(partials), sources_(events::gapSources(st.model.tree)) {
    inertial_ = touchOnlyInertia(st);
    forcesOnly_ = touchOnlyForces(st);
    for (const ParameterChunk& c : parameterChunks(st)) {
      chunks_.push_back(std::make_unique<NumbersOn<Dual>>(st, c.seeded, c.seeds));
      firsts_.push_back(static_cast<Eigen::Index>(c.first));
      counts_.push_back(static_cast<int>(c.seeded.size()));
      lanes_.push_back(dyn::numbersLanes(st.model.tree, chunks_.back()->tree));
      std::vector<bool> keep(kLanes, false);
      for (std::size_t l = 0; l < c.seeded.size(); ++l) keep[l] = inertial_[c.first + l];
      inertialLanes_.push_back(dyn::inertialLanes(st.model.tree, chunks_.back()->tree, keep));
    }
    if (partials != Partials::AutomaticDifferentiation) {
      MovedNumbers sets = movedNumbers(st, partials, delta);
      deltas_ = std::move(sets.deltas);
      moved_ = std::move(sets.moved);
    }
    for (const auto& f : plain_.tree.mech.forces) initialActive_.push_back(f.active);
  }

  /// The forces as at the run's start (a switch's enabled ones off).
  void restartSwitches() {
    forEachNumbers([&](auto& n) {
      for (std::size_t f = 0; f < initialActive_.size(); ++f) n.mech.forces[f].active = initialActive_[f];
    });
  }
  /// An event's switches turn their forces on and off in every set of numbers.
  void applySwitches(const std::vector<int>& contacts) {
    forEachNumbers([&](auto& n) { events::applySwitches(st_.model.tree, sources_, contacts, n); });
  }

  /// ∂f/∂ρ (rows × chosen parameters) of f(numbers, result) at fixed arguments: forward AD on
  /// each chunk's seeded numbers, or (ad false or the study's partials semi-analytical)
  /// one-sided differences of f on the moved numbers. f is called on NumbersOn<Dual> or
  /// NumbersOn<double>.
  template <class F>
  Status parameterColumns(F&& f, Eigen::Index rows, Eigen::MatrixXd& out, bool adOnly = false) const {
    const auto p = static_cast<Eigen::Index>(st_.parameters.size());
    out.setZero(rows, p);
    if (adOnly || partials_ == Partials::AutomaticDifferentiation) {
      Vec<Dual> r;
      for (std::size_t c = 0; c < chunks_.size(); ++c) {
        if (Status s = f(*chunks_[c], r); !s.ok()) return s;
        for (int j = 0; j < counts_[c]; ++j)
          for (Eigen::Index i = 0; i < rows; ++i) out(i, firsts_[c] + j) = r[i].g[j];
      }
      return {};
    }
    Vec<double> r0, rk;
    if (Status s = f(real_, r0); !s.ok()) return s;
    for (Eigen::Index k = 0; k < p; ++k)
      for (const auto& set : moved_[static_cast<std::size_t>(k)]) {
        if (Status s = f(*set, rk); !s.ok()) return s;
        out.col(k) += (rk - r0) / deltas_[static_cast<std::size_t>(k)];
      }
    return {};
  }
  /// The columns of ∂f/∂(state) for f(state seeded) of n inputs: `seed(lanes, first)` returns the
  /// inputs on dual numbers with input first + j seeded in lane j, f fills the result.
  template <class Seed, class F>
  static Status stateColumns(Eigen::Index n, Eigen::Index rows, Seed&& seed, F&& f, Eigen::MatrixXd& out) {
    out.resize(rows, n);
    Vec<Dual> r;
    for (Eigen::Index first = 0; first < n; first += kLanes) {
      if (Status s = f(seed(first), r); !s.ok()) return s;
      for (Eigen::Index j = first; j < std::min(n, first + kLanes); ++j)
        for (Eigen::Index i = 0; i < rows; ++i) out(i, j) = r[i].g[j - first];
    }
    return {};
  }

  /// Columns of f by some state directions and some chosen parameters, packed eight lanes a
  /// pass (AD): column c is state direction state[c] when that is ≥ 0, else chosen parameter
  /// param[c]. `base()` gives f's inputs on dual numbers unseeded, `seedState(in, j, l)` seeds
  /// direction j in lane l; f(numbers, in, r) fills the result.
  template <class Base, class SeedState, class F>
  Status mixedColumns(const std::vector<int>& state, const std::vector<int>& param, Base&& base, SeedState&& seedState, F&& f,
                      Eigen::Index rows, Eigen::MatrixXd& out) {
    const auto n = static_cast<Eigen::Index>(state.size());
    out.resize(rows, n);
    Vec<Dual> r;
    std::vector<int> lanes(kLanes);
    for (Eigen::Index first = 0; first < n; first += kLanes) {
      auto in = base();
      bool seeded = false;
      for (int l = 0; l < kLanes; ++l) {
        const Eigen::Index c = first + l;
        lanes[static_cast<std::size_t>(l)] = c < n && state[static_cast<std::size_t>(c)] < 0 ? param[static_cast<std::size_t>(c)] : -1;
        seeded = seeded || lanes[static_cast<std::size_t>(l)] >= 0;
        if (c < n && state[static_cast<std::size_t>(c)] >= 0) seedState(in, state[static_cast<std::size_t>(c)], l);
      }
      if (Status s = f(seeded ? seededInLanes(lanes) : plain_, in, r); !s.ok()) return s;
      for (Eigen::Index c = first; c < std::min(n, first + kLanes); ++c)
        for (Eigen::Index i = 0; i < rows; ++i) out(i, c) = r[i].g[c - first];
    }
    return {};
  }

  /// The columns of f's derivative along the sensitivities, eight a pass: f(numbers, inputs, r)
  /// with `seed(first)` its inputs on dual numbers, lane j along the sensitivities' column
  /// first + j; the parameters' own partials in the same pass (AD: the chunk's seeded numbers) or
  /// by differences of f at the values on the moved numbers (semi-analytical; left to the caller
  /// when `callerAddsParameters`). values: f's values.
  template <class Seed, class F>
  Status alongColumns(Seed&& seed, F&& f, Eigen::Index rows, Eigen::MatrixXd& out, Eigen::VectorXd* values = nullptr,
                      bool callerAddsParameters = false) const {
    const auto p = static_cast<Eigen::Index>(st_.parameters.size());
    out.resize(rows, p);
    Vec<Dual> r;
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const auto in = seed(firsts_[c]);
      if (Status s = f(semiAnalytical() ? plain_ : *chunks_[c], in, r); !s.ok()) return s;
      for (int j = 0; j < counts_[c]; ++j)
        for (Eigen::Index i = 0; i < rows; ++i) out(i, firsts_[c] + j) = r[i].g[j];
      if (values && c == 0) {
        values->resize(rows);
        for (Eigen::Index i = 0; i < rows; ++i) (*values)[i] = r[i].v;
      }
    }
    if (!semiAnalytical() || callerAddsParameters) return {};
    const auto in = seed(0);
    std::decay_t<decltype(in)> unseeded = in;
    for (auto& v : unseeded)
      for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = Dual(v[i].v);
    Eigen::MatrixXd P;
    if (Status s = parameterColumns(
            [&](const auto& nums, auto& res) {
              using S = typename std::decay_t<decltype(res)>::Scalar;
              std::array<Vec<S>, std::tuple_size_v<std::decay_t<decltype(in)>>> x;
              for (std::size_t k = 0; k < x.size(); ++k) {
                x[k].resize(unseeded[k].size());
                for (Eigen::Index i = 0; i < x[k].size(); ++i) x[k][i] = S(unseeded[k][i].v);
              }
              return f(nums, x, res);
            },
            rows, P);
        !s.ok())
      return s;
    out += P;
    return {};
  }

  /// The assembly's initial state in all the tree's coordinates differentiated, [∂z₀/∂ρ; ∂ż₀/∂ρ]
  /// (2 nz × parameters), z0 the run's assembly: by the route chosen, or by forward AD (adOnly).
  Status initialCoordinateColumns(const Eigen::VectorXd& z0, Eigen::MatrixXd& out, bool adOnly = false) const {
    const auto nz = static_cast<Eigen::Index>(st_.model.tree.nz);
    return parameterColumns(
        [&](const auto& nums, auto& r) -> Status {
          using Sc = typename std::decay_t<decltype(r)>::Scalar;
          Vec<Sc> z, zd;
          const Status st = dyn::initialCoordinatesOn<Sc>(st_.model, nums.tree, z0, z, zd);
          r.resize(2 * nz);
          if (st.ok()) r << z, zd;
          return st;
        },
        2 * nz, out, adOnly);
  }

  /// The numbers with chosen parameter `lanes[l]` seeded in lane l (−1: none there), the forces'
  /// switch states as the values' now: for a pass whose lanes mix the state's directions with
  /// some parameters' (kept, and switched with the others from then on).
  const NumbersOn<Dual>& seededInLanes(const std::vector<int>& lanes) {
    auto& n = byLanes_[lanes];
    if (!n) {
      std::vector<std::size_t> seeded;
      std::vector<Dual> seeds;
      for (std::size_t l = 0; l < lanes.size(); ++l) {
        if (lanes[l] < 0) continue;
        const std::size_t k = st_.parameters[static_cast<std::size_t>(lanes[l])];
        seeded.push_back(k);
        Dual sd(st_.table().values()[k]);
        sd.g[l] = 1;
        seeds.push_back(sd);
      }
      n = std::make_unique<NumbersOn<Dual>>(st_, seeded, seeds);
      for (std::size_t f = 0; f < n->tree.mech.forces.size(); ++f) n->tree.mech.forces[f].active = real_.tree.mech.forces[f].active;
    }
    return *n;
  }

  /// A chunk's lanes sorted out for dyn::inverseDynamicsAlongNumbers (null: `n` is not a chunk).
  const dyn::NumbersLanes* lanesOf(const NumbersOn<Dual>& n) const {
    for (std::size_t c = 0; c < chunks_.size(); ++c)
      if (chunks_[c].get() == &n) return &lanes_[c];
    return nullptr;
  }

  /// The chunks of eight parameters seeded: chunk c holds chosen parameters chunkFirst(c) … + chunkSize(c).
  std::size_t chunkCount() const { return chunks_.size(); }
  const NumbersOn<Dual>& chunk(std::size_t c) const { return *chunks_[c]; }
  Eigen::Index chunkFirst(std::size_t c) const { return firsts_[c]; }
  int chunkSize(std::size_t c) const { return counts_[c]; }
  const NumbersOn<double>& real() const { return real_; }
  const NumbersOn<Dual>& plain() const { return plain_; }
  /// By chosen parameter: touchOnlyInertia.
  const std::vector<bool>& inertial() const { return inertial_; }
  /// By chosen parameter: touchOnlyForces.
  const std::vector<bool>& forcesOnly() const { return forcesOnly_; }
  /// Chunk c's lanes of those parameters alone (dyn::inertialLanes).
  const dyn::NumbersLanes& inertialLanes(std::size_t c) const { return inertialLanes_[c]; }

  const std::vector<double>& deltas() const { return deltas_; }
  bool semiAnalytical() const { return partials_ != Partials::AutomaticDifferentiation; }

 protected:
  template <class F>
  void forEachNumbers(F&& f) {
    f(plain_.tree);
    f(real_.tree);
    for (auto& c : chunks_) f(c->tree);
    for (auto& [lanes, n] : byLanes_) f(n->tree);
    for (auto& sets : moved_)
      for (auto& set : sets) f(set->tree);
  }
  const Study& st_;
  NumbersOn<Dual> plain_;     // nothing seeded: the state's partials
  NumbersOn<double> real_;    // the values (and the differences' nominal)
  std::vector<std::unique_ptr<NumbersOn<Dual>>> chunks_;
  std::vector<Eigen::Index> firsts_;
  std::vector<int> counts_;
  std::vector<dyn::NumbersLanes> lanes_;  // by chunk
  std::vector<bool> inertial_;            // by chosen parameter
  std::vector<bool> forcesOnly_;          // by chosen parameter
  std::vector<dyn::NumbersLanes> inertialLanes_;  // by chunk
  std::map<std::vector<int>, std::unique_ptr<NumbersOn<Dual>>> byLanes_;  // seededInLanes
  Partials partials_;
  std::vector<double> deltas_;
  std::vector<std::vector<std::unique_ptr<NumbersOn<double>>>> moved_;
  std::vector<events::GapSource> sources_;
  std::vector<char> initialActive_;
};

/// (x, v) on dual numbers with input first + j of [x; v] seeded in lane j: the state's unit
/// directions, eight a pass.
inline std::pair<Vec<Dual>, Vec<Dual>> seededState(const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::Index first) {
  std::pair<Vec<Dual>, Vec<Dual>> xv{x.cast<Dual>(), v.cast<Dual>()};
  const Eigen::Index d = x.size();
  for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) (j < d ? xv.first[j] : xv.second[j - d]).g[j - first] = 1;
  return xv;
}

/// x on dual numbers with lanes j = D's columns first + j (D empty: none).
inline Vec<Dual> seededBy(const Eigen::VectorXd& x, const Eigen::MatrixXd& D, Eigen::Index first) {
  Vec<Dual> y = x.cast<Dual>();
  for (Eigen::Index j = 0; D.size() && j < kLanes && first + j < D.cols(); ++j)
    for (Eigen::Index i = 0; i < x.size(); ++i) y[i].g[j] = D(i, first + j);
  return y;
}

}  // namespace lw::sens::detail
