// The adjoint's parameter products' shared parts (parameter_products.h).
#include "sensitivity/parameter_products.h"

#include <algorithm>

#include "outputs/outputs.h"

namespace lw::sens::detail {

bool parameterProductsCover(const Study& st, const FormulationNumbers& numbers) {
  if (numbers.semiAnalytical() || st.outputs.reactions) return false;
  for (const auto& c : st.outputs.components)
    if (c.type != Output::Type::PointPosition && c.type != Output::Type::PointVelocity && c.type != Output::Type::PointAcceleration &&
        c.type != Output::Type::SpringLength && c.type != Output::Type::JointRate && c.type != Output::Type::Energy &&
        c.type != Output::Type::ConstraintResidual)
      return false;
  for (std::size_t c = 0; c < numbers.chunkCount(); ++c)
    if (!dyn::numbersLanesCovered(st.model.tree, *numbers.lanesOf(numbers.chunk(c)), numbers.chunk(c).tree)) return false;
  return true;
}

Eigen::MatrixXd outputsByPoints(const Study& st, const FormulationNumbers& numbers, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                                const Eigen::VectorXd& zdd, const dyn::MotionAtState& motion) {
  const dyn::RecursiveModel& tree = st.model.tree;
  const auto& points = st.outputs.points;
  const std::size_t np = 3 * points.size();
  const auto no = static_cast<Eigen::Index>(st.outputs.names.size());
  std::vector<double> r(np), v(np), a(np);
  motion.points(tree, numbers.real().tree, points, r.data(), v.data(), a.data());
  std::vector<Dual> rs(np), vs(np), as(np), out(static_cast<std::size_t>(no));
  const Vec<Dual> zs = z.cast<Dual>(), zds = zd.cast<Dual>(), zdds = zdd.cast<Dual>();
  Eigen::MatrixXd J(no, static_cast<Eigen::Index>(3 * np));
  for (std::size_t first = 0; first < 3 * np; first += kLanes) {
    for (std::size_t i = 0; i < np; ++i) {
      rs[i] = Dual(r[i]);
      vs[i] = Dual(v[i]);
      as[i] = Dual(a[i]);
    }
    for (std::size_t j = first; j < std::min(3 * np, first + kLanes); ++j) {
      std::vector<Dual>& x = j < np ? rs : j < 2 * np ? vs : as;
      x[j % np].g[j - first] = 1;
    }
    analysis::outputsFromPoints<Dual>(st.outputs, tree, numbers.plain().tree, zs, zds, zdds, t, rs.data(), vs.data(), as.data(), out.data());
    for (std::size_t j = first; j < std::min(3 * np, first + kLanes); ++j)
      for (Eigen::Index k = 0; k < no; ++k) J(k, static_cast<Eigen::Index>(j)) = out[static_cast<std::size_t>(k)].g[j - first];
  }
  return J;
}

void addLanesProducts(const Study& st, const FormulationNumbers& numbers, const dyn::MotionAtState& motion, const dyn::NumbersAdjoint& adjoint,
                      const double* wTau, std::span<const ItemIndex> points, Eigen::Index column, Eigen::MatrixXd& gradient) {
  double products[kLanes];
  for (std::size_t ch = 0; ch < numbers.chunkCount(); ++ch) {
    dyn::numbersLanesProducts(st.model.tree, motion, *numbers.lanesOf(numbers.chunk(ch)), numbers.chunk(ch).tree, adjoint, wTau, points, products);
    for (int j = 0; j < numbers.chunkSize(ch); ++j) gradient(column, numbers.chunkFirst(ch) + j) += products[j];
  }
}

}  // namespace lw::sens::detail
