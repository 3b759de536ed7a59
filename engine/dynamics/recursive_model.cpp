// Compilation of the recursive model: spanning tree, node geometry, loop constraints.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <complex>
#include <deque>

#include "dynamics/recursive_model.h"
#include "numeric/scalar.h"

#include <atomic>

namespace lw::dyn {
namespace {

int treePreference(JointType t) {
  switch (t) {
    case JointType::Pin: case JointType::Revolute: case JointType::Slider: case JointType::Prismatic:
    case JointType::Fixed: return 0;
    case JointType::Cylindrical: case JointType::Universal: return 1;
    case JointType::Spherical: return 2;  // three rotations: better as a cut (three equations)
  }
  return 3;
}

NodeKind kindOf(JointType t) {
  switch (t) {
    case JointType::Pin: case JointType::Revolute: return NodeKind::Revolute;
    case JointType::Slider: case JointType::Prismatic: return NodeKind::Prismatic;
    case JointType::Cylindrical: return NodeKind::Cylindrical;
    case JointType::Universal: return NodeKind::Universal;
    case JointType::Spherical: return NodeKind::Spherical;
    case JointType::Fixed: return NodeKind::Fixed;
  }
  return NodeKind::Fixed;
}

int coordinatesOf(NodeKind k) {
  switch (k) {
    case NodeKind::Revolute: case NodeKind::Prismatic: return 1;
    case NodeKind::Cylindrical: case NodeKind::Universal: return 2;
    case NodeKind::Spherical: return 4;
    case NodeKind::Fixed: return 0;
    case NodeKind::FreePlanar: return 3;
    case NodeKind::FreeSpatial: return 7;
  }
  return 0;
}

int cutRows(JointType t, int dim) {
  switch (t) {
    case JointType::Pin: return 2;
    case JointType::Slider: return 2;
    case JointType::Fixed: return dim == 2 ? 3 : 6;
    case JointType::Revolute: return 5;
    case JointType::Prismatic: return 5;
    case JointType::Cylindrical: return 4;
    case JointType::Universal: return 4;
    case JointType::Spherical: return 3;
  }
  return 0;
}

}  // namespace

RecursiveModel compileRecursiveModel(const ResolvedMechanism& m) {
  static std::atomic<std::uint64_t> compiled{0};
  RecursiveModel r;
  r.id = ++compiled;
  r.dimension = m.dimension;
  r.mechanism = std::make_shared<const ResolvedMechanism>(m);
  const std::size_t nb = m.bodies.size();
  r.nodeOfBody.assign(nb, -1);
  r.isCut.assign(m.joints.size(), 1);
  r.treeJointNode.assign(m.joints.size(), -1);
  // adjacency, joints sorted by preference so BFS takes revolute/prismatic edges first
  std::vector<std::vector<int>> adj(nb);
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    adj[static_cast<std::size_t>(m.joints[j].body(0))].push_back(static_cast<int>(j));
    adj[static_cast<std::size_t>(m.joints[j].body(1))].push_back(static_cast<int>(j));
  }
  for (auto& a : adj)
    std::stable_sort(a.begin(), a.end(), [&](int x, int y) {
      return treePreference(m.joints[static_cast<std::size_t>(x)].type) < treePreference(m.joints[static_cast<std::size_t>(y)].type);
    });
  std::vector<char> reached(nb, 0);
  reached[0] = 1;
  auto addNode = [&](Node n) {
    n.z = r.nz;
    n.nz = coordinatesOf(n.kind);
    r.nz += n.nz;
    r.nodeOfBody[static_cast<std::size_t>(n.body)] = static_cast<int>(r.nodes.size());
    r.nodes.push_back(n);
  };
  // breadth-first from the ground; bodies the ground does not reach become free bodies, and the
  // search continues from them
  std::deque<int> queue{0};
  auto bfs = [&] {
    while (!queue.empty()) {
      const int b = queue.front();
      queue.pop_front();
      // a joint of lower preference waits until every better joint of this layer is used: simple
      // BFS order with sorted adjacency is enough for the samples
      for (int j : adj[static_cast<std::size_t>(b)]) {
        const auto& jt = m.joints[static_cast<std::size_t>(j)];
        const int other = jt.body(0) == b ? jt.body(1) : jt.body(0);
        if (reached[static_cast<std::size_t>(other)]) continue;
        reached[static_cast<std::size_t>(other)] = 1;
        r.isCut[static_cast<std::size_t>(j)] = 0;
        Node n;
        n.body = other;
        n.parent = b;
        n.parentNode = r.nodeOfBody[static_cast<std::size_t>(b)];
        n.joint = j;
        n.kind = kindOf(jt.type);
        n.flip = jt.body(0) == other;  // the joint's body 1 is the child
        if (n.flip && jt.axes[0].valid() && jt.axes[1].valid()) {
          // the child turns by −z about the parent's axis u₂, the coordinate is measured about u₁
          auto world = [&](int side) {
            const auto& body = m.bodies[static_cast<std::size_t>(jt.body(side))];
            return Eigen::Vector3d(body.rotation * body.vectors[static_cast<std::size_t>(jt.axes[side].index)]);
          };
          n.sign = world(0).dot(world(1)) < 0 ? -1.0 : 1.0;
        }
        r.treeJointNode[static_cast<std::size_t>(j)] = static_cast<int>(r.nodes.size());
        addNode(n);
        queue.push_back(other);
      }
    }
  };
  bfs();
  for (std::size_t b = 1; b < nb; ++b) {
    if (reached[b]) continue;
    reached[b] = 1;
    Node n;
    n.body = static_cast<int>(b);
    n.parent = 0;
    n.kind = m.dimension == 2 ? NodeKind::FreePlanar : NodeKind::FreeSpatial;
    addNode(n);
    queue.push_back(static_cast<int>(b));
    bfs();
  }
  r.children.resize(r.nodes.size());
  for (std::size_t k = 0; k < r.nodes.size(); ++k)
    if (r.nodes[k].parentNode >= 0) r.children[static_cast<std::size_t>(r.nodes[k].parentNode)].push_back(static_cast<int>(k));
  r.subtree.resize(r.nodes.size());
  for (std::size_t k = r.nodes.size(); k-- > 0;) {  // children come after their parents
    r.subtree[k].push_back(r.nodes[k].body);
    for (int c : r.children[k])
      r.subtree[k].insert(r.subtree[k].end(), r.subtree[static_cast<std::size_t>(c)].begin(), r.subtree[static_cast<std::size_t>(c)].end());
  }
  // depth-first intervals: node n is in k's subtree iff enter[k] <= enter[n] < leave[k]
  r.enter.assign(r.nodes.size(), 0);
  r.leave.assign(r.nodes.size(), 0);
  {
    int clock = 0;
    std::vector<std::pair<int, std::size_t>> stack;  // node, next child
    for (std::size_t k = 0; k < r.nodes.size(); ++k) {
      if (r.nodes[k].parentNode >= 0) continue;
      stack.emplace_back(static_cast<int>(k), 0);
      r.enter[k] = clock++;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const auto& kids = r.children[static_cast<std::size_t>(node)];
        if (next < kids.size()) {
          const int c = kids[next++];
          r.enter[static_cast<std::size_t>(c)] = clock++;
          stack.emplace_back(c, 0);
        } else {
          r.leave[static_cast<std::size_t>(node)] = clock;
          stack.pop_back();
        }
      }
    }
  }
  // initial coordinates: zero, quaternions at identity
  r.z0 = Eigen::VectorXd::Zero(r.nz);
  for (const auto& n : r.nodes) {
    if (n.kind == NodeKind::Spherical) r.z0[n.z] = 1;
    if (n.kind == NodeKind::FreeSpatial) r.z0[n.z + 3] = 1;
  }
  r.numbers = treeNumbers<double>(r, numbersOf(m));
  // loop constraints: cut joints, drivers, unit quaternions
  for (std::size_t j = 0; j < m.joints.size(); ++j)
    if (r.isCut[j]) r.constraints.push_back({LoopConstraint::Kind::CutJoint, static_cast<int>(j), cutRows(m.joints[j].type, m.dimension), 0});
  for (std::size_t k = 0; k < m.drivers.size(); ++k) r.constraints.push_back({LoopConstraint::Kind::Driver, static_cast<int>(k), 1, 0});
  for (std::size_t k = 0; k < r.nodes.size(); ++k)
    if (r.nodes[k].kind == NodeKind::Spherical || r.nodes[k].kind == NodeKind::FreeSpatial)
      r.constraints.push_back({LoopConstraint::Kind::UnitQuaternion, static_cast<int>(k), 1, 0});
  int row = 0;
  for (auto& c : r.constraints) {
    c.row = row;
    row += c.rows;
  }
  r.nrows = row;
  // the bodies whose frames Φ's rows read (a rows pass builds those alone)
  r.rowBodies.assign(nb, 0);
  std::vector<int> rowBodies;
  for (std::size_t ci = 0; ci < r.constraints.size(); ++ci) {
    constraintBodies(r, static_cast<int>(ci), rowBodies);
    for (int b : rowBodies) r.rowBodies[static_cast<std::size_t>(b)] = 1;
  }
  // which constraints each node's coordinates can change: those on bodies of its subtree, and
  // the rows that read its coordinates (a driver of its joint, its unit quaternion)
  r.affected.resize(r.nodes.size());
  for (std::size_t k = 0; k < r.nodes.size(); ++k) {
    std::vector<char> moves(nb, 0);
    for (int b : r.subtree[k]) moves[static_cast<std::size_t>(b)] = 1;
    for (std::size_t ci = 0; ci < r.constraints.size(); ++ci) {
      const auto& c = r.constraints[ci];
      bool hit = false;
      switch (c.kind) {
        case LoopConstraint::Kind::CutJoint: {
          const auto& jt = m.joints[static_cast<std::size_t>(c.index)];
          hit = moves[static_cast<std::size_t>(jt.body(0))] || moves[static_cast<std::size_t>(jt.body(1))];
          break;
        }
        case LoopConstraint::Kind::Driver: {
          const auto& dv = m.drivers[static_cast<std::size_t>(c.index)];
          if (dv.type == Driver::Type::Joint) {
            const auto& jt = m.joints[static_cast<std::size_t>(dv.joint)];
            hit = moves[static_cast<std::size_t>(jt.body(0))] || moves[static_cast<std::size_t>(jt.body(1))] ||
                  r.treeJointNode[static_cast<std::size_t>(dv.joint)] == static_cast<int>(k);
          } else if (dv.type == Driver::Type::Coordinate) {
            hit = moves[static_cast<std::size_t>(dv.point.body)];
          } else {
            hit = moves[static_cast<std::size_t>(dv.points[0].body)] || moves[static_cast<std::size_t>(dv.points[1].body)];
          }
          break;
        }
        case LoopConstraint::Kind::UnitQuaternion: hit = c.index == static_cast<int>(k); break;
      }
      if (hit) r.affected[k].push_back(static_cast<int>(ci));
    }
  }
  r.rowColumns.assign(static_cast<std::size_t>(r.nrows), {});
  for (std::size_t k = 0; k < r.nodes.size(); ++k)  // nodes in order: columns come sorted
    for (int ci : r.affected[k]) {
      const LoopConstraint& c = r.constraints[static_cast<std::size_t>(ci)];
      for (int ri = c.row; ri < c.row + c.rows; ++ri)
        for (int i = 0; i < r.nodes[k].nz; ++i) r.rowColumns[static_cast<std::size_t>(ri)].push_back(r.nodes[k].z + i);
    }
  for (auto& c : r.constraints) {
    c.block = r.nblocks;
    if (c.rows > 0) r.nblocks += c.rows * static_cast<int>(r.rowColumns[static_cast<std::size_t>(c.row)].size());
  }
  std::vector<int> next(r.constraints.size(), 0);  // a constraint's columns filled so far
  r.blockColumns.resize(r.nodes.size());
  for (std::size_t k = 0; k < r.nodes.size(); ++k)
    for (int ci : r.affected[k]) {
      const LoopConstraint& c = r.constraints[static_cast<std::size_t>(ci)];
      RecursiveModel::BlockColumns b;
      b.constraint = ci;
      b.offset = c.block + next[static_cast<std::size_t>(ci)] * c.rows;
      next[static_cast<std::size_t>(ci)] += r.nodes[k].nz;
      if (c.kind == LoopConstraint::Kind::CutJoint) {
        const auto& jt = m.joints[static_cast<std::size_t>(c.index)];
        b.sides = static_cast<std::uint8_t>((r.movesWith(jt.body(0), static_cast<int>(k)) ? 1 : 0) |
                                            (r.movesWith(jt.body(1), static_cast<int>(k)) ? 2 : 0));
      }
      r.blockColumns[k].push_back(b);
    }
  return r;
}

namespace {

template <class P> bool isExactly(const P& x, double c) {
  if constexpr (std::is_same_v<P, double>) {
    return x == c;
  } else if constexpr (std::is_same_v<P, std::complex<double>>) {
    return x.real() == c && x.imag() == 0;
  } else {
    return num::isExactZero(x - P(c));
  }
}

template <class P> Eigen::Matrix<P, 3, 1> cross3(const Eigen::Matrix<P, 3, 1>& a, const Eigen::Matrix<P, 3, 1>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// Eigen's unitOrthogonal on any scalar: the branch from the values, the arithmetic on P
template <class P> Eigen::Matrix<P, 3, 1> unitOrthogonal3(const Eigen::Matrix<P, 3, 1>& a) {
  using std::sqrt;
  const double x = num::value(a[0]), y = num::value(a[1]), z = num::value(a[2]);
  const double precision = Eigen::NumTraits<double>::dummy_precision();
  if (!(std::abs(x) <= std::abs(z) * precision) || !(std::abs(y) <= std::abs(z) * precision)) {
    const P inv = P(1.0) / P(sqrt(a[0] * a[0] + a[1] * a[1]));
    return {-a[1] * inv, a[0] * inv, P(0.0)};
  }
  const P inv = P(1.0) / P(sqrt(a[1] * a[1] + a[2] * a[2]));
  return {P(0.0), -a[2] * inv, a[1] * inv};
}

}  // namespace

template <class P>
TreeNumbers<P> treeNumbers(const RecursiveModel& r, MechanismNumbers<P> numbers) {
  using Vec3 = Eigen::Matrix<P, 3, 1>;
  const ResolvedMechanism& m = *r.mechanism;
  const Vec3 X(P(1.0), P(0.0), P(0.0)), Z(P(0.0), P(0.0), P(1.0));
  TreeNumbers<P> t;
  t.mech = std::move(numbers);
  const auto& bodies = t.mech.bodies;
  t.nodes.resize(r.nodes.size());
  for (std::size_t k = 0; k < r.nodes.size(); ++k) {
    const Node& n = r.nodes[k];
    auto& g = t.nodes[k];
    const auto& cb = bodies[static_cast<std::size_t>(n.body)];
    if (n.joint < 0) {  // a free body: its stored pose
      g.R0 = cb.rotation;
      g.x0 = cb.position;
    } else {
      const auto& jt = m.joints[static_cast<std::size_t>(n.joint)];
      const int side = n.flip ? 1 : 0;  // the parent's side of the joint
      const auto& pb = bodies[static_cast<std::size_t>(n.parent)];
      g.point = pb.points[static_cast<std::size_t>(jt.points[side].index)];
      if (jt.axes[side].valid()) g.axis = pb.vectors[static_cast<std::size_t>(jt.axes[side].index)];
      else if (m.dimension == 2) g.axis = pb.rotation.transpose() * Z;
      if (n.kind == NodeKind::Universal) {
        // the second axis belongs to the child; expressed in the parent frame at z = 0
        const Vec3 a2_W = cb.rotation * cb.vectors[static_cast<std::size_t>(jt.axes[1 - side].index)];
        g.axis2 = pb.rotation.transpose() * a2_W;
      }
      g.R0 = pb.rotation.transpose() * cb.rotation;
      g.x0 = pb.rotation.transpose() * (cb.position - pb.position);
      // the joint closed: the child placed so that its joint point meets the parent's (on a
      // slide, lies on the parent's line, the stored slide kept). A file whose stored bodies
      // leave a gap (a length parameter changed, the positions not) is assembled, not run
      // with the joint open; a closed one is unchanged
      const auto& pc = jt.points[1 - side];
      if (pc.valid() && jt.points[side].valid()) {
        const Vec3 p_C = cb.points[static_cast<std::size_t>(pc.index)];
        const Vec3 gap = g.R0 * p_C + g.x0 - g.point;
        if (n.kind == NodeKind::Revolute || n.kind == NodeKind::Universal || n.kind == NodeKind::Spherical) {
          g.x0 -= gap;
        } else if ((n.kind == NodeKind::Prismatic || n.kind == NodeKind::Cylindrical) && jt.axes[side].valid()) {
          g.x0 -= gap - g.axis * dot3(g.axis, gap);
        }
      }
    }
    for (int a = 0; a < 3; ++a)
      for (double sign : {1.0, -1.0})
        if (isExactly(g.axis[a], sign) && isExactly(g.axis[(a + 1) % 3], 0.0) && isExactly(g.axis[(a + 2) % 3], 0.0)) {
          g.axisIndex = a;
          g.axisSign = sign;
        }
    g.R0isIdentity = true;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) g.R0isIdentity = g.R0isIdentity && isExactly(g.R0(i, j), i == j ? 1.0 : 0.0);
  }
  // every joint's axis and perpendiculars, on each body (body frames)
  t.jointAxes.resize(m.joints.size());
  t.joints.resize(m.joints.size());
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const auto& jt = m.joints[j];
    // the same world direction on both bodies (perpendicular to body 1's axis, or to Z in a
    // plane), so that its stored dot products are 0 or 1
    const auto& b0 = bodies[static_cast<std::size_t>(jt.body(0))];
    const auto& b1 = bodies[static_cast<std::size_t>(jt.body(1))];
    const Vec3 a0_W = jt.axes[0].valid() ? Vec3(b0.rotation * b0.vectors[static_cast<std::size_t>(jt.axes[0].index)]) : Z;
    const Vec3 w_W = m.dimension == 2 && !jt.axes[0].valid() ? X : unitOrthogonal3<P>(a0_W);
    for (int s = 0; s < 2; ++s) {
      const auto& b = s == 0 ? b0 : b1;
      auto& ax = t.jointAxes[j][static_cast<std::size_t>(s)];
      // a pin's axis (or a joint's without one) is the model's Z
      ax.u = jt.axes[s].valid() ? b.vectors[static_cast<std::size_t>(jt.axes[s].index)] : Vec3(b.rotation.transpose() * Z);
      ax.w = b.rotation.transpose() * w_W;
      ax.v = cross3<P>(ax.u, ax.w);
    }
    auto& stored = t.joints[j];
    if (jt.axes[0].valid() && jt.axes[1].valid())
      stored.axesDot = dot3<P>(t.mech.vectorWorld(jt.axes[0]), t.mech.vectorWorld(jt.axes[1]));
    stored.relative = b0.rotation.transpose() * b1.rotation;
    if (jt.axes[0].valid())
      stored.slide = dot3<P>(Vec3(t.mech.pointWorld(jt.points[1]) - t.mech.pointWorld(jt.points[0])), t.mech.vectorWorld(jt.axes[0]));
  }
  return t;
}

template TreeNumbers<double> treeNumbers<double>(const RecursiveModel&, MechanismNumbers<double>);
template TreeNumbers<std::complex<double>> treeNumbers<std::complex<double>>(const RecursiveModel&, MechanismNumbers<std::complex<double>>);
template TreeNumbers<num::Dual8> treeNumbers<num::Dual8>(const RecursiveModel&, MechanismNumbers<num::Dual8>);

std::string RecursiveModel::describeRow(int row) const {
  for (const auto& c : constraints) {
    if (row < c.row || row >= c.row + c.rows) continue;
    const auto i = static_cast<std::size_t>(c.index);
    switch (c.kind) {
      case LoopConstraint::Kind::CutJoint: return "joint '" + mechanism->joints[i].name + "' (loop closure)";
      case LoopConstraint::Kind::Driver: return "driver '" + mechanism->drivers[i].name + "'";
      case LoopConstraint::Kind::UnitQuaternion:
        return "orientation of body '" + mechanism->bodies[static_cast<std::size_t>(nodes[i].body)].name + "'";
    }
  }
  return "row " + std::to_string(row);
}

void constraintBodies(const RecursiveModel& m, int constraint, std::vector<int>& bodies) {
  bodies.clear();
  const LoopConstraint& c = m.constraints[static_cast<std::size_t>(constraint)];
  const auto& mech = *m.mechanism;
  if (c.kind == LoopConstraint::Kind::CutJoint) {
    const auto& jt = mech.joints[static_cast<std::size_t>(c.index)];
    bodies.assign({jt.body(0), jt.body(1)});
  } else if (c.kind == LoopConstraint::Kind::Driver) {
    const auto& dv = mech.drivers[static_cast<std::size_t>(c.index)];
    if (dv.type == lw::Driver::Type::Joint) {
      if (m.treeJointNode[static_cast<std::size_t>(dv.joint)] >= 0) return;  // its coordinate alone
      const auto& jt = mech.joints[static_cast<std::size_t>(dv.joint)];
      bodies.assign({jt.body(0), jt.body(1)});
    } else if (dv.type == lw::Driver::Type::Coordinate) {
      bodies.assign({dv.point.body});
    } else {
      bodies.assign({dv.points[0].body, dv.points[1].body});
    }
  }
  if (bodies.size() == 2 && bodies[1] == bodies[0]) bodies.pop_back();
}

}  // namespace lw::dyn
