// The scalar types the evaluation kernels are instantiated for (DESIGN.md §3) and the few
// functions kernels need beyond + − × ÷ sin cos sqrt: value() for branches, atan2.
//   double                 evaluation
//   num::Dual<N>           forward-mode AD, N directions per pass (tangent matrices, sensitivities)
//   std::complex<double>   complex step (verification of the AD)
//   num::Pattern           sparsity pattern pass (colouring for compressed AD)
// Include only from .cpp files that instantiate kernels.
#pragma once

#include <cmath>
#include <complex>

#include "numeric/dual.h"
#include "numeric/pattern.h"

namespace lw::num {

inline double value(double x) { return x; }
inline double value(const std::complex<double>& x) { return x.real(); }

inline double atan2(double y, double x) { return std::atan2(y, x); }
// complex step: the real part is the angle, the imaginary part its first-order perturbation
inline std::complex<double> atan2(const std::complex<double>& y, const std::complex<double>& x) {
  const double n = x.real() * x.real() + y.real() * y.real();
  return {std::atan2(y.real(), x.real()), (x.real() * y.imag() - y.real() * x.imag()) / n};
}

}  // namespace lw::num
