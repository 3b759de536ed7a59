#include "dynamics/loop_jacobian_rates.h"

#include <Eigen/Geometry>

#include "dynamics/tree_motion.h"

namespace lw::dyn {
namespace {

using Eigen::Vector3d;

Vector3d vec3(const detail::V3<double>& a) { return {a[0], a[1], a[2]}; }

// a motion [v; ω] about the world origin
struct Twist {
  Vector3d v, w;
};
Twist twist(const detail::Motion6<double>& m) { return {vec3(m.v), vec3(m.w)}; }
Twist cross(const Twist& m, const Twist& x) { return {m.w.cross(x.v) + m.v.cross(x.w), m.w.cross(x.w)}; }
Twist operator+(const Twist& a, const Twist& b) { return {a.v + b.v, a.w + b.w}; }

// a row's reading of the bodies: a point x on body `body` (a node's) with sign s, along e
struct PointRead {
  int body = -1;
  double sign = 1;
  Vector3d x, xd, xdd;  // the point and its velocity and acceleration
};

// one row of Ψ: its points (two for a joint's difference, one for an independent point's
// component, none for a coordinate) and the direction e it reads them along
struct RowReads {
  PointRead point[2];
  int count = 0;
  Vector3d e = Vector3d::Zero();
  double lambda = 0;
};

}  // namespace

std::string loopJacobianRatesUnsupported(const RecursiveModel& m, const std::vector<int>& rows, const std::vector<Dof>& dofs) {
  for (const Node& n : m.nodes)
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) return "a quaternion joint (body " + std::to_string(n.body) + ")";
  for (int row : rows) {
    const LoopConstraint* of = nullptr;
    for (const LoopConstraint& c : m.constraints)
      if (row >= c.row && row < c.row + c.rows) of = &c;
    if (!of || of->kind != LoopConstraint::Kind::CutJoint) return "row " + std::to_string(row) + " is not a cut joint's";
    const auto& jt = m.mechanism->joints[static_cast<std::size_t>(of->index)];
    const int k = row - of->row;
    const bool points = (jt.type == JointType::Pin && k < 2) || ((jt.type == JointType::Spherical || jt.type == JointType::Revolute) && k < 3);
    if (!points) return "joint " + std::to_string(of->index) + "'s row " + std::to_string(k) + " is not its points' difference";
  }
  (void)dofs;  // coordinates and points' components: both covered
  return {};
}

void loopJacobianRates(const RecursiveModel& m, const TreeNumbers<double>& p, const detail::TreeMotion<double>& motion, const std::vector<int>& rows,
                       const std::vector<Dof>& dofs, const Eigen::VectorXd& lambda, Eigen::MatrixXd& Thetad, Eigen::MatrixXd& Thetadd,
                       Eigen::MatrixXd& H) {
  const int nz = m.nz;
  Thetad.setZero(nz, nz);
  Thetadd.setZero(nz, nz);
  H.setZero(nz, nz);
  auto within = [&](std::size_t k, std::size_t of) { return m.enter[of] <= m.enter[k] && m.enter[k] < m.leave[of]; };
  // a point on a body with its velocity and acceleration (x, ẋ = V.v + V.ω × x, ẍ = A.v + A.ω × x + V.ω × ẋ)
  auto read = [&](int body, const Vector3d& local, double sign) {
    PointRead r;
    r.body = body;
    r.sign = sign;
    const detail::Frame<double>& F = motion.frames[static_cast<std::size_t>(body)];
    r.x = vec3(detail::worldPoint(F, local));
    r.xd.setZero();
    r.xdd.setZero();
    const int node = m.nodeOfBody[static_cast<std::size_t>(body)];
    if (node >= 0) {
      const Twist V = twist(motion.V[static_cast<std::size_t>(node)]), A = twist(motion.A[static_cast<std::size_t>(node)]);
      r.xd = V.v + V.w.cross(r.x);
      r.xdd = A.v + A.w.cross(r.x) + V.w.cross(r.xd);
    }
    return r;
  };
  std::vector<RowReads> reads(static_cast<std::size_t>(nz));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const int row = rows[i];
    for (const LoopConstraint& c : m.constraints) {
      if (row < c.row || row >= c.row + c.rows) continue;
      const auto& jt = m.mechanism->joints[static_cast<std::size_t>(c.index)];
      RowReads& r = reads[i];
      r.e = Vector3d::Unit(row - c.row);
      r.lambda = lambda[static_cast<Eigen::Index>(i)];
      for (int s = 0; s < 2; ++s)
        if (m.nodeOfBody[static_cast<std::size_t>(jt.body(s))] >= 0)
          r.point[r.count++] = read(jt.body(s), p.mech.point(jt.points[s]), s == 1 ? 1.0 : -1.0);
    }
  }
  for (std::size_t k = 0; k < dofs.size(); ++k) {
    const Dof& f = dofs[k];
    if (f.kind != Dof::Kind::PointComponent || m.nodeOfBody[static_cast<std::size_t>(f.body)] < 0) continue;  // a coordinate's row is constant
    RowReads& r = reads[rows.size() + k];
    r.e = Vector3d::Unit(f.component);
    r.point[r.count++] = read(f.body, p.mech.point(f.item), 1.0);
  }
  // the columns and their rates: Ṡ_j = V_j × S_j, S̈_j = A_j × S_j + V_j × Ṡ_j
  std::vector<Twist> S(static_cast<std::size_t>(nz)), Sd(S.size()), Sdd(S.size());
  for (std::size_t j = 0; j < S.size(); ++j) {
    S[j] = twist(motion.column[j]);
    const Twist Vj = twist(motion.Vi[j]), Aj = twist(motion.Ai[j]);
    Sd[j] = cross(Vj, S[j]);
    Sdd[j] = cross(Aj, S[j]) + cross(Vj, Sd[j]);
  }
  const std::vector<int>& nodeOf = motion.nodeOf;
  for (int r = 0; r < nz; ++r) {
    const RowReads& row = reads[static_cast<std::size_t>(r)];
    for (int q = 0; q < row.count; ++q) {
      const PointRead& pt = row.point[q];
      const auto nb = static_cast<std::size_t>(m.nodeOfBody[static_cast<std::size_t>(pt.body)]);
      const Vector3d se = pt.sign * row.e;
      for (int j = 0; j < nz; ++j) {
        const auto uj = static_cast<std::size_t>(j);
        const auto nj = static_cast<std::size_t>(nodeOf[uj]);
        if (!within(nb, nj)) continue;  // z_j does not move the body
        const Twist &s = S[uj], &sd = Sd[uj], &sdd = Sdd[uj];
        Thetad(r, j) += se.dot(sd.v + sd.w.cross(pt.x) + s.w.cross(pt.xd));
        Thetadd(r, j) += se.dot(sdd.v + sdd.w.cross(pt.x) + 2 * sd.w.cross(pt.xd) + s.w.cross(pt.xdd));
        if (row.lambda == 0) continue;
        // H(j, i) += λ s e·(∂S_j.v/∂z_i + ∂S_j.ω/∂z_i × x + S_j.ω × ∂x/∂z_i)
        const Vector3d le = row.lambda * se;
        for (int i = 0; i < nz; ++i) {
          const auto ui = static_cast<std::size_t>(i);
          const auto ni = static_cast<std::size_t>(nodeOf[ui]);
          if (!within(nb, ni)) continue;  // z_i moves neither the point nor the column
          const Twist& si = S[ui];
          double v = le.dot(s.w.cross(si.v + si.w.cross(pt.x)));
          if (within(nj, ni) && (nj != ni || j > i)) {
            const Twist turned = cross(si, s);
            v += le.dot(turned.v + turned.w.cross(pt.x));
          }
          H(j, i) += v;
        }
      }
    }
  }
}

}  // namespace lw::dyn
