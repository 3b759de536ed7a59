// Recursive kinematics of the tree and the loop constraints, on double and on Jets.
#include <Eigen/Geometry>
#include <Eigen/QR>
#include <cmath>

#include "dynamics/recursive_model.h"
#include "numeric/sparse_rank.h"
#include "dynamics/recursive_data.h"

#include "dynamics/constraint_rows.h"
#include "dynamics/tree_kernels.h"
#include "numeric/first_jets.h"
#include "numeric/jet.h"
#include "numeric/scalar.h"

namespace lw::dyn {
namespace {

using namespace detail;
using kin::Jet;

using Buffers = RecursiveData::Buffers;

// Scratch buffers by call site, in the run's data: after the first call of a kind the step loops
// do not allocate (issue 4), and nothing is shared with another run.
template <class T, int Slot> std::vector<T>& scratch(Buffers& b) {
  static_assert(Slot < Buffers::kSlots);
  if constexpr (std::is_same_v<T, Jet>) return b.jets[Slot];
  else return b.jetFrames[Slot];
}

// z seeded along a direction (dir) or a unit column (col), into a scratch buffer of its slot
template <int Slot>
const std::vector<Jet>& seeded(Buffers& b, const Eigen::VectorXd& z, const Eigen::VectorXd* dir, int col) {
  auto& zj = scratch<Jet, Slot>(b);
  zj.resize(static_cast<std::size_t>(z.size()));
  for (Eigen::Index i = 0; i < z.size(); ++i)
    zj[static_cast<std::size_t>(i)] = Jet(z[i], dir ? (*dir)[i] : (i == col ? 1.0 : 0.0), 0.0);
  return zj;
}

// ω from Ṙ Rᵀ = ω̃ (first derivative parts of a Jet frame): only the three entries below the
// diagonal, (Ṙ Rᵀ)(i, k) = Ṙ's row i · R's row k
Eigen::Vector3d omegaOf(const M3<Jet>& R) {
  auto entry = [&](int i, int k) { return R(i, 0).d * R(k, 0).v + R(i, 1).d * R(k, 1).v + R(i, 2).d * R(k, 2).v; };
  return {entry(2, 1), entry(0, 2), entry(1, 0)};
}
// ω̇ with z̈ = 0 from R̈ = ω̇̃ R + ω̃ Ṙ: the same entries of (R̈ − ω̃ Ṙ) Rᵀ
Eigen::Vector3d omegaDotOf(const M3<Jet>& R, const Eigen::Vector3d& w) {
  Eigen::Matrix3d A;  // R̈ − ω̃ Ṙ
  for (int j = 0; j < 3; ++j) {
    const Eigen::Vector3d c = w.cross(Eigen::Vector3d(R(0, j).d, R(1, j).d, R(2, j).d));
    for (int i = 0; i < 3; ++i) A(i, j) = R(i, j).dd - c[i];
  }
  auto entry = [&](int i, int k) { return A(i, 0) * R(k, 0).v + A(i, 1) * R(k, 1).v + A(i, 2) * R(k, 2).v; };
  return {entry(2, 1), entry(0, 2), entry(1, 0)};
}

// The poses at z, computed once per (model, z) in the run's data: one evaluation of a state asks
// for them from several kernels (constraints, Jacobian, mass matrix, partial velocities). The
// reference holds until the next call with another z.
const std::vector<Frame<double>>& framesAt(const RecursiveModel& m, Buffers& b, const double* z) {
  auto& memo = b.poses;
  const auto n = static_cast<std::size_t>(m.nz);
  if (memo.model != m.id || memo.z.size() != n || !std::equal(z, z + n, memo.z.begin())) {
    computeFrames<double>(m, z, memo.f);
    memo.model = m.id;
    memo.z.assign(z, z + n);
  }
  return memo.f;
}
const std::vector<Frame<double>>& framesAt(const RecursiveModel& m, Buffers& b, const Eigen::VectorXd& z) { return framesAt(m, b, z.data()); }
const std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>>& partialVelocitiesAt(const RecursiveModel& m, Buffers& buffers,
                                                                                 const Eigen::VectorXd& z);

}  // namespace

RecursiveData::RecursiveData() : buffers_(std::make_unique<Buffers>()) {}
RecursiveData::~RecursiveData() = default;
RecursiveData::RecursiveData(RecursiveData&&) noexcept = default;
RecursiveData& RecursiveData::operator=(RecursiveData&&) noexcept = default;

void bodyPoses(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, std::vector<Pose3<double>>& out) {
  const auto& f = framesAt(m, data.buffers(), z);
  out.resize(f.size());
  for (std::size_t b = 0; b < f.size(); ++b) {
    std::copy(f[b].R.a, f[b].R.a + 9, out[b].R);
    std::copy(f[b].x.v, f[b].x.v + 3, out[b].x);
  }
}

std::vector<int> nonzeroRows(const Eigen::MatrixXd& J, int first, int count) {
  std::vector<int> rows;
  for (int r = first; r < first + count; ++r)
    if ((J.row(r).array() != 0.0).any()) rows.push_back(r);
  return rows;
}

int loopMobility(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z) {
  // Φ_z's rows of the cut joints and unit quaternions on its pattern, ranked by sparse QR (a
  // dense Φ_z of the grid 100 × 100 took 16 GB and an hour of QR in the window)
  std::vector<double> values;
  loopJacobianBlocks(m, data, z, 0.0, values);
  std::vector<num::Entry> entries;
  for (const LoopConstraint& c : m.constraints) {
    if (c.kind == LoopConstraint::Kind::Driver || c.rows == 0) continue;
    const auto& cols = m.rowColumns[static_cast<std::size_t>(c.row)];
    for (std::size_t j = 0; j < cols.size(); ++j)
      for (int a = 0; a < c.rows; ++a)
        if (const double v = values[static_cast<std::size_t>(c.block) + j * static_cast<std::size_t>(c.rows) + static_cast<std::size_t>(a)]; v != 0)
          entries.push_back({c.row + a, cols[j], v});
  }
  if (entries.empty()) return m.nz;
  return m.nz - num::sparseColumnRank(m.nrows, m.nz, entries, 1e-9).rank;
}

void loopConstraints(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, Eigen::VectorXd& phi,
                     const std::vector<char>* wanted) {
  const auto& f = framesAt(m, data.buffers(), z);
  phi.resize(m.nrows);
  constraintRows<double>(m, m.numbers, f, z.data(), t, phi.data(), wanted);
}

namespace {

// the column frames (recursive_data.h) at z: poses, partial velocities, the nodes' centres
void resetColumns(const RecursiveModel& m, Buffers& b, const Eigen::VectorXd& z) {
  ColumnFrames& cf = b.columns;
  cf.f = &framesAt(m, b, z);
  cf.jets = false;
  cf.b = &partialVelocitiesAt(m, b, z);
  cf.centre.clear();
  for (const Node& n : m.nodes) {
    const auto& F = (*cf.f)[static_cast<std::size_t>(n.body)];
    const V3<double> c = worldPoint(F, m.numbers.mech.bodies[static_cast<std::size_t>(n.body)].com);
    cf.centre.emplace_back(c[0], c[1], c[2]);
  }
}
// the jet frames' derivative parts set to the motion of coordinate (node, i) times sign (0 clears)
void seedColumn(const RecursiveModel& m, ColumnFrames& cf, std::size_t node, int i, double sign) {
  const auto& poses = *cf.f;
  if (!cf.jets) {
    cf.fj.resize(poses.size());
    for (std::size_t k = 0; k < poses.size(); ++k) {
      for (int a = 0; a < 9; ++a) cf.fj[k].R.a[a] = Jet(poses[k].R.a[a]);
      for (int a = 0; a < 3; ++a) cf.fj[k].x[a] = Jet(poses[k].x[a]);
    }
    cf.jets = true;
  }
  const Eigen::Vector3d v = (*cf.b)[node].col(i).head<3>(), w = (*cf.b)[node].col(i).tail<3>();
  for (int body : m.subtree[node]) {
    auto& F = cf.fj[static_cast<std::size_t>(body)];
    const auto& P = poses[static_cast<std::size_t>(body)];
    for (int c = 0; c < 3; ++c) {  // Ṙ = ω̃ R, column by column
      const Eigen::Vector3d col(P.R(0, c), P.R(1, c), P.R(2, c));
      const Eigen::Vector3d dc = w.cross(col);
      for (int r = 0; r < 3; ++r) F.R(r, c).d = sign * dc[r];
    }
    const Eigen::Vector3d x(P.x[0], P.x[1], P.x[2]);
    const Eigen::Vector3d dx = v + w.cross(x - cf.centre[node]);
    for (int r = 0; r < 3; ++r) F.x[r].d = sign * dx[r];
  }
}

}  // namespace

namespace {


}  // namespace

void loopJacobianBlocks(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, std::vector<double>& values,
                        const std::vector<char>* wanted) {
  values.resize(static_cast<std::size_t>(m.nblocks));
  if (m.nrows == 0) return;
  Buffers& b = data.buffers();
  resetColumns(m, b, z);
  ColumnFrames& cf = b.columns;
  auto& out = scratch<Jet, Buffers::kJacobianRows>(b);
  out.resize(static_cast<std::size_t>(m.nrows));
  auto& zj = scratch<Jet, Buffers::kJacobianZ>(b);
  zj = seeded<Buffers::kJacobianSeed>(b, z, nullptr, -1);
  // cut pins, spherical and revolute joints: their rows differentiated in closed form from the
  // joint's points and axes (the common case; the others go through Jet frames)
  std::vector<CutGeometry>& cut = b.cut;
  cut.resize(m.constraints.size());
  for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
    const LoopConstraint& c = m.constraints[ci];
    CutGeometry& g = cut[ci];
    g.analytic = false;
    if (c.kind != LoopConstraint::Kind::CutJoint) continue;
    const auto& jt = m.mechanism->joints[static_cast<std::size_t>(c.index)];
    if (jt.type != JointType::Pin && jt.type != JointType::Spherical && jt.type != JointType::Revolute) continue;
    g.analytic = true;
    g.type = jt.type;
    g.axes = jt.type == JointType::Revolute && (!wanted || (*wanted)[static_cast<std::size_t>(c.row) + 3] || (*wanted)[static_cast<std::size_t>(c.row) + 4]);
    V3<double> P, u, w, w2;
    for (int sd = 0; sd < 2; ++sd) {
      if (jt.type == JointType::Revolute && !g.axes) {
        P = jointPoint(m, m.numbers, *cf.f, c.index, sd);
        g.P[sd] = {P[0], P[1], P[2]};
        continue;
      }
      jointFrame<double>(m, m.numbers, *cf.f, c.index, sd, P, u, w, w2);
      g.P[sd] = {P[0], P[1], P[2]};
      if (sd == 0) g.u1 = {u[0], u[1], u[2]};
      else g.w2 = {w[0], w[1], w[2]}, g.v2 = {w2[0], w2[1], w2[2]};
    }
  }
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const auto& columns = m.blockColumns[k];  // the blocks this node's coordinates enter
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) {
      // where its columns enter its own unit row alone (a free body no loop closes on, the
      // buggy's chassis), that row's gradient 2q: no recursion
      const int off = n.kind == NodeKind::FreeSpatial ? 3 : 0;
      bool ownRowOnly = true;
      for (const auto& column : columns) {
        const LoopConstraint& c = m.constraints[static_cast<std::size_t>(column.constraint)];
        ownRowOnly = ownRowOnly && c.kind == LoopConstraint::Kind::UnitQuaternion && c.index == static_cast<int>(k);
      }
      if (ownRowOnly) {
        for (const auto& column : columns)
          for (int i = 0; i < n.nz; ++i) values[static_cast<std::size_t>(column.offset + i)] = i < off ? 0.0 : 2 * z[n.z + i];
        continue;
      }
      // off the unit sphere R(q) is not a rotation: these columns take the full recursion
      auto& f = scratch<Frame<Jet>, Buffers::kJacobianFrames>(b);
      for (int i = 0; i < n.nz; ++i) {
        const auto& zs = seeded<Buffers::kJacobianColumn>(b, z, nullptr, n.z + i);
        computeFrames<Jet>(m, zs.data(), f);
        constraintRows<Jet>(m, m.numbers, f, zs.data(), Jet(t), out.data());
        for (const auto& column : columns) {
          const LoopConstraint& c = m.constraints[static_cast<std::size_t>(column.constraint)];
          double* col = values.data() + column.offset + i * c.rows;
          for (int a = 0; a < c.rows; ++a) col[a] = out[static_cast<std::size_t>(c.row + a)].d;
        }
      }
      continue;
    }
    for (int i = 0; i < n.nz; ++i) {
      const int col = n.z + i;
      // the subtree turns with ω = b_ω about the node's centre r_k: a point P of it moves with
      // v + ω × (P − r_k) = v0 + ω × P, an axis u with ω × u
      const Eigen::Vector3d w = (*cf.b)[k].col(i).tail<3>();
      const Eigen::Vector3d v0 = Eigen::Vector3d((*cf.b)[k].col(i).head<3>()) - w.cross(cf.centre[k]);
      bool seeded = false;
      // only the equations on bodies that move with this coordinate
      for (const auto& column : columns) {
        const LoopConstraint& c = m.constraints[static_cast<std::size_t>(column.constraint)];
        const CutGeometry& g = cut[static_cast<std::size_t>(column.constraint)];
        double* J = values.data() + column.offset + i * c.rows;
        if (g.analytic) {
          // the motion of point 2 minus that of point 1, of the sides that move:
          // σ v0 + ω × Q with σ = s₂ − s₁, Q = s₂ P₂ − s₁ P₁
          const double s1 = (column.sides & 1) ? 1.0 : 0.0, s2 = (column.sides & 2) ? 1.0 : 0.0, sigma = s2 - s1;
          const Eigen::Vector3d Q = s2 * g.P[1] - s1 * g.P[0];
          if (g.type == JointType::Pin) {  // the in-plane rows only
            J[0] = sigma * v0.x() + w.y() * Q.z() - w.z() * Q.y();
            J[1] = sigma * v0.y() + w.z() * Q.x() - w.x() * Q.z();
            continue;
          }
          const Eigen::Vector3d dd = sigma * v0 + w.cross(Q);
          for (int a = 0; a < 3; ++a) J[a] = dd[a];
          if (g.axes) {
            const Eigen::Vector3d du1 = s1 * w.cross(g.u1), dw2 = s2 * w.cross(g.w2), dv2 = s2 * w.cross(g.v2);
            J[3] = du1.dot(g.w2) + g.u1.dot(dw2);
            J[4] = du1.dot(g.v2) + g.u1.dot(dv2);
          }
          continue;
        }
        if (!seeded) {
          seedColumn(m, cf, k, i, 1.0);
          zj[static_cast<std::size_t>(col)].d = 1;  // rows that read z directly (tree drivers, quaternions)
          seeded = true;
        }
        constraintRow<Jet>(m, m.numbers, cf.fj, zj.data(), Jet(t), c, out.data());
        for (int a = 0; a < c.rows; ++a) J[a] = out[static_cast<std::size_t>(c.row + a)].d;
      }
      if (seeded) {
        zj[static_cast<std::size_t>(col)].d = 0;
        seedColumn(m, cf, k, i, 0.0);
      }
    }
  }
}

void loopJacobian(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, Eigen::MatrixXd& J, bool reuseZeros) {
  if (!reuseZeros || J.rows() != m.nrows || J.cols() != m.nz) J.setZero(m.nrows, m.nz);
  std::vector<double>& values = data.buffers().blocks;
  loopJacobianBlocks(m, data, z, t, values);
  for (const LoopConstraint& c : m.constraints) {
    if (c.rows == 0) continue;
    const auto& cols = m.rowColumns[static_cast<std::size_t>(c.row)];
    for (std::size_t j = 0; j < cols.size(); ++j)
      for (int a = 0; a < c.rows; ++a)
        J(c.row + a, cols[j]) = values[static_cast<std::size_t>(c.block) + j * static_cast<std::size_t>(c.rows) + static_cast<std::size_t>(a)];
  }
}

void loopPhiT(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, Eigen::VectorXd& phiT) {
  phiT.resize(m.nrows);
  Buffers& b = data.buffers();
  auto& f = scratch<Frame<Jet>, Buffers::kPhiTFrames>(b);
  auto& out = scratch<Jet, Buffers::kPhiTRows>(b);
  out.resize(static_cast<std::size_t>(m.nrows));
  phiT.setZero();
  // only the drivers read the time (cut joints and unit quaternions do not)
  bool driven = false;
  for (const auto& c : m.constraints) driven = driven || c.kind == LoopConstraint::Kind::Driver;
  if (!driven) return;
  const auto& z0 = seeded<Buffers::kPhiTSeed>(b, z, nullptr, -1);
  computeFrames<Jet>(m, z0.data(), f);
  for (const auto& c : m.constraints) {
    if (c.kind != LoopConstraint::Kind::Driver) continue;
    constraintRow<Jet>(m, m.numbers, f, z0.data(), Jet(t, 1, 0), c, out.data());
    for (int r = c.row; r < c.row + c.rows; ++r) phiT[r] = out[static_cast<std::size_t>(r)].d;
  }
}

void motionSnapshot(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t, MotionSnapshot& out) {
  Buffers& b = data.buffers();
  auto& rows = scratch<Jet, Buffers::kSnapshotRows>(b);
  const auto& zv = seeded<Buffers::kSnapshotSeed>(b, z, &zd, -1);
  const auto& f = jetFramesAlong(m, data, z.data(), zd.data());
  const auto& bodies = m.numbers.mech.bodies;
  const auto nb = static_cast<Eigen::Index>(bodies.size());
  out.poses.resize(bodies.size());
  out.V.setZero(6 * nb);
  out.r.clear();
  out.v.clear();
  out.firstPoint.assign(bodies.size(), -1);
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    for (int i = 0; i < 9; ++i) out.poses[k].R[i] = f[k].R.a[i].v;
    for (int i = 0; i < 3; ++i) out.poses[k].x[i] = f[k].x[i].v;
    if (k == 0) continue;
    const V3<Jet> c = worldPoint(f[k], bodies[k].com);
    out.V.segment<3>(6 * static_cast<Eigen::Index>(k)) = Eigen::Vector3d(c[0].d, c[1].d, c[2].d);
    out.V.segment<3>(6 * static_cast<Eigen::Index>(k) + 3) = omegaOf(f[k].R);
    out.firstPoint[k] = static_cast<int>(out.r.size());
    for (const auto& p : bodies[k].points) {
      const V3<Jet> P = worldPoint(f[k], p);
      out.r.emplace_back(P[0].v, P[1].v, P[2].v);
      out.v.emplace_back(P[0].d, P[1].d, P[2].d);
    }
  }
  rows.resize(static_cast<std::size_t>(m.nrows));
  constraintRows<Jet>(m, m.numbers, f, zv.data(), Jet(t, 1, 0), rows.data());
  out.phi.resize(m.nrows);
  out.phiDot.resize(m.nrows);
  for (int i = 0; i < m.nrows; ++i) {
    out.phi[i] = rows[static_cast<std::size_t>(i)].v;
    out.phiDot[i] = rows[static_cast<std::size_t>(i)].d;
  }
}

Eigen::Vector3d MotionSnapshot::pointPosition(const RecursiveModel& m, int body, int index) const {
  if (body == 0) return m.numbers.mech.bodies[0].points[static_cast<std::size_t>(index)];
  return r[static_cast<std::size_t>(firstPoint[static_cast<std::size_t>(body)] + index)];
}

Eigen::Vector3d MotionSnapshot::pointVelocity(int body, int index) const {
  if (body == 0) return Eigen::Vector3d::Zero();
  return v[static_cast<std::size_t>(firstPoint[static_cast<std::size_t>(body)] + index)];
}

namespace detail {

const std::vector<Frame<Jet>>& jetFramesAlong(const RecursiveModel& m, RecursiveData& data, const double* z, const double* zd) {
  Buffers& b = data.buffers();
  auto& memo = b.motion;  // per body: ω and ω̇ (z̈ = 0) beside the frames
  const auto n = static_cast<std::size_t>(m.nz);
  const bool same = memo.model == m.id && memo.z.size() == n && std::equal(z, z + n, memo.z.begin()) &&
                    std::equal(zd, zd + n, memo.zd.begin());
  if (same) return memo.f;
  // the values are the poses at z (shared with the other kernels of the state); a revolute node
  // adds its rate about its world axis u: ω = ω_p + σż u, ω̇ = ω̇_p + ω_p × σż u (u turns with the
  // parent), Ṙ = ω̃ R and R̈ = (ω̇~ + ω̃ ω̃) R. Its origin hangs from the parent's on two arms,
  // r1 = R_p J turning with the parent and r2 = x − x_p − r1 with the body. No trigonometry and
  // no products of jets; the other joints go through jets from their parent's jet frame.
  const auto& fd = framesAt(m, b, z);
  const std::size_t nb = fd.size();
  auto& f = memo.f;
  f.resize(nb);
  memo.w.resize(nb);
  memo.wd.resize(nb);
  f[0].R = identity<Jet>();
  f[0].x = {{Jet(0.0), Jet(0.0), Jet(0.0)}};
  memo.w[0].setZero();
  memo.wd[0].setZero();
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& node = m.nodes[k];
    const auto& g = m.numbers.nodes[k];
    const auto P = static_cast<std::size_t>(node.parent), B = static_cast<std::size_t>(node.body);
    Frame<Jet>& c = f[B];
    if (node.kind != NodeKind::Revolute) {
      Jet zn[7];  // a node has at most 7 coordinates (a free body's position and quaternion)
      for (int i = 0; i < node.nz; ++i) zn[i] = Jet(z[node.z + i], zd[node.z + i], 0.0);
      nodeFrame(node, g, f[P], zn, c);
      memo.w[B] = omegaOf(c.R);
      memo.wd[B] = omegaDotOf(c.R, memo.w[B]);
      continue;
    }
    const Frame<double>& p0 = fd[P];
    const Frame<double>& c0 = fd[B];
    Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Rp(p0.R.a), R(c0.R.a);
    const Eigen::Vector3d wp = memo.w[P], wdp = memo.wd[P];
    const Eigen::Vector3d spin = ((node.flip ? -1.0 : 1.0) * zd[node.z]) * (Rp * g.axis);
    const Eigen::Vector3d w = wp + spin, wd = wdp + wp.cross(spin);
    memo.w[B] = w;
    memo.wd[B] = wd;
    for (int j = 0; j < 3; ++j) {
      const Eigen::Vector3d col = R.col(j), d = w.cross(col), dd = wd.cross(col) + w.cross(d);
      for (int i = 0; i < 3; ++i) c.R(i, j) = Jet(col[i], d[i], dd[i]);
    }
    const Eigen::Vector3d r1 = Rp * g.point;
    const Eigen::Vector3d r2 = Eigen::Vector3d(c0.x[0], c0.x[1], c0.x[2]) - Eigen::Vector3d(p0.x[0], p0.x[1], p0.x[2]) - r1;
    const Eigen::Vector3d v1 = wp.cross(r1), v2 = w.cross(r2);
    const Eigen::Vector3d v = v1 + v2, a = wdp.cross(r1) + wp.cross(v1) + wd.cross(r2) + w.cross(v2);
    for (int i = 0; i < 3; ++i) c.x[i] = Jet(c0.x[i], f[P].x[i].d + v[i], f[P].x[i].dd + a[i]);
  }
  memo.model = m.id;
  memo.z.assign(z, z + n);
  memo.zd.assign(zd, zd + n);
  return memo.f;
}

}  // namespace detail

void loopRates(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t,
               Eigen::VectorXd& phiT, Eigen::VectorXd& c, const std::vector<char>* wanted) {
  loopPhiT(m, data, z, t, phiT);
  Buffers& b = data.buffers();
  c.resize(m.nrows);
  auto& out = scratch<Jet, Buffers::kRatesRows>(b);
  out.resize(static_cast<std::size_t>(m.nrows));
  // d²/ds² Φ(z + s ż, t + s) = Φ̇_z ż + Φ̇_t  (the acceleration term with z̈ = 0)
  const auto& zv = seeded<Buffers::kRatesSeed>(b, z, &zd, -1);
  const auto& f = jetFramesAlong(m, data, z.data(), zd.data());
  constraintRows<Jet>(m, m.numbers, f, zv.data(), Jet(t, 1, 0), out.data(), wanted);
  for (int r = 0; r < m.nrows; ++r) c[r] = -out[static_cast<std::size_t>(r)].dd;
}

void bodyVelocities(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& V,
                    Eigen::VectorXd& Vdot0) {
  Buffers& b = data.buffers();
  const auto nb = static_cast<Eigen::Index>(m.numbers.mech.bodies.size());
  V.setZero(6 * nb);
  Vdot0.setZero(6 * nb);
  auto& f = scratch<Frame<Jet>, Buffers::kVelocityFrames>(b);
  const auto& zv = seeded<Buffers::kVelocitySeed>(b, z, &zd, -1);
  computeFrames<Jet>(m, zv.data(), f);
  for (Eigen::Index k = 1; k < nb; ++k) {
    const auto& body = m.numbers.mech.bodies[static_cast<std::size_t>(k)];
    const V3<Jet> r = worldPoint(f[static_cast<std::size_t>(k)], body.com);
    const Eigen::Vector3d w = omegaOf(f[static_cast<std::size_t>(k)].R);
    V.segment<3>(6 * k) = Eigen::Vector3d(r[0].d, r[1].d, r[2].d);
    V.segment<3>(6 * k + 3) = w;
    Vdot0.segment<3>(6 * k) = Eigen::Vector3d(r[0].dd, r[1].dd, r[2].dd);
    Vdot0.segment<3>(6 * k + 3) = omegaDotOf(f[static_cast<std::size_t>(k)].R, w);
  }
}

// once per (model, z) in the run's data, like the poses: the loop Jacobian and the mass matrix of
// one state both need them. The reference holds until the next call with another z.
const std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>>& partialVelocitiesAt(const RecursiveModel& m, RecursiveData& data,
                                                                                 const Eigen::VectorXd& z) {
  return partialVelocitiesAt(m, data.buffers(), z);
}

namespace {
const std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>>& partialVelocitiesAt(const RecursiveModel& m, Buffers& buffers,
                                                                                 const Eigen::VectorXd& z) {
  auto& memo = buffers.partials;
  if (memo.model == m.id && memo.z.size() == z.size() && memo.z == z) return memo.b;
  auto& b = memo.b;
  b.resize(m.nodes.size());
  const auto& f = framesAt(m, buffers, z);
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const auto& g = m.numbers.nodes[k];
    b[k].setZero(6, n.nz);
    const Frame<double>& pd = f[static_cast<std::size_t>(n.parent)];
    const auto& body = m.numbers.mech.bodies[static_cast<std::size_t>(n.body)];
    // fixed-axis joints in closed form: the subtree turns about the world axis through the joint
    // point (ω = a, v = a × (r − J)) or slides along it; the others through jets
    if (n.kind == NodeKind::Revolute || n.kind == NodeKind::Prismatic) {
      const V3<double> a = scale(n.flip ? -1.0 : 1.0, mul(pd.R, g.axis));
      if (n.kind == NodeKind::Revolute) {
        const V3<double> v = cross(a, sub(worldPoint(f[static_cast<std::size_t>(n.body)], body.com), worldPoint(pd, g.point)));
        b[k].col(0) << v[0], v[1], v[2], a[0], a[1], a[2];
      } else {
        b[k].col(0) << a[0], a[1], a[2], 0, 0, 0;
      }
      continue;
    }
    Frame<Jet> p;
    for (int i = 0; i < 9; ++i) p.R.a[i] = Jet(pd.R.a[i]);
    for (int i = 0; i < 3; ++i) p.x[i] = Jet(pd.x[i]);
    for (int i = 0; i < n.nz; ++i) {
      Jet zl[7];
      for (int k2 = 0; k2 < n.nz; ++k2) zl[k2] = Jet(z[n.z + k2], k2 == i ? 1.0 : 0.0, 0.0);
      M3<Jet> Rm = identity<Jet>();
      V3<Jet> tm{{Jet(0.0), Jet(0.0), Jet(0.0)}};
      jointMotion(n, g, zl, Rm, tm);
      Frame<Jet> c;
      c.R = mul(p.R, mul(Rm, cst<Jet>(g.R0)));
      c.x = add(p.x, mul(p.R, add(tm, mul(Rm, cst<Jet>(g.x0)))));
      const V3<Jet> r = worldPoint(c, body.com);
      b[k].col(i) << r[0].d, r[1].d, r[2].d, omegaOf(c.R);
    }
  }
  memo.model = m.id;
  memo.z = z;
  return b;
}
}  // namespace

void pointJacobian(const RecursiveModel& m, RecursiveData& data, int body, const Eigen::Vector3d& p_B, const Eigen::VectorXd& z,
                   Eigen::MatrixXd& J) {
  J.setZero(3, m.nz);
  Buffers& b = data.buffers();
  resetColumns(m, b, z);
  const ColumnFrames& cf = b.columns;
  const V3<double> P = worldPoint((*cf.f)[static_cast<std::size_t>(body)], p_B);
  const Eigen::Vector3d p(P[0], P[1], P[2]);
  // ∂P/∂z_(k,i) = v + ω × (P − r_k) for the nodes k the body hangs from
  for (int k = m.nodeOfBody[static_cast<std::size_t>(body)]; k >= 0; k = m.nodes[static_cast<std::size_t>(k)].parentNode) {
    const Node& n = m.nodes[static_cast<std::size_t>(k)];
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) {
      auto& f = scratch<Frame<Jet>, Buffers::kPointJacobianFrames>(b);  // R(q) is not a rotation off the unit sphere: full recursion
      for (int i = 0; i < n.nz; ++i) {
        const auto& zs = seeded<Buffers::kPointJacobianColumn>(b, z, nullptr, n.z + i);
        computeFrames<Jet>(m, zs.data(), f);
        const V3<Jet> Pj = worldPoint(f[static_cast<std::size_t>(body)], p_B);
        J.col(n.z + i) << Pj[0].d, Pj[1].d, Pj[2].d;
      }
      continue;
    }
    for (int i = 0; i < n.nz; ++i) {
      const Eigen::Vector3d v = (*cf.b)[static_cast<std::size_t>(k)].col(i).head<3>(), w = (*cf.b)[static_cast<std::size_t>(k)].col(i).tail<3>();
      J.col(n.z + i) = v + w.cross(p - cf.centre[static_cast<std::size_t>(k)]);
    }
  }
}

void pointState(const RecursiveModel& m, RecursiveData& data, int body, const Eigen::Vector3d& p_B, const Eigen::VectorXd& z,
                const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::Vector3d* r, Eigen::Vector3d* v,
                Eigen::Vector3d* a) {
  Buffers& b = data.buffers();
  if (!v && !a) {  // the position alone: the poses at z, shared with the state's other kernels
    const V3<double> P = worldPoint(framesAt(m, b, z)[static_cast<std::size_t>(body)], p_B);
    if (r) *r = {P[0], P[1], P[2]};
    return;
  }
  const bool accelerated = a && !zdd.isZero(0.0);
  // z̈ = 0 (Matrix R's Ḃż): the frames along (z + sż) the loops' rates use give r, v and a at once
  const std::vector<Frame<Jet>>& f =
      accelerated ? [&]() -> const std::vector<Frame<Jet>>& {
        auto& own = scratch<Frame<Jet>, Buffers::kPointFrames>(b);
        computeFrames<Jet>(m, seeded<Buffers::kPointSeed>(b, z, &zd, -1).data(), own);
        return own;
      }()
                  : jetFramesAlong(m, data, z.data(), zd.data());
  const V3<Jet> P = worldPoint(f[static_cast<std::size_t>(body)], p_B);
  if (r) *r = {P[0].v, P[1].v, P[2].v};
  if (v) *v = {P[0].d, P[1].d, P[2].d};
  if (a && !accelerated) *a = {P[0].dd, P[1].dd, P[2].dd};
  else if (a) {
    const auto& za = seeded<Buffers::kPointAccelSeed>(b, z, &zdd, -1);
    auto& fa = scratch<Frame<Jet>, Buffers::kPointAccelFrames>(b);
    computeFrames<Jet>(m, za.data(), fa);
    const V3<Jet> Pa = worldPoint(fa[static_cast<std::size_t>(body)], p_B);
    *a = {Pa[0].d + P[0].dd, Pa[1].d + P[1].dd, Pa[2].d + P[2].dd};
  }
}

}  // namespace lw::dyn
