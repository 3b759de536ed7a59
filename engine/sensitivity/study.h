// What the sensitivity methods share (internal to engine/sensitivity): the study compiled (the
// mechanism, its Matrix R model, outputs and chosen costs), the tree's numbers on a scalar with
// some parameters seeded, and the costs' running values of a state.
#pragma once

#include <algorithm>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "outputs/csv.h"
#include "outputs/outputs.h"
#include "dynamics/matrix_r_derivatives.h"
#include "integrators/integrators.h"
#include "mechanism/numbers.h"
#include "numeric/dual.h"

namespace lw::sens::detail {

using Dual = num::Dual8;
using Cplx = std::complex<double>;
constexpr int kLanes = num::kChunk;
template <class S> using Vec = dyn::VectorOn<S>;

// what every method shares: the mechanism compiled, its outputs and the chosen costs. The model
// points into `resolved`: a Study stays where it was made (no copy, no move)
struct Study {
  Study() = default;
  Study(const Study&) = delete;
  Study& operator=(const Study&) = delete;
  const Mechanism* mechanism = nullptr;
  ResolvedMechanism resolved;
  dyn::MatrixRModel model;
  analysis::OutputComponents outputs;
  analysis::CostSet costs;
  std::vector<std::size_t> parameters;  // indices in the parameter table
  const ParameterTable& table() const { return *resolved.parameters; }
};

// the parameters on S with the given ones seeded, and the tree's numbers from them
template <class S>
struct NumbersOn {
  std::vector<S> parameters;
  dyn::TreeNumbers<S> tree;
  NumbersOn(std::vector<S> p, dyn::TreeNumbers<S> t) : parameters(std::move(p)), tree(std::move(t)) {}
  NumbersOn(const Study& st, const std::vector<std::size_t>& seeded, const std::vector<S>& seeds)
      : parameters(st.table().valuesOn<S>(seeded, seeds)),
        tree(dyn::treeNumbers<S>(st.model.tree, numbersOn<S>(*st.mechanism, st.resolved, parameters))) {}
};

// the outputs of a state on S, and the costs' running values
template <class S>
inline Status addCosts(const Study& st, const NumbersOn<S>& n, const std::vector<dyn::Dof>& dofs, double t, const Vec<S>& x, const Vec<S>& v,
                       const Eigen::VectorXd& z, analysis::CostAccumulator<S>& costs, Vec<S>* a = nullptr,
                       std::vector<S>* outputs = nullptr) {
  dyn::MatrixROn<S> e;
  const Status s = dyn::evaluateOn<S>(st.model, n.tree, dofs, t, x, v, z, e);
  if (!s.ok()) return s;
  std::vector<S> out(st.outputs.names.size());
  analysis::outputsOn<S>(st.outputs, st.model.tree, n.tree, e.z, e.zd, e.zdd, t, out.data());
  costs.add(t, out.data(), n.parameters.data());
  if (a) *a = e.zidd;
  if (outputs) *outputs = std::move(out);
  return {};
}

/// One Dormand–Prince step of size h from (x0, v0) on S with the coefficients the integrator steps
/// with, the accelerations from `acceleration(t, x, v, a)`: the step differentiated (dual numbers)
/// or run on a complex step.
template <class S, class Acceleration>
Status rungeKuttaStepWith(Acceleration&& acceleration, double t0, double h, const Vec<S>& x0, const Vec<S>& v0, Vec<S>& x1, Vec<S>& v1) {
  using namespace integ::dopri;
  Vec<S> kx[6], kv[6];
  auto stage = [&](int i, double t, const Vec<S>& x, const Vec<S>& v) -> Status {
    kx[i] = v;
    return acceleration(t, x, v, kv[i]);
  };
  if (Status s = stage(0, t0, x0, v0); !s.ok()) return s;
  auto at = [&](std::initializer_list<std::pair<int, double>> terms, Vec<S>* k0, const Vec<S>& y0) {
    Vec<S> y = y0;
    for (auto [i, a] : terms) y += (h * a) * k0[i];
    return y;
  };
  if (Status s = stage(1, t0 + c2 * h, at({{0, a21}}, kx, x0), at({{0, a21}}, kv, v0)); !s.ok()) return s;
  if (Status s = stage(2, t0 + c3 * h, at({{0, a31}, {1, a32}}, kx, x0), at({{0, a31}, {1, a32}}, kv, v0)); !s.ok()) return s;
  if (Status s = stage(3, t0 + c4 * h, at({{0, a41}, {1, a42}, {2, a43}}, kx, x0), at({{0, a41}, {1, a42}, {2, a43}}, kv, v0)); !s.ok())
    return s;
  if (Status s = stage(4, t0 + c5 * h, at({{0, a51}, {1, a52}, {2, a53}, {3, a54}}, kx, x0), at({{0, a51}, {1, a52}, {2, a53}, {3, a54}}, kv, v0));
      !s.ok())
    return s;
  if (Status s = stage(5, t0 + h, at({{0, a61}, {1, a62}, {2, a63}, {3, a64}, {4, a65}}, kx, x0),
                       at({{0, a61}, {1, a62}, {2, a63}, {3, a64}, {4, a65}}, kv, v0));
      !s.ok())
    return s;
  x1 = at({{0, b1}, {2, b3}, {3, b4}, {4, b5}, {5, b6}}, kx, x0);
  v1 = at({{0, b1}, {2, b3}, {3, b4}, {4, b5}, {5, b6}}, kv, v0);
  return {};
}

/// The chosen parameters in chunks of eight, each seeded in its own lane (parameter first + j in
/// lane j): the numbers a forward-AD pass differentiates a chunk with.
struct ParameterChunk {
  std::vector<std::size_t> seeded;  // table indices
  std::vector<Dual> seeds;
  std::size_t first = 0;            // index of the chunk's first parameter among the chosen
};
inline std::vector<ParameterChunk> parameterChunks(const Study& st) {
  std::vector<ParameterChunk> chunks;
  const std::size_t p = st.parameters.size();
  for (std::size_t first = 0; first < p; first += kLanes) {
    ParameterChunk c;
    c.first = first;
    for (std::size_t j = first; j < std::min(p, first + kLanes); ++j) {
      c.seeded.push_back(st.parameters[j]);
      Dual s(st.table().values()[st.parameters[j]]);
      s.g[j - first] = 1;
      c.seeds.push_back(s);
    }
    chunks.push_back(std::move(c));
  }
  return chunks;
}


/// A chunk of the chosen parameters carried by a direct method: their seeded numbers and the
/// costs' running values on dual numbers.
struct DualChunk {
  NumbersOn<Dual> numbers;
  analysis::CostAccumulator<Dual> costs;
  Eigen::Index first;  // its first parameter among the chosen
  int count;
  DualChunk(const Study& st, const ParameterChunk& c)
      : numbers(st, c.seeded, c.seeds), costs(st.costs), first(static_cast<Eigen::Index>(c.first)), count(static_cast<int>(c.seeded.size())) {}
  /// D's columns first … first + count − 1 from x's lanes.
  void store(const Vec<Dual>& x, Eigen::MatrixXd& D) const {
    for (int j = 0; j < count; ++j)
      for (Eigen::Index i = 0; i < x.size(); ++i) D(i, first + j) = x[i].g[j];
  }
};
inline std::vector<std::unique_ptr<DualChunk>> dualChunks(const Study& st) {
  std::vector<std::unique_ptr<DualChunk>> out;
  for (const ParameterChunk& c : parameterChunks(st)) out.push_back(std::make_unique<DualChunk>(st, c));
  return out;
}
/// The costs' values and gradients (costs × chosen parameters) from the chunks' accumulators.
inline void costsOfChunks(const Study& st, const std::vector<std::unique_ptr<DualChunk>>& chunks, std::vector<double>& values,
                          Eigen::MatrixXd& gradient) {
  const std::size_t nc = st.costs.names.size();
  values.assign(nc, 0.0);
  gradient.setZero(static_cast<Eigen::Index>(nc), static_cast<Eigen::Index>(st.parameters.size()));
  for (const auto& c : chunks) {
    const auto v = c->costs.values();
    for (std::size_t k = 0; k < nc; ++k) {
      values[k] = v[k].v;
      for (int j = 0; j < c->count; ++j) gradient(static_cast<Eigen::Index>(k), c->first + j) = v[k].g[j];
    }
  }
}

/// The sensitivity histories of a direct method, passed on in blocks: a row per time with every
/// output component that has a derivative, then d(component)/d(parameter) for each
/// ("d(P.x)/d(L1)"). Energies and constraint residuals have none here: left out (a note says so).
class HistoryRows {
 public:
  HistoryRows(const Study& st, analysis::RowSink sink) : st_(st), sink_(std::move(sink)) {
    if (!sink_) return;
    columns_.push_back("time");
    for (std::size_t i = 0; i < st.outputs.names.size(); ++i)
      if (differentiable(st.outputs.components[i].type)) kept_.push_back(i);
    for (std::size_t i : kept_) columns_.push_back(st.outputs.names[i]);
    for (std::size_t i : kept_)
      for (std::size_t k : st.parameters) columns_.push_back("d(" + st.outputs.names[i] + ")/d(" + st.table().names()[k] + ")");
    row_.assign(columns_.size(), 0.0);
  }
  static bool differentiable(Output::Type t) { return t != Output::Type::Energy && t != Output::Type::ConstraintResidual; }
  /// One chunk's lanes of every output at the row being built.
  void set(const DualChunk& c, const std::vector<Dual>& out) {
    if (!sink_) return;
    const std::size_t no = kept_.size(), p = st_.parameters.size();
    for (std::size_t n = 0; n < no; ++n) {
      const Dual& o = out[kept_[n]];
      row_[1 + n] = o.v;
      for (int j = 0; j < c.count; ++j) row_[1 + no + n * p + static_cast<std::size_t>(c.first + j)] = o.g[j];
    }
  }
  /// The row at t done.
  void send(double t) {
    if (!sink_) return;
    row_[0] = t;
    rows_.insert(rows_.end(), row_.begin(), row_.end());
    if (rows_.size() >= 256 * columns_.size()) flush();
  }
  void flush() { analysis::sendRows(sink_, columns_, rows_, sent_); }

 private:
  const Study& st_;
  analysis::RowSink sink_;
  std::vector<std::string> columns_;
  std::vector<std::size_t> kept_;  // the outputs with a derivative
  std::vector<double> row_, rows_;
  std::size_t sent_ = 0;
};

}  // namespace lw::sens::detail
