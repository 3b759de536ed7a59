// The integrators' steps linearised, for every formulation whose motion is an ODE a = f(t, x, v; ρ)
// in its coordinates (Matrix R in its independent coordinates, the global index-1 and penalty
// formulations in the natural ones): the trapezoidal rule's and Dormand–Prince's tangent linear
// models (the direct method's products) and their transposes (the adjoint's), from f's partials
// at the step's end or at its stages. Internal to engine/sensitivity.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

/// f's partials at one Dormand–Prince stage; at stages 3–6 also the outputs and their partials
/// (the integral costs' quadrature: `out` set, its Ax, Av, Ap unused).
struct Stage {
  Eigen::MatrixXd fx, fv, fp;
  std::shared_ptr<const ParameterProducts> products;  // in place of fp (the adjoint's), and of out.Op
  double t = 0;
  Eigen::VectorXd x, v, f;  // the stage's point and f there
  PointPartials out;
  bool outputs = false;
};

/// The trapezoidal step of size h whose end has the partials `end` (its A_x, A_v, A_ρ).
std::unique_ptr<StepTangent> trapezoidalTangent(double h, const PointPartials& end);
/// Dormand–Prince's step of size h through its stages' partials.
std::unique_ptr<StepTangent> rungeKuttaTangent(double h, std::vector<Stage> stages);

/// S carried over the trapezoidal step of size h: (I − h²/4 f_x − h/2 f_v) A₁ = f_x X̂ + f_v V̂ + f_ρ
/// with X̂ = X₀ + h V₀ + h²/4 A₀, V̂ = V₀ + h/2 A₀ and f's partials at the end.
void trapezoidalAlong(double h, const PointPartials& end, StateColumns& S);
/// S carried over Dormand–Prince's step (S.a left to the caller: an explicit step has none);
/// `out` (when given and the stages have outputs): the outputs at stages 3–6 and their d/dρ;
/// `columns` (when given): the sensitivities (X, V, F) at stages 3–6.
void rungeKuttaAlong(double h, const std::vector<Stage>& stages, StateColumns& S, StageOutputs* out = nullptr,
                     std::array<StateColumns, 4>* columns = nullptr);

/// f and its partials at (t, x, v): what a step's stages are linearised with; with `outputs`,
/// the outputs' partials there too.
using PartialsAt =
    std::function<Status(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& f, PointPartials& n, bool outputs)>;
/// The six stages of Dormand–Prince's step of size h from (t0, x0, v0), each linearised; with
/// `outputs`, stages 3–6 keep the outputs' partials too (`at`'s PointPartials must hold them).
Status rungeKuttaStages(const PartialsAt& at, double t0, const Eigen::VectorXd& x0, const Eigen::VectorXd& v0, double h, std::vector<Stage>& stages,
                        bool outputs = false);

/// f at a stage point (t, x, v) and its derivative along sensitivity columns there:
/// F = f_x SX + f_v SV + f_ρ, without the stage's full partials; where `outputs` is given, the
/// outputs there and their d/dρ along the columns too.
using AlongAt = std::function<Status(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::MatrixXd& SX,
                                     const Eigen::MatrixXd& SV, Eigen::VectorXd& f, Eigen::MatrixXd& F, Eigen::VectorXd* outputs,
                                     Eigen::MatrixXd* outputsAlong)>;
/// S.x, S.v carried over Dormand–Prince's step of size h from (t0, x0, v0) stage by stage along S
/// (an explicit method: each stage's sensitivities are f's derivative along the stage's columns).
/// S.a left to the caller. `out` (when given): the outputs at stages 3–6 along S.
Status rungeKuttaAlongStages(const AlongAt& at, double t0, const Eigen::VectorXd& x0, const Eigen::VectorXd& v0, double h, StateColumns& S,
                             StageOutputs* out = nullptr);

/// A step whose tangent linear model is explicit: (X₁; V₁; A₁) = T (X₀; V₀; A₀) + Tp.
std::unique_ptr<StepTangent> linearTangent(Eigen::MatrixXd T, Eigen::MatrixXd Tp);
/// S carried over such a step.
void linearAlong(const Eigen::MatrixXd& T, const Eigen::MatrixXd& Tp, StateColumns& S);

/// The change at a point whose state stays and whose accelerations follow other equations (a
/// held gap let go): (x, v, a) = (X, V, A_x X + A_v V + A_ρ) with n the new equations' partials.
void sameStateChange(const PointPartials& n, CoordinateChange& map);

/// A formulation's Dormand–Prince step from a of size h linearised (its stages; `outputs`: with
/// the outputs' partials at stages 3–6).
using StagesOf = std::function<Status(const RunPoint& a, double h, std::vector<Stage>& stages, bool outputs)>;

/// The direct method's products for a formulation whose partials (Formulation::partials at b, or
/// `stages`) give its steps: S carried over a → b, the outputs at b and their d/dρ along it.
Status stepAlongByPartials(Formulation& f, bool rungeKutta, const StagesOf& stages, const RunPoint& a, const RunPoint& b, StateColumns& S,
                           Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong, StageOutputs* stageOutputs = nullptr);
/// At a point whose S.x, S.v are known: S.a through the accelerations' map there, the outputs and
/// their d/dρ along S.
Status pointAlongByPartials(Formulation& f, const RunPoint& p, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong);
/// The step a → b linearised: the partials at b, and the trapezoidal rule's tangent from them or
/// Dormand–Prince's from its stages.
/// `stageOutputs`: RK45's stages keep the outputs' partials (the integral costs' quadrature).
Status lineariseByPartials(Formulation& f, bool rungeKutta, const StagesOf& stages, const RunPoint& a, const RunPoint& b,
                           std::unique_ptr<StepTangent>& tangent, PointPartials& atEnd, bool stageOutputs = false);

}  // namespace lw::sens::detail
