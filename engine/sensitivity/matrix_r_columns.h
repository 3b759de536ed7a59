// The Matrix R tangent's columns at one point of a run (internal to engine/sensitivity): the
// tangent set there by the run's own pipeline (dyn::MatrixRTangent::at, Θ_z and M̄ factored once
// on doubles), then [f; outputs] along any columns of the state and of the design parameters —
// the state's part by products (MatrixRTangent::stateJacobians and the outputs' exact partials)
// where that saves a pass, the masses' and inertias' parameters by the lanes kernel on doubles
// (inertialParts), the rest by the tangent's jet-free passes on dual numbers, eight lanes a pass.
#pragma once

#include <memory>
#include <vector>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/matrix_r_derivatives.h"
#include "sensitivity/formulation.h"
#include "sensitivity/formulation_numbers.h"

namespace lw::sens::detail {

class MatrixRColumns {
 public:
  /// `numbers`: the formulation's (their chunks seeded in lanes, the real numbers' switch states).
  MatrixRColumns(const Study& st, FormulationNumbers& numbers);

  /// The state on doubles by the run's own pipeline (Θ_z from the analytic loop Jacobian, Newton
  /// from zStart), one pipeline per set of coordinates `coords` (their independent coordinates
  /// `dofs`).
  Status runPipeline(double t, int coords, const std::vector<dyn::Dof>& dofs, const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                     const Eigen::VectorXd& zStart, dyn::MatrixROn<double>& e);
  /// The tangent set at p (coordinates `dofs`): its state by the run's pipeline, the outputs'
  /// values (optional) and f = z̈ⁱ (optional) there.
  Status at(const RunPoint& p, const std::vector<dyn::Dof>& dofs, Eigen::VectorXd* outputs, Eigen::VectorXd* f = nullptr);
  /// [f; outputs] at the point the tangent was set at (t) along columns c = (DX.col(c), DV.col(c))
  /// with chosen parameter param[c] (−1: none), into F ((d + outputs) × columns).
  void columns(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param, Eigen::MatrixXd& F);
  /// [z̈ⁱ; outputs] at the tangent's point (t) along the lanes of (dx, dv) and of the numbers
  /// `nums` (`seeded`: they carry some).
  void alongLanes(const dyn::TreeNumbers<Dual>& nums, bool seeded, double t, const Vec<Dual>& dx, const Vec<Dual>& dv, Vec<Dual>& r);
  /// [f_x f_v; O_x O_v] at the tangent's point (t) by products, computed once a point; false
  /// where those kernels do not serve (the loops', the outputs' or τ's).
  bool stateProducts(double t, const Eigen::MatrixXd*& G);
  /// At the tangent's point (t), for the adjoint: the outputs, f_x, f_v and the outputs' state
  /// partials by products (stateJacobians), A_ρ and O_ρ as products (PointPartials::products) by
  /// the tangent's parameter transpose and the lanes kernel's — no lanes, whatever the number of
  /// parameters. False where those kernels do not serve (the caller's columns then).
  bool productPartials(double t, PointPartials& n);
  /// Are the products worth it for this study (its costs few for its parameters), and do the
  /// lanes kernel's transpose and the outputs serve? (Before a point is set up for them.)
  bool productsServe() const;

 private:
  // how lanesAlone takes columns (DX, DV) with parameters `param`: the parameters left to the
  // lanes (the inertial ones apart where inertialParts serves), the columns carried, and passes
  struct LanePlan {
    std::vector<int> laned, kept, own;  // by column; the columns carried; those with a laned parameter
    bool apart = false;                 // some parameter apart (inertialParts), the rest planned
    bool byStateColumns = false;        // f_x, f_v and the parameters' own columns, then products
    Eigen::Index passes = 0;
  };
  LanePlan lanePlan(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param) const;
  // columns with the state's on the lanes too (`planned`: lanePlan's for them, when at hand)
  void lanesAlone(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param, Eigen::MatrixXd& F,
                  const LanePlan* planned = nullptr);
  // Do the parameters that touch only masses and inertias leave the lanes at this point (any
  // among `param`, AD partials, no output that reads masses itself: the reactions)?
  bool inertialServes(double t, const std::vector<int>& param) const;
  // [f_ρ; O_ρ] of those parameters (columns as `param`, zero for the others): at the fixed state
  // the positions, rates and loops do not move; τ's lanes by the lanes kernel on doubles,
  // projected by MatrixRTangent::alongInertia
  void inertialParts(double t, const std::vector<int>& param, Eigen::MatrixXd& Fi);
  // [f_ρ; O_ρ] of the parameters `param` (columns as param, zero for −1) by alongNumbers, chunk
  // by chunk, at the point stateProducts set (its Jacobians' parts); false where the lanes kernel
  // does not take a chunk used
  bool numbersParts(double t, const std::vector<int>& param, Eigen::MatrixXd& Fp);
  // the outputs' Jacobian by their points' [r; v; a] at the tangent's point, once a point
  const Eigen::MatrixXd& outputsByPoints(double t);
  // the motion at the tangent's point in inertiaState_
  void ensureMotion(double t);
  // columns through the tangent's lanes alone, eight a pass
  void packedLaneColumns(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param, Eigen::MatrixXd& F);

  const Study& st_;
  FormulationNumbers& n_;
  dyn::MatrixRTangent tangent_;
  struct TangentPoint {  // the state the tangent was last set at, and whether inertiaState_ is its motion
    double t = -1;
    Eigen::VectorXd z, zd, zdd;
    bool motion = false;
    int products = -1;  // stateProducts_ there: 1 set, 0 not served, −1 not asked yet
  } tangentPoint_;
  struct LastAt {  // the point `at` set the tangent at, valid until a pipeline runs again
    bool valid = false;
    double t = 0;
    int coords = -1;
    Eigen::VectorXd x, v, aux;
    dyn::MatrixROn<double> e;
  } lastAt_;
  Eigen::MatrixXd stateProducts_;    // [f_x f_v; O_x O_v] at tangentPoint_ (stateProducts)
  dyn::MatrixRTangent::StateJacobians jacobians_;  // and what they were made of
  struct OutputsBy {  // the outputs there and their partials by the dependent z, ż, z̈ and by their points
    Eigen::VectorXd values;
    Eigen::MatrixXd z, zd, zdd, points;
    bool pointsSet = false;
  } outputsBy_;
  dyn::MotionAtState inertiaState_;  // the motion at tangentPoint_ (inertialParts', stateProducts')
  struct LanesBuffers {  // alongLanes' results, kept between calls
    Vec<Dual> zidd, z, zd, zdd;
    std::vector<Dual> pr, pv, pa, out, tau;
  } lanes_;
  std::vector<std::unique_ptr<dyn::MatrixRData>> pointData_;  // by coordinate set: runPipeline's pipelines
};

}  // namespace lw::sens::detail
