// The mass matrix M^d of the tree coordinates and the reduced mass R^T M^d R of Matrix R, from
// the composite inertias about the origin (recursive_data.h's origin terms), and the generalized
// forces beside them (seed 000 §4; seed 004 §3).
#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <cmath>

#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"
#include "dynamics/pose_math.h"
#include "dynamics/recursive_data.h"
#include "numeric/four.h"

namespace lw::dyn {

using detail::centres;
using detail::rotationOf;
using detail::skew;

void bodyForces(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t,
                Eigen::VectorXd& Qv) {
  Qv.resize(static_cast<Eigen::Index>(6 * tree.numbers.mech.bodies.size()));
  GeneralizedForces<double> forces(tree);
  forces.bodyWrenches(z.data(), zd.data(), t, Qv.data());
}

namespace {

// The origin terms (recursive_data.h) at z: poses, centres and motion columns (the inertias:
// originInertias)
void computeOrigin(const RecursiveModel& tree, RecursiveData& data, const Eigen::VectorXd& z, OriginTerms& o) {
  const auto& nodes = tree.nodes;
  const std::size_t nn = nodes.size();
  bodyPoses(tree, data, z, o.poses);
  centres(*tree.mechanism, o.poses, o.r);
  const auto& b = partialVelocitiesAt(tree, data, z);
  o.S.resize(nn);
  for (std::size_t k = 0; k < nn; ++k) {
    const auto body = static_cast<std::size_t>(nodes[k].body);
    // v_O = v_centre + r × ω
    const auto& bk = b[k];
    o.S[k].resize(6, bk.cols());
    for (Eigen::Index i = 0; i < bk.cols(); ++i) {
      o.S[k].col(i).head<3>() = bk.col(i).head<3>() + o.r[body].cross(Eigen::Vector3d(bk.col(i).tail<3>()));
      o.S[k].col(i).tail<3>() = bk.col(i).tail<3>();
    }
  }
}

/// A body's world inertia at its centre (planar models: only the moment about Z acts)
Eigen::Matrix3d worldInertia(const RecursiveModel& tree, const OriginTerms& o, std::size_t body) {
  const auto& bd = tree.numbers.mech.bodies[body];
  if (tree.dimension == 2) return Eigen::Vector3d(0, 0, bd.inertia(2, 2)).asDiagonal();
  const Eigen::Matrix3d R = rotationOf(o.poses[body]);
  return R * bd.inertia * R.transpose();
}

/// Jc, and I when `spatial` (massMatrix needs it; the reduced mass matrix does not)
void originInertias(const RecursiveModel& tree, OriginTerms& o, bool spatial) {
  const auto& nodes = tree.nodes;
  const std::size_t nn = nodes.size();
  o.Jc.resize(nn);
  if (spatial) o.I.resize(nn);
  for (std::size_t k = 0; k < nn; ++k) {
    const auto body = static_cast<std::size_t>(nodes[k].body);
    o.Jc[k] = worldInertia(tree, o, body);
    if (!spatial) continue;
    const double mass = tree.numbers.mech.bodies[body].mass;
    const Eigen::Matrix3d C = skew(o.r[body]);
    Matrix6d& Ik = o.I[k];
    Ik.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
    Ik.topRightCorner<3, 3>() = -mass * C;
    Ik.bottomLeftCorner<3, 3>() = mass * C;
    Ik.bottomRightCorner<3, 3>() = o.Jc[k] - mass * C * C;
  }
}

}  // namespace

void massMatrix(const RecursiveModel& tree, RecursiveData& data, const Eigen::VectorXd& z, Eigen::MatrixXd& Md, bool reuseZeros) {
  const auto& nodes = tree.nodes;
  const std::size_t nn = nodes.size();
  // scratch in the run's data: no allocation after the first call
  OriginTerms& o = data.buffers().origin;
  std::vector<MotionColumns>& F = data.buffers().massColumns;
  computeOrigin(tree, data, z, o);
  originInertias(tree, o, true);
  // composite rigid bodies: M^d_kj = s_kᵀ I^c_k s_j for j an ancestor of k, s the motion columns
  std::vector<Matrix6d>& Ic = o.I;
  F.resize(nn);
  for (std::size_t k = nn; k-- > 0;) {
    for (int c : tree.children[k]) Ic[k] += Ic[static_cast<std::size_t>(c)];
    F[k].noalias() = Ic[k] * o.S[k];
  }
  const auto& S = o.S;
  if (!reuseZeros || Md.rows() != tree.nz || Md.cols() != tree.nz) Md.setZero(tree.nz, tree.nz);
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& nk = nodes[k];
    if (nk.nz == 0) continue;
    for (int j = static_cast<int>(k); j >= 0; j = nodes[static_cast<std::size_t>(j)].parentNode) {
      const Node& nj = nodes[static_cast<std::size_t>(j)];
      if (nj.nz == 0) continue;
      const auto& Sj = S[static_cast<std::size_t>(j)];
      for (int a = 0; a < nk.nz; ++a)
        for (int c = 0; c < nj.nz; ++c) {
          const double v = F[k].col(a).dot(Sj.col(c));
          Md(nk.z + a, nj.z + c) = v;
          Md(nj.z + c, nk.z + a) = v;
        }
    }
  }
}

namespace {

// M̄ = Rt G, known to be symmetric: the lower half by the product (a third less time), the upper mirrored
template <class Derived>
void symmetricProduct(const Eigen::MatrixXd& Rt, const Eigen::MatrixBase<Derived>& G, Eigen::MatrixXd& Mbar) {
  Mbar.resize(Rt.rows(), G.cols());
  if (Mbar.size() == 0) return;  // no independent coordinates: Eigen's triangular product reads [0, 0]
  Mbar.triangularView<Eigen::Lower>() = Rt * G;
  Mbar.triangularView<Eigen::StrictlyUpper>() = Mbar.transpose();
}

// The plane every motion column moves in, when there is one: ω along n and v_O ⊥ n for every
// node (planar models, and the grids drawn in 3D with parallel hinges). (e1, e2, n) is right-handed.
bool planeOfMotion(const OriginTerms& o, Eigen::Vector3d& e1, Eigen::Vector3d& e2, Eigen::Vector3d& n) {
  bool found = false;
  for (const MotionColumns& S : o.S)
    for (Eigen::Index i = 0; i < S.cols() && !found; ++i)
      if (S.col(i).tail<3>().norm() > 0) {
        n = S.col(i).tail<3>().normalized();
        found = true;
      }
  if (!found) return false;  // no turning joint: the general path
  for (const MotionColumns& S : o.S)
    for (Eigen::Index i = 0; i < S.cols(); ++i) {
      const Eigen::Vector3d v = S.col(i).head<3>(), w = S.col(i).tail<3>();
      if (w.cross(n).norm() > 1e-12 * w.norm() || std::abs(v.dot(n)) > 1e-12 * v.norm()) return false;
    }
  e1 = n.unitOrthogonal();
  e2 = n.cross(e1);
  return true;
}

// reducedMass on a plane of motion: a velocity is (v·e1, v·e2, ω·n), a momentum (p·e1, p·e2,
// L_O·n); the out-of-plane parts are zero, or dotted with zeros. Each node's columns (one per
// independent rate, and a) are processed together: per component, a row of them in vectors of 4
// doubles (GCC's vector extension; padded with zeros), which a node's few scalars scale. Writes
// Gt = (Sᵀ Y)ᵀ, padded rows: Gt(c, z) for column c (a's at row d).
LW_CLONE_FOR_AVX2 void reducedMassPlanar(const RecursiveModel& tree, RecursiveData::Buffers& b, const OriginTerms& o, const Eigen::Vector3d& e1,
                                          const Eigen::Vector3d& e2, const Eigen::Vector3d& n, const Eigen::MatrixXd& Rt, const Eigen::VectorXd& a,
                                          Eigen::MatrixXd& Gt) {
  using num::Four;
  auto& rateRows = b.rateRows;  // per coordinate 4 nv
  auto& Wrows = b.Wrows;        // per node 3 × 4 nv
  auto& Yrows = b.Yrows;
  const auto& nodes = tree.nodes;
  const std::size_t nn = nodes.size();
  const auto nz = static_cast<std::size_t>(tree.nz);
  const auto d = static_cast<std::size_t>(Rt.rows());
  const std::size_t nv = (d + 1 + 3) / 4;  // vectors per row of columns
  const std::size_t width = 4 * nv;
  // the rates of every coordinate per column: R^Φ's row, then a, then zeros
  rateRows.resize(nz * width);
  Wrows.resize(nn * 3 * width);
  Yrows.resize(nn * 3 * width);
  const auto rates = reinterpret_cast<const Four*>(rateRows.data());
  const auto W = reinterpret_cast<Four*>(Wrows.data()), Y = reinterpret_cast<Four*>(Yrows.data());
  for (std::size_t zi = 0; zi < nz; ++zi) {
    double* row = rateRows.data() + zi * width;
    for (std::size_t c = 0; c < d; ++c) row[c] = Rt(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(zi));
    row[d] = a[static_cast<Eigen::Index>(zi)];
    for (std::size_t c = d + 1; c < width; ++c) row[c] = 0;
  }
  Gt.resize(static_cast<Eigen::Index>(width), static_cast<Eigen::Index>(nz));
  auto inPlane = [&](const MotionColumns& Sk, Eigen::Index i) {
    return Eigen::Vector3d(Sk.col(i).head<3>().dot(e1), Sk.col(i).head<3>().dot(e2), Sk.col(i).tail<3>().dot(n));
  };
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& nd = nodes[k];
    const MotionColumns& Sk = o.S[k];
    const double mass = tree.numbers.mech.bodies[static_cast<std::size_t>(nd.body)].mass;
    const Eigen::Vector3d& rc = o.r[static_cast<std::size_t>(nd.body)];
    const double r1 = rc.dot(e1), r2 = rc.dot(e2);
    // n·J·n with J the world inertia: (Rᵀn)·I_body·(Rᵀn)
    double Jn;
    if (tree.dimension == 2) {
      Jn = tree.numbers.mech.bodies[static_cast<std::size_t>(nd.body)].inertia(2, 2) * n.z() * n.z();
    } else {
      const Eigen::Vector3d nb = rotationOf(o.poses[static_cast<std::size_t>(nd.body)]).transpose() * n;
      Jn = nb.dot(tree.numbers.mech.bodies[static_cast<std::size_t>(nd.body)].inertia * nb);
    }
    Four* w = W + k * 3 * nv;
    if (nd.parentNode >= 0) {
      const Four* wp = W + static_cast<std::size_t>(nd.parentNode) * 3 * nv;
      for (std::size_t v = 0; v < 3 * nv; ++v) w[v] = wp[v];
    } else {
      for (std::size_t v = 0; v < 3 * nv; ++v) w[v] = Four{};
    }
    for (int i = 0; i < nd.nz; ++i) {
      const Eigen::Vector3d s = inPlane(Sk, i);
      const Four* rate = rates + static_cast<std::size_t>(nd.z + i) * nv;
      for (std::size_t v = 0; v < nv; ++v) {
        w[v] += s[0] * rate[v];
        w[nv + v] += s[1] * rate[v];
        w[2 * nv + v] += s[2] * rate[v];
      }
    }
    // p = m (v_O + ω × r): ω × r = ω (−r2, r1) in the plane; L_O·n = (r × p)·n + J_nn ω
    Four* y = Y + k * 3 * nv;
    for (std::size_t v = 0; v < nv; ++v) {
      const Four p1 = mass * (w[v] - r2 * w[2 * nv + v]), p2 = mass * (w[nv + v] + r1 * w[2 * nv + v]);
      y[v] = p1;
      y[nv + v] = p2;
      y[2 * nv + v] = r1 * p2 - r2 * p1 + Jn * w[2 * nv + v];
    }
  }
  for (std::size_t k = nn; k-- > 0;) {  // children after parents: Y_k is whole when k is reached
    const Node& nd = nodes[k];
    const Four* y = Y + k * 3 * nv;
    for (int i = 0; i < nd.nz; ++i) {
      const Eigen::Vector3d s = inPlane(o.S[k], i);
      Four* g = reinterpret_cast<Four*>(Gt.data() + static_cast<std::size_t>(nd.z + i) * width);
      for (std::size_t v = 0; v < nv; ++v) g[v] = s[0] * y[v] + s[1] * y[nv + v] + s[2] * y[2 * nv + v];
    }
    if (nd.parentNode >= 0) {
      Four* yp = Y + static_cast<std::size_t>(nd.parentNode) * 3 * nv;
      for (std::size_t v = 0; v < 3 * nv; ++v) yp[v] += y[v];
    }
  }
}

}  // namespace

// M̄ = R^Φᵀ M^d R^Φ and M^d a without M^d. With W_k = W_parent + S_k R_k (6 × d: a node's velocity
// per unit independent rate), M̄ = Σ_b W_bᵀ I_b W_b = Σ_k (S_k R_k)ᵀ Y_k, Y_k = Σ_{b in subtree k}
// I_b W_b: one pass down the tree and one up on contiguous 6 × d blocks. Forming M^d and
// multiplying it by R^Φ costs about as many operations on a wide tree (the grids), but on
// scattered memory, and M^d itself costs as much again. M^d a rides along as one more column (a).
void reducedMass(const RecursiveModel& tree, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::MatrixXd& Rt,
                 const Eigen::VectorXd& a, Eigen::MatrixXd& Mbar, Eigen::VectorXd& Mda) {
  // scratch in the run's data: no allocation after the first call. Column by column on fixed-size
  // 6-vectors (Eigen's products of small dynamic blocks go through GEMM's packing)
  RecursiveData::Buffers& b = data.buffers();
  OriginTerms& o = b.origin;
  auto& W = b.W;
  auto& Y = b.Y;
  auto& G = b.G;    // Sᵀ Y stacked (6-vector path)
  auto& Gt = b.Gt;  // its transpose (planar path)
  computeOrigin(tree, data, z, o);
  const auto& nodes = tree.nodes;
  const auto nn = static_cast<Eigen::Index>(nodes.size());
  const Eigen::Index d = Rt.rows();
  const Eigen::Index D = d + 1;  // a node's columns: one per independent rate, then the one of a
  auto rate = [&](Eigen::Index c, int zi) { return c < d ? Rt(c, zi) : a[zi]; };
  Mda.resize(tree.nz);
  if (Eigen::Vector3d e1, e2, n; planeOfMotion(o, e1, e2, n)) {
    reducedMassPlanar(tree, b, o, e1, e2, n, Rt, a, Gt);
    symmetricProduct(Rt, Gt.topRows(d).transpose(), Mbar);
    Mda = Gt.row(d).transpose();
    return;
  }
  G.resize(tree.nz, d);
  originInertias(tree, o, false);
  W.resize(6, nn * D);
  Y.resize(6, nn * D);
  for (Eigen::Index k = 0; k < nn; ++k) {
    const Node& n = nodes[static_cast<std::size_t>(k)];
    const MotionColumns& Sk = o.S[static_cast<std::size_t>(k)];
    const Eigen::Index p = n.parentNode;
    // I_b w = [p; r × p + J ω] with p = m (v_O + ω × r), the momentum (cheaper than the 6 × 6 product)
    const double mass = tree.numbers.mech.bodies[static_cast<std::size_t>(n.body)].mass;
    const Eigen::Vector3d& rc = o.r[static_cast<std::size_t>(n.body)];
    const Eigen::Matrix3d& Jk = o.Jc[static_cast<std::size_t>(k)];
    for (Eigen::Index c = 0; c < D; ++c) {
      auto w = W.col(k * D + c);
      if (p >= 0) w = W.col(p * D + c);
      else w.setZero();
      for (int i = 0; i < n.nz; ++i) w += rate(c, n.z + i) * Sk.col(i);
      const Eigen::Vector3d v = w.head<3>(), om = w.tail<3>();
      const Eigen::Vector3d mom = mass * (v + om.cross(rc));
      auto y = Y.col(k * D + c);
      y.head<3>() = mom;
      y.tail<3>().noalias() = rc.cross(mom) + Jk * om;
    }
  }
  for (Eigen::Index k = nn; k-- > 0;) {  // children after parents: Y_k is whole when k is reached
    const Node& n = nodes[static_cast<std::size_t>(k)];
    const MotionColumns& Sk = o.S[static_cast<std::size_t>(k)];
    const Eigen::Index p = n.parentNode;
    for (int i = 0; i < n.nz; ++i) {
      for (Eigen::Index c = 0; c < d; ++c) G(n.z + i, c) = Sk.col(i).dot(Y.col(k * D + c));
      Mda[n.z + i] = Sk.col(i).dot(Y.col(k * D + d));
    }
    if (p >= 0) Y.middleCols(p * D, D) += Y.middleCols(k * D, D);
  }
  symmetricProduct(Rt, G, Mbar);  // Σ_k R_kᵀ S_kᵀ Y_k, G stacking S_kᵀ Y_k
}

void massAndForces(const RecursiveModel& tree, RecursiveData& data, GeneralizedForces<double>& forces, const Eigen::VectorXd& z,
                   const Eigen::VectorXd& zd, double t, Eigen::MatrixXd& Md, Eigen::VectorXd& Qd) {
  massMatrix(tree, data, z, Md, true);
  Qd.resize(tree.nz);
  forces(z.data(), zd.data(), t, Qd.data());
}

void massAndForces(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t,
                   Eigen::MatrixXd& Md, Eigen::VectorXd& Qd) {
  RecursiveData data;
  GeneralizedForces<double> forces(tree);
  forces.shareFrames(data);
  massAndForces(tree, data, forces, z, zd, t, Md, Qd);
}

}  // namespace lw::dyn
