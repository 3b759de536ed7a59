// The constraint library: one templated residual per constraint kind (constraint_residual.h),
// evaluated on double for Φ and on Jets for Φ_q columns, Φ_t and γ (derivatives exact to
// round-off; tests compare them with finite differences).
#include "kinematics/constraint_residual.h"

namespace lw::kin {
namespace {
using namespace residual_detail;
using X0 = Gather<double, ModelConstants>;
using XJ = Gather<Jet, ModelConstants>;
}  // namespace

void evaluateConstraints(const NaturalModel& m, const Eigen::VectorXd& q, double t, Eigen::VectorXd& phi) {
  const ModelConstants k{m};
  const X0 x{m, k, q};
  for (const Constraint& c : m.constraints) residual<double>(m, k, c, x, t, phi.data() + c.row);
}

void constraintValue(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, double* out) {
  const ModelConstants k{m};
  residual<double>(m, k, c, X0{m, k, q}, t, out);
}

void constraintJet(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, const Eigen::VectorXd* dir,
                   int col, double t, double dt, Jet* out) {
  const ModelConstants k{m};
  residual<Jet>(m, k, c, XJ{m, k, q, dir ? -1 : col, dir}, Jet(t, dt, 0), out);
}

namespace detail {
void constraintColumn(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t,
                      int col, double* out) {
  const ModelConstants k{m};
  const XJ x{m, k, q, col, nullptr};
  Jet r[3];
  residual<Jet>(m, k, c, x, Jet(t), r);
  for (int i = 0; i < c.rows; ++i) out[i] = r[i].d;
}
}  // namespace detail

void evaluatePhiT(const NaturalModel& m, const Eigen::VectorXd& q, double t, Eigen::VectorXd& phiT) {
  const ModelConstants k{m};
  const XJ x{m, k, q, -1, nullptr};
  Jet r[3];
  for (const Constraint& c : m.constraints) {
    residual<Jet>(m, k, c, x, Jet(t, 1, 0), r);
    for (int i = 0; i < c.rows; ++i) phiT[c.row + i] = r[i].d;
  }
}

void evaluateGamma(const NaturalModel& m, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                   Eigen::VectorXd& gamma) {
  const ModelConstants k{m};
  const XJ x{m, k, q, -1, &qd};
  Jet r[3];
  for (const Constraint& c : m.constraints) {
    residual<Jet>(m, k, c, x, Jet(t, 1, 0), r);
    for (int i = 0; i < c.rows; ++i) gamma[c.row + i] = r[i].dd;
  }
}

void evaluateJacobianDense(const NaturalModel& m, const Eigen::VectorXd& q, double t, Eigen::MatrixXd& J) {
  J.setZero(m.nrows, m.nq);
  evaluateJacobian(m, q, t, [&](int r, int c, double v) { J(r, c) += v; });
}

void pointKinematics(const NaturalModel& m, int body, int point, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, Eigen::Vector3d* r,
                     Eigen::Vector3d* v, Eigen::Vector3d* a) {
  const ModelConstants k{m};
  const V3<Jet> pv = bodyPoint<Jet>(m, k, body, point, XJ{m, k, q, -1, &qd});
  if (r) *r = {pv.x.v, pv.y.v, pv.z.v};
  if (v) *v = {pv.x.d, pv.y.d, pv.z.d};
  if (a) {
    const V3<Jet> pa = bodyPoint<Jet>(m, k, body, point, XJ{m, k, q, -1, &qdd});
    *a = {pa.x.d + pv.x.dd, pa.y.d + pv.y.dd, pa.z.d + pv.z.dd};
  }
}

}  // namespace lw::kin
