// Arithmetic expressions in numeric fields: "L_crank/2", "0.1*sin(2*pi*t)".
//
// Parsed once into an immutable tree; evaluated on any of the scalar types the engine
// differentiates with (double, std::complex<double>); differentiated symbolically (drivers need
// d/dt and d²/dt², sensitivities need d/dparameter). Hand-written rather than taken from a library
// because it must evaluate on complex and AD scalars and list the names it depends on.
#pragma once

#include <complex>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lw {

namespace num {
template <int N> struct Dual;
}

namespace detail {
struct ExprNode;
}

/// Raised by Expression::parse; `offset` is the byte offset of the problem in the text.
struct ExpressionError {
  std::size_t offset = 0;
  std::string message;
};

class Expression {
 public:
  /// An empty expression (evaluates to 0; `empty()` is true).
  Expression() = default;
  /// A constant.
  static Expression constant(double value);
  /// Parses `text`; on failure returns false and fills `error`.
  static bool parse(std::string_view text, Expression& out, ExpressionError& error);
  /// Parses text known to be valid (generators, tests); throws std::invalid_argument otherwise.
  static Expression parseOrThrow(std::string_view text);

  bool empty() const { return root_ == nullptr; }
  /// The text as written by the user (or as printed, for derived expressions).
  const std::string& text() const { return text_; }
  /// True if the expression contains no variable (it may still call functions of constants).
  bool isConstant() const;

  /// Free variable names in order of first appearance (`initial(x)` arguments included).
  std::vector<std::string> variables() const;
  /// Names of the functions called (to check `initial` is used only where allowed).
  std::vector<std::string> functions() const;

  /// The same with every initial(x) replaced by a variable named "initial(x)" (a cost's value of x
  /// at the start, which the cost's evaluator supplies and differentiates like any other).
  Expression initialsAsVariables() const;
  /// Symbolic derivative with respect to variable `name`, lightly simplified.
  Expression derivative(std::string_view name) const;
  /// The same with variable `from` renamed `to` (a parameter renamed: its uses follow), the text
  /// kept as the user wrote it otherwise. Functions and dotted names ("P.x") are not variables.
  Expression renamed(std::string_view from, std::string_view to) const;
  /// Substitutes constant values for variables (names not in `names` stay variables).
  Expression substitute(std::span<const std::string> names, std::span<const double> values) const;

  /// Evaluates with the variables taking `values`, in the order of `names`. A variable missing
  /// from `names` throws std::invalid_argument (callers validate variables() first).
  template <class T>
  T evaluate(std::span<const std::string> names, std::span<const T> values) const;

  /// Binds the variable names to slot indices once, for repeated evaluation in a step loop.
  class Bound {
   public:
    Bound() = default;
    template <class T>
    T operator()(std::span<const T> slots) const;
    bool empty() const { return root_ == nullptr; }

   private:
    friend class Expression;
    std::shared_ptr<const detail::ExprNode> root_;
  };
  /// Throws std::invalid_argument if a variable is not in `names`.
  Bound bind(std::span<const std::string> names) const;

 private:
  explicit Expression(std::shared_ptr<const detail::ExprNode> root);
  std::shared_ptr<const detail::ExprNode> root_;
  std::string text_;
};

extern template double Expression::evaluate<double>(std::span<const std::string>,
                                                    std::span<const double>) const;
extern template std::complex<double> Expression::evaluate<std::complex<double>>(
    std::span<const std::string>, std::span<const std::complex<double>>) const;
extern template double Expression::Bound::operator()<double>(std::span<const double>) const;
extern template std::complex<double> Expression::Bound::operator()<std::complex<double>>(
    std::span<const std::complex<double>>) const;
extern template num::Dual<8> Expression::evaluate<num::Dual<8>>(std::span<const std::string>,
                                                                std::span<const num::Dual<8>>) const;
extern template num::Dual<8> Expression::Bound::operator()<num::Dual<8>>(std::span<const num::Dual<8>>) const;

/// True if `name` is a valid identifier: a letter or '_' then letters, digits or '_'.
bool isIdentifier(std::string_view name);

}  // namespace lw
