#include "mechanism/expression.h"

#include "numeric/dual.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace lw {
namespace detail {

enum class Op { Num, Var, Neg, Add, Sub, Mul, Div, Pow, Call };

// Functions callable from expressions. `Lt` is internal: lt(a, b, x, y) = a < b ? x : y, used by
// the derivatives of abs, min and max. `Sign` is internal too.
enum class Fn {
  Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Sinh, Cosh, Tanh, Exp, Log, Sqrt, Abs, Min, Max, Pow,
  Initial, Sign, Lt
};

struct FnInfo {
  const char* name;
  Fn fn;
  int arity;
  bool userVisible;
};

constexpr FnInfo kFunctions[] = {
    {"sin", Fn::Sin, 1, true},     {"cos", Fn::Cos, 1, true},     {"tan", Fn::Tan, 1, true},
    {"asin", Fn::Asin, 1, true},   {"acos", Fn::Acos, 1, true},   {"atan", Fn::Atan, 1, true},
    {"atan2", Fn::Atan2, 2, true}, {"sinh", Fn::Sinh, 1, true},   {"cosh", Fn::Cosh, 1, true},
    {"tanh", Fn::Tanh, 1, true},   {"exp", Fn::Exp, 1, true},     {"log", Fn::Log, 1, true},
    {"sqrt", Fn::Sqrt, 1, true},   {"abs", Fn::Abs, 1, true},     {"min", Fn::Min, 2, true},
    {"max", Fn::Max, 2, true},     {"pow", Fn::Pow, 2, true},     {"initial", Fn::Initial, 1, true},
    {"sign", Fn::Sign, 1, false},  {"lt", Fn::Lt, 4, false},
};

const FnInfo& info(Fn fn) {
  for (const auto& f : kFunctions)
    if (f.fn == fn) return f;
  throw std::logic_error("unknown function id");
}

struct ExprNode {
  Op op = Op::Num;
  double value = 0;   // Num
  std::string name;   // Var
  int slot = -1;      // Var, once bound
  Fn fn = Fn::Sin;    // Call
  std::vector<std::shared_ptr<const ExprNode>> args;
};

using NodePtr = std::shared_ptr<const ExprNode>;

NodePtr num(double v) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Num;
  n->value = v;
  return n;
}
NodePtr var(std::string name, int slot = -1) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Var;
  n->name = std::move(name);
  n->slot = slot;
  return n;
}
NodePtr node(Op op, std::vector<NodePtr> args) {
  auto n = std::make_shared<ExprNode>();
  n->op = op;
  n->args = std::move(args);
  return n;
}
NodePtr call(Fn fn, std::vector<NodePtr> args) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Call;
  n->fn = fn;
  n->args = std::move(args);
  return n;
}

bool isNum(const NodePtr& n, double v) { return n->op == Op::Num && n->value == v; }

// ---- simplifying constructors (keep derivative trees small) ----
NodePtr add(NodePtr a, NodePtr b) {
  if (isNum(a, 0)) return b;
  if (isNum(b, 0)) return a;
  if (a->op == Op::Num && b->op == Op::Num) return num(a->value + b->value);
  return node(Op::Add, {std::move(a), std::move(b)});
}
NodePtr neg(NodePtr a) {
  if (a->op == Op::Num) return num(-a->value);
  if (a->op == Op::Neg) return a->args[0];
  return node(Op::Neg, {std::move(a)});
}
NodePtr sub(NodePtr a, NodePtr b) {
  if (isNum(b, 0)) return a;
  if (isNum(a, 0)) return neg(std::move(b));
  if (a->op == Op::Num && b->op == Op::Num) return num(a->value - b->value);
  return node(Op::Sub, {std::move(a), std::move(b)});
}
NodePtr mul(NodePtr a, NodePtr b) {
  if (isNum(a, 0) || isNum(b, 0)) return num(0);
  if (isNum(a, 1)) return b;
  if (isNum(b, 1)) return a;
  if (a->op == Op::Num && b->op == Op::Num) return num(a->value * b->value);
  return node(Op::Mul, {std::move(a), std::move(b)});
}
NodePtr div(NodePtr a, NodePtr b) {
  if (isNum(a, 0)) return num(0);
  if (isNum(b, 1)) return a;
  return node(Op::Div, {std::move(a), std::move(b)});
}
NodePtr pow(NodePtr a, NodePtr b) {
  if (isNum(b, 1)) return a;
  if (isNum(b, 0)) return num(1);
  return node(Op::Pow, {std::move(a), std::move(b)});
}

bool dependsOn(const NodePtr& n, std::string_view name) {
  if (n->op == Op::Var) return n->name == name;
  return std::any_of(n->args.begin(), n->args.end(),
                     [&](const NodePtr& a) { return dependsOn(a, name); });
}

// ---- scalar helpers: the few places where double and complex differ ----
double re(double x) { return x; }
double re(const std::complex<double>& x) { return x.real(); }
double re(const num::Dual8& x) { return x.v; }

template <class T>
T absT(const T& x) {
  return re(x) < 0 ? -x : x;  // analytic continuation of |x| away from 0 (complex step)
}
template <class T>
T atan2T(const T& y, const T& x) {
  if constexpr (std::is_same_v<T, double>) {
    return std::atan2(y, x);
  } else if constexpr (std::is_same_v<T, num::Dual8>) {
    return num::atan2(y, x);
  } else {
    // complex step: quadrant from the real parts, first-order term (x dy - y dx)/(x² + y²)
    const double xr = x.real(), yr = y.real();
    return T(std::atan2(yr, xr), (xr * y.imag() - yr * x.imag()) / (xr * xr + yr * yr));
  }
}

template <class T>
T evalNode(const ExprNode& n, std::span<const T> slots) {
  using std::cos, std::sin, std::tan, std::asin, std::acos, std::atan, std::sinh, std::cosh,
      std::tanh, std::exp, std::log, std::sqrt, std::pow;
  auto a = [&](std::size_t i) { return evalNode<T>(*n.args[i], slots); };
  switch (n.op) {
    case Op::Num: return T(n.value);
    case Op::Var: return slots[static_cast<std::size_t>(n.slot)];
    case Op::Neg: return -a(0);
    case Op::Add: return a(0) + a(1);
    case Op::Sub: return a(0) - a(1);
    case Op::Mul: return a(0) * a(1);
    case Op::Div: return a(0) / a(1);
    case Op::Pow: {
      // integer exponents by repeated product keep x^2 exact and defined for negative x
      const auto& e = *n.args[1];
      if (e.op == Op::Num && e.value == std::round(e.value) && std::abs(e.value) <= 16) {
        const T base = a(0);
        T r(1.0);
        for (int i = 0; i < static_cast<int>(std::abs(e.value)); ++i) r = r * base;
        return e.value < 0 ? T(1.0) / r : r;
      }
      return pow(a(0), a(1));
    }
    case Op::Call:
      switch (n.fn) {
        case Fn::Sin: return sin(a(0));
        case Fn::Cos: return cos(a(0));
        case Fn::Tan: return tan(a(0));
        case Fn::Asin: return asin(a(0));
        case Fn::Acos: return acos(a(0));
        case Fn::Atan: return atan(a(0));
        case Fn::Atan2: return atan2T(a(0), a(1));
        case Fn::Sinh: return sinh(a(0));
        case Fn::Cosh: return cosh(a(0));
        case Fn::Tanh: return tanh(a(0));
        case Fn::Exp: return exp(a(0));
        case Fn::Log: return log(a(0));
        case Fn::Sqrt: return sqrt(a(0));
        case Fn::Abs: return absT(a(0));
        case Fn::Min: { T x = a(0), y = a(1); return re(x) <= re(y) ? x : y; }
        case Fn::Max: { T x = a(0), y = a(1); return re(x) >= re(y) ? x : y; }
        case Fn::Pow: return pow(a(0), a(1));
        case Fn::Sign: { const double x = re(a(0)); return T(x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0)); }
        case Fn::Lt: return re(a(0)) < re(a(1)) ? a(2) : a(3);
        case Fn::Initial:
          throw std::invalid_argument("initial() can only be evaluated by the cost integrator");
      }
  }
  throw std::logic_error("bad expression node");
}

// ---- symbolic derivative ----
NodePtr derive(const NodePtr& n, std::string_view x) {
  if (!dependsOn(n, x)) return num(0);
  auto A = [&](std::size_t i) { return n->args[i]; };
  auto D = [&](std::size_t i) { return derive(n->args[i], x); };
  switch (n->op) {
    case Op::Num: return num(0);
    case Op::Var: return num(n->name == x ? 1 : 0);
    case Op::Neg: return neg(D(0));
    case Op::Add: return add(D(0), D(1));
    case Op::Sub: return sub(D(0), D(1));
    case Op::Mul: return add(mul(D(0), A(1)), mul(A(0), D(1)));
    case Op::Div: return div(sub(mul(D(0), A(1)), mul(A(0), D(1))), pow(A(1), num(2)));
    case Op::Pow: {
      if (!dependsOn(A(1), x))  // (u^c)' = c u^(c-1) u'
        return mul(mul(A(1), pow(A(0), sub(A(1), num(1)))), D(0));
      // (u^v)' = u^v (v' ln u + v u'/u)
      return mul(n, add(mul(D(1), call(Fn::Log, {A(0)})), div(mul(A(1), D(0)), A(0))));
    }
    case Op::Call: {
      const NodePtr u = A(0);
      const NodePtr du = D(0);
      switch (n->fn) {
        case Fn::Sin: return mul(call(Fn::Cos, {u}), du);
        case Fn::Cos: return neg(mul(call(Fn::Sin, {u}), du));
        case Fn::Tan: return div(du, pow(call(Fn::Cos, {u}), num(2)));
        case Fn::Asin: return div(du, call(Fn::Sqrt, {sub(num(1), pow(u, num(2)))}));
        case Fn::Acos: return neg(div(du, call(Fn::Sqrt, {sub(num(1), pow(u, num(2)))})));
        case Fn::Atan: return div(du, add(num(1), pow(u, num(2))));
        case Fn::Atan2: {  // atan2(y, x)' = (x y' - y x') / (x² + y²)
          const NodePtr y = A(0), xx = A(1);
          return div(sub(mul(xx, D(0)), mul(y, D(1))), add(pow(xx, num(2)), pow(y, num(2))));
        }
        case Fn::Sinh: return mul(call(Fn::Cosh, {u}), du);
        case Fn::Cosh: return mul(call(Fn::Sinh, {u}), du);
        case Fn::Tanh: return div(du, pow(call(Fn::Cosh, {u}), num(2)));
        case Fn::Exp: return mul(n, du);
        case Fn::Log: return div(du, u);
        case Fn::Sqrt: return div(du, mul(num(2), n));
        case Fn::Abs: return mul(call(Fn::Sign, {u}), du);
        case Fn::Min: return call(Fn::Lt, {A(0), A(1), D(0), D(1)});
        case Fn::Max: return call(Fn::Lt, {A(0), A(1), D(1), D(0)});
        case Fn::Pow: return derive(node(Op::Pow, {A(0), A(1)}), x);
        case Fn::Sign: return num(0);
        case Fn::Lt: return call(Fn::Lt, {A(0), A(1), D(2), D(3)});
        case Fn::Initial: return num(0);  // initial values do not vary along the run
      }
    }
  }
  throw std::logic_error("bad expression node");
}

// ---- printing (for derived expressions and diagnostics) ----
int precedence(const ExprNode& n) {
  switch (n.op) {
    case Op::Add: case Op::Sub: return 1;
    case Op::Mul: case Op::Div: return 2;
    case Op::Neg: return 3;
    case Op::Pow: return 4;
    default: return 5;
  }
}

void print(const ExprNode& n, std::ostream& os) {
  auto child = [&](const ExprNode& c, bool paren) {
    if (paren) os << '(';
    print(c, os);
    if (paren) os << ')';
  };
  switch (n.op) {
    case Op::Num: {
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof buf, n.value);
      if (n.value < 0) os << '(';
      os << std::string_view(buf, static_cast<std::size_t>(res.ptr - buf));
      if (n.value < 0) os << ')';
      return;
    }
    case Op::Var: os << n.name; return;
    case Op::Neg: os << '-'; child(*n.args[0], precedence(*n.args[0]) <= 3); return;
    case Op::Call: {
      os << info(n.fn).name << '(';
      for (std::size_t i = 0; i < n.args.size(); ++i) {
        if (i) os << ", ";
        print(*n.args[i], os);
      }
      os << ')';
      return;
    }
    default: {
      const int p = precedence(n);
      const char* sym = n.op == Op::Add ? " + " : n.op == Op::Sub ? " - " : n.op == Op::Mul ? "*"
                        : n.op == Op::Div ? "/" : "^";
      // left-assoc for + - * /, right-assoc for ^
      const bool rightAssoc = n.op == Op::Pow;
      child(*n.args[0], precedence(*n.args[0]) < p || (rightAssoc && precedence(*n.args[0]) == p));
      os << sym;
      child(*n.args[1], precedence(*n.args[1]) < p || (!rightAssoc && precedence(*n.args[1]) == p &&
                                                       n.op != Op::Add && n.op != Op::Mul));
      return;
    }
  }
}

std::string toText(const NodePtr& n) {
  std::ostringstream os;
  os.precision(17);
  print(*n, os);
  return os.str();
}

// ---- parser: recursive descent over
//   expr := term (('+'|'-') term)*      term := unary (('*'|'/') unary)*
//   unary := ('-'|'+') unary | power    power := primary ('^' unary)?
//   primary := number | name | name '(' args ')' | '(' expr ')'
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  NodePtr parse() {
    // bounded size and nesting keep every recursive walk of the tree far from the stack limit
    if (s_.size() > kMaxLength)
      fail(kMaxLength, "the expression is too long (over " + std::to_string(kMaxLength) + " characters)");
    NodePtr e = expr();
    skip();
    if (pos_ != s_.size()) fail(pos_, "unexpected '" + std::string(1, s_[pos_]) + "'");
    return e;
  }
  ExpressionError error;
  bool failed = false;

 private:
  [[noreturn]] void fail(std::size_t at, std::string msg) {
    failed = true;
    error = {at, std::move(msg)};
    throw error;
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  NodePtr expr() {
    NodePtr l = term();
    for (;;) {
      if (eat('+')) l = node(Op::Add, {l, term()});
      else if (eat('-')) l = node(Op::Sub, {l, term()});
      else return l;
    }
  }
  NodePtr term() {
    NodePtr l = unary();
    for (;;) {
      if (eat('*')) l = node(Op::Mul, {l, unary()});
      else if (eat('/')) l = node(Op::Div, {l, unary()});
      else return l;
    }
  }
  struct Nest {  // counts recursion through unary() (parentheses, signs, powers, calls)
    explicit Nest(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth) p_.fail(p_.pos_, "the expression is nested too deeply");
    }
    ~Nest() { --p_.depth_; }
    Parser& p_;
  };
  NodePtr unary() {
    Nest nest(*this);
    if (eat('-')) return node(Op::Neg, {unary()});
    if (eat('+')) return unary();
    return power();
  }
  NodePtr power() {
    NodePtr base = primary();
    if (eat('^')) return node(Op::Pow, {base, unary()});
    return base;
  }
  static bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  NodePtr primary() {
    skip();
    if (pos_ >= s_.size()) fail(pos_, "the expression ends too early");
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      double v = 0;
      auto res = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
      if (res.ec == std::errc::invalid_argument) fail(pos_, "malformed number");
      if (res.ec == std::errc::result_out_of_range || !std::isfinite(v))
        fail(pos_, "number out of range");
      pos_ = static_cast<std::size_t>(res.ptr - s_.data());
      return num(v);
    }
    if (identStart(c)) {
      const std::size_t start = pos_;
      while (pos_ < s_.size() && identChar(s_[pos_])) ++pos_;
      // dotted names (output components in costs: "p2.x")
      while (pos_ + 1 < s_.size() && s_[pos_] == '.' && identStart(s_[pos_ + 1])) {
        ++pos_;
        while (pos_ < s_.size() && identChar(s_[pos_])) ++pos_;
      }
      std::string name(s_.substr(start, pos_ - start));
      if (eat('(')) return callArgs(name, start);
      if (name == "pi") return num(std::numbers::pi);
      return var(name);
    }
    if (eat('(')) {
      NodePtr e = expr();
      if (!eat(')')) fail(pos_, "missing ')'");
      return e;
    }
    fail(pos_, "unexpected '" + std::string(1, c) + "'");
  }
  NodePtr callArgs(const std::string& name, std::size_t at) {
    const FnInfo* f = nullptr;
    for (const auto& fi : kFunctions)
      if (fi.userVisible && name == fi.name) f = &fi;
    if (!f) fail(at, "unknown function '" + name + "'");
    std::vector<NodePtr> args;
    if (!eat(')')) {
      do args.push_back(expr());
      while (eat(','));
      if (!eat(')')) fail(pos_, "missing ')' after the arguments of " + name);
    }
    if (static_cast<int>(args.size()) != f->arity)
      fail(at, name + "() takes " + std::to_string(f->arity) + " argument" +
                   (f->arity == 1 ? "" : "s") + ", not " + std::to_string(args.size()));
    if (f->fn == Fn::Initial && args[0]->op != Op::Var)
      fail(at, "initial() takes the name of an output component, such as initial(p2.y)");
    if (f->fn == Fn::Pow) return node(Op::Pow, std::move(args));
    return call(f->fn, std::move(args));
  }

  static constexpr std::size_t kMaxLength = 10000;
  static constexpr int kMaxDepth = 200;
  std::string_view s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

void collect(const ExprNode& n, std::vector<std::string>& vars, std::vector<std::string>& fns) {
  if (n.op == Op::Var && std::find(vars.begin(), vars.end(), n.name) == vars.end())
    vars.push_back(n.name);
  if (n.op == Op::Call) {
    std::string f = info(n.fn).name;
    if (std::find(fns.begin(), fns.end(), f) == fns.end()) fns.push_back(f);
  }
  for (const auto& a : n.args) collect(*a, vars, fns);
}

NodePtr rebuild(const NodePtr& n, std::span<const std::string> names, std::span<const double> values,
                bool bindSlots) {
  if (n->op == Op::Var) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == n->name) return bindSlots ? var(n->name, static_cast<int>(i)) : num(values[i]);
    if (bindSlots) throw std::invalid_argument("expression variable '" + n->name + "' is not bound");
    return n;
  }
  if (n->args.empty()) return n;
  auto copy = std::make_shared<ExprNode>(*n);
  for (auto& a : copy->args) a = rebuild(a, names, values, bindSlots);
  return copy;
}

}  // namespace detail

using detail::NodePtr;

Expression::Expression(std::shared_ptr<const detail::ExprNode> root) : root_(std::move(root)) {
  if (root_) text_ = detail::toText(root_);
}

Expression Expression::constant(double value) { return Expression(detail::num(value)); }

bool Expression::parse(std::string_view text, Expression& out, ExpressionError& error) {
  detail::Parser p(text);
  try {
    NodePtr root = p.parse();
    out.root_ = std::move(root);
    out.text_ = std::string(text);
    return true;
  } catch (const ExpressionError& e) {
    error = e;
    return false;
  }
}

Expression Expression::parseOrThrow(std::string_view text) {
  Expression e;
  ExpressionError err;
  if (!parse(text, e, err))
    throw std::invalid_argument("bad expression '" + std::string(text) + "': " + err.message);
  return e;
}

bool Expression::isConstant() const { return variables().empty(); }

std::vector<std::string> Expression::variables() const {
  std::vector<std::string> vars, fns;
  if (root_) detail::collect(*root_, vars, fns);
  return vars;
}

std::vector<std::string> Expression::functions() const {
  std::vector<std::string> vars, fns;
  if (root_) detail::collect(*root_, vars, fns);
  return fns;
}

namespace detail {
NodePtr initialsAsVariables(const NodePtr& n) {
  if (n->op == Op::Call && n->fn == Fn::Initial) return var("initial(" + n->args[0]->name + ")");
  if (n->args.empty()) return n;
  auto c = std::make_shared<ExprNode>(*n);
  for (auto& a : c->args) a = initialsAsVariables(a);
  return c;
}
}  // namespace detail

Expression Expression::initialsAsVariables() const {
  if (!root_) return *this;
  Expression e(detail::initialsAsVariables(root_));
  e.text_ = text_;
  return e;
}

Expression Expression::derivative(std::string_view name) const {
  if (!root_) return constant(0);
  return Expression(detail::derive(root_, name));
}

Expression Expression::renamed(std::string_view from, std::string_view to) const {
  if (empty()) return *this;
  // token by token over the text as written: numbers (1e5: not the variable e5), names (dotted
  // names whole), a name followed by '(' is a function
  const std::string& s = text_;
  auto identStart = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto identChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      double v = 0;
      const auto res = std::from_chars(s.data() + pos, s.data() + s.size(), v);
      const std::size_t end = res.ec == std::errc::invalid_argument ? pos + 1 : static_cast<std::size_t>(res.ptr - s.data());
      out.append(s, pos, end - pos);
      pos = end;
    } else if (identStart(c)) {
      const std::size_t start = pos;
      while (pos < s.size() && identChar(s[pos])) ++pos;
      while (pos + 1 < s.size() && s[pos] == '.' && identStart(s[pos + 1])) {
        ++pos;
        while (pos < s.size() && identChar(s[pos])) ++pos;
      }
      std::size_t next = pos;
      while (next < s.size() && std::isspace(static_cast<unsigned char>(s[next]))) ++next;
      const std::string_view name(s.data() + start, pos - start);
      const bool call = next < s.size() && s[next] == '(';
      out.append(!call && name == from ? to : name);
    } else {
      out.push_back(c);
      ++pos;
    }
  }
  return parseOrThrow(out);
}

Expression Expression::substitute(std::span<const std::string> names,
                                  std::span<const double> values) const {
  if (!root_) return *this;
  return Expression(detail::rebuild(root_, names, values, false));
}

template <class T>
T Expression::evaluate(std::span<const std::string> names, std::span<const T> values) const {
  if (!root_) return T(0.0);
  return bind(names)(values);
}

Expression::Bound Expression::bind(std::span<const std::string> names) const {
  Bound b;
  if (root_) b.root_ = detail::rebuild(root_, names, {}, true);
  return b;
}

template <class T>
T Expression::Bound::operator()(std::span<const T> slots) const {
  if (!root_) return T(0.0);
  return detail::evalNode<T>(*root_, slots);
}

template double Expression::evaluate<double>(std::span<const std::string>,
                                             std::span<const double>) const;
template std::complex<double> Expression::evaluate<std::complex<double>>(
    std::span<const std::string>, std::span<const std::complex<double>>) const;
template double Expression::Bound::operator()<double>(std::span<const double>) const;
template std::complex<double> Expression::Bound::operator()<std::complex<double>>(
    std::span<const std::complex<double>>) const;
template num::Dual8 Expression::evaluate<num::Dual8>(std::span<const std::string>, std::span<const num::Dual8>) const;
template num::Dual8 Expression::Bound::operator()<num::Dual8>(std::span<const num::Dual8>) const;

bool isIdentifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace lw
