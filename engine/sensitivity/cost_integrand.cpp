#include "sensitivity/cost_integrand.h"

#include "integrators/integrators.h"

namespace lw::sens::detail {

CostIntegrand::CostIntegrand(const Study& st) : st_(st) {
  const std::size_t np = st.table().names().size(), p = st.parameters.size();
  paramJacobian_.setZero(static_cast<Eigen::Index>(np), static_cast<Eigen::Index>(p));
  for (const ParameterChunk& c : parameterChunks(st)) {
    const std::vector<Dual> values = st.table().valuesOn<Dual>(c.seeded, c.seeds);
    for (std::size_t i = 0; i < np; ++i)
      for (std::size_t j = 0; j < c.seeded.size(); ++j)
        paramJacobian_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c.first + j)) = values[i].g[j];
  }
}

void CostIntegrand::lanes(const std::vector<const Expression::Bound*>& e, const std::vector<double>& slots, Eigen::VectorXd& g,
                          Eigen::MatrixXd& dSlots) const {
  const auto n = static_cast<Eigen::Index>(slots.size()) - 1, ne = static_cast<Eigen::Index>(e.size());
  g.resize(ne);
  dSlots.resize(ne, n);
  std::vector<Dual> s(slots.size());
  for (Eigen::Index first = 0; first < n || first == 0; first += kLanes) {
    s[0] = Dual(slots[0]);
    for (Eigen::Index i = 0; i < n; ++i) {
      s[static_cast<std::size_t>(1 + i)] = Dual(slots[static_cast<std::size_t>(1 + i)]);
      if (i >= first && i < first + kLanes) s[static_cast<std::size_t>(1 + i)].g[i - first] = 1;
    }
    for (Eigen::Index k = 0; k < ne; ++k) {
      const Dual v = (*e[static_cast<std::size_t>(k)])(std::span<const Dual>(s));
      g[k] = v.v;
      for (Eigen::Index i = first; i < std::min(n, first + kLanes); ++i) dSlots(k, i) = v.g[i - first];
    }
    if (n == 0) break;
  }
}

void CostIntegrand::operator()(double t, const Eigen::VectorXd& outputs, Eigen::VectorXd& g, Eigen::MatrixXd& gOut,
                               Eigen::MatrixXd& gInit, Eigen::MatrixXd& gPar) const {
  const auto& cs = st_.costs;
  const auto no = static_cast<Eigen::Index>(cs.outputs), np = static_cast<Eigen::Index>(cs.parameters);
  std::vector<double> slots(static_cast<std::size_t>(1 + 2 * no + np));
  slots[0] = t;
  for (Eigen::Index i = 0; i < no; ++i) {
    slots[static_cast<std::size_t>(1 + i)] = outputs[i];
    slots[static_cast<std::size_t>(1 + no + i)] = initial_[i];
  }
  for (Eigen::Index i = 0; i < np; ++i) slots[static_cast<std::size_t>(1 + 2 * no + i)] = st_.table().values()[static_cast<std::size_t>(i)];
  std::vector<const Expression::Bound*> e;
  for (const auto& x : cs.expressions) e.push_back(&x);
  Eigen::MatrixXd d;
  lanes(e, slots, g, d);
  gOut = d.leftCols(no);
  gInit = d.middleCols(no, no);
  gPar = d.rightCols(np) * paramJacobian_;
}

void CostIntegrand::at(const Expression::Bound& e, const std::vector<double>& slots, double& g, Eigen::RowVectorXd& gOut,
                       Eigen::RowVectorXd& gInit, Eigen::RowVectorXd& gPar) const {
  const auto no = static_cast<Eigen::Index>(st_.costs.outputs), np = static_cast<Eigen::Index>(st_.costs.parameters);
  Eigen::VectorXd v;
  Eigen::MatrixXd d;
  lanes({&e}, slots, v, d);
  g = v[0];
  gOut = d.row(0).head(no);
  gInit = d.row(0).segment(no, no);
  gPar = d.row(0).tail(np) * paramJacobian_;
}

TargetTerms::TargetTerms(const Study& st, const CostIntegrand& integrand, const CostSites* sites) {
  if (!sites) return;
  for (const auto& s : sites->targets) {
    Term t;
    t.cost = static_cast<Eigen::Index>(s.cost);
    t.weight = s.f;
    integrand.at(st.costs.samples[s.cost][s.sample].expression, s.slotValues, t.g, t.gOut, t.gInit, t.gPar);
    if (s.f < 1) {
      Term before = t;
      before.weight = 1 - s.f;
      before.own = false;
      byNode_.emplace(s.node - 1, before);
    }
    byNode_.emplace(s.node, std::move(t));
  }
}

void TargetTerms::addAt(long n, NodeCostTerms& terms) const {
  const auto [first, last] = byNode_.equal_range(n);
  for (auto it = first; it != last; ++it) {
    const Term& t = it->second;
    terms.gOut.row(t.cost) += t.weight * t.gOut;
    if (!t.own) continue;
    terms.g[t.cost] += t.g;
    terms.gInit.row(t.cost) += t.gInit;
    terms.gPar.row(t.cost) += t.gPar;
  }
}

namespace {

// the integrand's value and derivatives at (t, outputs), each cost's row weighted by w
NodeCostTerms weightedIntegrand(const CostIntegrand& integrand, double t, const Eigen::VectorXd& outputs, const Eigen::VectorXd& w) {
  NodeCostTerms c;
  integrand(t, outputs, c.g, c.gOut, c.gInit, c.gPar);
  c.g = w.cwiseProduct(c.g);
  c.gOut = w.asDiagonal() * c.gOut;
  c.gInit = w.asDiagonal() * c.gInit;
  c.gPar = w.asDiagonal() * c.gPar;
  return c;
}

}  // namespace

Eigen::VectorXd nodeWeights(const analysis::CostSet& costs, const NodeSpan& span, long n, const CostSites* sites, bool rungeKutta) {
  const double integral = rungeKutta ? integ::dopri::b1 * span.after : 0.5 * (span.before + span.after);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(costs.names.size()));
  for (Eigen::Index k = 0; k < w.size(); ++k) {
    switch (costs.types[static_cast<std::size_t>(k)]) {
      case Cost::Type::Integral: w[k] = integral; break;
      case Cost::Type::Terminal: w[k] = span.last ? 1.0 : 0.0; break;
      case Cost::Type::Minimum: case Cost::Type::Maximum:
        w[k] = sites && sites->extremeNodes[static_cast<std::size_t>(k)] == n ? 1.0 : 0.0;
        break;
      case Cost::Type::Targets: break;
    }
  }
  return w;
}

NodeCostTerms nodeCosts(const Study& st, const CostIntegrand& integrand, const TargetTerms& targets, const CostSites* sites,
                        const NodeSpan& span, long n, double t, const Eigen::VectorXd& outputs, bool rungeKutta) {
  NodeCostTerms c = weightedIntegrand(integrand, t, outputs, nodeWeights(st.costs, span, n, sites, rungeKutta));
  targets.addAt(n, c);
  return c;
}

NodeCostTerms stageCosts(const Study& st, const CostIntegrand& integrand, std::size_t i, double h, double t, const Eigen::VectorXd& outputs) {
  Eigen::VectorXd w = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(st.costs.names.size()));
  for (Eigen::Index k = 0; k < w.size(); ++k)
    if (st.costs.types[static_cast<std::size_t>(k)] == Cost::Type::Integral) w[k] = h * integ::dopri::quadratureB[i];
  return weightedIntegrand(integrand, t, outputs, w);
}

}  // namespace lw::sens::detail
