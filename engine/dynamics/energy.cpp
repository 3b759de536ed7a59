// Energies (kinetic, potential of gravity, springs and tyres) and powers (applied, driver,
// dissipated) of a state of the tree: the rows' energy bookkeeping.
#include <Eigen/Geometry>
#include <cmath>

#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"
#include "dynamics/pose_math.h"
#include "dynamics/recursive_data.h"
#include "dynamics/tyre.h"

namespace lw::dyn {

using detail::centres;
using detail::originOf;
using detail::rotationOf;

namespace {

// a tyre's contact at (poses, body velocities V)
detail::TyreContact<double> tyreAt(const RecursiveModel& tree, const ResolvedMechanism::Force& f, const std::vector<Pose3<double>>& poses,
                                   const Eigen::VectorXd& V) {
  using detail::V3;
  const auto& mech = *tree.mechanism;
  auto v3 = [](const Eigen::Vector3d& x) { return V3<double>{{x.x(), x.y(), x.z()}}; };
  auto world = [&](int b, const Eigen::Vector3d& p) { return Eigen::Vector3d(originOf(poses[static_cast<std::size_t>(b)]) + rotationOf(poses[static_cast<std::size_t>(b)]) * p); };
  auto dir = [&](int b, const Eigen::Vector3d& p) { return Eigen::Vector3d(rotationOf(poses[static_cast<std::size_t>(b)]) * p); };
  auto centre = [&](int b) { return b == 0 ? Eigen::Vector3d::Zero().eval() : world(b, mech.bodies[static_cast<std::size_t>(b)].com); };
  auto lin = [&](int b) { return Eigen::Vector3d(V.segment<3>(6 * b)); };
  auto ang = [&](int b) { return Eigen::Vector3d(V.segment<3>(6 * b + 3)); };
  const int wb = f.point.body, pb = f.planePoint.body;
  const Eigen::Vector3d C = world(wb, mech.bodies[static_cast<std::size_t>(wb)].points[static_cast<std::size_t>(f.point.index)]);
  const Eigen::Vector3d vC = lin(wb) + ang(wb).cross(C - centre(wb));
  return detail::tyreContact<double>(f, v3(C), v3(vC), v3(ang(wb)), v3(dir(wb, mech.bodies[static_cast<std::size_t>(wb)].vectors[static_cast<std::size_t>(f.axis.index)])),
                                     v3(world(pb, mech.bodies[static_cast<std::size_t>(pb)].points[static_cast<std::size_t>(f.planePoint.index)])),
                                     v3(dir(pb, mech.bodies[static_cast<std::size_t>(pb)].vectors[static_cast<std::size_t>(f.planeNormal.index)])),
                                     v3(centre(pb)), v3(lin(pb)), v3(ang(pb)));
}

}  // namespace

Energy energy(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd) {
  RecursiveData data;
  MotionSnapshot s;
  motionSnapshot(tree, data, z, zd, 0.0, s);
  return energy(tree, data, s, z);
}

Energy energy(const RecursiveModel& tree, RecursiveData& data, const MotionSnapshot& s, const Eigen::VectorXd& z) {
  const auto& mech = *tree.mechanism;
  Energy e;
  const std::vector<Pose3<double>>& poses = s.poses;
  std::vector<Eigen::Vector3d>& r = data.buffers().centres;
  centres(mech, poses, r);
  const Eigen::VectorXd& V = s.V;
  for (std::size_t b = 1; b < mech.bodies.size(); ++b) {
    const auto& body = mech.bodies[b];
    const Eigen::Vector3d v = V.segment<3>(static_cast<Eigen::Index>(6 * b)), w = V.segment<3>(static_cast<Eigen::Index>(6 * b + 3));
    // ½ ωᵀ (R I Rᵀ) ω with ω in the body frame (Rᵀω); planar: I_zz ω_z²
    double rotational;
    if (tree.dimension == 2) {
      rotational = body.inertia(2, 2) * w.z() * w.z();
    } else {
      const Eigen::Vector3d wb = rotationOf(poses[b]).transpose() * w;
      rotational = wb.dot(body.inertia * wb);
    }
    e.kinetic += 0.5 * body.mass * v.squaredNorm() + 0.5 * rotational;
    e.potential -= body.mass * mech.gravity.dot(r[b]);
  }
  for (const auto& f : mech.forces) {  // a switch turns no force that stores energy on or off
    if (f.type == Force::Type::Spring) {
      auto P = [&](ItemIndex p) { return s.pointPosition(tree, p.body, p.index); };
      const double L = (P(f.points[1]) - P(f.points[0])).norm();
      e.potential += 0.5 * f.stiffness * (L - f.naturalLength) * (L - f.naturalLength);
    } else if (f.type == Force::Type::TorsionSpring) {
      const int node = tree.treeJointNode[static_cast<std::size_t>(f.joint)];
      double angle = 0;
      if (node >= 0) {
        const Node& n = tree.nodes[static_cast<std::size_t>(node)];
        angle = n.sign * z[n.z];
      } else {  // a cut joint: the angle between the perpendiculars about body 1's axis (as its force)
        const auto& jt = mech.joints[static_cast<std::size_t>(f.joint)];
        const auto b1 = static_cast<std::size_t>(jt.body(0)), b2 = static_cast<std::size_t>(jt.body(1));
        const Eigen::Matrix3d R1 = rotationOf(poses[b1]), R2 = rotationOf(poses[b2]);
        const Eigen::Vector3d a = jt.axes[0].valid() ? Eigen::Vector3d(R1 * mech.bodies[b1].vectors[static_cast<std::size_t>(jt.axes[0].index)])
                                                     : Eigen::Vector3d::UnitZ();
        const Eigen::Vector3d w1 = R1 * tree.numbers.jointAxes[static_cast<std::size_t>(f.joint)][0].w;
        const Eigen::Vector3d w2 = R2 * tree.numbers.jointAxes[static_cast<std::size_t>(f.joint)][1].w;
        angle = std::atan2(w1.cross(w2).dot(a), w1.dot(w2));
      }
      e.potential += 0.5 * f.stiffness * (angle - f.naturalAngle) * (angle - f.naturalAngle);
    } else if (f.type == Force::Type::Tyre) {
      const auto c = tyreAt(tree, f, poses, V);
      if (c.penetration > 0) e.potential += 0.5 * f.stiffness * c.penetration * c.penetration;
    }
  }
  return e;
}

}  // namespace lw::dyn

namespace lw::dyn {

Powers powers(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd,
              double t) {
  MotionSnapshot s;
  RecursiveData data;
  motionSnapshot(tree, data, z, zd, t, s);
  GeneralizedForces<double> forces(tree);
  forces.shareFrames(data);
  return powers(tree, data, s, z, zd, zdd, t, forces);
}

Powers powers(const RecursiveModel& tree, RecursiveData& data, const MotionSnapshot& s, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
              const Eigen::VectorXd& zdd, double t, GeneralizedForces<double>& forces) {
  const auto& mech = *tree.mechanism;
  Powers p;
  const Eigen::VectorXd& V = s.V;
  const std::vector<Pose3<double>>& poses = s.poses;
  auto point = [&](ItemIndex q, Eigen::Vector3d& r, Eigen::Vector3d& v) {
    r = s.pointPosition(tree, q.body, q.index);
    v = s.pointVelocity(q.body, q.index);
  };
  auto omega = [&](int b) { return Eigen::Vector3d(V.segment<3>(6 * b + 3)); };
  for (std::size_t i = 0; i < mech.forces.size(); ++i) {
    const auto& f = mech.forces[i];
    if (!forces.numbers().mech.forces[i].active) continue;  // switched off in this run (events/contact_gaps.h)
    switch (f.type) {
      case Force::Type::Spring: {
        Eigen::Vector3d r1, v1, r2, v2;
        point(f.points[0], r1, v1);
        point(f.points[1], r2, v2);
        const double L = (r2 - r1).norm();
        if (L < 1e-12) break;
        const double Ld = (r2 - r1).dot(v2 - v1) / L;
        p.dissipated += f.damping * Ld * Ld;
        p.applied += f.actuatorForce.value(t) * Ld;
        break;
      }
      case Force::Type::TorsionSpring: {
        const int node = tree.treeJointNode[static_cast<std::size_t>(f.joint)];
        double rate = 0;
        if (node >= 0) {
          rate = zd[tree.nodes[static_cast<std::size_t>(node)].z];
        } else {
          const auto& jt = mech.joints[static_cast<std::size_t>(f.joint)];
          const int b1 = jt.body(0), b2 = jt.body(1);
          const Eigen::Vector3d a = jt.axes[0].valid()
                                        ? Eigen::Vector3d(rotationOf(poses[static_cast<std::size_t>(b1)]) *
                                                          mech.bodies[static_cast<std::size_t>(b1)].vectors[static_cast<std::size_t>(jt.axes[0].index)])
                                        : Eigen::Vector3d::UnitZ();
          rate = (omega(b2) - omega(b1)).dot(a);
        }
        p.dissipated += f.damping * rate * rate;
        break;
      }
      case Force::Type::PointForce: {
        if (f.point.body == 0) break;
        Eigen::Vector3d r, v, F = Eigen::Vector3d::Zero();
        point(f.point, r, v);
        for (std::size_t k = 0; k < f.value.size() && k < 3; ++k) F[static_cast<Eigen::Index>(k)] = f.value[k].value(t);
        if (f.frame == lw::Force::Frame::Body) F = rotationOf(poses[static_cast<std::size_t>(f.point.body)]) * F;
        p.applied += F.dot(v);
        break;
      }
      case Force::Type::Torque: {
        if (f.body == 0) break;
        Eigen::Vector3d tau = Eigen::Vector3d::Zero();
        if (f.value.size() == 1) tau.z() = f.value[0].value(t);
        else
          for (std::size_t k = 0; k < f.value.size() && k < 3; ++k) tau[static_cast<Eigen::Index>(k)] = f.value[k].value(t);
        if (f.frame == lw::Force::Frame::Body) tau = rotationOf(poses[static_cast<std::size_t>(f.body)]) * tau;
        p.applied += tau.dot(omega(f.body));
        break;
      }
      case Force::Type::Tyre: {
        // the spring part is potential energy; the rest (damping, clipping, friction) dissipates
        const auto c = tyreAt(tree, f, poses, V);
        if (!(c.penetration > 0)) break;
        p.dissipated += (c.force - f.stiffness * c.penetration) * c.rate - detail::dot(c.friction, c.slip);
        break;
      }
    }
  }
  if (!mech.drivers.empty()) {
    // the drivers' reactions: M^d z̈ − Q^d, the negated inverse-dynamics residual (no M^d)
    Eigen::VectorXd& residual = data.buffers().residual;
    residual.resize(tree.nz);
    forces(z.data(), zd.data(), t, residual.data(), zdd.data());
    p.driver = -residual.dot(zd);
  }
  return p;
}

}  // namespace lw::dyn
