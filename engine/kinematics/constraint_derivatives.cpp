// The constraints' first and second derivatives in closed form, constraint by constraint on its
// own columns: every kind but the driven angle is a polynomial of degree at most three in the
// entities (dot products, a cross product, linear combinations), so its Jacobian row and the
// weighted Hessian Σ_r w_r Φ_r,qq are a few vectors and 3×3 blocks. The jets of constraints.cpp stay
// the reference (tests compare the two) and serve the driven angle, whose trigonometry of the
// time function they carry.
#include <algorithm>
#include <cassert>

#include <Eigen/Geometry>

#include "kinematics/natural_model.h"

namespace lw::kin {
namespace {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

Mat3 crossMatrix(const Vec3& v) {
  Mat3 k;
  k << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return k;
}

// A constraint's columns as its entities see them: where an entity's first coordinate sits among
// c.columns (its dimension coordinates follow it there: the columns are sorted and unique)
struct Local {
  const NaturalModel& m;
  const Constraint& c;
  const Eigen::VectorXd& q;
  int dim() const { return m.dimension; }
  int column(int e) const {
    const Entity& en = m.entities[static_cast<std::size_t>(e)];
    if (en.fixed()) return -1;
    const auto it = std::lower_bound(c.columns.begin(), c.columns.end(), en.offset);
    assert(it != c.columns.end() && *it == en.offset);
    return static_cast<int>(it - c.columns.begin());
  }
  Vec3 value(int e) const {
    const Entity& en = m.entities[static_cast<std::size_t>(e)];
    if (en.fixed()) return en.value;
    const double* p = q.data() + en.offset;
    return {p[0], p[1], dim() == 3 ? p[2] : 0.0};
  }
  Vec3 value(const Direction& d) const { return d.b < 0 ? value(d.a) : Vec3(value(d.a) - value(d.b)); }
};

// The entities a vector expression is linear in, with their signs: an entity, or a direction a − b
struct Terms {
  int e[2] = {-1, -1};
  double s[2] = {1, -1};
  static Terms of(int entity) { return {{entity, -1}, {1, 0}}; }
  static Terms of(const Direction& d) { return {{d.a, d.b}, {1, -1}}; }
  static Terms difference(int plus, int minus) { return {{plus, minus}, {1, -1}}; }
};

// Φ_q's block, column-major over the constraint's columns: J[a·rows + r]
struct Block {
  const Local& at;
  double* J;
  int rows;
  // row r += g · (the expression's entities)
  void add(int r, const Terms& x, const Vec3& g) const {
    for (int i = 0; i < 2; ++i) {
      if (x.e[i] < 0) continue;
      const int a = at.column(x.e[i]);
      if (a < 0) continue;
      for (int k = 0; k < at.dim(); ++k) J[(a + k) * rows + r] += x.s[i] * g[k];
    }
  }
  // row r += G·(the expression), G a row's linear map (row k of the 3×3 map for component k)
  void addRowOfMap(int r, const Terms& x, const Mat3& G, int k) const { add(r, x, G.row(k).transpose()); }
};

// Σ_r w_r Φ_r,qq, column-major nc × nc
struct Hessian {
  const Local& at;
  double* H;
  int nc;
  // the term aᵀ K b (a, b linear in their entities): the block (a's entity, b's entity) += s t K,
  // and its transpose at (b's, a's) — which also gives the 2K of a term aᵀ K a
  void bilinear(const Terms& a, const Terms& b, const Mat3& K) const {
    const int d = at.dim();
    for (int i = 0; i < 2; ++i) {
      if (a.e[i] < 0) continue;
      const int ca = at.column(a.e[i]);
      if (ca < 0) continue;
      for (int j = 0; j < 2; ++j) {
        if (b.e[j] < 0) continue;
        const int cb = at.column(b.e[j]);
        if (cb < 0) continue;
        const double st = a.s[i] * b.s[j];
        for (int k = 0; k < d; ++k)
          for (int l = 0; l < d; ++l) {
            H[(cb + l) * nc + ca + k] += st * K(k, l);
            H[(ca + k) * nc + cb + l] += st * K(k, l);
          }
      }
    }
  }
};

// the driven angle (and any kind the closed forms do not cover): on jets, column by column, and
// for the Hessian along every column and every pair of columns (exact: second-order jets)
void jetBlock(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, double* J) {
  const int nc = static_cast<int>(c.columns.size());
  double column[3];
  for (int a = 0; a < nc; ++a) {
    detail::constraintColumn(m, c, q, t, c.columns[static_cast<std::size_t>(a)], column);
    for (int r = 0; r < c.rows; ++r) J[a * c.rows + r] = column[r];
  }
}

void jetHessian(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, const double* w, double* H) {
  const int nc = static_cast<int>(c.columns.size());
  Jet out[3];
  auto weighted = [&] {
    double v = 0;
    for (int r = 0; r < c.rows; ++r) v += w[r] * out[r].dd;
    return v;
  };
  for (int a = 0; a < nc; ++a) {
    constraintJet(m, c, q, nullptr, c.columns[static_cast<std::size_t>(a)], t, 0, out);
    H[a * nc + a] = weighted();
  }
  Eigen::VectorXd dir = Eigen::VectorXd::Zero(q.size());
  for (int a = 0; a < nc; ++a)
    for (int b = a + 1; b < nc; ++b) {
      dir[c.columns[static_cast<std::size_t>(a)]] = dir[c.columns[static_cast<std::size_t>(b)]] = 1;
      constraintJet(m, c, q, &dir, -1, t, 0, out);
      dir[c.columns[static_cast<std::size_t>(a)]] = dir[c.columns[static_cast<std::size_t>(b)]] = 0;
      H[b * nc + a] = H[a * nc + b] = 0.5 * (weighted() - H[a * nc + a] - H[b * nc + b]);
    }
}

}  // namespace

void constraintBlock(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, double* J) {
  const int nc = static_cast<int>(c.columns.size());
  std::fill(J, J + nc * c.rows, 0.0);
  const Local at{m, c, q};
  const Block b{at, J, c.rows};
  const bool planar = m.dimension == 2;
  switch (c.kind) {
    case ConstraintKind::UnitNorm:
      b.add(0, Terms::of(c.e[0]), 2 * at.value(c.e[0]));
      return;
    case ConstraintKind::Distance:
      b.add(0, Terms::of(c.d[0]), 2 * at.value(c.d[0]));
      return;
    case ConstraintKind::DirDot:
      b.add(0, Terms::of(c.d[0]), at.value(c.d[1]));
      b.add(0, Terms::of(c.d[1]), at.value(c.d[0]));
      return;
    case ConstraintKind::Combo: {
      // r = x(e0) − x(e1) − (c0 d + c1 R90 d) (2D), − (c0 d + c1 d' + c2 w or c2 d × d') (3D)
      const Terms r = c.e[1] >= 0 ? Terms::difference(c.e[0], c.e[1]) : Terms::of(c.e[0]);
      Mat3 D = -c.c[0] * Mat3::Identity();  // ∂/∂d
      if (planar) {
        D(0, 1) = c.c[1];  // R90 d = (−d_y, d_x)
        D(1, 0) = -c.c[1];
      }
      for (int k = 0; k < c.rows; ++k) {
        b.add(k, r, Vec3::Unit(k));
        b.addRowOfMap(k, Terms::of(c.d[0]), D, k);
      }
      if (planar || c.d[1].a < 0) return;  // planar, or a point on a spin-free body's axis
      if (c.d[2].a >= 0) {
        for (int k = 0; k < 3; ++k) {
          b.add(k, Terms::of(c.d[1]), -c.c[1] * Vec3::Unit(k));
          b.add(k, Terms::of(c.d[2]), -c.c[2] * Vec3::Unit(k));
        }
      } else {
        // (d × d')_k = d·(d' × e_k) = d'·(e_k × d)
        const Vec3 d = at.value(c.d[0]), d2 = at.value(c.d[1]);
        for (int k = 0; k < 3; ++k) {
          b.add(k, Terms::of(c.d[1]), -c.c[1] * Vec3::Unit(k));
          b.add(k, Terms::of(c.d[0]), -c.c[2] * d2.cross(Vec3::Unit(k)));
          b.add(k, Terms::of(c.d[1]), -c.c[2] * Vec3::Unit(k).cross(d));
        }
      }
      return;
    }
    case ConstraintKind::Collinear2D: {
      const Vec3 pq = at.value(c.e[1]) - at.value(c.e[0]), u = at.value(c.e[2]);
      b.add(0, Terms::difference(c.e[1], c.e[0]), Vec3(u.y(), -u.x(), 0));
      b.add(0, Terms::of(c.e[2]), Vec3(-pq.y(), pq.x(), 0));
      return;
    }
    case ConstraintKind::AxisLine3D: {
      const Vec3 pq = at.value(c.e[1]) - at.value(c.e[0]), u = at.value(c.e[2]), w = at.value(c.e[3]);
      const Terms p = Terms::difference(c.e[1], c.e[0]);
      b.add(0, p, w);
      b.add(0, Terms::of(c.e[3]), pq);
      b.add(1, p, u.cross(w));
      b.add(1, Terms::of(c.e[2]), w.cross(pq));
      b.add(1, Terms::of(c.e[3]), pq.cross(u));
      return;
    }
    case ConstraintKind::DriveSlide: {
      const Vec3 pq = at.value(c.e[1]) - at.value(c.e[0]);
      b.add(0, Terms::difference(c.e[1], c.e[0]), at.value(c.e[2]));
      b.add(0, Terms::of(c.e[2]), pq);
      return;
    }
    case ConstraintKind::DriveCoordinate:
      b.add(0, Terms::of(c.e[0]), Vec3::Unit(c.component));
      return;
    case ConstraintKind::DriveDistance:
      b.add(0, Terms::difference(c.e[1], c.e[0]), 2 * (at.value(c.e[1]) - at.value(c.e[0])));
      return;
    case ConstraintKind::DriveAngle:
    case ConstraintKind::PlaneGap:  // a held contact: rows that come and go with the rests
      jetBlock(m, c, q, t, J);
      return;
  }
}

void constraintHessian(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, const double* w, double* H) {
  const int nc = static_cast<int>(c.columns.size());
  std::fill(H, H + nc * nc, 0.0);
  const Local at{m, c, q};
  const Hessian h{at, H, nc};
  const Mat3 I = Mat3::Identity();
  switch (c.kind) {
    case ConstraintKind::UnitNorm:
      h.bilinear(Terms::of(c.e[0]), Terms::of(c.e[0]), w[0] * I);
      return;
    case ConstraintKind::Distance:
      h.bilinear(Terms::of(c.d[0]), Terms::of(c.d[0]), w[0] * I);
      return;
    case ConstraintKind::DirDot:
      h.bilinear(Terms::of(c.d[0]), Terms::of(c.d[1]), w[0] * I);
      return;
    case ConstraintKind::Combo:
      // linear but for the product d × d' of a frame without its third vector:
      // Σ_k w_k (−c2 (d × d')_k) = c2 dᵀ [w]× d'
      if (m.dimension == 3 && c.d[1].a >= 0 && c.d[2].a < 0)
        h.bilinear(Terms::of(c.d[0]), Terms::of(c.d[1]), c.c[2] * crossMatrix(Vec3(w[0], w[1], w[2])));
      return;
    case ConstraintKind::Collinear2D: {
      Mat3 K = Mat3::Zero();  // pq_x u_y − pq_y u_x = pqᵀ K u
      K(0, 1) = w[0];
      K(1, 0) = -w[0];
      h.bilinear(Terms::difference(c.e[1], c.e[0]), Terms::of(c.e[2]), K);
      return;
    }
    case ConstraintKind::AxisLine3D: {
      const Vec3 pq = at.value(c.e[1]) - at.value(c.e[0]), u = at.value(c.e[2]), v = at.value(c.e[3]);
      const Terms p = Terms::difference(c.e[1], c.e[0]), tu = Terms::of(c.e[2]), tw = Terms::of(c.e[3]);
      h.bilinear(p, tw, w[0] * I);  // pq·w
      // pq·(u × w): ∂²/∂pq∂u = −[w]×, ∂²/∂pq∂w = [u]×, ∂²/∂u∂w = −[pq]×
      h.bilinear(p, tu, -w[1] * crossMatrix(v));
      h.bilinear(p, tw, w[1] * crossMatrix(u));
      h.bilinear(tu, tw, -w[1] * crossMatrix(pq));
      return;
    }
    case ConstraintKind::DriveSlide:
      h.bilinear(Terms::difference(c.e[1], c.e[0]), Terms::of(c.e[2]), w[0] * I);
      return;
    case ConstraintKind::DriveCoordinate:
      return;
    case ConstraintKind::DriveDistance: {
      const Terms p = Terms::difference(c.e[1], c.e[0]);
      h.bilinear(p, p, w[0] * I);
      return;
    }
    case ConstraintKind::DriveAngle:
    case ConstraintKind::PlaneGap:
      jetHessian(m, c, q, t, w, H);
      return;
  }
}

}  // namespace lw::kin
