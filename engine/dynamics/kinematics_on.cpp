// The recursive kinematics on any scalar (design parameters' dual numbers, complex steps, jets on
// them): Φ and points' positions on given frames or from z, one constraint's rows, the joints'
// coordinates as the outputs measure them; explicitly instantiated for the scalars in use.
#include <complex>

#include "dynamics/constraint_rows.h"
#include "dynamics/recursive_model.h"
#include "numeric/dual.h"
#include "numeric/first_jets.h"
#include "numeric/jet.h"

namespace lw::dyn {

using namespace detail;

template <class T, class P>
void kinematicsOn(const RecursiveModel& m, const TreeNumbers<P>& p, const T* z, const T& t, T* phi,
                  std::span<const ItemIndex> points, T* xyz) {
  std::vector<Frame<T>> f;
  computeFrames<T, P>(m, p, z, f);
  kinematicsOnFrames<T, P>(m, p, f, z, t, phi, points, xyz);
}

template <class T, class P>
void constraintOnFrames(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<detail::Frame<T>>& f, const T* z, const T& t,
                        int constraint, T* phi) {
  constraintRow<T, P>(m, p, f, z, t, m.constraints[static_cast<std::size_t>(constraint)], phi);
}

template <class T, class P>
void kinematicsOnFrames(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<detail::Frame<T>>& f, const T* z, const T& t, T* phi,
                        std::span<const ItemIndex> points, T* xyz) {
  if (phi) constraintRows<T, P>(m, p, f, z, t, phi);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ItemIndex q = points[i];
    const V3<T> x = worldPoint(f[static_cast<std::size_t>(q.body)], p.mech.point(q));
    for (int k = 0; k < 3; ++k) xyz[3 * i + static_cast<std::size_t>(k)] = x[k];
  }
}

template <class P>
P storedJointCoordinate(const RecursiveModel& m, const TreeNumbers<P>& p, int joint) {
  const auto& jt = m.mechanism->joints[static_cast<std::size_t>(joint)];
  if (jt.type == JointType::Slider || jt.type == JointType::Prismatic) return p.joints[static_cast<std::size_t>(joint)].slide;
  if (m.dimension != 2) return P(0.0);
  // planar: the angle of R1ᵀ R2 about z
  const auto& R1 = p.mech.bodies[static_cast<std::size_t>(jt.body(0))].rotation;
  const auto& R2 = p.mech.bodies[static_cast<std::size_t>(jt.body(1))].rotation;
  const P cosine = R1(0, 0) * R2(0, 0) + R1(1, 0) * R2(1, 0) + R1(2, 0) * R2(2, 0);
  const P sine = R1(0, 1) * R2(0, 0) + R1(1, 1) * R2(1, 0) + R1(2, 1) * R2(2, 0);
  using num::atan2;
  return atan2(sine, cosine);
}

namespace {
// a planar body's turn since the stored configuration: the turns of the revolute and free nodes
// on its path to the ground (planar rotations add up)
template <class T>
T planarTurn(const RecursiveModel& m, const T* z, int body) {
  T turn(0.0);
  for (int k = body > 0 ? m.nodeOfBody[static_cast<std::size_t>(body)] : -1; k >= 0; k = m.nodes[static_cast<std::size_t>(k)].parentNode) {
    const Node& n = m.nodes[static_cast<std::size_t>(k)];
    // the axis is ±z exactly whatever the parameters: its sign from the compiled numbers
    const double about = m.numbers.nodes[static_cast<std::size_t>(k)].axis.z() < 0 ? -1.0 : 1.0;
    if (n.kind == NodeKind::Revolute) turn = turn + z[n.z] * ((n.flip ? -1.0 : 1.0) * about);
    else if (n.kind == NodeKind::FreePlanar) turn = turn + z[n.z + 2];
  }
  return turn;
}
bool slides(JointType t) { return t == JointType::Slider || t == JointType::Prismatic; }
}  // namespace

bool jointCoordinateNeedsFrames(const RecursiveModel& m, int joint) {
  if (m.treeJointNode[static_cast<std::size_t>(joint)] >= 0) return false;
  const JointType t = m.mechanism->joints[static_cast<std::size_t>(joint)].type;
  return slides(t) || (m.dimension != 2 && (t == JointType::Pin || t == JointType::Revolute));
}

template <class T, class P>
bool jointCoordinateOn(const RecursiveModel& m, const TreeNumbers<P>& p, const T* z, const std::vector<detail::Frame<T>>* f, int joint,
                       T& q) {
  const int node = m.treeJointNode[static_cast<std::size_t>(joint)];
  if (node >= 0) {
    const Node& n = m.nodes[static_cast<std::size_t>(node)];
    q = z[n.z] * n.sign + T(storedJointCoordinate(m, p, joint));
    return true;
  }
  const auto& jt = m.mechanism->joints[static_cast<std::size_t>(joint)];
  if (!slides(jt.type) && jt.type != JointType::Pin && jt.type != JointType::Revolute) return false;
  if (m.dimension == 2 && !slides(jt.type)) {
    q = T(storedJointCoordinate(m, p, joint)) + (planarTurn<T>(m, z, jt.body(1)) - planarTurn<T>(m, z, jt.body(0)));
    return true;
  }
  if (!f) return false;
  V3<T> P1, u1, w1, v1, P2, u2, w2, v2;
  jointFrame(m, p, *f, joint, 0, P1, u1, w1, v1);
  jointFrame(m, p, *f, joint, 1, P2, u2, w2, v2);
  if (slides(jt.type)) {
    q = dot(sub(P2, P1), u1);
  } else {  // the perpendiculars w1, w2 are aligned in the stored configuration
    using num::atan2;
    q = atan2(dot(cross(w1, w2), u1), dot(w1, w2));
  }
  return true;
}

template <class T, class P>
bool jointCoordinatesOn(const RecursiveModel& m, const TreeNumbers<P>& p, const T* z, std::span<const int> joints, T* q) {
  std::vector<detail::Frame<T>> f;
  bool framed = false;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (!framed && jointCoordinateNeedsFrames(m, joints[i])) {
      detail::computeFrames<T, P>(m, p, z, f);
      framed = true;
    }
    if (!jointCoordinateOn<T, P>(m, p, z, framed ? &f : nullptr, joints[i], q[i])) return false;
  }
  return true;
}

template <class P>
bool jointCoordinateRowOn(const RecursiveModel& m, const TreeNumbers<P>& p, const P* z, int joint, P* row) {
  using J = kin::BasicJet<P>;
  const int node = m.treeJointNode[static_cast<std::size_t>(joint)];
  if (node >= 0) {  // a tree joint: its own coordinate
    for (int i = 0; i < m.nz; ++i) row[i] = P(0.0);
    const Node& n = m.nodes[static_cast<std::size_t>(node)];
    row[n.z] = P(n.sign);
    return true;
  }
  // one jet pass per coordinate (at the start only)
  std::vector<J> zj(static_cast<std::size_t>(m.nz));
  for (int i = 0; i < m.nz; ++i) zj[static_cast<std::size_t>(i)] = J(z[i]);
  for (int i = 0; i < m.nz; ++i) {
    zj[static_cast<std::size_t>(i)].d = P(1.0);
    J q;
    if (!jointCoordinatesOn<J, P>(m, p, zj.data(), std::span<const int>(&joint, 1), &q)) return false;
    row[i] = q.d;
    zj[static_cast<std::size_t>(i)].d = P(0.0);
  }
  return true;
}
template bool jointCoordinateRowOn<double>(const RecursiveModel&, const TreeNumbers<double>&, const double*, int, double*);
template bool jointCoordinateRowOn<num::Dual8>(const RecursiveModel&, const TreeNumbers<num::Dual8>&, const num::Dual8*, int, num::Dual8*);
template bool jointCoordinateRowOn<std::complex<double>>(const RecursiveModel&, const TreeNumbers<std::complex<double>>&, const std::complex<double>*,
                                                         int, std::complex<double>*);

template double storedJointCoordinate<double>(const RecursiveModel&, const TreeNumbers<double>&, int);
template num::Dual8 storedJointCoordinate<num::Dual8>(const RecursiveModel&, const TreeNumbers<num::Dual8>&, int);
template std::complex<double> storedJointCoordinate<std::complex<double>>(const RecursiveModel&, const TreeNumbers<std::complex<double>>&, int);

#define LW_KINEMATICS_ON(T, P)                                                                                              \
  template void kinematicsOn<T, P>(const RecursiveModel&, const TreeNumbers<P>&, const T*, const T&, T*, std::span<const ItemIndex>, T*); \
  template void kinematicsOnFrames<T, P>(const RecursiveModel&, const TreeNumbers<P>&, const std::vector<detail::Frame<T>>&, const T*,   \
                                         const T&, T*, std::span<const ItemIndex>, T*);                                                  \
  template void constraintOnFrames<T, P>(const RecursiveModel&, const TreeNumbers<P>&, const std::vector<detail::Frame<T>>&, const T*,   \
                                         const T&, int, T*);
#define LW_JOINT_COORDINATE_ON(T, P)                                                                                        \
  template bool jointCoordinateOn<T, P>(const RecursiveModel&, const TreeNumbers<P>&, const T*, const std::vector<detail::Frame<T>>*, int, \
                                        T&);                                                                         \
  template bool jointCoordinatesOn<T, P>(const RecursiveModel&, const TreeNumbers<P>&, const T*, std::span<const int>, T*);
LW_JOINT_COORDINATE_ON(double, double)
LW_JOINT_COORDINATE_ON(kin::Jet, double)
LW_JOINT_COORDINATE_ON(num::Dual8, num::Dual8)
LW_JOINT_COORDINATE_ON(kin::BasicJet<num::Dual8>, num::Dual8)
LW_JOINT_COORDINATE_ON(std::complex<double>, std::complex<double>)
LW_JOINT_COORDINATE_ON(kin::BasicJet<std::complex<double>>, std::complex<double>)
#undef LW_JOINT_COORDINATE_ON
LW_KINEMATICS_ON(double, double)
LW_KINEMATICS_ON(kin::Jet, double)
LW_KINEMATICS_ON(num::Dual8, num::Dual8)
LW_KINEMATICS_ON(kin::BasicJet<num::Dual8>, num::Dual8)
LW_KINEMATICS_ON(std::complex<double>, std::complex<double>)
LW_KINEMATICS_ON(kin::BasicJet<std::complex<double>>, std::complex<double>)
#undef LW_KINEMATICS_ON
// six twists at once (the multipliers' turn, matrix_r_derivatives.cpp; Φ_z, tree_motion.cpp)
#define LW_TWISTS_ON(S)                                                                                                            \
  template void constraintOnFrames<kin::FirstJets<S, 6>, S>(const RecursiveModel&, const TreeNumbers<S>&,                          \
                                                            const std::vector<detail::Frame<kin::FirstJets<S, 6>>>&,                \
                                                            const kin::FirstJets<S, 6>*, const kin::FirstJets<S, 6>&, int, kin::FirstJets<S, 6>*);
LW_TWISTS_ON(double)
LW_TWISTS_ON(num::Dual8)
LW_TWISTS_ON(std::complex<double>)
#undef LW_TWISTS_ON
// eight directions a pass on the double numbers (the reactions' derivatives, reactions.cpp)
template void constraintOnFrames<num::Dual8, double>(const RecursiveModel&, const TreeNumbers<double>&, const std::vector<detail::Frame<num::Dual8>>&,
                                                     const num::Dual8*, const num::Dual8&, int, num::Dual8*);

}  // namespace lw::dyn
