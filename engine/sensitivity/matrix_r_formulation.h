// Matrix R as a formulation of the sensitivity methods (formulation.h): the state in the
// independent coordinates in use (a change of choice is a change of coordinates), the steps the
// trapezoidal rule's or Dormand–Prince's, the partial derivatives by forward AD of the recursive
// kernels (or seed 003's differences for the parameters). Internal to engine/sensitivity.
#pragma once

#include <array>
#include <memory>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

/// A point's coordinates in Matrix R (RunPoint::coords indexes these): the choice of independent
/// coordinates, and the gaps held closed by a resting contact (events/resting_contact.h), whose
/// forces join the equations while they are held. A contact that comes to rest is an impact into
/// a mode with its gap held (e = 0 for it); one that opens is a change of mode, the state and its
/// accelerations the same (its force is zero there).
struct CoordinateMode {
  std::vector<dyn::Dof> dofs;
  std::vector<int> held;  // gap indices, sorted
  bool operator==(const CoordinateMode& o) const { return dofs == o.dofs && held == o.held; }
};

/// f(t, x, v) of the mode on S: the Matrix R evaluation in its coordinates and its held gaps'
/// forces added (evaluateOn's arguments otherwise).
template <class S>
Status evaluateMode(const Study& st, const CoordinateMode& mode, const dyn::TreeNumbers<S>& p, double t, const Vec<S>& x, const Vec<S>& v,
                    const Eigen::VectorXd& z, dyn::MatrixROn<S>& e, const dyn::TreeNumbers<double>* values = nullptr);

/// One Dormand–Prince step with the mode's accelerations (rungeKuttaStepWith). z: the dependent
/// coordinates near the step (a start for its stages' position problems). `stageOutputs` (when
/// given): the outputs at stages 3–6 (the integral costs' quadrature).
template <class S>
Status rungeKuttaStepOn(const Study& st, const NumbersOn<S>& n, const CoordinateMode& mode, double t0, double h, const Vec<S>& x0,
                        const Vec<S>& v0, const Eigen::VectorXd& z, Vec<S>& x1, Vec<S>& v1,
                        std::array<std::vector<S>, 4>* stageOutputs = nullptr) {
  int stage = 0;  // the evaluations come stage by stage
  return rungeKuttaStepWith<S>(
      [&](double t, const Vec<S>& x, const Vec<S>& v, Vec<S>& a) -> Status {
        dyn::MatrixROn<S> e;
        const Status s = evaluateMode<S>(st, mode, n.tree, t, x, v, z, e);
        a = e.zidd;
        if (s.ok() && stageOutputs && stage >= 2) {
          auto& out = (*stageOutputs)[static_cast<std::size_t>(stage - 2)];
          out.resize(st.outputs.names.size());
          analysis::outputsOn<S>(st.outputs, st.model.tree, n.tree, e.z, e.zd, e.zdd, t, out.data());
        }
        ++stage;
        return s;
      },
      t0, h, x0, v0, x1, v1);
}

/// analytic: the tree's analytic derivative kernels where they cover the model (else, and when
/// false, forward AD of the whole pipeline).
std::unique_ptr<Formulation> matrixRFormulation(const Study& st, bool rungeKutta, Partials partials, double delta, bool analytic = true);

/// Its run on complex numbers (matrix_r_complex.cpp): `modes` the formulation's coordinate modes
/// (outliving the run), parameter a table index seeded by eps i.
std::unique_ptr<ComplexRun> matrixRComplexRun(const Study& st, const std::vector<CoordinateMode>& modes, bool rungeKutta, std::size_t parameter,
                                              double eps);

}  // namespace lw::sens::detail
