#include "sensitivity/cost_integrand.h"

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

void CostIntegrand::operator()(double t, const Eigen::VectorXd& outputs, Eigen::VectorXd& g, Eigen::MatrixXd& gOut,
                             Eigen::MatrixXd& gInit, Eigen::MatrixXd& gPar) const {
  const auto& cs = st_.costs;
  const auto no = static_cast<Eigen::Index>(cs.outputs), np = static_cast<Eigen::Index>(cs.parameters);
  const auto nc = static_cast<Eigen::Index>(cs.names.size());
  const Eigen::Index slots = 2 * no + np;
  g.resize(nc);
  gOut.resize(nc, no);
  gInit.resize(nc, no);
  Eigen::MatrixXd gSlotPar(nc, np);
  std::vector<Dual> s(static_cast<std::size_t>(1 + slots));
  for (Eigen::Index first = 0; first < slots || first == 0; first += kLanes) {
    s[0] = Dual(t);
    for (Eigen::Index i = 0; i < slots; ++i) {
      const double value = i < no ? outputs[i] : i < 2 * no ? initial_[i - no] : st_.table().values()[static_cast<std::size_t>(i - 2 * no)];
      s[static_cast<std::size_t>(1 + i)] = Dual(value);
      if (i >= first && i < first + kLanes) s[static_cast<std::size_t>(1 + i)].g[i - first] = 1;
    }
    for (Eigen::Index k = 0; k < nc; ++k) {
      const Dual v = cs.expressions[static_cast<std::size_t>(k)](std::span<const Dual>(s));
      g[k] = v.v;
      for (Eigen::Index i = first; i < std::min(slots, first + kLanes); ++i) {
        const double dv = v.g[i - first];
        if (i < no) gOut(k, i) = dv;
        else if (i < 2 * no) gInit(k, i - no) = dv;
        else gSlotPar(k, i - 2 * no) = dv;
      }
    }
    if (slots == 0) break;
  }
  gPar = gSlotPar * paramJacobian_;
}

}  // namespace lw::sens::detail
