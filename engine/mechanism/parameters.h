// Design parameters: evaluation in dependency order, derivatives of any field with respect to any
// parameter, and which fields depend on which parameter (what sensitivity analyses differentiate).
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mechanism/diagnostics.h"
#include "mechanism/mechanism.h"

namespace lw {

class ParameterTable {
 public:
  /// Evaluates the parameters of `m`. Reports parse problems, unknown names, cycles and
  /// non-finite values into `out` (paths "parameters[i].value") and returns nullopt on error.
  static std::optional<ParameterTable> build(const Mechanism& m, Diagnostics& out);

  const std::vector<std::string>& names() const { return names_; }
  std::span<const double> values() const { return values_; }
  /// Index of a parameter, or -1.
  int find(std::string_view name) const;

  /// Value of a field. Functions of time take `t`. Throws std::invalid_argument for names that
  /// are not parameters (validated models never have them).
  double evaluate(const Number& n, double t = 0) const;

  /// d(field)/d(parameter k), parameter k taken as independent: fields that use it directly or
  /// through other parameters change, its own expression (if any) is ignored.
  double derivative(const Number& n, std::size_t k, double t = 0) const;

  /// Parameters the field depends on, directly or through other parameters (indices, sorted).
  std::vector<std::size_t> dependencies(const Number& n) const;

  /// Every parameter's value on another scalar (a dual number, a complex step), in dependency
  /// order: each parameter's expression evaluated on P, so that derivatives flow through chains
  /// of parameters; a parameter listed in `seeded` moves in addition by its seed (seeds[i] minus
  /// its value: the direction in which it is differentiated, as if it were independent).
  template <class P>
  std::vector<P> valuesOn(std::span<const std::size_t> seeded, std::span<const P> seeds) const;
  /// A field on P from parameter values on P (valuesOn's result).
  template <class P>
  P evaluateOn(const Number& n, std::span<const P> values, double t = 0) const;

 private:
  // Memory and time linear in the parameters and their direct dependencies: a field depends on
  // few parameters, and 100 000 of them must load in about a second. Total derivatives through
  // chains of parameters are propagated on demand over the chain, not tabulated n × n.
  std::vector<std::string> names_;       // parameter names, in file order
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<double> values_;
  std::vector<std::vector<std::size_t>> deps_;   // deps_[j]: the parameters value_j uses directly
  std::vector<std::vector<double>> partials_;    // partials_[j][m] = ∂value_j/∂value_{deps_[j][m]}
  std::vector<Expression> expressions_;          // by parameter (empty for literals)
  std::vector<std::size_t> order_;               // dependency order (a parameter after those it uses)
  /// d value_j / d p_k through the chains of parameters.
  double totalDerivative(std::size_t j, std::size_t k) const;
  /// The values of a field's variables ("t" and parameters), in the order of `variables`.
  std::vector<double> slotValues(const std::vector<std::string>& variables, double t) const;
};

/// "" when `value` lies within the parameter's range (its min and max, where given); otherwise the
/// sentence naming the parameter, the value and the range ("parameter 'L1' = 2 is outside its
/// range 0.5 ... 1.5").
std::string outsideRange(const Parameter& p, double value);

/// For every parameter, the paths of the fields that depend on it (through forEachNumber), and of
/// the costs whose expressions use it.
std::map<std::string, std::vector<std::string>> fieldsByParameter(const Mechanism& m,
                                                                 const ParameterTable& p);

}  // namespace lw
