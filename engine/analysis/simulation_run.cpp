#include "analysis/simulation_run.h"

#include "analysis/csv.h"
#include "analysis/result_size.h"

#include <chrono>
#include <cmath>
#include <sstream>

#include "dynamics/matrix_r.h"
#include "dynamics/penalty.h"
#include "integrators/integrators.h"

namespace lw::analysis {

bool parseFormulation(const std::string& s, Formulation& out) {
  if (s == "matrix-r") out = Formulation::MatrixR;
  else if (s == "penalty") out = Formulation::Penalty;
  else return false;
  return true;
}

bool parseIntegrator(const std::string& s, Integrator& out) {
  if (s == "trapezoidal") out = Integrator::Trapezoidal;
  else if (s == "rk45") out = Integrator::RK45;
  else return false;
  return true;
}

namespace {

// the Matrix R ODE as a second-order system in the independent coordinates
class MatrixRSystem : public integ::SecondOrderSystem {
 public:
  MatrixRSystem(const dyn::MatrixRModel& m, dyn::MatrixRData& d) : m_(m), d_(d) {}
  long evaluations = 0;
  integ::Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    ++evaluations;
    const integ::Status s = dyn::evaluate(m_, d_, t, x, v);
    if (s.ok()) a = d_.zidd;
    return s;
  }

 private:
  const dyn::MatrixRModel& m_;
  dyn::MatrixRData& d_;
};

}  // namespace

SimulationResult runSimulation(const ResolvedMechanism& m, const SimulationSpec& spec,
                               const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  SimulationResult res;
  if (!m.contacts.empty())
    res.warnings.push_back("contacts are not simulated yet (impacts come with the events module): bodies pass through them");
  const dyn::MatrixRModel model = dyn::compileMatrixR(m);
  dyn::MatrixRData data(model);
  res.status = dyn::initialState(model, data);
  if (!res.status.ok()) return res;

  // columns
  const std::vector<dyn::Dof> outputDofs = data.dofs;  // fixed at t = 0, even if the choice switches
  res.columns.push_back("time");
  for (const auto& f : outputDofs) res.columns.push_back(f.name);
  const char* axes[] = {"x", "y", "z"};
  for (const char* prefix : {"", "v"})
    for (std::size_t b = 1; b < m.bodies.size(); ++b)
      for (const auto& p : m.bodies[b].pointNames)
        for (int k = 0; k < m.dimension; ++k) res.columns.push_back(m.bodies[b].name + "." + p + "." + prefix + axes[k]);
  for (const char* c : {"energy.kinetic", "energy.potential", "energy.total", "constraint.position", "constraint.velocity",
                        "energy.dissipated", "energy.applied_work", "energy.driver_work", "energy.balance"})
    res.columns.push_back(c);

  // works and dissipation: trapezoidal quadrature of the powers over the steps
  dyn::Powers lastPower;
  double lastT = 0, dissipated = 0, applied = 0, driver = 0, E0 = 0;
  dyn::MotionSnapshot snap;
  dyn::GeneralizedForces<double> forces(model.tree);  // the drivers' power
  // the powers are integrated at every step; without force elements or drivers they are zero and
  // the steps between stored rows cost nothing here
  const bool powersNeeded = !m.forces.empty() || !m.drivers.empty();
  long every = 1;  // steps per stored row
  double lastStoredT = -1;  // negative before the first row
  auto record = [&](double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, bool store) {
    if (!store && !powersNeeded) return;
    // one pass of the frames along ż serves the poses, points, energies, powers and residuals
    dyn::motionSnapshot(model.tree, z, zd, t, snap);
    const dyn::Powers p = dyn::powers(model.tree, snap, z, zd, zdd, t, forces);
    const bool first = lastStoredT < 0;
    if (!first) {
      const double dt = t - lastT;
      dissipated += 0.5 * dt * (p.dissipated + lastPower.dissipated);
      applied += 0.5 * dt * (p.applied + lastPower.applied);
      driver += 0.5 * dt * (p.driver + lastPower.driver);
    }
    lastPower = p;
    lastT = t;
    if (!store) return;
    lastStoredT = t;
    for (const auto& pose : snap.poses) {
      res.poses.insert(res.poses.end(), pose.R, pose.R + 9);
      res.poses.insert(res.poses.end(), pose.x, pose.x + 3);
    }
    res.values.push_back(t);
    for (const auto& f : outputDofs) {
      if (f.kind == dyn::Dof::Kind::Coordinate) {
        res.values.push_back(z[f.z]);
      } else {
        const auto& pose = snap.poses[static_cast<std::size_t>(f.body)];
        const Eigen::Vector3d r = Eigen::Vector3d(pose.x[0], pose.x[1], pose.x[2]) +
                                  Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(pose.R) * f.point;
        res.values.push_back(r[f.component]);
      }
    }
    for (const auto& r : snap.r)
      for (int k = 0; k < m.dimension; ++k) res.values.push_back(r[k]);
    for (const auto& v : snap.v)
      for (int k = 0; k < m.dimension; ++k) res.values.push_back(v[k]);
    const dyn::Energy e = dyn::energy(model.tree, snap, z);
    res.values.push_back(e.kinetic);
    res.values.push_back(e.potential);
    res.values.push_back(e.total());
    res.values.push_back(snap.phi.size() ? snap.phi.cwiseAbs().maxCoeff() : 0.0);
    res.values.push_back(snap.phiDot.size() ? snap.phiDot.cwiseAbs().maxCoeff() : 0.0);
    if (first) E0 = e.total();
    res.values.push_back(dissipated);
    res.values.push_back(applied);
    res.values.push_back(driver);
    // zero up to the quadrature and integration errors: E − E0 − W_applied − W_driver + E_dissipated
    res.values.push_back(e.total() - E0 - applied - driver + dissipated);
  };

  const long outputs = spec.dt > 0 ? std::lround(spec.tEnd / spec.dt) : 0;
  if (spec.outputDt > 0 && spec.dt > 0) {
    const double k = spec.outputDt / spec.dt;
    every = std::lround(k);
    if (every < 1 || std::abs(k - static_cast<double>(every)) > 1e-6 * k) {
      res.status = kin::failure(kin::KinStatus::Code::BadRequest, 0,
                                "the output interval (" + kin::shortNumber(spec.outputDt) + " s) must be a whole number of steps of " +
                                    kin::shortNumber(spec.dt) + " s");
      return res;
    }
  }
  auto stored = [&](long i) { return i % every == 0 || i == outputs; };
  // the rows' storage up front (growing it copies everything, a tenth of a large model's run),
  // up to 256 MB: a longer run grows as it goes. A run whose rows would not fit in memory is
  // refused before it starts, not killed by the system hours in.
  {
    const double rows = static_cast<double>(outputs / every + 1 + (outputs % every ? 1 : 0));
    const double perRow = static_cast<double>(res.columns.size() + 12 * m.bodies.size());
    if (auto problem = resultSizeProblem(rows, perRow, spec.maxResultBytes,
                                         "store fewer rows with a longer output interval, or shorten the run");
        !problem.empty()) {
      res.status = kin::failure(kin::KinStatus::Code::BadRequest, 0, problem);
      return res;
    }
    if (rows * perRow * sizeof(double) < 256e6) {
      res.values.reserve(static_cast<std::size_t>(rows) * res.columns.size());
      res.poses.reserve(static_cast<std::size_t>(rows) * 12 * m.bodies.size());
    }
  }
  // progress at least every 32 outputs; true (with the status set) when the user cancelled
  auto reportAndCheckCancel = [&](long i, double tOut) {
    if (progress && (i % 32 == 0 || i == outputs)) progress(static_cast<double>(i) / static_cast<double>(outputs));
    if (!cancel || !cancel->load(std::memory_order_relaxed)) return false;
    res.status = kin::failure(kin::KinStatus::Code::Cancelled, tOut, "cancelled at t = " + kin::shortNumber(tOut));
    return true;
  };
  if (spec.formulation == Formulation::Penalty) {
    // same assembled start as Matrix R; all tree coordinates integrated, loops by penalty
    dyn::PenaltyOptions options;
    options.tangent = spec.tangent;
    dyn::PenaltyData pd(model.tree, options);
    pd.z = data.z;
    pd.zd = data.zd;
    res.status = dyn::penaltyStart(model.tree, pd, 0.0);
    record(0, pd.z, pd.zd, pd.zdd, true);
    Eigen::VectorXd acceptedZ, acceptedZd, acceptedZdd;  // the last accepted state: a failed step changes pd
    for (long i = 1; i <= outputs && res.status.ok(); ++i) {
      const double tOut = static_cast<double>(i) * spec.dt;
      const double acceptedT = pd.t;
      acceptedZ = pd.z;
      acceptedZd = pd.zd;
      acceptedZdd = pd.zdd;
      res.status = dyn::penaltyStep(model.tree, pd, tOut - pd.t);
      if (!res.status.ok()) {
        if (acceptedT > lastStoredT) record(acceptedT, acceptedZ, acceptedZd, acceptedZdd, true);  // where it stopped
        break;
      }
      ++res.steps;
      record(tOut, pd.z, pd.zd, pd.zdd, stored(i));
      if (reportAndCheckCancel(i, tOut)) {
        if (!stored(i)) record(tOut, pd.z, pd.zd, pd.zdd, true);  // where it stopped
        break;
      }
    }
    res.tangents = pd.jacobians;
    res.evaluations = pd.iterations;
    res.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  }

  integ::State s{0.0, data.zi, data.zid, data.zidd};
  MatrixRSystem sys(model, data);
  const int n = static_cast<int>(data.dofs.size());
  integ::Trapezoidal trap(n);
  integ::DormandPrince rk(n, integ::RungeKuttaOptions{spec.tol, spec.tol * 1e-2, 0});
  record(0, data.z, data.zd, data.zdd, true);
  // the choice of independent coordinates changes when Θ_z's condition falls below this
  constexpr double kSwitchBelow = 1e-7;
  double switchBelow = kSwitchBelow;
  std::vector<dyn::Dof> previousDofs;
  integ::State saved;   // the accepted state of a step, kept for a retry (buffers reused)
  Eigen::VectorXd savedZ, savedZd;
  for (long i = 1; i <= outputs; ++i) {
    const double tOut = static_cast<double>(i) * spec.dt;
    // keep the accepted state: a failed step is retried with a new choice of coordinates, then
    // in 2, 4, ... 16 pieces (the singular positions of the grids need both at long steps)
    saved = s;
    savedZ = data.z;
    savedZd = data.zd;
    auto restore = [&] {
      s = saved;
      data.z = savedZ;
      data.zd = savedZd;
      data.t = s.t;
    };
    bool rechosen = false;
    for (int pieces = 1;;) {
      if (spec.integrator == Integrator::Trapezoidal) {
        for (int p = 1; p <= pieces; ++p) {
          res.status = trap.step(sys, s, saved.t + (tOut - saved.t) * p / pieces - s.t);
          if (!res.status.ok()) break;
        }
      } else {
        res.status = rk.advance(sys, s, tOut);
      }
      if (res.status.ok()) break;
      restore();
      if (!rechosen) {
        // a singular choice of independent coordinates: choose again at the last good state
        rechosen = true;
        dyn::chooseDofs(model, data);
        ++res.dofSwitches;
        saved = {saved.t, data.zi, data.zid, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(data.dofs.size()))};
        res.tangents += trap.jacobians;
        trap = integ::Trapezoidal(static_cast<int>(data.dofs.size()));
      } else if (spec.integrator == Integrator::Trapezoidal && pieces < 16) {
        pieces *= 2;
      } else {
        break;
      }
      // the evaluation at the restored state (the failed attempt left its own in data)
      const kin::KinStatus e = dyn::evaluate(model, data, saved.t, saved.x, saved.v);
      if (!e.ok()) {
        res.status = e;
        break;
      }
      saved.a = data.zidd;
      s = saved;
    }
    if (!res.status.ok()) break;
    ++res.steps;
    // watch the conditioning of the choice: change it before it becomes singular. Near a
    // singular position of the loops themselves (the grids' flat parallelograms) no choice is
    // much better; the next change then waits until this one has lost another factor of ten,
    // not one change per step (each costs a QR and the integrator's tangent)
    if (!model.userDofs && data.rcond < switchBelow) {
      previousDofs = data.dofs;
      dyn::chooseDofs(model, data);
      s = {s.t, data.zi, data.zid, s.a};
      if (dyn::evaluate(model, data, s.t, s.x, s.v).ok()) s.a = data.zidd;
      if (data.dofs != previousDofs) {
        ++res.dofSwitches;
        res.tangents += trap.jacobians;
        // a tangent near −I (short steps) is near −I in the new coordinates too: no new one
        // unless the iteration asks for it
        integ::TrapezoidalOptions options;
        options.startWithMinusIdentity = trap.nearMinusIdentity();
        trap = integ::Trapezoidal(static_cast<int>(data.dofs.size()), options);
      }
      switchBelow = std::min(kSwitchBelow, 0.1 * data.rcond);
    } else if (data.rcond > 10 * kSwitchBelow) {
      switchBelow = kSwitchBelow;
    }
    if (!data.z.allFinite() || !data.zd.allFinite()) {
      res.status.code = kin::KinStatus::Code::NotConverged;
      res.status.time = tOut;
      res.status.message = "the simulation diverged at t = " + kin::shortNumber(tOut) + " (non-finite state)";
      break;
    }
    record(tOut, data.z, data.zd, data.zdd, stored(i));
    if (reportAndCheckCancel(i, tOut)) {
      if (!stored(i)) record(tOut, data.z, data.zd, data.zdd, true);  // where it stopped
      break;
    }
  }
  // a failed step: the last accepted state is the last row, whatever the output interval
  if (!res.status.ok() && res.status.code != kin::KinStatus::Code::Cancelled && saved.t > lastStoredT && savedZ.allFinite() &&
      savedZd.allFinite())
    record(saved.t, savedZ, savedZd, data.zdd, true);
  res.evaluations = sys.evaluations;
  res.tangents += trap.jacobians;
  res.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

std::string toCsv(const SimulationResult& r) { return tableToCsv(r.columns, r.values); }

}  // namespace lw::analysis
