// Sensitivity analysis (seeds 000, 003): the gradients of a mechanism's costs with respect to its
// design parameters, for a dynamics run of the Matrix R formulation with the trapezoidal rule.
//   direct      the discrete tangent linear model: each step of the computed trajectory
//               differentiated, sensitivities carried beside the state (seed 000 Algorithm 1 on the
//               discrete step; CVODES' staggered direct method), partials by forward AD
//   adjoint     the discrete adjoint: the transposed linearised steps swept backward once for all
//               costs, the trajectory kept by checkpoints (a state every k steps, the steps between
//               recomputed) or stored whole
//   complex     the whole run again in complex arithmetic, one parameter at a time (h = 1e-30 i):
//               exact to round-off, the reference
//   differences central differences of whole runs, a step per parameter (reported)
//   compare     all of them, side by side with their relative differences and times
// A study = a mechanism, the parameters chosen (default all), the costs chosen (default all), the
// run, the method. Every method differentiates the same discrete trajectory: the same steps, the
// same choices of independent coordinates (a change of choice maps the sensitivities exactly).
#pragma once

#include <Eigen/Core>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "simulation/simulation_run.h"
#include "core/status.h"
#include "mechanism/mechanism.h"

namespace lw::sens {

enum class Method { Direct, Adjoint, ComplexStep, FiniteDifferences, Compare };
/// How the direct method and the adjoint take the partial derivatives with respect to the parameters: forward
/// AD through the kernels, or seed 003's semi-analytical methods: one-sided differences at the
/// frozen state, step δ, of the system-level evaluation (global, GSAM) or of each element's share
/// (local, LSAM: one body, force, driver, the gravity... moved at a time, the differences summed);
/// the state's derivatives stay AD.
enum class Partials { AutomaticDifferentiation, GlobalSemiAnalytical, LocalSemiAnalytical };
bool parseMethod(const std::string& s, Method& out);
const char* toString(Method m);

/// A kinematic analysis (a fully driven mechanism: q_ρ from Φ_q q_ρ = −Φ_ρ at every time, then
/// the velocities' and accelerations'; the same positions as the global and modular solvers'),
/// or a dynamic one (SensitivitySpec::run's formulation and integrator).
enum class Analysis { Dynamics, Kinematics };

struct SensitivitySpec {
  Method method = Method::Direct;
  Analysis analysis = Analysis::Dynamics;
  std::vector<std::string> parameters;  // empty: every parameter of the file
  std::vector<std::string> costs;       // empty: every cost of the file
  analysis::SimulationSpec run;         // t_end, dt (the trapezoidal rule's step)
  // finite differences: δ = relativeStep · max(|ρ|, 1e-3 · scale). 1e-4 balances the truncation
  // error (~δ²) against the runs' own noise (Newton tolerances, amplified near singular positions)
  double relativeStep = 1e-4;
  long checkpointEvery = 0;             // adjoint: steps between checkpoints (0: every step while they fit in 64 MB, thinned by halves beyond; 1: every step stored)
  std::size_t adjointRecordBytes = 0;   // adjoint without an interval: the states it may keep (0: 64 MB)
  Partials partials = Partials::AutomaticDifferentiation;  // the direct method and the adjoint
  double delta = 1e-6;                  // GSAM: δ_k = delta · max(1, |ρ_k|)
  // set: the direct method's sensitivity histories go here as they are computed, a row per step:
  // time, every output component, then ∂(component)/∂(parameter) for each component and parameter
  // ("d(P.x)/d(L1)")
  analysis::RowSink histories;
  // false: the jumps at impacts leave out the event time's sensitivity dt_e/dρ (Q⁺ = Q⁻, V⁺ =
  // h_x Q⁻ + h_v V⁻ + h_ρ): seed 001's negative control T2, which tests hold wrong
  bool eventTimeTerms = true;
  // true: every partial by forward AD of the whole pipeline on dual numbers (the reference the
  // analytic kernels are checked against), where the tree's analytic derivatives would serve
  bool referenceKernels = false;
};

/// One method's answer.
struct Gradient {
  Method method = Method::Direct;
  std::vector<double> values;     // by cost
  Eigen::MatrixXd gradient;       // costs × parameters: ∂ψ/∂ρ
  std::vector<double> steps;      // finite differences (and GSAM's partials): δ per parameter
  double seconds = 0;
  // adjoint: the recording's size (checkpoints and the list of steps), the largest segment's
  // replayed states and partial derivatives, the steps recomputed, the interval used
  std::size_t recordBytes = 0, segmentBytes = 0;
  long recomputedSteps = 0, checkpointEvery = 0;
};

/// An impact of the run differentiated: the forward run's record and, from the direct method,
/// its time's sensitivity (seed 001 Theorem 1) and the jumps of the independent coordinates'
/// sensitivities (Theorems 2–3).
struct ImpactSensitivity {
  events::EventRecord record;
  std::vector<double> eventTime;           // dt_e/dρ per parameter (the direct method's, else the complex step's)
  std::vector<std::string> coordinates;    // the independent coordinates at the impact
  Eigen::MatrixXd positionJump, velocityJump;  // Q⁺ − Q⁻, V⁺ − V⁻ (coordinates × parameters)
};

struct SensitivityResult {
  Status status;
  std::vector<std::string> costs, parameters;
  std::vector<Gradient> methods;  // one (or, compared, one per method)
  std::vector<std::string> notes; // parameters nothing depends on, warnings of the run
  long steps = 0;                 // of the run differentiated
  std::vector<ImpactSensitivity> impacts;  // in time order
};

SensitivityResult runSensitivity(const Mechanism& m, const SensitivitySpec& spec,
                                 const std::function<void(double)>& progress = {},
                                 const std::atomic<bool>* cancel = nullptr);

/// {"method": "...", "costs": {"<cost>": {"value": V, "gradient": {"<parameter>": G}}}, "seconds": S};
/// compared: {"methods": [...], "costs": ..., "parameters": ...}.
std::string toJson(const SensitivityResult& r);

/// The impacts as CSV: time, contact, normal velocities and energies before and after, then
/// dt/d(ρ) for each parameter, then the jumps "jump d(q)/d(ρ)" and "jump d(q')/d(ρ)" of each
/// independent coordinate q (a run whose independent coordinates change lists the first's).
std::string impactsToCsv(const SensitivityResult& r);

}  // namespace lw::sens
