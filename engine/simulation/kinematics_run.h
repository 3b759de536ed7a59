// A kinematic analysis as one job: the same entry point serves the CLI, the GUI and the tests.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "outputs/csv.h"
#include "outputs/results.h"
#include "kinematics/global_solver.h"
#include "kinematics/natural_model.h"

namespace lw::analysis {

enum class KinematicsMethod { GlobalDense, GlobalSparse, ModularTD, Modular3OT };
/// "global-dense", "global-sparse", "modular-td", "modular-3ot"
const char* toString(KinematicsMethod);
bool parseKinematicsMethod(const std::string& s, KinematicsMethod& out);

struct KinematicsSpec {
  KinematicsMethod method = KinematicsMethod::ModularTD;
  double tEnd = 1;
  double dt = 0.01;
  // set: the rows at t = 0 and these times (increasing, > 0) instead of every dt; tEnd and dt
  // are then not used
  std::vector<double> times;
  double maxResultBytes = 0;  // the stored rows may take at most this; 0: half the physical memory
  RowSink rows;  // set: rows go here in blocks as they are computed, not into the result (no poses)
  // set (the Mechanism the run's was resolved from): its point, joint and spring outputs become
  // named columns after the points' (energies and residuals are the dynamics' columns)
  const Mechanism* mechanism = nullptr;
};

/// Time histories of every point of every moving body, in model order.
struct KinematicsResult : RunTable {
  std::string decomposition;         // modular methods: the groups used
  std::size_t steps() const { return rows(); }
};

/// progress(fraction in [0, 1]); cancel is polled every step.
using Progress = std::function<void(double)>;

KinematicsResult runKinematics(const ResolvedMechanism& m, const KinematicsSpec& spec, const Progress& progress = {},
                               const std::atomic<bool>* cancel = nullptr);

/// Appends the body poses (12 numbers per body: rotation row-major, position) of natural
/// coordinates q.
void appendPoses(const ResolvedMechanism& m, const kin::NaturalModel& nm, const Eigen::VectorXd& q, std::vector<double>& out);

/// CSV with a header row (17 significant digits).
std::string toCsv(const KinematicsResult& r);

/// Empty unless the drivers fix more than the mechanism's freedoms (the numerical rank of the
/// constraints with and without them at the assembled start): the sentence that says so.
std::string overDriven(const ResolvedMechanism& m);

/// Empty when every driver's function, rate and acceleration are finite at t; otherwise the
/// sentence naming the driver, the time and its function.
std::string driverNotFiniteAt(const ResolvedMechanism& m, double t);

/// Empty when every driver's value at t is known in double precision to 1e-6 (of a radian, or of
/// the mechanism's size): at t = 1e300 a crank's angle moves by 10²⁸⁵ rad between neighbouring
/// doubles, and the methods gave different positions or none. Otherwise the sentence naming the
/// driver and the latest time that keeps it.
std::string driverPrecisionProblem(const ResolvedMechanism& m, double t);

}  // namespace lw::analysis
