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
#include "numeric/jet.h"
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
// on jets: θ = atan2(y, x), r² θ' = x y' − y x' =: N, and θ'' = (N' r² − N (r²)')/r⁴ with
// N' = x y'' − y x'' (the products of first derivatives cancel)
template <class S>
kin::BasicJet<S> atan2(const kin::BasicJet<S>& y, const kin::BasicJet<S>& x) {
  const S r2 = x.v * x.v + y.v * y.v;
  const S n = x.v * y.d - y.v * x.d;
  const S dn = x.v * y.dd - y.v * x.dd;
  const S dr2 = (x.v * x.d + y.v * y.d) * 2.0;
  return {atan2(y.v, x.v), n / r2, (dn * r2 - n * dr2) / (r2 * r2)};
}

}  // namespace lw::num
