// One motion in the two models' coordinates (issue 39): the global formulations integrate the
// natural coordinates q (points and unit vectors, kinematics/natural_model.h) while a run's rows,
// outputs, energies, reactions and costs (simulation/) are written in the tree's relative
// coordinates z. A body's frame is linear in its natural coordinates (planar: its origin O and
// direction d turn and move it; spatial, with linear frames: its basis [d, d', w]), so the frames,
// and from each tree node's two frames its coordinates (a pin's angle, a slide, a universal
// joint's two angles, a ball joint's or a free body's quaternion), follow from (q, q̇, q̈) on jets
// exactly; the other way each entity is a point or a direction of a body the tree places.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "dynamics/recursive_model.h"
#include "kinematics/natural_model.h"
#include "kinematics/natural_numbers.h"

namespace lw::dyn {

struct NaturalTreeMap {
  // by entity: the body that carries it and its place there (a point's body coordinates, a
  // vector's body components); body −1 for a fixed entity
  struct Carrier {
    int body = -1;
    bool isVector = false;
    Eigen::Vector3d local = Eigen::Vector3d::Zero();
  };
  std::vector<Carrier> entities;
};

/// The map for two models of one mechanism; false with `why` otherwise (a spatial natural model
/// without linear frames, kin::NaturalOptions, or a rod between ball joints, which has none).
bool compileNaturalTreeMap(const RecursiveModel& tree, const kin::NaturalModel& natural, NaturalTreeMap& out, std::string& why);

/// q, q̇, q̈ (nq each; q̈ may be null) of the tree's state (z, ż, z̈).
void naturalStateOf(const RecursiveModel& tree, const kin::NaturalModel& natural, const NaturalTreeMap& map, const Eigen::VectorXd& z,
                    const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::VectorXd* qdd);

/// z, ż, z̈ of (q, q̇, q̈). On entry z holds the coordinates of a nearby state (the last row's, or
/// the start's): an angle continues from it (a crank's turns are counted, not folded into ±π).
/// Where q breaks the constraints (a penalty's yield) the frames are those of O and d as they are.
void treeStateOf(const RecursiveModel& tree, const kin::NaturalModel& natural, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                 const Eigen::VectorXd& qdd, Eigen::VectorXd& z, Eigen::VectorXd& zd, Eigen::VectorXd& zdd);

/// The two maps with the numbers on P (the parameters' partials by forward AD at a state on
/// doubles): the tree's numbers `numbers` and the natural model's again `shape` (null: the
/// model's own, P double); treeStateOn's angles continue from zNear.
template <class P>
void naturalStateOn(const RecursiveModel& tree, const TreeNumbers<P>& numbers, const kin::NaturalModel& natural, const NaturalTreeMap& map,
                    const kin::NaturalNumbers<P>* shape, const Eigen::Matrix<P, Eigen::Dynamic, 1>& z, const Eigen::Matrix<P, Eigen::Dynamic, 1>& zd,
                    const Eigen::Matrix<P, Eigen::Dynamic, 1>& zdd, Eigen::Matrix<P, Eigen::Dynamic, 1>& q, Eigen::Matrix<P, Eigen::Dynamic, 1>& qd, Eigen::Matrix<P, Eigen::Dynamic, 1>* qdd);
template <class P>
void treeStateOn(const RecursiveModel& tree, const TreeNumbers<P>& numbers, const kin::NaturalModel& natural, const kin::NaturalNumbers<P>* shape,
                 const Eigen::Matrix<P, Eigen::Dynamic, 1>& q, const Eigen::Matrix<P, Eigen::Dynamic, 1>& qd,
                 const Eigen::Matrix<P, Eigen::Dynamic, 1>& qdd, const Eigen::VectorXd& zNear, Eigen::Matrix<P, Eigen::Dynamic, 1>& z, Eigen::Matrix<P, Eigen::Dynamic, 1>& zd, Eigen::Matrix<P, Eigen::Dynamic, 1>& zdd);

}  // namespace lw::dyn
