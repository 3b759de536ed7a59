// Modular kinematics (seed 002 §2.3–2.8, Algorithm 2): the structural groups are solved one after
// the other, each for its own dependent coordinates φ given the known h. Positions by
// Newton–Raphson on the group (least squares when p > r), or in closed form for the crank and the
// RRR and RRP dyads; velocities Φ_φ φ̇ = −(Φ_h ḣ + Φ_t); accelerations by TD (time derivative,
// default: Φ_φ φ̈ = −(Φ_h ḧ + γ)) or 3OT (third-order tensor, Eqs. 33–39, as an option and a
// cross-check). Points that follow rigidly from a group's solution are computed explicitly
// afterwards (§2.7). Same coordinates as the global model: the two agree to round-off.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinematics/global_solver.h"
#include "kinematics/structural_groups.h"

namespace lw::kin {

enum class AccelerationMethod { TD, ThirdOrderTensor };

/// How a group's positions are found.
enum class GroupSolver {
  Generic,       // Newton–Raphson on the group equations
  Crank2D,       // a link turning about a ground pivot, driven
  RRRDyad,       // two links meeting at a pin, from two known pins
  RRPDyad,       // a link from a known pin to a slider on a ground guide
  Crank3D,       // 1R3D: a link turning about a ground axis, driven
  RodSlider3D,   // 2E1P: a spherical–spherical rod from a known point to a slider on a ground line
};

struct ModularGroup {
  int group = -1;                 // index in the decomposition
  GroupSolver solver = GroupSolver::Generic;
  std::vector<int> phi;           // unknown coordinates (q indices), r
  std::vector<int> constraints;   // constraints solved for phi (p rows in all)
  int p = 0;                      // rows
  std::vector<int> h;             // known coordinates the rows use (q indices), s
  std::vector<int> derived;       // Combo constraints giving entities computed explicitly after
  // closed forms: the entities and constants involved
  int unknown = -1, knownA = -1, knownB = -1, axis = -1;  // entities
  double lengthA = 0, lengthB = 0;
  int driverConstraint = -1;
  // the same, flattened for the step loop: coordinate offsets (-1 when fixed) and fixed values
  bool closedRates = false;       // velocities and TD accelerations in closed form too
  int offU = -1, offA = -1, offB = -1, offAxis = -1;
  double fixA[3] = {0, 0, 0}, fixB[3] = {0, 0, 0}, fixAxis[3] = {0, 0, 0};
  double angle0 = 0;              // crank: reference direction angle + the driver's offset
  double along = 0, radius = 0;   // Crank3D: the pin's offset along the axis and from it
  double ref[3] = {0, 0, 0}, ref2[3] = {0, 0, 0};  // Crank3D: basis g, n × g of the axis' normal plane
  int driver = -1;
};

struct ModularModel {
  const NaturalModel* natural = nullptr;
  kin::Decomposition decomposition;
  std::vector<ModularGroup> groups;
  std::string error;              // why the model could not be built (empty when ok)
  bool ok() const { return error.empty(); }
};

/// Builds the per-group systems from a decomposition; checks every group's Jacobian has full
/// column rank at `q` (an assembled configuration).
ModularModel compileModularModel(const NaturalModel& m, kin::Decomposition d, const Eigen::VectorXd& q);

class GroupBuffers;  // per-group dense storage (modular_solver.cpp)

/// Every mutable buffer of a modular run, sized once from the model.
struct ModularData {
  ModularData(const ModularModel& model, KinematicsOptions options = {});
  ~ModularData();
  ModularData(ModularData&&) noexcept;

  KinematicsOptions options;
  AccelerationMethod acceleration = AccelerationMethod::TD;
  Eigen::VectorXd q, qd, qdd;  // all coordinates, same layout as the global model
  double t = 0;
  Eigen::VectorXd dir;         // Jet seed scratch (nq), kept zero between uses
  std::vector<std::unique_ptr<GroupBuffers>> groups;
  std::vector<double> branch;  // closed forms: the assembly mode of each group (sign)
  int iterations = 0;          // Newton iterations of the last step, all groups
  bool profile = false;        // accumulate the time of each stage (benchmarks, Table 5)
  double stageSeconds[3] = {0, 0, 0};  // position, velocity, acceleration
};

/// Takes an assembled state (e.g. from kin::assemble) and records the assembly modes.
void startModular(const ModularModel& model, ModularData& data, const Eigen::VectorXd& q,
                  const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, double t);
/// Positions, velocities and accelerations at t, group after group.
Status modularStep(const ModularModel& model, ModularData& data, double t);

}  // namespace lw::kin
