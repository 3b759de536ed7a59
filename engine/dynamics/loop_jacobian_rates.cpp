#include "dynamics/loop_jacobian_rates.h"

#include <Eigen/Geometry>

#include "dynamics/inverse_dynamics_derivatives.h"
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

}  // namespace

std::string loopJacobianRatesUnsupported(const RecursiveModel& m, const std::vector<int>& rows) {
  for (int row : rows) {
    const LoopConstraint* of = nullptr;
    for (const LoopConstraint& c : m.constraints)
      if (row >= c.row && row < c.row + c.rows) of = &c;
    if (of && of->kind == LoopConstraint::Kind::UnitQuaternion) continue;
    if (of && of->kind == LoopConstraint::Kind::Driver) {
      // a tree joint's driver reads its coordinate, a coordinate driver its point's component;
      // a driven cut joint's angle or slide and a distance driver read more
      const auto& dv = m.mechanism->drivers[static_cast<std::size_t>(of->index)];
      if (dv.type == Driver::Type::Coordinate || (dv.type == Driver::Type::Joint && m.treeJointNode[static_cast<std::size_t>(dv.joint)] >= 0)) continue;
      return "driver " + std::to_string(of->index) + (dv.type == Driver::Type::Distance ? " drives a distance" : " drives a cut joint");
    }
    if (!of || of->kind != LoopConstraint::Kind::CutJoint) return "row " + std::to_string(row) + " is not a cut joint's";
    const auto& jt = m.mechanism->joints[static_cast<std::size_t>(of->index)];
    const int k = row - of->row;
    const bool points = (jt.type == JointType::Pin && k < 2) || ((jt.type == JointType::Spherical || jt.type == JointType::Revolute) && k < 3);
    const bool axes = jt.type == JointType::Revolute && m.dimension == 3 && (k == 3 || k == 4);
    if (!points && !axes) return "joint " + std::to_string(of->index) + "'s row " + std::to_string(k) + " is neither its points' difference nor its axes'";
  }
  return {};
}

void loopJacobianRates(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, const std::vector<int>& rows,
                       const std::vector<Dof>& dofs, const Eigen::VectorXd& lambda, Eigen::MatrixXd& Thetad, Eigen::MatrixXd& Thetadd,
                       Eigen::MatrixXd& H) {
  const int nz = m.nz;
  const detail::MotionAtStateData& st = state.data();
  const detail::TreeMotion<double>& motion = st.motion;
  const auto nPsi = static_cast<Eigen::Index>(rows.size() + dofs.size());  // Ψ's rows (nz for Matrix R's Θ)
  Thetad.setZero(nPsi, nz);
  Thetadd.setZero(nPsi, nz);
  H.setZero(nz, nz);
  auto within = [&](std::size_t k, std::size_t of) { return m.inSubtree(k, of); };
  // the columns and their rates (Ṡ_j = V_j × S_j, S̈_j = A_j × S_j + V_j × Ṡ_j for a one-axis
  // column; a quaternion node's exact) and turns
  thread_local detail::ColumnDerivatives columns;
  detail::columnDerivatives(m, p, motion, st.z.data(), st.zd.data(), st.zdd.data(), true, columns);
  thread_local std::vector<Twist> S, Sd, Sdd;
  S.resize(static_cast<std::size_t>(nz));
  Sd.resize(S.size());
  Sdd.resize(S.size());
  for (std::size_t j = 0; j < S.size(); ++j) {
    S[j] = twist(motion.column[j]);
    Sd[j] = twist(columns.rate[j]);
    Sdd[j] = twist(columns.secondRate[j]);
  }
  const std::vector<int>& nodeOf = motion.nodeOf;
  thread_local std::vector<Vector3d> u, a;  // by coordinate, for one point: ∂x/∂z_j and Λ × S_j.ω
  u.resize(S.size());
  a.resize(S.size());
  // point `local` on `body` read with sign s by the rows `rs` of Ψ along their unit directions
  // `axes` (Θ's rows s e_k·(S_j.v + S_j.ω × x)), the multipliers' sum over them Λ = s Σ λ_r e_k
  auto point = [&](int body, const Eigen::Vector3d& local, double s, const int* rs, const int* axes, int count, const Vector3d& Lambda) {
    const int node = m.nodeOfBody[static_cast<std::size_t>(body)];
    if (node < 0) return;  // the ground's point stays
    const auto nb = static_cast<std::size_t>(node);
    const Twist V = twist(motion.V[nb]), A = twist(motion.A[nb]);
    const Vector3d x = vec3(detail::worldPoint(motion.frames[static_cast<std::size_t>(body)], local));
    const Vector3d xd = V.v + V.w.cross(x), xdd = A.v + A.w.cross(x) + V.w.cross(xd);
    const bool loaded = !Lambda.isZero(0.0);
    for (int j = 0; j < nz; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      if (!within(nb, static_cast<std::size_t>(nodeOf[uj]))) continue;  // z_j does not move the body
      const Twist &sj = S[uj], &sd = Sd[uj], &sdd = Sdd[uj];
      // d/dt and d²/dt² of the point's column S_j.v + S_j.ω × x
      const Vector3d g1 = sd.v + sd.w.cross(x) + sj.w.cross(xd);
      const Vector3d g2 = sdd.v + sdd.w.cross(x) + 2 * sd.w.cross(xd) + sj.w.cross(xdd);
      for (int k = 0; k < count; ++k) {
        Thetad(rs[k], j) += s * g1[axes[k]];
        Thetadd(rs[k], j) += s * g2[axes[k]];
      }
      if (loaded) {
        u[uj] = sj.v + sj.w.cross(x);
        a[uj] = Lambda.cross(sj.w);
      }
    }
    if (!loaded) return;
    // H(j, i) = ∂/∂z_i Λ·(S_j.v + S_j.ω × x): Λ·(S_j.ω × ∂x/∂z_i) = u_i·a_j, and where z_i turns S_j
    // (∂S_j/∂z_i = S_i × S_j) that plus Λ·(the turned column at x) = u_j·a_i in all (by Jacobi's
    // identity the turned column at x is S_i.ω × u_j − S_j.ω × u_i); inside a quaternion node the
    // turn is its own (ColumnDerivatives::turn)
    for (int j = 0; j < nz; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      const auto nj = static_cast<std::size_t>(nodeOf[uj]);
      if (!within(nb, nj)) continue;
      for (int i = 0; i < nz; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        const auto ni = static_cast<std::size_t>(nodeOf[ui]);
        if (!within(nb, ni)) continue;  // z_i moves neither the point nor the column
        if (nj == ni && columns.quaternion[uj]) {
          const Twist turn = twist(columns.turn[uj][static_cast<std::size_t>(i - m.nodes[ni].z)]);
          H(j, i) += u[ui].dot(a[uj]) + Lambda.dot(turn.v + turn.w.cross(x));
        } else {
          H(j, i) += within(nj, ni) && (nj != ni || j > i) ? u[uj].dot(a[ui]) : u[ui].dot(a[uj]);
        }
      }
    }
  };
  // a spatial revolute's axis row Φ = a·b (a = R₀u on the joint's first body, b = R₁w or R₁v on
  // its second): a column turning body 0 turns a, one turning body 1 turns b, so with c = a × b
  //   Θ(r, j) = σ_j S_j.ω·c (σ_j = [j moves body 0] − [j moves body 1]),
  //   Θ̇ = σ_j (Ṡ_j.ω·c + S_j.ω·ċ),  Θ̈ = σ_j (S̈_j.ω·c + 2 Ṡ_j.ω·ċ + S_j.ω·c̈),
  //   H(j, i) = λ σ_j (∂S_j.ω/∂z_i · c + S_j.ω · ∂c/∂z_i), ∂c/∂z_i = (S_i.ω × a) × b [i moves 0] + a × (S_i.ω × b) [i moves 1]
  auto axisRow = [&](int joint, int r, int axis, double lambda_r) {
    const auto& jt = m.mechanism->joints[static_cast<std::size_t>(joint)];
    const auto& jointAxes = p.jointAxes[static_cast<std::size_t>(joint)];
    int nodeOfSide[2];
    Vector3d vec[2], w[2], wd[2];  // a and b in world axes, the bodies' ω and α
    for (int side = 0; side < 2; ++side) {
      const int body = jt.body(side);
      nodeOfSide[side] = m.nodeOfBody[static_cast<std::size_t>(body)];
      const Eigen::Vector3d& local = side == 0 ? jointAxes[0].u : axis == 3 ? jointAxes[1].w : jointAxes[1].v;
      const auto& R = motion.frames[static_cast<std::size_t>(body)].R;
      vec[side] = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(R.a) * local;
      w[side] = wd[side] = Vector3d::Zero();
      if (nodeOfSide[side] >= 0) {
        w[side] = vec3(motion.V[static_cast<std::size_t>(nodeOfSide[side])].w);
        wd[side] = vec3(motion.A[static_cast<std::size_t>(nodeOfSide[side])].w);
      }
    }
    const Vector3d &A = vec[0], &B = vec[1];
    const Vector3d Ad = w[0].cross(A), Bd = w[1].cross(B);
    const Vector3d Add = wd[0].cross(A) + w[0].cross(Ad), Bdd = wd[1].cross(B) + w[1].cross(Bd);
    const Vector3d c = A.cross(B), cd = Ad.cross(B) + A.cross(Bd), cdd = Add.cross(B) + 2 * Ad.cross(Bd) + A.cross(Bdd);
    auto moves = [&](int side, std::size_t nj) { return nodeOfSide[side] >= 0 && within(static_cast<std::size_t>(nodeOfSide[side]), nj); };
    for (int j = 0; j < nz; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      const auto nj = static_cast<std::size_t>(nodeOf[uj]);
      const double sigma = (moves(0, nj) ? 1.0 : 0.0) - (moves(1, nj) ? 1.0 : 0.0);
      if (sigma == 0) continue;
      Thetad(r, j) += sigma * (Sd[uj].w.dot(c) + S[uj].w.dot(cd));
      Thetadd(r, j) += sigma * (Sdd[uj].w.dot(c) + 2 * Sd[uj].w.dot(cd) + S[uj].w.dot(cdd));
      if (lambda_r == 0) continue;
      for (int i = 0; i < nz; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        const auto ni = static_cast<std::size_t>(nodeOf[ui]);
        const Vector3d& wi = S[ui].w;
        Vector3d dc = Vector3d::Zero();
        if (moves(0, ni)) dc += wi.cross(A).cross(B);
        if (moves(1, ni)) dc += A.cross(wi.cross(B));
        Vector3d turn = Vector3d::Zero();  // ∂S_j.ω/∂z_i
        if (nj == ni && columns.quaternion[uj]) turn = vec3(columns.turn[uj][static_cast<std::size_t>(i - m.nodes[ni].z)].w);
        else if (within(nj, ni) && (nj != ni || j > i)) turn = wi.cross(S[uj].w);
        H(j, i) += lambda_r * sigma * (turn.dot(c) + S[uj].w.dot(dc));
      }
    }
  };
  // the loops' rows, a cut joint's at a time (its point rows share the points); a quaternion's
  // unit row |q|² − 1 reads its own coordinates: Θ = 2qᵀ, Θ̇ = 2q̇ᵀ, Θ̈ = 2q̈ᵀ, H = 2λI
  int rs[3], axes[3];
  for (const LoopConstraint& con : m.constraints) {
    if (con.kind == LoopConstraint::Kind::Driver) {
      // a coordinate driver x(P)_k − f(t): a point's component, its rates and turn as any; a tree
      // joint's driver ±z_j − f(t) has a constant row (no rate, no turn)
      const auto& dv = m.mechanism->drivers[static_cast<std::size_t>(con.index)];
      if (dv.type != Driver::Type::Coordinate) continue;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] != con.row) continue;
        const int r = static_cast<int>(i), axis = dv.component;
        Vector3d Lambda = Vector3d::Zero();
        Lambda[axis] = lambda[static_cast<Eigen::Index>(i)];
        point(dv.point.body, p.mech.point(dv.point), 1.0, &r, &axis, 1, Lambda);
      }
      continue;
    }
    if (con.kind == LoopConstraint::Kind::UnitQuaternion) {
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] != con.row) continue;
        const Node& n = m.nodes[static_cast<std::size_t>(con.index)];
        const int q = n.z + (n.kind == NodeKind::FreeSpatial ? 3 : 0);
        const auto r = static_cast<Eigen::Index>(i);
        for (int c = q; c < q + 4; ++c) {
          Thetad(r, c) = 2 * st.zd[c];
          Thetadd(r, c) = 2 * st.zdd[c];
          H(c, c) += 2 * lambda[r];
        }
      }
      continue;
    }
    int count = 0;
    Vector3d lambdaSum = Vector3d::Zero();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const int k = rows[i] - con.row;
      if (k < 0 || k >= con.rows) continue;
      if (k >= 3) {  // a revolute's axis row
        axisRow(con.index, static_cast<int>(i), k, lambda[static_cast<Eigen::Index>(i)]);
        continue;
      }
      rs[count] = static_cast<int>(i);
      axes[count] = k;
      lambdaSum[k] += lambda[static_cast<Eigen::Index>(i)];
      ++count;
    }
    if (count == 0) continue;
    const auto& jt = m.mechanism->joints[static_cast<std::size_t>(con.index)];
    for (int side = 0; side < 2; ++side) {
      const double s = side == 1 ? 1.0 : -1.0;
      point(jt.body(side), p.mech.point(jt.points[side]), s, rs, axes, count, s * lambdaSum);
    }
  }
  // the independent coordinates that are points' components (a coordinate's row is constant)
  for (std::size_t k = 0; k < dofs.size(); ++k) {
    const Dof& f = dofs[k];
    if (f.kind != Dof::Kind::PointComponent) continue;
    const int r = static_cast<int>(rows.size() + k);
    point(f.body, p.mech.point(f.item), 1.0, &r, &f.component, 1, Vector3d::Zero());
  }
}

}  // namespace lw::dyn
