// τ's and the points' lanes along design parameters (dyn::inverseDynamicsAlongNumbers): the
// forward-mode tangent of the jet-free motion pass and the inverse dynamics on it, written out on
// doubles lane by lane. A parameter that moves geometry displaces whole subtrees by translations
// at the fixed state; one that changes masses changes wrenches. Nodes above everything a lane
// touches are skipped, so a length low in a chain costs only its subtree.
#include <vector>

#include "dynamics/force_elements.h"
#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/tree_motion.h"
#include "numeric/dual.h"

namespace lw::dyn {
namespace {

using namespace detail;
using D = num::Dual8;
constexpr int kLanes = num::kChunk;

bool hasLanes(const D& x) {
  for (double g : x.g)
    if (g != 0) return true;
  return false;
}
template <int R, int C>
bool hasLanes(const Eigen::Matrix<D, R, C>& a) {
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (hasLanes(a.data()[i])) return true;
  return false;
}
template <class M>
V3<double> mulT(const M& A, const V3<double>& x) {  // Aᵀ x
  V3<double> y;
  for (int i = 0; i < 3; ++i) y[i] = A(0, i) * x[0] + A(1, i) * x[1] + A(2, i) * x[2];
  return y;
}

// a joint that turns about its point J: the child's origin is x_p + R_p J + R_p R_m (x0 − J), so
// J's lane translates the node's columns with the subtree, and x0 − J's the subtree alone
bool turnsAboutPoint(NodeKind k) {
  return k == NodeKind::Revolute || k == NodeKind::Cylindrical || k == NodeKind::Universal;
}

Eigen::Vector3d lane3(const Eigen::Matrix<D, 3, 1>& a, int l) { return {a[0].g[l], a[1].g[l], a[2].g[l]}; }
V3<double> v3(const Eigen::Vector3d& a) { return {{a.x(), a.y(), a.z()}}; }

// the force elements whose wrenches the pass moves with their points and numbers (besides tree
// torsion springs, which act on their coordinates)
bool laneForce(Force::Type t) { return t == Force::Type::Spring || t == Force::Type::PointForce || t == Force::Type::Torque; }

// the force elements the pass evaluates whole on dual numbers at the fixed state (tyres, torsion
// springs closing loops): their numbers' lanes alone reach their wrenches, so no lane may move
// their bodies
bool evaluatedForce(const RecursiveModel& m, const ResolvedMechanism::Force& f) {
  return f.type == Force::Type::Tyre || (f.type == Force::Type::TorsionSpring && m.treeJointNode[static_cast<std::size_t>(f.joint)] < 0);
}

// the active forces are the pass's: lane forces and torsion springs on tree joints, and the
// evaluated ones where no lane moves a body
bool forcesCovered(const RecursiveModel& m, const NumbersLanes& lanes, const TreeNumbers<D>& p) {
  const auto& forces = m.mechanism->forces;
  for (std::size_t f = 0; f < forces.size(); ++f)
    if (p.mech.forces[f].active && evaluatedForce(m, forces[f]) && lanes.movesBodies) return false;
  return true;
}

// the evaluated elements' wrenches at the fixed state on the lanes' numbers: by body, the force
// and its moment about the world origin (a torque's: moment alone)
struct EvaluatedWrench {
  int body;
  V3<D> force, moment;
};
// what forceElements reads of the bodies, on dual numbers: the state's frames and twists (no lane
// moves a body), the points' own lanes in their body frames
struct FixedBodies {
  const RecursiveModel& m;
  const MechanismNumbers<D>& nums;
  const TreeMotion<double>& motion;
  static V3<D> lift(const V3<double>& x) { return {{D(x[0]), D(x[1]), D(x[2])}}; }
  V3<double> omegaOf(int body) const {
    const int k = m.nodeOfBody[static_cast<std::size_t>(body)];
    return k < 0 ? zero3<double>() : motion.V[static_cast<std::size_t>(k)].w;
  }
  V3<D> velocityAt(int body, const V3<D>& r) const {
    const int k = m.nodeOfBody[static_cast<std::size_t>(body)];
    if (k < 0) return lift(zero3<double>());
    const Motion6<double>& V = motion.V[static_cast<std::size_t>(k)];
    return add(lift(V.v), cross(lift(V.w), r));
  }
  void point(ItemIndex item, V3<D>& r, V3<D>& v) const {
    const Frame<double>& F = motion.frames[static_cast<std::size_t>(item.body)];
    const Eigen::Matrix<D, 3, 1>& local = nums.point(item);
    for (int i = 0; i < 3; ++i) r[i] = D(F.x[i]) + F.R(i, 0) * local[0] + F.R(i, 1) * local[1] + F.R(i, 2) * local[2];
    v = velocityAt(item.body, r);
  }
  void centre(int body, V3<D>& r, V3<D>& v) const {
    const int k = m.nodeOfBody[static_cast<std::size_t>(body)];
    r = lift(k < 0 ? zero3<double>() : motion.centre[static_cast<std::size_t>(k)]);
    v = velocityAt(body, r);
  }
  M3<D> rotation(int body) const {
    const M3<double>& R = motion.frames[static_cast<std::size_t>(body)].R;
    M3<D> out;
    for (int i = 0; i < 9; ++i) out.a[i] = D(R.a[i]);
    return out;
  }
  V3<D> omega(int body) const { return lift(omegaOf(body)); }
};
void evaluatedWrenches(const RecursiveModel& m, const TreeMotion<double>& motion, const TreeNumbers<D>& p, double t,
                       std::vector<EvaluatedWrench>& out) {
  out.clear();
  const auto& forces = m.mechanism->forces;
  const FixedBodies bodies{m, p.mech, motion};
  for (std::size_t fi = 0; fi < forces.size(); ++fi) {
    if (!p.mech.forces[fi].active || !evaluatedForce(m, forces[fi])) continue;
    forceElements<D>(
        m, p, t, bodies,
        [&](int body, const V3<D>& at, const V3<D>& F) {
          if (m.nodeOfBody[static_cast<std::size_t>(body)] >= 0) out.push_back({body, F, cross(at, F)});
        },
        [&](int body, const V3<D>& T) {
          if (m.nodeOfBody[static_cast<std::size_t>(body)] >= 0) out.push_back({body, FixedBodies::lift(zero3<double>()), T});
        },
        false, nullptr, static_cast<std::ptrdiff_t>(fi));
  }
}

// the active lane forces' points in order (a spring's two, a point force's one)
template <class P>
void laneForcePoints(const RecursiveModel& m, const MechanismNumbers<P>& nums, std::vector<ItemIndex>& out) {
  out.clear();
  const auto& forces = m.mechanism->forces;
  for (std::size_t f = 0; f < forces.size(); ++f) {
    if (!nums.forces[f].active) continue;
    if (forces[f].type == Force::Type::Spring) out.insert(out.end(), {forces[f].points[0], forces[f].points[1]});
    if (forces[f].type == Force::Type::PointForce) out.push_back(forces[f].point);
  }
}

// a lane force's time functions at t on the lanes' numbers: a spring's actuator, a force's or
// torque's components
struct ForceValues {
  D actuator{};
  D value[3];
  int count = 0;
};
void forceValuesAt(const RecursiveModel& m, const TreeNumbers<D>& p, double t, std::vector<ForceValues>& out) {
  const auto& forces = m.mechanism->forces;
  out.assign(forces.size(), ForceValues{});
  for (std::size_t f = 0; f < forces.size(); ++f) {
    const auto& fn = p.mech.forces[f];
    if (!fn.active || !laneForce(forces[f].type)) continue;
    if (forces[f].type == Force::Type::Spring) out[f].actuator = fn.actuatorForce.value(t);
    out[f].count = static_cast<int>(std::min<std::size_t>(fn.value.size(), 3));
    for (int k = 0; k < out[f].count; ++k) out[f].value[k] = fn.value[static_cast<std::size_t>(k)].value(t);
  }
}

// a point force's or torque's vector from its components (a planar torque's one is about z):
// their values (lane −1) or lane l
V3<double> forceVector(const ForceValues& q, bool torque, int l) {
  auto part = [&](const D& x) { return l < 0 ? x.v : x.g[l]; };
  V3<double> x = zero3<double>();
  if (torque && q.count == 1) x[2] = part(q.value[0]);
  else
    for (int k = 0; k < q.count; ++k) x[k] = part(q.value[k]);
  return x;
}

// the loads' forces summed over each node's subtree (empty without loads): a translated column's
// ∂S·F sees them too, the values' subtree wrenches F do not hold them
void loadForcesBySubtree(const RecursiveModel& m, std::span<const PointLoad> loads, std::vector<V3<double>>& out) {
  out.assign(loads.empty() ? 0 : m.nodes.size(), zero3<double>());
  if (loads.empty()) return;
  for (const PointLoad& q : loads) {
    const int k = m.nodeOfBody[static_cast<std::size_t>(q.point.body)];
    if (k >= 0) out[static_cast<std::size_t>(k)] = add(out[static_cast<std::size_t>(k)], v3(q.force));
  }
  for (std::size_t k = m.nodes.size(); k-- > 0;)
    if (const int pk = m.nodes[k].parentNode; pk >= 0) out[static_cast<std::size_t>(pk)] = add(out[static_cast<std::size_t>(pk)], out[k]);
}

}  // namespace

bool numbersLanesCovered(const RecursiveModel& m, const NumbersLanes& lanes, const TreeNumbers<D>& p) {
  return lanes.uncovered.empty() && (lanes.inertialOnly || forcesCovered(m, lanes, p));
}

NumbersLanes inertialLanes(const RecursiveModel& m, const TreeNumbers<D>& p, const std::vector<bool>& keep) {
  NumbersLanes out = numbersLanes(m, p);
  out.uncovered.clear();  // of the lanes left out, perhaps; a quaternion node's too: lanes that
  out.inertialOnly = true;  // move nothing leave every column and frame, whatever the joint
  for (int l = 0; l < kLanes; ++l) {
    NumbersLanes::Lane& lane = out.lanes[static_cast<std::size_t>(l)];
    if (!keep[static_cast<std::size_t>(l)]) {
      lane.first = -1;
      lane.pulls = false;
      lane.gravity.setZero();
      continue;
    }
    for (const NumbersLanes::NodeLane& x : lane.nodes)
      if (x.moves) out.uncovered = "an inertial lane moves geometry";
    if (lane.pulls) out.uncovered = "an inertial lane on gravity";
  }
  return out;
}

NumbersLanes numbersLanes(const RecursiveModel& m, const TreeNumbers<D>& p) {
  NumbersLanes out;
  const auto nn = m.nodes.size();
  for (std::size_t k = 0; k < nn && out.uncovered.empty(); ++k) {
    const auto& g = p.nodes[k];
    if (hasLanes(g.axis) || hasLanes(g.axis2) || hasLanes(g.R0)) out.uncovered = "a lane on a joint axis or stored rotation";
    out.movesBodies = out.movesBodies || hasLanes(g.point) || hasLanes(g.x0);
  }
  // a translation of a quaternion node's subtree is not the pass's (lanes that move no body leave
  // every column and frame, whatever the joint)
  for (std::size_t k = 0; k < nn && out.uncovered.empty() && out.movesBodies; ++k) {
    const NodeKind kind = m.nodes[k].kind;
    if (kind == NodeKind::Spherical || kind == NodeKind::FreeSpatial) out.uncovered = "a quaternion joint (body " + std::to_string(m.nodes[k].body) + ")";
  }
  // a driver's motion on a lane moves its row's Φ and rates: not the points' lanes
  for (std::size_t i = 0; i < p.mech.drivers.size() && out.uncovered.empty(); ++i)
    for (const D& v : p.mech.drivers[i].parameterValues())
      if (hasLanes(v)) out.uncovered = "a lane on driver " + std::to_string(i) + "'s motion";
  bool forced = false;  // a lane force: its numbers' and points' lanes reach the wrenches
  for (const auto& f : m.mechanism->forces) forced = forced || laneForce(f.type) || evaluatedForce(m, f);
  out.lanes.resize(kLanes);  // sorted out even where uncovered: inertialLanes keeps some of them
  for (int l = 0; l < kLanes; ++l) {
    NumbersLanes::Lane& lane = out.lanes[static_cast<std::size_t>(l)];
    lane.nodes.resize(nn);
    for (std::size_t k = 0; k < nn; ++k) {
      NumbersLanes::NodeLane& x = lane.nodes[k];
      const auto& g = p.nodes[k];
      const auto& B = p.mech.bodies[static_cast<std::size_t>(m.nodes[k].body)];
      x.point = lane3(g.point, l);
      x.offset = lane3(g.x0, l);
      x.com = lane3(B.com, l);
      x.mass = B.mass.g[l];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) x.inertia(i, j) = B.inertia(i, j).g[l];
      x.moves = !x.point.isZero(0.0) || !x.offset.isZero(0.0);
      x.weighs = !x.com.isZero(0.0) || x.mass != 0 || !x.inertia.isZero(0.0);
      if ((x.moves || x.weighs) && lane.first < 0) lane.first = static_cast<int>(k);
    }
    lane.gravity = lane3(p.mech.gravity, l);
    lane.pulls = !lane.gravity.isZero(0.0);
    if (lane.pulls && nn > 0) lane.first = 0;  // every body's weight
    if (forced && lane.first < 0) lane.first = static_cast<int>(nn);  // no node, but the forces' numbers may have lanes
  }
  return out;
}

bool inverseDynamicsAlongNumbers(const RecursiveModel& m, const TreeNumbers<double>& values, const MotionAtState& state,
                                 const NumbersLanes& lanes, const TreeNumbers<D>& p, D* tau, std::span<const ItemIndex> points, D* r, D* v,
                                 D* a, std::span<const PointLoad> loads) {
  if (!numbersLanesCovered(m, lanes, p)) return false;
  const MotionAtStateData& st = state.data();
  const TreeMotion<double>& motion = st.motion;
  const double* zd = st.zd.data();
  const double* zdd = st.zdd.data();
  thread_local std::vector<Motion6<double>> df;
  thread_local std::vector<V3<double>> dV, dA;          // by node: the lanes of v_O and a_O (a translation turns nothing: ω, α keep)
  thread_local std::vector<V3<double>> dBefore, dBody;  // by node: the translation of its columns, of its body
  thread_local std::vector<char> moved, touched;        // by node: displaced; with a wrench lane
  thread_local std::vector<double> pr, pv, pa;
  const auto nn = m.nodes.size();
  const auto nz = static_cast<std::size_t>(m.nz);
  const bool planar = m.dimension == 2;
  const bool withTau = tau != nullptr;  // null: the points' lanes alone (no wrench, no pass up)
  if (withTau)
    for (std::size_t i = 0; i < nz; ++i) tau[i] = D(st.tau[static_cast<Eigen::Index>(i)]);
  pr.resize(3 * points.size());
  pv.resize(pr.size());
  pa.resize(pr.size());
  pointsFromMotion(m, values, motion, points, pr.data(), pv.data(), pa.data());
  for (std::size_t i = 0; i < pr.size(); ++i) {
    r[i] = D(pr[i]);
    v[i] = D(pv[i]);
    a[i] = D(pa[i]);
  }
  dV.resize(nn);
  dA.resize(nn);
  df.resize(nn);
  dBefore.resize(nn);
  dBody.resize(nn);
  moved.resize(nn);
  touched.resize(nn);
  const V3<double> gravity = v3(values.mech.gravity);
  // the lane forces' points and time functions at the state (inertial lanes do not reach them)
  thread_local std::vector<ItemIndex> forcePoints;
  thread_local std::vector<double> fr, fv, fa;
  thread_local std::vector<ForceValues> forceValues;
  if (lanes.inertialOnly) forcePoints.clear(), forceValues.clear();
  else {
    laneForcePoints(m, values.mech, forcePoints);
    forceValuesAt(m, p, st.t, forceValues);
  }
  fr.resize(3 * forcePoints.size());
  fv.resize(fr.size());
  fa.resize(fr.size());
  pointsFromMotion(m, values, motion, forcePoints, fr.data(), fv.data(), fa.data());
  thread_local std::vector<EvaluatedWrench> evaluated;
  evaluated.clear();
  if (withTau && !lanes.inertialOnly) evaluatedWrenches(m, motion, p, st.t, evaluated);
  thread_local std::vector<V3<double>> loadForce;
  loadForcesBySubtree(m, loads, loadForce);
  for (int l = 0; l < kLanes; ++l) {
    const NumbersLanes::Lane& lane = lanes.lanes[static_cast<std::size_t>(l)];
    // a lane that moves no node may still move a load's point (a body point's own lane)
    const bool any = lane.first >= 0 || (!loads.empty() && !lanes.inertialOnly);
    std::fill(moved.begin(), moved.end(), 0);
    std::fill(touched.begin(), touched.end(), 0);
    // down the tree from the first node the lane touches: each body's translation and the lanes
    // of its motion and wrench
    for (std::size_t k = lane.first >= 0 ? static_cast<std::size_t>(lane.first) : nn; k < nn; ++k) {
      const Node& n = m.nodes[k];
      const NumbersLanes::NodeLane& own = lane.nodes[k];
      const auto pk = n.parentNode;
      const bool parentMoved = pk >= 0 && moved[static_cast<std::size_t>(pk)];
      if (!parentMoved && !own.moves && !own.weighs && !lane.pulls) continue;
      touched[k] = 1;
      const M3<double>& Rc = motion.frames[static_cast<std::size_t>(n.body)].R;
      V3<double> d = parentMoved ? dBody[static_cast<std::size_t>(pk)] : zero3<double>();
      V3<double> dVk = zero3<double>(), dAk = zero3<double>();
      if (parentMoved || own.moves) {
        moved[k] = 1;
        V3<double> after = zero3<double>();
        if (own.moves) {
          const M3<double>& Rp = motion.frames[static_cast<std::size_t>(n.parent)].R;
          if (turnsAboutPoint(n.kind)) {
            d = add(d, mul(Rp, own.point));
            after = mul(Rc, mulT(values.nodes[k].R0, v3(own.offset - own.point)));  // R_p R_m = R_c R0ᵀ
          } else {
            d = add(d, mul(Rp, own.offset));  // slides and free bodies: their columns do not see a translation
          }
        }
        dBefore[k] = d;
        dBody[k] = add(d, after);
        // the motion's lanes, as treeMotion builds it: ∂S = d × S = [d × ω_S; 0], so only the
        // translational parts move: ∂V = Σ ∂S ż, ∂A = Σ ∂S z̈ + (∂V × S + V × ∂S) ż
        if (parentMoved) {
          dVk = dV[static_cast<std::size_t>(pk)];
          dAk = dA[static_cast<std::size_t>(pk)];
        }
        for (int q = 0; q < n.nz; ++q) {
          const auto i = static_cast<std::size_t>(n.z + q);
          const Motion6<double>& S = motion.column[i];
          const V3<double> dS = cross(d, S.w);
          dVk = add(dVk, scale(zd[i], dS));
          dAk = add(dAk, add(scale(zdd[i], dS), scale(zd[i], add(cross(dVk, S.w), cross(motion.Vi[i].w, dS)))));
        }
      } else {
        dBefore[k] = dBody[k] = zero3<double>();
      }
      dV[k] = dVk;
      dA[k] = dAk;
      if (!withTau) continue;
      // the wrench I A + V ×* I V − W and its lane: the inertia's (mass, centre, J_c) and the motion's
      const double mass = values.mech.bodies[static_cast<std::size_t>(n.body)].mass, dm = own.mass;
      const V3<double>& c = motion.centre[k];
      const V3<double> dc = add(dBody[k], mul(Rc, own.com));
      auto inertiaLane = [&](const Motion6<double>& x) {  // ∂(I x) at fixed x
        const V3<double> u = add(x.v, cross(x.w, c));
        const V3<double> fv = add(scale(dm, u), scale(mass, cross(x.w, dc)));
        V3<double> Jw = zero3<double>();
        if (own.weighs) {
          const Eigen::Matrix3d& dI = own.inertia;
          if (planar) Jw = {{0.0, 0.0, x.w[2] * dI(2, 2)}};
          else {
            const V3<double> y = mulT(Rc, x.w);
            Jw = mul(Rc, V3<double>{{dI(0, 0) * y[0] + dI(0, 1) * y[1] + dI(0, 2) * y[2], dI(1, 0) * y[0] + dI(1, 1) * y[1] + dI(1, 2) * y[2],
                                     dI(2, 0) * y[0] + dI(2, 1) * y[1] + dI(2, 2) * y[2]}});
          }
        }
        return Motion6<double>{fv, add(add(Jw, cross(dc, scale(mass, u))), cross(c, fv))};
      };
      auto inertiaTimesTranslation = [&](const V3<double>& x) {  // I [x; 0] = [m x; c × m x]
        const V3<double> fv = scale(mass, x);
        return Motion6<double>{fv, cross(c, fv)};
      };
      Motion6<double> f = plus(inertiaLane(motion.A[k]), inertiaTimesTranslation(dAk));
      f.w = add(f.w, cross(dVk, st.IV[k].v));  // [∂v; 0] ×* I V
      f = plus(f, crossForce(motion.V[k], plus(inertiaLane(motion.V[k]), inertiaTimesTranslation(dVk))));
      const V3<double> w = scale(mass, gravity), dw = add(scale(dm, gravity), scale(mass, v3(lane.gravity)));
      f.v = sub(f.v, dw);
      f.w = sub(f.w, add(cross(dc, w), cross(c, dw)));
      df[k] = f;
    }
    // the lane forces' wrenches: their points moved with their bodies, their numbers' lanes
    if (withTau && any && (!forceValues.empty() || !loads.empty() || !evaluated.empty())) {
      auto pointLane = [&](ItemIndex item, V3<double>& dr, V3<double>& dv) {
        dr = v3(lane3(p.mech.point(item), l));
        dv = zero3<double>();
        const int k = m.nodeOfBody[static_cast<std::size_t>(item.body)];
        if (k < 0) return;
        const auto uk = static_cast<std::size_t>(k);
        dr = mul(motion.frames[static_cast<std::size_t>(item.body)].R, dr);
        if (moved[uk]) {
          dr = add(dr, dBody[uk]);
          dv = dV[uk];
        }
        dv = add(dv, cross(motion.V[uk].w, dr));
      };
      // the external wrench's lane [δF; δr × F + r × δF] (or a torque's [0; δT]) on `body`
      auto wrenchLane = [&](int body, const V3<double>& dForce, const V3<double>& dMoment) {
        const int k = m.nodeOfBody[static_cast<std::size_t>(body)];
        if (k < 0) return;  // the ground's wrench is no coordinate's
        const auto uk = static_cast<std::size_t>(k);
        if (!touched[uk]) df[uk] = Motion6<double>{zero3<double>(), zero3<double>()};
        touched[uk] = 1;
        df[uk].v = sub(df[uk].v, dForce);
        df[uk].w = sub(df[uk].w, dMoment);
      };
      const auto& forces = m.mechanism->forces;
      std::size_t slot = 0;
      for (std::size_t fi = 0; fi < forces.size(); ++fi) {
        const auto& f = forces[fi];
        const auto& fn = values.mech.forces[fi];
        if (!fn.active || !laneForce(f.type)) continue;
        const auto& pn = p.mech.forces[fi];
        const ForceValues& q = forceValues[fi];
        if (f.type == Force::Type::Spring) {
          const V3<double> r1 = v3(Eigen::Vector3d(fr.data() + 3 * slot)), r2 = v3(Eigen::Vector3d(fr.data() + 3 * slot + 3));
          const V3<double> dvel = sub(v3(Eigen::Vector3d(fv.data() + 3 * slot + 3)), v3(Eigen::Vector3d(fv.data() + 3 * slot)));
          V3<double> dr1, dv1, dr2, dv2;
          pointLane(forcePoints[slot], dr1, dv1);
          pointLane(forcePoints[slot + 1], dr2, dv2);
          slot += 2;
          const V3<double> delta = sub(r2, r1);
          const double L = std::sqrt(dot(delta, delta));
          if (L < 1e-12) continue;  // as the law: no direction, no force
          const V3<double> e = scale(1 / L, delta);
          const double Ld = dot(e, dvel);
          const double T = (L - fn.naturalLength) * fn.stiffness + Ld * fn.damping - q.actuator.v;
          const V3<double> dd = sub(dr2, dr1);
          const double dL = dot(e, dd);
          const V3<double> de = scale(1 / L, sub(dd, scale(dL, e)));
          const double dLd = dot(de, dvel) + dot(e, sub(dv2, dv1));
          const double dT = (dL - pn.naturalLength.g[l]) * fn.stiffness + (L - fn.naturalLength) * pn.stiffness.g[l] + dLd * fn.damping +
                            Ld * pn.damping.g[l] - q.actuator.g[l];
          const V3<double> F = scale(T, e), dF = add(scale(dT, e), scale(T, de));  // on P₁; −F on P₂
          wrenchLane(f.points[0].body, dF, add(cross(dr1, F), cross(r1, dF)));
          wrenchLane(f.points[1].body, scale(-1.0, dF), scale(-1.0, add(cross(dr2, F), cross(r2, dF))));
        } else if (f.type == Force::Type::PointForce) {
          const V3<double> r = v3(Eigen::Vector3d(fr.data() + 3 * slot));
          V3<double> dr, dv;
          pointLane(forcePoints[slot], dr, dv);
          ++slot;
          V3<double> F = forceVector(q, false, -1), dF = forceVector(q, false, l);
          if (f.frame == lw::Force::Frame::Body && f.point.body != 0) {
            const M3<double>& R = motion.frames[static_cast<std::size_t>(f.point.body)].R;
            F = mul(R, F);
            dF = mul(R, dF);
          }
          wrenchLane(f.point.body, dF, add(cross(dr, F), cross(r, dF)));
        } else if (f.body != 0) {  // a torque
          V3<double> dT = forceVector(q, true, l);
          if (f.frame == lw::Force::Frame::Body) dT = mul(motion.frames[static_cast<std::size_t>(f.body)].R, dT);
          wrenchLane(f.body, zero3<double>(), dT);
        }
      }
      // the evaluated elements' wrenches' lanes (their bodies stay: their numbers' alone)
      for (const EvaluatedWrench& e : evaluated) {
        V3<double> dForce, dMoment;
        for (int i = 0; i < 3; ++i) {
          dForce[i] = e.force[i].g[l];
          dMoment[i] = e.moment[i].g[l];
        }
        wrenchLane(e.body, dForce, dMoment);
      }
      // the constant loads: [0; δr × F]
      for (std::size_t j = 0; j < loads.size(); ++j) {
        V3<double> dr, dv;
        pointLane(loads[j].point, dr, dv);
        wrenchLane(loads[j].point.body, zero3<double>(), cross(dr, v3(loads[j].force)));
      }
    }
    // up the tree: the subtrees' wrenches' lanes projected, with the columns' own (∂S·F)
    if (withTau && any)
      for (std::size_t k = nn; k-- > 0;) {
        if (!touched[k]) continue;
        const Node& n = m.nodes[k];
        for (int q = 0; q < n.nz; ++q) {
          const auto i = static_cast<std::size_t>(n.z + q);
          const Motion6<double>& S = motion.column[i];
          tau[i].g[l] = dot(S.v, df[k].v) + dot(S.w, df[k].w);
          if (moved[k]) {
            tau[i].g[l] += dot(cross(dBefore[k], S.w), st.F[k].v);
            if (!loadForce.empty()) tau[i].g[l] -= dot(cross(dBefore[k], S.w), loadForce[k]);  // external: −F
          }
        }
        const int pk = n.parentNode;
        if (pk < 0) continue;
        const auto up = static_cast<std::size_t>(pk);
        df[up] = touched[up] ? plus(df[up], df[k]) : df[k];
        touched[up] = 1;
      }
    // the points: r = x + R p_B moved with their body, v = v_O + ω × r, a = a_O + α × r + ω × v (ω, α keep)
    for (std::size_t j = 0; j < points.size(); ++j) {
      const ItemIndex item = points[j];
      const V3<double> dp = v3(lane3(p.mech.point(item), l));
      const int k = m.nodeOfBody[static_cast<std::size_t>(item.body)];
      V3<double> dr = dp, dv = zero3<double>(), da = zero3<double>();
      if (k >= 0) {
        const auto uk = static_cast<std::size_t>(k);
        dr = mul(motion.frames[static_cast<std::size_t>(item.body)].R, dp);
        if (moved[uk]) {
          dr = add(dr, dBody[uk]);
          dv = dV[uk];
          da = dA[uk];
        }
        const Motion6<double>& V = motion.V[uk];
        dv = add(dv, cross(V.w, dr));
        da = add(add(da, cross(motion.A[uk].w, dr)), cross(V.w, dv));
      }
      for (int i = 0; i < 3; ++i) {
        r[3 * j + static_cast<std::size_t>(i)].g[l] = dr[i];
        v[3 * j + static_cast<std::size_t>(i)].g[l] = dv[i];
        a[3 * j + static_cast<std::size_t>(i)].g[l] = da[i];
      }
    }
  }
  // tree torsion springs: Q = sign · (−k (angle − θ₀) − c rate) on their own coordinate
  if (withTau)
    forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    const D angle(st.z[n.z] * n.sign), rate(zd[n.z] * n.sign);
    const D q = ((angle - fn.naturalAngle) * (-fn.stiffness) - rate * fn.damping) * n.sign;
    for (int l = 0; l < kLanes; ++l) tau[n.z].g[l] -= q.g[l];
  });
  return true;
}

// ---- the transpose: weights on τ and the points back to the lanes' fields ----
//
// The forward pass per lane, as a linear map of the fields (zero where a lane touches nothing):
//   down:  d_k = dBody_p + R_p J'  (or R_p x0' for slides and free bodies), after_k = R_c R0ᵀ (x0' − J'),
//          dBefore_k = d_k, dBody_k = d_k + after_k, and over the node's columns
//          dS = d × S_ω, dV += ż dS, dA += z̈ dS + ż (dV × S_ω + V_i,ω × dS);
//   wrench: f_k = I'(A) + I(dA) + [0; dV × (IV)_v] + V ×* (I'(V) + I(dV)) − [m' g; dc × m g + c × m' g],
//          dc = dBody + R_c c';
//   up:    τ_i' = S_i · Σ_subtree f + (dBefore_k × S_i,ω) · F_k,v.
// Transposed: U_k = Σ_{columns i at or above k} wτ_i S_i weighs f_k (root to leaves); each wrench's
// inputs then get U's (and V ×*'s transpose Y = [U_v × V_ω + U_ω × V_v; U_ω × V_ω]); the down
// pass is swept back leaves to root.
void inverseDynamicsNumbersAdjoint(const RecursiveModel& m, const TreeNumbers<double>& values, const MotionAtState& state, const double* wTau,
                                   std::span<const ItemIndex> points, const double* wr, const double* wv, const double* wa,
                                   NumbersAdjoint& out, std::span<const PointLoad> loads) {
  const MotionAtStateData& st = state.data();
  const TreeMotion<double>& motion = st.motion;
  const double* zd = st.zd.data();
  const double* zdd = st.zdd.data();
  const auto nn = m.nodes.size();
  const bool planar = m.dimension == 2;
  thread_local std::vector<Motion6<double>> U;
  thread_local std::vector<V3<double>> gV, gA, gBody, gBefore;  // by node: the adjoints of dV, dA, dBody, dBefore
  U.resize(nn);
  gV.assign(nn, zero3<double>());
  gA.assign(nn, zero3<double>());
  gBody.assign(nn, zero3<double>());
  gBefore.assign(nn, zero3<double>());
  out.nodes.resize(nn);
  out.points.assign(points.size(), Eigen::Vector3d::Zero());
  out.gravity.setZero();
  auto e3 = [](const V3<double>& x) { return Eigen::Vector3d(x[0], x[1], x[2]); };
  const V3<double> gravity = v3(values.mech.gravity);
  thread_local std::vector<V3<double>> loadForce;
  loadForcesBySubtree(m, loads, loadForce);
  // the columns' weights down the tree, and each wrench's inputs
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    Motion6<double> u = n.parentNode >= 0 ? U[static_cast<std::size_t>(n.parentNode)] : zero6<double>();
    V3<double> before = zero3<double>();
    for (int q = 0; q < n.nz; ++q) {
      const auto i = static_cast<std::size_t>(n.z + q);
      const Motion6<double>& S = motion.column[i];
      u = plus(u, times(S, wTau[i]));
      before = add(before, scale(wTau[i], cross(S.w, loadForce.empty() ? st.F[k].v : sub(st.F[k].v, loadForce[k]))));
    }
    U[k] = u;
    gBefore[k] = before;
    const Motion6<double>& V = motion.V[k];
    const Motion6<double>& A = motion.A[k];
    const Motion6<double> Y{add(cross(u.v, V.w), cross(u.w, V.v)), cross(u.w, V.w)};  // V ×*'s transpose on U
    const M3<double>& Rc = motion.frames[static_cast<std::size_t>(n.body)].R;
    const double mass = values.mech.bodies[static_cast<std::size_t>(n.body)].mass;
    const V3<double>& c = motion.centre[k];
    NumbersAdjoint::Node& g = out.nodes[k];
    g.mass = 0;
    g.inertia.setZero();
    V3<double> dc = zero3<double>();
    // I'(x) weighed by W: [m' u + m x_ω × dc; J' x_ω + dc × m u + c × (...)], u = x_v + x_ω × c
    auto inertiaLane = [&](const Motion6<double>& W, const Motion6<double>& x) {
      const V3<double> Wv = add(W.v, cross(W.w, c));
      const V3<double> uu = add(x.v, cross(x.w, c));
      g.mass += dot(Wv, uu);
      dc = add(dc, scale(mass, add(cross(Wv, x.w), cross(uu, W.w))));
      if (planar) {
        g.inertia(2, 2) += W.w[2] * x.w[2];
      } else {
        const Eigen::Vector3d a = e3(mulT(Rc, W.w)), b = e3(mulT(Rc, x.w));
        g.inertia += a * b.transpose();
      }
      return Wv;
    };
    const V3<double> Uv = inertiaLane(u, A), Yv = inertiaLane(Y, V);
    gA[k] = scale(mass, Uv);                                             // I(dA) weighed by U
    gV[k] = add(scale(mass, Yv), cross(st.IV[k].v, u.w));                // I(dV) by Y, dV × (IV)_v by U
    g.mass -= dot(gravity, Uv);                                          // −[m' g; c × m' g]
    out.gravity -= mass * e3(Uv);                                        // −[m g'; c × m g']
    dc = sub(dc, scale(mass, cross(gravity, u.w)));                      // −dc × m g
    gBody[k] = dc;
    g.com = e3(mulT(Rc, dc));
  }
  // a point's weights wR, wV, wA on its r, v, a lanes back to its body's and to its body-frame
  // position's: r = x + R p (+ dBody), v = dV + ω × r, a = dA + α × r + ω × v
  auto pointAdjoint = [&](ItemIndex item, const V3<double>& wR, const V3<double>& wV, const V3<double>& wA) -> Eigen::Vector3d {
    const int k = m.nodeOfBody[static_cast<std::size_t>(item.body)];
    if (k < 0) return e3(wR);
    const auto uk = static_cast<std::size_t>(k);
    const V3<double>& w = motion.V[uk].w;
    const V3<double> gv = add(wV, cross(wA, w));
    const V3<double> gr = add(add(wR, cross(gv, w)), cross(wA, motion.A[uk].w));
    gV[uk] = add(gV[uk], gv);
    gA[uk] = add(gA[uk], wA);
    gBody[uk] = add(gBody[uk], gr);
    return e3(mulT(motion.frames[static_cast<std::size_t>(item.body)].R, gr));
  };
  for (std::size_t j = 0; j < points.size(); ++j) {
    const V3<double> wR{{wr ? wr[3 * j] : 0.0, wr ? wr[3 * j + 1] : 0.0, wr ? wr[3 * j + 2] : 0.0}};
    const V3<double> wV{{wv ? wv[3 * j] : 0.0, wv ? wv[3 * j + 1] : 0.0, wv ? wv[3 * j + 2] : 0.0}};
    const V3<double> wA{{wa ? wa[3 * j] : 0.0, wa ? wa[3 * j + 1] : 0.0, wa ? wa[3 * j + 2] : 0.0}};
    out.points[j] = pointAdjoint(points[j], wR, wV, wA);
  }
  // the constant loads: [0; δr × F] enters f as −, weighed by U: r's lane by U_ω × F
  out.loadPoints.resize(loads.size());
  for (std::size_t j = 0; j < loads.size(); ++j) {
    const int k = m.nodeOfBody[static_cast<std::size_t>(loads[j].point.body)];
    const V3<double> gR = k < 0 ? zero3<double>() : cross(U[static_cast<std::size_t>(k)].w, v3(loads[j].force));
    out.loadPoints[j] = pointAdjoint(loads[j].point, gR, zero3<double>(), zero3<double>());
  }
  // the lane forces: the external wrench W on a body enters its f as −W, weighed by U: a force F
  // at r by −(U_v + U_ω × r) and r's lane by −(F × U_ω); then back through the laws
  const auto& forces = m.mechanism->forces;
  out.forces.assign(forces.size(), NumbersAdjoint::ForceNumbers{});
  thread_local std::vector<ItemIndex> forcePoints;
  thread_local std::vector<double> fr, fv, fa;
  laneForcePoints(m, values.mech, forcePoints);
  out.forcePoints.assign(forcePoints.size(), Eigen::Vector3d::Zero());
  fr.resize(3 * forcePoints.size());
  fv.resize(fr.size());
  fa.resize(fr.size());
  pointsFromMotion(m, values, motion, forcePoints, fr.data(), fv.data(), fa.data());
  auto weigh = [&](int body, const V3<double>& r, const V3<double>& F, V3<double>& gF, V3<double>& gR) {
    gF = gR = zero3<double>();
    const int k = m.nodeOfBody[static_cast<std::size_t>(body)];
    if (k < 0) return;
    const Motion6<double>& u = U[static_cast<std::size_t>(k)];
    gF = scale(-1.0, add(u.v, cross(u.w, r)));
    gR = scale(-1.0, cross(F, u.w));
  };
  const V3<double> none = zero3<double>();
  std::size_t slot = 0;
  for (std::size_t fi = 0; fi < forces.size(); ++fi) {
    const auto& f = forces[fi];
    const auto& fn = values.mech.forces[fi];
    if (!fn.active || !laneForce(f.type)) continue;
    NumbersAdjoint::ForceNumbers& g = out.forces[fi];
    if (f.type == Force::Type::Spring) {
      const V3<double> r1 = v3(Eigen::Vector3d(fr.data() + 3 * slot)), r2 = v3(Eigen::Vector3d(fr.data() + 3 * slot + 3));
      const V3<double> dvel = sub(v3(Eigen::Vector3d(fv.data() + 3 * slot + 3)), v3(Eigen::Vector3d(fv.data() + 3 * slot)));
      const std::size_t s0 = slot;
      slot += 2;
      const V3<double> delta = sub(r2, r1);
      const double L = std::sqrt(dot(delta, delta));
      if (L < 1e-12) continue;
      const V3<double> e = scale(1 / L, delta);
      const double Ld = dot(e, dvel);
      const double T = (L - fn.naturalLength) * fn.stiffness + Ld * fn.damping - fn.actuatorForce.value(st.t);
      V3<double> gF1, gR1, gF2, gR2;
      weigh(f.points[0].body, r1, scale(T, e), gF1, gR1);
      weigh(f.points[1].body, r2, scale(-T, e), gF2, gR2);
      // F₁ = T e = −F₂; T = k (L − L₀) + c L̇ − F_a; L̇ = e·(v₂ − v₁); e = δ/L; L = |δ|; δ = r₂ − r₁
      const V3<double> gFe = sub(gF1, gF2);
      const double gT = dot(gFe, e), gLd = fn.damping * gT;
      V3<double> ge = add(scale(T, gFe), scale(gLd, dvel));
      g.stiffness = (L - fn.naturalLength) * gT;
      g.naturalLength = -fn.stiffness * gT;
      g.damping = Ld * gT;
      g.actuator = -gT;
      const V3<double> gDelta = add(scale(1 / L, sub(ge, scale(dot(e, ge), e))), scale(fn.stiffness * gT, e));
      out.forcePoints[s0] = pointAdjoint(forcePoints[s0], sub(gR1, gDelta), scale(-gLd, e), none);
      out.forcePoints[s0 + 1] = pointAdjoint(forcePoints[s0 + 1], add(gR2, gDelta), scale(gLd, e), none);
    } else if (f.type == Force::Type::PointForce) {
      const V3<double> r = v3(Eigen::Vector3d(fr.data() + 3 * slot));
      const std::size_t s0 = slot++;
      V3<double> F = zero3<double>();
      for (std::size_t k = 0; k < fn.value.size() && k < 3; ++k) F[static_cast<int>(k)] = fn.value[k].value(st.t);
      const bool body = f.frame == lw::Force::Frame::Body && f.point.body != 0;
      const M3<double>& R = motion.frames[static_cast<std::size_t>(f.point.body)].R;
      if (body) F = mul(R, F);
      V3<double> gF, gR;
      weigh(f.point.body, r, F, gF, gR);
      g.value = e3(body ? mulT(R, gF) : gF);
      out.forcePoints[s0] = pointAdjoint(forcePoints[s0], gR, none, none);
    } else if (f.body != 0) {  // a torque [0; T] on its body, weighed by −U_ω
      const int k = m.nodeOfBody[static_cast<std::size_t>(f.body)];
      if (k < 0) continue;
      V3<double> gT = scale(-1.0, U[static_cast<std::size_t>(k)].w);
      if (f.frame == lw::Force::Frame::Body) gT = mulT(motion.frames[static_cast<std::size_t>(f.body)].R, gT);
      if (fn.value.size() == 1) g.value = Eigen::Vector3d(gT[2], 0, 0);
      else g.value = e3(gT);
    }
  }
  // the down pass swept back, leaves to root
  for (std::size_t k = nn; k-- > 0;) {
    const Node& n = m.nodes[k];
    V3<double> gv = gV[k], ga = gA[k], gd = add(gBefore[k], gBody[k]);
    for (int q = n.nz; q-- > 0;) {
      const auto i = static_cast<std::size_t>(n.z + q);
      const V3<double>& Sw = motion.column[i].w;
      gv = add(gv, scale(zd[i], cross(Sw, ga)));
      const V3<double> gS = add(add(scale(zdd[i], ga), scale(zd[i], cross(ga, motion.Vi[i].w))), scale(zd[i], gv));
      gd = add(gd, cross(Sw, gS));
    }
    NumbersAdjoint::Node& g = out.nodes[k];
    const M3<double>& Rp = motion.frames[static_cast<std::size_t>(n.parent)].R;
    const Eigen::Vector3d own = e3(mulT(Rp, gd));
    if (turnsAboutPoint(n.kind)) {
      const M3<double>& Rc = motion.frames[static_cast<std::size_t>(n.body)].R;
      const Eigen::Vector3d after = values.nodes[k].R0 * e3(mulT(Rc, gBody[k]));  // after = R_c R0ᵀ (x0' − J')
      g.point = own - after;
      g.offset = after;
    } else {
      g.point.setZero();
      g.offset = own;
    }
    if (n.parentNode >= 0) {
      const auto pk = static_cast<std::size_t>(n.parentNode);
      gV[pk] = add(gV[pk], gv);
      gA[pk] = add(gA[pk], ga);
      gBody[pk] = add(gBody[pk], gd);
    }
  }
}

bool numbersLanesProducts(const RecursiveModel& m, const MotionAtState& state, const NumbersLanes& lanes, const TreeNumbers<D>& p,
                          const NumbersAdjoint& adjoint, const double* wTau, std::span<const ItemIndex> points, double* products) {
  if (!numbersLanesCovered(m, lanes, p)) return false;
  thread_local std::vector<ItemIndex> forcePoints;
  thread_local std::vector<ForceValues> forceValues;
  if (lanes.inertialOnly) forcePoints.clear(), forceValues.clear();
  else {
    laneForcePoints(m, p.mech, forcePoints);
    forceValuesAt(m, p, state.data().t, forceValues);
  }
  for (int l = 0; l < kLanes; ++l) {
    const NumbersLanes::Lane& lane = lanes.lanes[static_cast<std::size_t>(l)];
    double sum = 0;
    for (std::size_t k = lane.first >= 0 ? static_cast<std::size_t>(lane.first) : lane.nodes.size(); k < lane.nodes.size(); ++k) {
      const NumbersLanes::NodeLane& x = lane.nodes[k];
      const NumbersAdjoint::Node& g = adjoint.nodes[k];
      if (x.moves) sum += g.point.dot(x.point) + g.offset.dot(x.offset);
      if (x.weighs) sum += g.com.dot(x.com) + g.mass * x.mass + g.inertia.cwiseProduct(x.inertia).sum();
    }
    for (std::size_t j = 0; j < points.size(); ++j) sum += adjoint.points[j].dot(lane3(p.mech.point(points[j]), l));
    sum += adjoint.gravity.dot(lane.gravity);
    // the lane forces' numbers and points
    for (std::size_t fi = 0; fi < forceValues.size(); ++fi) {
      const auto& fn = p.mech.forces[fi];
      const NumbersAdjoint::ForceNumbers& g = adjoint.forces[fi];
      const ForceValues& q = forceValues[fi];
      sum += g.stiffness * fn.stiffness.g[l] + g.damping * fn.damping.g[l] + g.naturalLength * fn.naturalLength.g[l] + g.actuator * q.actuator.g[l];
      for (int k = 0; k < q.count; ++k) sum += g.value[k] * q.value[k].g[l];
    }
    for (std::size_t j = 0; j < forcePoints.size(); ++j) sum += adjoint.forcePoints[j].dot(lane3(p.mech.point(forcePoints[j]), l));
    products[l] = sum;
  }
  const MotionAtStateData& st = state.data();
  forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    const D angle(st.z[n.z] * n.sign), rate(st.zd[n.z] * n.sign);
    const D q = ((angle - fn.naturalAngle) * (-fn.stiffness) - rate * fn.damping) * n.sign;
    for (int l = 0; l < kLanes; ++l) products[l] -= wTau[n.z] * q.g[l];
  });
  // the evaluated elements: τ's lanes −S_i · W on every column that moves their bodies
  if (!lanes.inertialOnly) {
    thread_local std::vector<EvaluatedWrench> evaluated;
    evaluatedWrenches(m, st.motion, p, st.t, evaluated);
    for (const EvaluatedWrench& e : evaluated)
      for (int k = m.nodeOfBody[static_cast<std::size_t>(e.body)]; k >= 0; k = m.nodes[static_cast<std::size_t>(k)].parentNode) {
        const Node& n = m.nodes[static_cast<std::size_t>(k)];
        for (int q = 0; q < n.nz; ++q) {
          const Motion6<double>& S = st.motion.column[static_cast<std::size_t>(n.z + q)];
          const D along = S.v[0] * e.force[0] + S.v[1] * e.force[1] + S.v[2] * e.force[2] + S.w[0] * e.moment[0] + S.w[1] * e.moment[1] +
                          S.w[2] * e.moment[2];
          for (int l = 0; l < kLanes; ++l) products[l] -= wTau[n.z + q] * along.g[l];
        }
      }
  }
  return true;
}

}  // namespace lw::dyn
