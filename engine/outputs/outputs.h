// The file's outputs and costs, from a state of the recursive model, on any scalar (double in a
// run; dual numbers and complex steps in sensitivities, with the model's numbers on that scalar).
// Outputs are named by component: "p2.x" for a point's, "rocker_angle" for a scalar's. Costs
// are expressions of those components, of initial(component), of parameters and of t: integral
// costs are summed by the trapezoidal rule over the integrator's steps (the quadrature
// consistent with the trapezoidal rule), terminal costs are read at the end.
#pragma once

#include <algorithm>
#include <array>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "dynamics/reactions.h"
#include "dynamics/recursive_model.h"
#include "mechanism/mechanism.h"

namespace lw::dyn {
class MotionAtState;
}

namespace lw::analysis {

struct OutputComponents {
  struct Component {
    Output::Type type = Output::Type::PointPosition;
    int point = -1;      // index into points (point outputs)
    int axis = 0;        // x, y, z
    int node = -1;       // joint outputs: the tree node
    int joint = -1;      // joint outputs: the mechanism joint
    double sign = 1;     // joint outputs: the coordinate's sign
    bool angle = true;   // joint outputs: a rotation (else a slide)
    Output::Energy which = Output::Energy::Total;  // energy outputs
    int springs[2] = {-1, -1};  // spring length: indices into points
    int body = -1;       // joint reaction: the body it acts on
    int driver = -1;     // driver effort
  };
  std::vector<std::string> names;       // "p2.x", "E"
  std::vector<Component> components;
  std::vector<ItemIndex> points;        // the points the components read
  std::vector<std::string> problems;    // outputs that cannot be evaluated here (and why)
  bool reactions = false;               // joint reactions or driver efforts among them
  std::vector<int> rows;                // the independent rows of Φ their multipliers live on
  int find(const std::string& name) const;
};

/// The SI unit of each column of a run's table ("s", "m", "m/s", "m/s²", "rad", "rad/s", "J",
/// or "" when it has none or is not known), by its name: time, independent coordinates
/// ("dof.joint A", "dof.bar.P.x"), points' coordinates, velocities and accelerations, energies,
/// and the outputs of `m` by name (a joint coordinate: rad, or m for a sliding joint).
std::vector<std::string> columnUnits(const std::vector<std::string>& columns, const Mechanism* m);

/// The outputs of `m` (resolved as `r`, compiled as `tree`).
/// rows: the independent rows of the loops' equations (MatrixRModel::rows), which the joints'
/// reactions and the drivers' efforts take their multipliers on.
OutputComponents compileOutputs(const Mechanism& m, const ResolvedMechanism& r, const dyn::RecursiveModel& tree, const std::vector<int>& rows = {});

/// Every component at (z, ż, z̈, t) on S with numbers `p` (`out` has names.size() entries). A joint
/// coordinate is absolute: a pin's the angle from body 1's x axis to body 2's (planar), a slide
/// the distance of body 2's point from body 1's along the axis; a spatial revolute joint's angle
/// counts from the stored configuration. Energy and constraint-residual outputs are not evaluated
/// (left zero): compileCosts refuses costs that use them, a run fills them itself.
/// `reactions` (optional): the joints' reactions' workspace, kept by a caller that asks at many
/// states (a run's rows); without it one is made per call.
template <class S>
void outputsOn(const OutputComponents& o, const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p,
               const Eigen::Matrix<S, Eigen::Dynamic, 1>& z, const Eigen::Matrix<S, Eigen::Dynamic, 1>& zd,
               const Eigen::Matrix<S, Eigen::Dynamic, 1>& zdd, double t, S* out, dyn::ReactionsOn<S>* reactions = nullptr);

/// outputsOn with its points' motion already known: r, v, a (3 per point of o.points each).
template <class S>
void outputsFromPoints(const OutputComponents& o, const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p,
                       const Eigen::Matrix<S, Eigen::Dynamic, 1>& z, const Eigen::Matrix<S, Eigen::Dynamic, 1>& zd,
                       const Eigen::Matrix<S, Eigen::Dynamic, 1>& zdd, double t, const S* r, const S* v, const S* a, S* out,
                       dyn::ReactionsOn<S>* reactions = nullptr);

/// The components and their exact partials O_z, O_ż, O_z̈ (components × nz) at (z, ż, z̈, t) from
/// the tree's jet-free pass (dynamics/point_motion.h), when the tree has no quaternion coordinate
/// and every component is one this covers (points' positions, velocities and accelerations, tree
/// joints' coordinates and rates, springs' lengths; energies and residuals are zero here). False
/// otherwise: the caller differentiates outputsOn instead.
/// `state`: the tree's motion at (z, ż, z̈) computed already (dyn::MotionAtState), or null.
bool outputPartials(const OutputComponents& o, const dyn::RecursiveModel& tree, const dyn::TreeNumbers<double>& p, const Eigen::VectorXd& z,
                    const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, double t, Eigen::VectorXd& out, Eigen::MatrixXd& Oz,
                    Eigen::MatrixXd& Ozd, Eigen::MatrixXd& Ozdd, const dyn::MotionAtState* state = nullptr);

/// The chosen costs, bound to [t, output components, their initial values, parameters].
struct CostSet {
  /// A targets cost's term: the squared distance of its point output from a target at a time.
  struct Sample {
    double t = 0;
    Expression::Bound expression;
  };
  std::vector<std::string> names;
  std::vector<Cost::Type> types;
  std::vector<Expression::Bound> expressions;  // a targets cost: 0 (its terms are its samples)
  std::vector<std::vector<Sample>> samples;    // by cost: a targets cost's terms, in time order
  std::vector<bool> freeTiming;                // by cost: a targets cost whose terms are their least over the steps
  std::size_t outputs = 0, parameters = 0;  // slots: 1 + outputs + outputs + parameters
  /// The time of the last target of any cost (0 without targets).
  double lastSampleTime() const;
  bool hasType(Cost::Type t) const { return std::find(types.begin(), types.end(), t) != types.end(); }
};

/// The costs named in `names` (all of the file's when empty). Returns an error sentence naming the
/// cost and the reason (an unknown cost, an output that cannot be differentiated) or "".
/// `derivatives` false: components without a derivative (energies, residuals) are allowed too,
/// for a run that fills them in itself.
std::string compileCosts(const Mechanism& m, const ResolvedMechanism& r, const OutputComponents& o,
                         const std::vector<std::string>& names, CostSet& out, bool derivatives = true);

/// The costs a run evaluates (not differentiated): every one of the file's that compiles and whose
/// targets lie within tEnd — with `withEnergies`, also those of energies and constraint residuals,
/// which the run fills in — and, returned, the problems of the others, one per line ("cost 'E':
/// ..."): one bad cost does not hide the rest.
std::string compileRunCosts(const Mechanism& m, const ResolvedMechanism& r, const OutputComponents& o, double tEnd, bool withEnergies,
                            CostSet& out);

/// A problem with the run's end time for the costs (a target after the end), or "".
std::string costTimesProblem(const CostSet& c, double tEnd);

/// Running values of a CostSet on S: integral costs by the trapezoidal rule over the points added,
/// minimum and maximum costs as the extreme point (compared by value; its derivatives come along).
template <class S>
class CostAccumulator {
 public:
  explicit CostAccumulator(const CostSet& c) : c_(&c) {}
  /// The state's outputs at t (the first call fixes the initial values), parameters on S.
  void add(double t, const S* outputs, const S* parameters);
  /// The next point added ends a Dormand–Prince step whose stages 3–6 had these outputs (its
  /// stage 1 is the last point added): its integral costs advance by the method's own quadrature
  /// (integ::dopri::quadratureB, fifth order like the state) instead of the trapezoidal rule.
  void rungeKuttaStages(const std::array<const S*, 4>& stageOutputs);
  /// The costs' values so far (integral: up to the last point; terminal: at the last point).
  std::vector<S> values() const;
  /// The last two points were one event's (the same time, just before and just after) and its
  /// time moves by dt (a design derivative in its lanes): the integrals change by (g⁻ − g⁺)·dt
  /// (seed 001 Theorem 5).
  void eventTimeMoves(const S& dt);

  /// Where a targets cost's term was taken: between points node − 1 and node (counted from 0 in
  /// the order they were added) at weight `f` on node's outputs and 1 − f on the one before (f = 1:
  /// at the point itself), with the slots' values interpolated there. What an adjoint needs to place the
  /// term's derivatives on the run's points.
  struct TargetSite {
    std::size_t cost = 0, sample = 0;
    long node = 0;
    double f = 1;
    std::vector<S> slotValues;  // [t, outputs, initial outputs, parameters] there
  };
  /// Every target's site: a prescribed target's where its time fell, a free-timing target's at the
  /// point where its term is least.
  std::vector<TargetSite> targetSites() const;
  /// By cost: the point where a minimum or maximum cost's extreme was first reached (−1 for the
  /// other costs or before any point).
  const std::vector<long>& extremeNodes() const { return extremeNode_; }
  /// "" while every cost's terms are finite numbers; else the sentence naming the first cost that
  /// stopped being one and the time it did (sqrt of a negative, log(-1), 1/0, exp(1000)).
  std::string notFiniteProblem() const;

 private:
  const CostSet* c_;
  std::vector<S> slots_, lastSlots_, initial_, sum_, last_, previous_;
  std::array<std::vector<S>, 4> stages_;  // rungeKuttaStages' outputs, until the next point
  std::vector<S> stageSlots_;             // the slots at a stage
  bool stagesPending_ = false;
  std::vector<S> extreme_;  // by cost: a minimum's or maximum's value so far
  std::vector<long> extremeNode_;
  std::vector<TargetSite> sites_;
  struct Nearest {                      // a free-timing target: its least term so far, and where
    S value{};
    TargetSite site;
    bool set = false;
  };
  std::vector<std::vector<Nearest>> nearest_;  // by cost and target
  long node_ = -1;  // the last point's index
  std::vector<std::size_t> nextSample_;  // by cost: the first target not yet passed
  double lastT_ = 0;
  bool started_ = false;
  long notFiniteCost_ = -1;  // the first cost whose term was not finite, and when
  double notFiniteAt_ = 0;
  void watchFinite(std::size_t cost, const S& term, double t);
};

/// A run's costs that are not finite numbers leave `names` and `values` (a table or JSON never
/// carries a NaN): their sentences are returned, one per line, for the run's costProblem.
std::string keepFiniteCosts(const CostAccumulator<double>& accumulator, std::vector<std::string>& names, std::vector<double>& values);

}  // namespace lw::analysis
