// popops' element-wise operations: an expression over tensors becomes one generated MultiVertex
// type (C++ compiled by ipu-cc through Graph::addCodelets, cached by content) and, for each
// region of the output on each tile, one vertex of it on that tile. The graph compiler brings
// operands held elsewhere to the vertex's tile through the exchange, as for any vertex.
#include "Internal.hpp"
#include "../sdk/Generated.hpp"
#include "../sdk/Asm.hpp"

#include <popops/ElementWise.hpp>
#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

namespace popops {

using namespace poplar;

namespace detail {
namespace {
using expr::BinaryOpType;
using expr::TernaryOpType;
using expr::UnaryOpType;

using ipusim::sdk::fail;

using ipusim::sdk::shapeString;

bool isFloat(const Type &t) { return t == FLOAT || t == HALF; }
bool isIntegral(const Type &t) { return !isFloat(t) && t != BOOL; }

// ---- types ------------------------------------------------------------------------------------

// An expression's type; `weak` for a subexpression of constants only, which takes the type of
// the operand it meets (poplibs' rule for constants).
struct Typed {
  Type type;
  bool weak;
};

class Typer {
public:
  Typer(const std::string &op, const std::vector<Tensor> &ts) : op(op), ts(ts) {}

  Typed operator()(const expr::Expr &e) const {
    if (auto *p = e.getAs<expr::PlaceHolder>()) {
      if (p->getIndex() < 1 || p->getIndex() > ts.size())
        fail(op, "the expression uses placeholder _" + std::to_string(p->getIndex()) + " but " +
                     std::to_string(ts.size()) + " tensor(s) are given");
      return {ts[p->getIndex() - 1].elementType(), false};
    }
    if (auto *c = e.getAs<expr::Const>()) return {c->getType(), true};
    if (auto *c = e.getAs<expr::Cast>()) {
      (*this)(c->getLHS());
      return {c->getRHSType(), false};
    }
    if (auto *u = e.getAs<expr::UnaryOp>()) return unary(*u);
    if (auto *b = e.getAs<expr::BinaryOp>()) return binary(*b);
    if (auto *t = e.getAs<expr::TernaryOp>()) return ternary(*t);
    fail(op, "unknown kind of expression");
  }

  // The common type of two operands (a constant takes the other's type).
  Type unify(const std::string &opName, const Typed &a, const Typed &b) const {
    if (a.weak && !b.weak) return b.type;
    if (b.weak && !a.weak) return a.type;
    if (a.type != b.type && !(a.weak && b.weak))
      fail(op, "the operands of " + opName + " have different types (" + a.type.toString() + " and " +
                   b.type.toString() + ")");
    return a.type;
  }

private:
  Typed unary(const expr::UnaryOp &u) const {
    Typed a = (*this)(u.getArg());
    const std::string name = expr::opTypeName(u.getOpType());
    switch (u.getOpType()) {
    case UnaryOpType::IS_FINITE:
    case UnaryOpType::IS_INF:
    case UnaryOpType::IS_NAN:
      needFloat(name, a.type);
      return {BOOL, a.weak};
    case UnaryOpType::LOGICAL_NOT:
      if (a.type != BOOL) fail(op, "LOGICAL_NOT needs a bool operand, not " + a.type.toString());
      return {BOOL, a.weak};
    case UnaryOpType::BITWISE_NOT:
    case UnaryOpType::COUNT_LEADING_ZEROS:
    case UnaryOpType::POPCOUNT:
      if (!isIntegral(a.type)) fail(op, name + " needs an integer operand, not " + a.type.toString());
      return a;
    case UnaryOpType::ABSOLUTE:
    case UnaryOpType::NEGATE:
    case UnaryOpType::SIGNUM:
    case UnaryOpType::SQUARE:
    case UnaryOpType::RELU:
      if (a.type == BOOL) fail(op, name + " needs a numeric operand, not bool");
      return a;
    default: needFloat(name, a.type); return a;
    }
  }

  Typed binary(const expr::BinaryOp &b) const {
    Typed l = (*this)(b.getLHS()), r = (*this)(b.getRHS());
    const std::string name = expr::opTypeName(b.getOpType());
    const Type t = unify(name, l, r);
    const bool weak = l.weak && r.weak;
    switch (b.getOpType()) {
    case BinaryOpType::EQUAL:
    case BinaryOpType::NOT_EQUAL:
    case BinaryOpType::LESS_THAN:
    case BinaryOpType::LESS_THAN_EQUAL:
    case BinaryOpType::GREATER_THAN:
    case BinaryOpType::GREATER_THAN_EQUAL: return {BOOL, weak};
    case BinaryOpType::LOGICAL_AND:
    case BinaryOpType::LOGICAL_OR:
      if (t != BOOL) fail(op, name + " needs bool operands, not " + t.toString());
      return {BOOL, weak};
    case BinaryOpType::BITWISE_AND:
    case BinaryOpType::BITWISE_OR:
    case BinaryOpType::BITWISE_XOR:
    case BinaryOpType::BITWISE_XNOR:
    case BinaryOpType::SHIFT_LEFT:
    case BinaryOpType::SHIFT_RIGHT:
    case BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND:
      if (!isIntegral(t)) fail(op, name + " needs integer operands, not " + t.toString());
      return {t, weak};
    case BinaryOpType::ATAN2:
    case BinaryOpType::POWER:
    case BinaryOpType::INV_STD_DEV_TO_VARIANCE:
    case BinaryOpType::VARIANCE_TO_INV_STD_DEV: needFloat(name, t); return {t, weak};
    default:
      if (t == BOOL) fail(op, name + " needs numeric operands, not bool");
      return {t, weak};
    }
  }

  Typed ternary(const expr::TernaryOp &t) const {
    Typed a = (*this)(t.getArg0()), b = (*this)(t.getArg1()), c = (*this)(t.getArg2());
    if (t.getOpType() == TernaryOpType::SELECT) {
      if (c.type != BOOL) fail(op, "SELECT's third operand (the condition) must be bool, not " + c.type.toString());
      return {unify("SELECT", a, b), a.weak && b.weak};
    }
    Typed ab{unify("CLAMP", a, b), a.weak && b.weak};
    return {unify("CLAMP", ab, c), ab.weak && c.weak};
  }

  void needFloat(const std::string &name, const Type &t) const {
    if (!isFloat(t)) fail(op, name + " needs a float or half operand, not " + t.toString());
  }

  const std::string &op;
  const std::vector<Tensor> &ts;
};

// ---- shapes -----------------------------------------------------------------------------------

std::vector<std::size_t> broadcastShape(const std::string &op, const std::vector<Tensor> &ts,
                                        const std::vector<bool> &used) {
  std::vector<std::size_t> shape;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!used[i]) continue;
    std::vector<std::size_t> s = ts[i].shape();
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (std::size_t d = 0; d < s.size(); ++d) {
      std::size_t &r = shape[shape.size() - s.size() + d];
      if (s[d] == r || s[d] == 1) continue;
      if (r == 1) {
        r = s[d];
        continue;
      }
      std::string shapes;
      for (std::size_t j = 0; j < ts.size(); ++j)
        if (used[j]) shapes += (shapes.empty() ? "" : ", ") + shapeString(ts[j].shape());
      fail(op, "operand " + std::to_string(i + 1) + " of shape " + shapeString(ts[i].shape()) +
                   " does not broadcast with the others (shapes " + shapes + ")");
    }
  }
  return shape;
}

// t broadcast to `shape` (numpy rules, already checked).
Tensor broadcastTo(Tensor t, const std::vector<std::size_t> &shape) {
  std::vector<std::size_t> s = t.shape();
  s.insert(s.begin(), shape.size() - s.size(), 1);
  t = t.reshape(s);
  for (unsigned d = 0; d < shape.size(); ++d)
    if (s[d] == 1 && shape[d] != 1) t = t.broadcast(unsigned(shape[d]), d);
  return t;
}

void usedPlaceholders(const expr::Expr &e, std::vector<bool> &used) {
  if (auto *p = e.getAs<expr::PlaceHolder>()) {
    if (p->getIndex() >= 1 && p->getIndex() <= used.size()) used[p->getIndex() - 1] = true;
  } else if (auto *c = e.getAs<expr::Cast>()) {
    usedPlaceholders(c->getLHS(), used);
  } else if (auto *u = e.getAs<expr::UnaryOp>()) {
    usedPlaceholders(u->getArg(), used);
  } else if (auto *b = e.getAs<expr::BinaryOp>()) {
    usedPlaceholders(b->getLHS(), used);
    usedPlaceholders(b->getRHS(), used);
  } else if (auto *t = e.getAs<expr::TernaryOp>()) {
    usedPlaceholders(t->getArg0(), used);
    usedPlaceholders(t->getArg1(), used);
    usedPlaceholders(t->getArg2(), used);
  }
}

// ---- code -------------------------------------------------------------------------------------

// C++ for the tile: the expression's value in its type. Operand n is the local `vN`.
class CodeGen {
public:
  CodeGen(const std::string &op, const Typer &typer) : op(op), typer(typer) {}

  // `ctx`: the type a constant subexpression takes.
  std::string operator()(const expr::Expr &e, const Type &ctx) const {
    if (auto *p = e.getAs<expr::PlaceHolder>()) return "v" + std::to_string(p->getIndex());
    if (auto *c = e.getAs<expr::Const>()) return literal(*c, ctx);
    if (auto *c = e.getAs<expr::Cast>()) {
      Typed from = typer(c->getLHS());
      const std::string x = (*this)(c->getLHS(), from.type);
      if (c->getRHSType() == BOOL) return "(" + x + " != 0)";
      return "static_cast<" + deviceType(op, c->getRHSType()) + ">(" + x + ")";
    }
    if (auto *u = e.getAs<expr::UnaryOp>()) return unary(*u, ctx);
    if (auto *b = e.getAs<expr::BinaryOp>()) return binary(*b, ctx);
    auto &t = *e.getAs<expr::TernaryOp>();
    Typed r = typer(e);
    const Type vt = r.weak ? ctx : r.type;
    const std::string T = deviceType(op, vt);
    const std::string a = (*this)(t.getArg0(), vt), b = (*this)(t.getArg1(), vt);
    if (t.getOpType() == TernaryOpType::SELECT) return "(" + (*this)(t.getArg2(), BOOL) + " ? " + a + " : " + b + ")";
    return "ipusimClamp<" + T + ">(" + a + ", " + b + ", " + (*this)(t.getArg2(), vt) + ")";
  }

private:
  std::string literal(const expr::Const &c, const Type &t) const {
    const double v = c.getDataAsDouble();
    char buf[64];
    if (isFloat(t)) {
      std::snprintf(buf, sizeof buf, "%a", v);
      return std::string("static_cast<") + deviceType(op, t) + ">(" + buf + ")";
    }
    if (t == BOOL) return v != 0 ? "true" : "false";
    if (c.getTypeTraits().isIntegral && !c.getTypeTraits().isSigned)
      std::snprintf(buf, sizeof buf, "%" PRIu64 "ull", c.getDataForUnsignedIntegral());
    else
      std::snprintf(buf, sizeof buf, "%" PRId64 "ll", static_cast<int64_t>(v));
    return "static_cast<" + deviceType(op, t) + ">(" + buf + ")";
  }

  // A floating-point function: half is computed in float and rounded once.
  std::string fn(const std::string &f, const std::string &x, const Type &t) const {
    if (t == HALF) return "static_cast<half>(" + f + "(static_cast<float>(" + x + ")))";
    return f + "(" + x + ")";
  }

  std::string unary(const expr::UnaryOp &u, const Type &ctx) const {
    Typed at = typer(u.getArg());
    const Type t = at.weak ? ctx : at.type;
    const std::string T = deviceType(op, t);
    const std::string x = (*this)(u.getArg(), t);
    auto cast = [&](const std::string &s) { return "static_cast<" + T + ">(" + s + ")"; };
    switch (u.getOpType()) {
    case UnaryOpType::ABSOLUTE: return isFloat(t) ? fn("std::fabs", x, t) : "ipusimAbs<" + T + ">(" + x + ")";
    case UnaryOpType::ASIN: return fn("std::asin", x, t);
    case UnaryOpType::BITWISE_NOT: return cast("~" + x);
    case UnaryOpType::CBRT: return fn("std::cbrt", x, t);
    case UnaryOpType::CEIL: return fn("std::ceil", x, t);
    case UnaryOpType::COS: return fn("std::cos", x, t);
    case UnaryOpType::COUNT_LEADING_ZEROS: return cast("ipusimClz(" + x + ")");
    case UnaryOpType::ERF: return fn("std::erf", x, t);
    case UnaryOpType::EXPONENT: return fn("std::exp", x, t);
    case UnaryOpType::EXPONENT_MINUS_ONE: return fn("std::expm1", x, t);
    case UnaryOpType::EXPONENT2: return fn("std::exp2", x, t);
    case UnaryOpType::FLOOR: return fn("std::floor", x, t);
    case UnaryOpType::GELU_ERF: return fn("ipusimGeluErf", x, t);
    case UnaryOpType::INVERSE: return cast("1 / " + x);
    case UnaryOpType::IS_FINITE: return "std::isfinite(" + x + ")";
    case UnaryOpType::IS_INF: return "std::isinf(" + x + ")";
    case UnaryOpType::IS_NAN: return "std::isnan(" + x + ")";
    case UnaryOpType::LOGARITHM: return fn("std::log", x, t);
    case UnaryOpType::LOGARITHM_ONE_PLUS: return fn("std::log1p", x, t);
    case UnaryOpType::LOGICAL_NOT: return "(!" + x + ")";
    case UnaryOpType::NEGATE: return cast("-" + x);
    case UnaryOpType::NEARBY_INT: return fn("std::nearbyint", x, t);
    case UnaryOpType::POPCOUNT: return cast("ipusimPopcount(" + x + ")");
    case UnaryOpType::RELU: return "ipusimRelu<" + T + ">(" + x + ")";
    case UnaryOpType::SIGNUM: return "ipusimSignum<" + T + ">(" + x + ")";
    case UnaryOpType::SIN: return fn("std::sin", x, t);
    case UnaryOpType::TAN: return fn("std::tan", x, t);
    case UnaryOpType::TANH: return fn("std::tanh", x, t);
    case UnaryOpType::ROUND: return fn("std::round", x, t);
    case UnaryOpType::SQRT: return fn("std::sqrt", x, t);
    case UnaryOpType::SQUARE: return "ipusimSquare<" + T + ">(" + x + ")";
    case UnaryOpType::SIGMOID: return fn("ipusimSigmoid", x, t);
    case UnaryOpType::RSQRT: return fn("ipusimRsqrt", x, t);
    case UnaryOpType::TRUNC: return fn("std::trunc", x, t);
    }
    fail(op, "unknown unary operation");
  }

  std::string binary(const expr::BinaryOp &b, const Type &ctx) const {
    Typed l = typer(b.getLHS()), r = typer(b.getRHS());
    Type t = typer.unify(expr::opTypeName(b.getOpType()), l, r);
    if (l.weak && r.weak) t = ctx;
    const std::string T = deviceType(op, t);
    const std::string x = (*this)(b.getLHS(), t), y = (*this)(b.getRHS(), t);
    auto cast = [&](const std::string &s) { return "static_cast<" + T + ">(" + s + ")"; };
    auto fn2 = [&](const std::string &f) {
      if (t == HALF) return "static_cast<half>(" + f + "(static_cast<float>(" + x + "), static_cast<float>(" + y + ")))";
      return f + "(" + x + ", " + y + ")";
    };
    switch (b.getOpType()) {
    case BinaryOpType::ADD: return cast(x + " + " + y);
    case BinaryOpType::ATAN2: return fn2("std::atan2");
    case BinaryOpType::BITWISE_AND: return cast(x + " & " + y);
    case BinaryOpType::BITWISE_OR: return cast(x + " | " + y);
    case BinaryOpType::BITWISE_XOR: return cast(x + " ^ " + y);
    case BinaryOpType::BITWISE_XNOR: return cast("~(" + x + " ^ " + y + ")");
    case BinaryOpType::DIVIDE: return cast(x + " / " + y);
    case BinaryOpType::EQUAL: return "(" + x + " == " + y + ")";
    case BinaryOpType::GREATER_THAN_EQUAL: return "(" + x + " >= " + y + ")";
    case BinaryOpType::GREATER_THAN: return "(" + x + " > " + y + ")";
    case BinaryOpType::INV_STD_DEV_TO_VARIANCE: return fn2("ipusimInvStdDevToVariance");
    case BinaryOpType::LESS_THAN_EQUAL: return "(" + x + " <= " + y + ")";
    case BinaryOpType::LOGICAL_AND: return "(" + x + " && " + y + ")";
    case BinaryOpType::LOGICAL_OR: return "(" + x + " || " + y + ")";
    case BinaryOpType::LESS_THAN: return "(" + x + " < " + y + ")";
    case BinaryOpType::MAXIMUM: return "ipusimMax<" + T + ">(" + x + ", " + y + ")";
    case BinaryOpType::MINIMUM: return "ipusimMin<" + T + ">(" + x + ", " + y + ")";
    case BinaryOpType::MULTIPLY: return cast(x + " * " + y);
    case BinaryOpType::NOT_EQUAL: return "(" + x + " != " + y + ")";
    case BinaryOpType::POWER: return fn2("std::pow");
    case BinaryOpType::REMAINDER: return isFloat(t) ? fn2("std::fmod") : cast(x + " % " + y);
    case BinaryOpType::SHIFT_LEFT: return cast(x + " << " + y);
    case BinaryOpType::SHIFT_RIGHT: return cast("ipusimShr(" + x + ", " + y + ")");
    case BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND: return cast(x + " >> " + y);
    case BinaryOpType::SUBTRACT: return cast(x + " - " + y);
    case BinaryOpType::VARIANCE_TO_INV_STD_DEV: return fn2("ipusimVarianceToInvStdDev");
    }
    fail(op, "unknown binary operation");
  }

  const std::string &op;
  const Typer &typer;
};

// The vector form of an expression whose every operand and value has one floating-point type
// (float2 or half4 lanes: the tile's 64-bit vector instructions), or "" if it has another
// operation. Operand n is the local `wN`.
std::string vectorCode(const expr::Expr &e, const std::string &V, const Typer &typer, const Type &type) {
  if (auto *p = e.getAs<expr::PlaceHolder>()) return "w" + std::to_string(p->getIndex());
  if (auto *c = e.getAs<expr::Const>()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", c->getDataAsDouble());
    const std::string lane = "static_cast<" + std::string(type == HALF ? "half" : "float") + ">(" + buf + ")";
    std::string splat = V + "{" + lane;
    for (int i = 1; i < (type == HALF ? 4 : 2); ++i) splat += ", " + lane;
    return splat + "}";
  }
  if (typer(e).type != type) return "";
  if (auto *u = e.getAs<expr::UnaryOp>()) {
    const std::string a = vectorCode(u->getArg(), V, typer, type);
    if (a.empty()) return "";
    if (u->getOpType() == UnaryOpType::NEGATE) return "(-" + a + ")";
    if (u->getOpType() == UnaryOpType::SQUARE) return "(" + a + " * " + a + ")";
    return "";
  }
  if (auto *b = e.getAs<expr::BinaryOp>()) {
    const char *sym = b->getOpType() == BinaryOpType::ADD        ? " + "
                      : b->getOpType() == BinaryOpType::SUBTRACT ? " - "
                      : b->getOpType() == BinaryOpType::MULTIPLY ? " * "
                                                                 : nullptr;
    if (!sym) return "";
    const std::string x = vectorCode(b->getLHS(), V, typer, type), y = vectorCode(b->getRHS(), V, typer, type);
    if (x.empty() || y.empty()) return "";
    return "(" + x + sym + y + ")";
  }
  return "";
}

// Functions the generated expressions call (the semantics of poplibs' operations).
const char *kPrelude = R"(#include <poplar/Vertex.hpp>
#include <cmath>
#include <ipudef.h>
template <class T> static inline T ipusimMax(T a, T b) { return a < b ? b : a; }
template <class T> static inline T ipusimMin(T a, T b) { return b < a ? b : a; }
template <class T> static inline T ipusimClamp(T x, T lo, T hi) { return x < lo ? lo : (hi < x ? hi : x); }
template <class T> static inline T ipusimAbs(T x) { return x < 0 ? static_cast<T>(-x) : x; }
template <class T> static inline T ipusimRelu(T x) { return x > T(0) ? x : T(0); }
template <class T> static inline T ipusimSignum(T x) { return static_cast<T>((T(0) < x) - (x < T(0))); }
template <class T> static inline T ipusimSquare(T x) { return static_cast<T>(x * x); }
template <class T> static inline unsigned ipusimClz(T x) {
  unsigned u = static_cast<unsigned>(x) & (~0u >> (32 - 8 * sizeof(T)));
  return u == 0 ? 8 * sizeof(T) : __builtin_clz(u) - (32 - 8 * sizeof(T));
}
template <class T> static inline unsigned ipusimPopcount(T x) {
  return __builtin_popcount(static_cast<unsigned>(x) & (~0u >> (32 - 8 * sizeof(T))));
}
template <class T> static inline T ipusimShr(T x, T n) {
  return static_cast<T>((static_cast<unsigned>(x) & (~0u >> (32 - 8 * sizeof(T)))) >> n);
}
static inline float ipusimSigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
static inline float ipusimRsqrt(float x) { return 1.0f / std::sqrt(x); }
static inline float ipusimGeluErf(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }
static inline float ipusimInvStdDevToVariance(float x, float eps) { return 1.0f / (x * x) - eps; }
static inline float ipusimVarianceToInvStdDev(float x, float eps) { return 1.0f / std::sqrt(x + eps); }
)";


} // namespace

std::string deviceType(const std::string &op, const Type &t) {
  static const std::map<std::string, std::string> types = {
      {"float", "float"},         {"half", "half"},
      {"int", "int"},             {"unsigned int", "unsigned int"},
      {"short", "short"},         {"unsigned short", "unsigned short"},
      {"bool", "bool"},           {"char", "char"},
      {"signed char", "signed char"}, {"unsigned char", "unsigned char"},
      {"long", "long"},           {"unsigned long", "unsigned long"},
      {"long long", "long long"}, {"unsigned long long", "unsigned long long"}};
  auto it = types.find(t.toString());
  if (it == types.end()) fail(op, "element type " + t.toString() + " is not supported on the tile by popops");
  return it->second;
}


void checkMapOptions(const std::string &op, const OptionFlags &options) {
  // poplibs' options of element-wise operations; the generated vertex is always one fused
  // vertex, so they change nothing here, but their values must be booleans.
  for (const auto &o : options) {
    if (o.first != "enableGenerateCodelet" && o.first != "enableExpressionOptimizations" &&
        o.first != "enableVectorBroadcastOptimisations" && o.first != "forceGenerateCodelet")
      throw invalid_option(op + ": unknown option '" + o.first +
                           "' (element-wise options: enableGenerateCodelet, enableExpressionOptimizations, "
                           "enableVectorBroadcastOptimisations, forceGenerateCodelet)");
    if (o.second != "true" && o.second != "false")
      throw invalid_option(op + ": option '" + o.first + "' must be true or false, not '" + o.second + "'");
  }
}

MapSignature mapSignature(const std::string &op, const expr::Expr &expr, const std::vector<Tensor> &ts) {
  Typer typer(op, ts);
  Typed r = typer(expr);
  std::vector<bool> used(ts.size());
  usedPlaceholders(expr, used);
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].valid()) fail(op, "tensor " + std::to_string(i + 1) + " is not a valid tensor");
  return {r.type, broadcastShape(op, ts, used)};
}

namespace {

/// A two-stream assembly vertex (binaryAsmVertex, scaledAddAsmVertex): out = f(_1, _2) of whole
/// float or half tensors, in place (_1 the output) or not. Each worker takes a contiguous run of
/// whole groups of 8 elements (sdk/Asm.hpp, emitGroupRun): `loop` emits the 64-bit vectors' loop
/// over them ($m4 _1, $m5 _2, $m6 out, $m3 vectors; sdk/Asm.hpp), and the last worker's trailing
/// elements go a 32-bit word at a time (a lone half by a read-modify-write of its word), each
/// through `word`, which emits the operation on the operands loaded into `x` and `y` and returns
/// the register holding the result. The operands are kept in other memory elements than the
/// output (poplar.md "Memory"). `field` declares a state field after the output (or is empty);
/// `setup`, where given, emits what the workers do first with it, given its word offset.
std::string twoStreamAsmVertex(Graph &graph, const std::string &prefix, const std::string &what, const Type &type,
                               bool inPlace, const std::string &field,
                               const std::function<void(std::ostream &, unsigned)> &setup,
                               const std::function<void(std::ostream &)> &loop, const char *x, const char *y,
                               const std::function<std::string(std::ostream &)> &word) {
  const std::string T = type == FLOAT ? "float" : "half";
  std::ostringstream body;
  if (!inPlace) body << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR, 8>> in1;\n";
  body << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR, 8>> in2;\n"
       << "  poplar::" << (inPlace ? "InOut" : "Output") << "<poplar::Vector<" << T
       << ", poplar::VectorLayout::SPAN, 8>> out;\n"
       << field
       << "  static const bool isExternalCodelet = true;\n"
       << "  void compute(unsigned) {}\n};\n";
  const std::string attributes = inPlace ? "[[poplar::constraint(\"elem(*in2) != elem(*out)\")]]"
                                         : "[[poplar::constraint(\"elem(*in1) != elem(*out)\", \"elem(*in2) != elem(*out)\")]]";
  const std::string preamble = "#include <poplar/Vertex.hpp>\n// " + what + "\n";
  // Word offsets in the state: in1 (not in place), in2, out's pointer and size, the field.
  const unsigned a = 0, bw = inPlace ? 0 : 1, o = inPlace ? 1 : 2;
  const unsigned log2Size = type == FLOAT ? 2 : 1, lanes = type == FLOAT ? 2 : 4;
  return ipusim::sdk::addAsmVertex(graph, prefix, "poplar::MultiVertex", preamble, body.str(), attributes,
                                   [&](std::ostream &src, const std::string &name) {
    const std::string entry = "__runCodelet_" + name;
    ipusim::sdk::emitEntry(src, entry, "worker", true);
    ipusim::sdk::emitGroupRun(src, o + 1);
    src << "  shl $m7, $m7, " << log2Size << "\n"
        << "  ld32 $m4, $mvertex_base, " << (inPlace ? o : a) << "\n"
        << "  add $m4, $m4, $m7\n"
        << "  ld32 $m5, $mvertex_base, " << bw << "\n"
        << "  add $m5, $m5, $m7\n"
        << "  ld32 $m6, $mvertex_base, " << o << "\n"
        << "  add $m6, $m6, $m7\n";
    if (setup) setup(src, o + 2);
    src << "  and $m10, $m3, " << lanes - 1 << "\n" // trailing elements
        << "  shr $m3, $m3, " << (type == FLOAT ? 1 : 2) << "\n"
        << "  shl $m11, $m3, 3\n";
    loop(src);
    src << "  brz $m10, .Lexit\n"
        << "  add $m4, $m4, $m11\n"
        << "  add $m5, $m5, $m11\n"
        << "  add $m6, $m6, $m11\n";
    // (word() writes its instructions before the store that uses its result is written.)
    auto wordStored = [&] {
      const std::string result = word(src);
      src << "  st32 " << result << ", $m6, 0\n";
    };
    const std::string loads = std::string("  ld32 ") + x + ", $m4, 0\n  ld32 " + y + ", $m5, 0\n";
    if (type == FLOAT) {
      src << loads;
      wordStored();
    } else {
      src << "  cmpult $m0, $m10, 2\n"
          << "  brnz $m0, .Lone\n"
          << loads;
      wordStored();
      src << "  add $m4, $m4, 4\n  add $m5, $m5, 4\n  add $m6, $m6, 4\n  add $m10, $m10, -2\n"
          << "  brz $m10, .Lexit\n"
          << ".Lone:\n"
          << "  ldb16 " << x << ", $m4, 0\n  ldb16 " << y << ", $m5, 0\n";
      const std::string result = word(src);
      ipusim::sdk::emitStoreLowHalf(src, result.c_str(), "$m6");
    }
    src << ".Lexit:\n  exitz $mzero\n";
    ipusim::sdk::emitEnd(src, entry);
  });
}

// _1 + _2, _1 - _2 and _1 * _2 of float or half tensors (not scalars) in assembly
// (twoStreamAsmVertex): one bundle a 64-bit vector (sdk/Asm.hpp, emitTwoStreamLoop). In place,
// _1 is the output. Returns the vertex's name, or "" when the expression is not of that form.
std::string binaryAsmVertex(Graph &graph, const expr::Expr &e, const std::vector<Tensor> &ts, const Tensor &out,
                            bool inPlace) {
  const auto *b = e.getAs<expr::BinaryOp>();
  if (!b || ts.size() < 2) return "";
  const auto *x = b->getLHS().getAs<expr::PlaceHolder>(), *y = b->getRHS().getAs<expr::PlaceHolder>();
  if (!x || !y || x->getIndex() != 1 || y->getIndex() != 2) return "";
  const Type type = out.elementType();
  if (type != FLOAT && type != HALF) return "";
  if (ts[0].elementType() != type || ts[1].elementType() != type || ts[0].shape() != out.shape() ||
      ts[1].shape() != out.shape())
    return "";
  const char *vector, *pair, *single;
  switch (b->getOpType()) {
  case BinaryOpType::ADD: vector = type == FLOAT ? "f32v2add" : "f16v4add", pair = "f16v2add", single = "f32add"; break;
  case BinaryOpType::SUBTRACT: vector = type == FLOAT ? "f32v2sub" : "f16v4sub", pair = "f16v2sub", single = "f32sub"; break;
  case BinaryOpType::MULTIPLY: vector = type == FLOAT ? "f32v2mul" : "f16v4mul", pair = "f16v2mul", single = "f32mul"; break;
  default: return "";
  }
  const char *wordOp = type == FLOAT ? single : pair;
  return twoStreamAsmVertex(
      graph, "ipusim_popops_Binary", vector, type, inPlace, "", nullptr,
      [&](std::ostream &src) { ipusim::sdk::emitTwoStreamLoop(src, "main", vector); }, "$a0", "$a1",
      [&](std::ostream &src) {
        src << "  " << wordOp << " $a0, $a0, $a1\n";
        return std::string("$a0");
      });
}

/// A scaled add's scales: the expression is a _1 + b _2, b a constant or (`bTensor`) the
/// one-element tensor _3, negated where `negate` (a subtraction).
struct ScaledAddScales {
  double a, b;
  bool bTensor, negate;
};

/// The constant c of Mul(x, c) where x is `operand`, or nothing.
std::optional<double> scaleOf(const expr::Expr &e, const std::function<bool(const expr::Expr &)> &operand) {
  const auto *m = e.getAs<expr::BinaryOp>();
  if (!m || m->getOpType() != BinaryOpType::MULTIPLY || !operand(m->getLHS())) return std::nullopt;
  const auto *c = m->getRHS().getAs<expr::Const>();
  if (!c || c->getType() != FLOAT) return std::nullopt;
  return c->getDataAsDouble();
}

/// The scales of the scaled adds that popops builds (Ops.cpp, scaledUpdate: scaledAddTo and
/// scaledSubtractFrom with constant scales, scaledAddTo with a scale tensor), a A + b B or
/// a A - b B (b negated), A and B placeholders 1 and 2 of `type` (and a tensor b placeholder 3 of
/// the same type): half ones read in float and the result cast to half; a is 1 where the
/// expression has no scale for A. Nothing for any other expression.
std::optional<ScaledAddScales> scaledAddScales(const expr::Expr &e, const Type &type) {
  const expr::Expr *sum = &e;
  if (type == HALF) {
    const auto *c = e.getAs<expr::Cast>();
    if (!c || c->getRHSType() != HALF) return std::nullopt;
    sum = &c->getLHS();
  }
  const auto *s = sum->getAs<expr::BinaryOp>();
  if (!s || (s->getOpType() != BinaryOpType::ADD && s->getOpType() != BinaryOpType::SUBTRACT)) return std::nullopt;
  // Placeholder i as the arithmetic reads it (a half one cast to float).
  auto placeholder = [&](unsigned i) {
    return [i, type](const expr::Expr &x) {
      const expr::Expr *p = &x;
      if (type == HALF) {
        const auto *c = x.getAs<expr::Cast>();
        if (!c || c->getRHSType() != FLOAT) return false;
        p = &c->getLHS();
      }
      const auto *h = p->getAs<expr::PlaceHolder>();
      return h && h->getIndex() == i;
    };
  };
  std::optional<double> a = placeholder(1)(s->getLHS()) ? std::optional<double>(1.0) : scaleOf(s->getLHS(), placeholder(1));
  if (!a) return std::nullopt;
  const bool subtract = s->getOpType() == BinaryOpType::SUBTRACT;
  if (const auto *m = s->getRHS().getAs<expr::BinaryOp>();
      m && m->getOpType() == BinaryOpType::MULTIPLY && placeholder(2)(m->getLHS()) && placeholder(3)(m->getRHS())) {
    return ScaledAddScales{*a, 0, true, subtract};
  }
  std::optional<double> b = scaleOf(s->getRHS(), placeholder(2));
  if (!b) return std::nullopt;
  return ScaledAddScales{*a, subtract ? -*b : *b, false, false};
}

// a _1 + b _2 with constant scales (scaledAddScales) of float or half tensors (not scalars) in
// assembly, as poplibs' ScaledAdd vertices do it on Mk2 ([F] its ScaledAddSupervisor_fp.S:
// f16v4mix for half, f32v2axpy for float, in a loop of ld2xst64pace): the scales go in $TAS
// once and each bundle takes a 64-bit vector of both operands (sdk/Asm.hpp,
// emitPipelinedTwoStreamLoop). The instructions give the expression's own bits: f16v4mix
// computes a x + b y with each product of halves exact in binary32 and their sum rounded once,
// then to half (simulator/src/semantics/Accumulators.cpp), as the expression does when a and b
// are halves; f32v2axpy computes b y + x, the product and the sum each rounded, the expression's
// x + b y when a is 1. A scale tensor b of the data's type (scaledAddTo's and
// scaledSubtractFrom's tensor forms: a = 1, b a half for half data) is read into $TAS when the
// vertex runs. Other scales keep the generated vertex. The last worker's trailing elements go
// through the same instructions a 32-bit word at a time (a single trailing half by a
// read-modify-write of its word). `tas` is set to the $TAS word of constant scales (the
// vertex's `scales` field), or left empty for a scale tensor (its `scale` field). Returns the
// vertex's name, or "" when the expression is not of that form.
std::string scaledAddAsmVertex(Graph &graph, const expr::Expr &e, const std::vector<Tensor> &ts, const Tensor &out,
                               bool inPlace, std::optional<uint32_t> &tas) {
  const Type type = out.elementType();
  if ((type != FLOAT && type != HALF) || ts.size() < 2) return "";
  if (ts[0].elementType() != type || ts[1].elementType() != type || ts[0].shape() != out.shape() ||
      ts[1].shape() != out.shape())
    return "";
  const std::optional<ScaledAddScales> scales = scaledAddScales(e, type);
  if (!scales || ts.size() != (scales->bTensor ? 3u : 2u)) return "";
  const char *op = type == FLOAT ? "f32v2axpy" : "f16v4mix";
  // The instruction on x = _1 and y = _2: f16v4mix takes a x + b y, f32v2axpy $TAS x + y.
  auto apply = [&](const char *dest, const char *x, const char *y) {
    return std::string(op) + " " + dest + ", " + (type == FLOAT ? y : x) + ", " + (type == FLOAT ? x : y);
  };
  // (The vertex's name is a hash of its class and `what`, not of its assembly: `what` tells the
  // forms apart.)
  auto vertex = [&](const std::string &what, const std::string &field,
                    const std::function<void(std::ostream &, unsigned)> &setup) {
    return twoStreamAsmVertex(
        graph, "ipusim_popops_ScaledAdd", std::string("scaled add, ") + op + what, type, inPlace, field, setup,
        [&](std::ostream &src) { ipusim::sdk::emitPipelinedTwoStreamLoop(src, "main", apply); }, "$a0", "$a2",
        [&](std::ostream &src) {
          // One 32-bit word of each operand through the pipeline (the lanes past it zeros): in,
          // then out by an issue of zeros.
          src << "  setzi $a1, 0\n  setzi $a3, 0\n"
              << "  " << apply("$azeros", "$a0:1", "$a2:3") << "\n  " << apply("$a4:5", "$azeros", "$azeros") << "\n";
          return std::string("$a4");
        });
  };
  if (scales->bTensor) {
    // b read from its tensor when the vertex runs, of the data's type (so a half): float $TAS is
    // b; half $TAS is a = 1.0 in bits 15:0 and b in 31:16 (ldb16 puts b in both halves). For a
    // subtraction b's sign bit (bit 31 either way) is flipped: x - b y is x + (-b) y exactly.
    if (scales->a != 1 || ts[2].elementType() != type || ts[2].numElements() != 1) return "";
    tas.reset();
    const std::string T = type == FLOAT ? "float" : "half";
    const bool negate = scales->negate;
    return vertex(negate ? ", the scale tensor negated" : ", the scale tensor", "  poplar::Input<" + T + "> scale;\n",
                  [type, negate](std::ostream &src, unsigned word) {
      src << "  ld32 $m0, $mvertex_base, " << word << "\n";
      if (type == FLOAT) {
        src << "  ld32 $a7, $m0, 0\n";
      } else {
        src << "  ldb16 $a7, $m0, 0\n"
            << "  setzi $a6, 0x3c00\n" // 1.0
            << "  sort4x16lo $a7, $a6, $a7\n";
      }
      if (negate) // bit 31 flipped: (v | m) & ~(v & m)
        src << "  or $a6, $a7, 0x80000000\n  and $a5, $a7, 0x80000000\n  andc $a7, $a6, $a5\n";
      src << "  uput $TAS, $a7\n";
    });
  }
  uint32_t word = 0;
  if (type == HALF) {
    // Both scales halves exactly (the round trip keeps them), finite.
    uint16_t h[2];
    const float f[2] = {float(scales->a), float(scales->b)};
    if (double(f[0]) != scales->a || double(f[1]) != scales->b || !std::isfinite(f[0]) || !std::isfinite(f[1]))
      return "";
    copyFloatToDeviceHalf(graph.getTarget(), f, h, 2);
    float back[2];
    copyDeviceHalfToFloat(graph.getTarget(), h, back, 2);
    if (back[0] != f[0] || back[1] != f[1]) return "";
    word = uint32_t(h[0]) | uint32_t(h[1]) << 16; // a in bits 15:0, b in 31:16
  } else {
    const float b = float(scales->b);
    if (scales->a != 1 || double(b) != scales->b || !std::isfinite(b)) return "";
    std::memcpy(&word, &b, sizeof word);
  }
  tas = word;
  return vertex("", "  unsigned scales;\n", [](std::ostream &src, unsigned at) {
    src << "  ld32 $a7, $mvertex_base, " << at << "\n  uput $TAS, $a7\n";
  });
}

// A float tensor cast to half (Cast(_1, HALF) of a whole tensor) in assembly: each worker a
// contiguous run of whole groups of 8 elements, one bundle four elements (ld2xst64pace loading
// floats 4k..4k+3 as two 64-bit words, f32v4tof16 converting the four before them, the halves of
// the four before those stored); the last worker's trailing elements in pairs, a lone one by a
// read-modify-write of its word. Returns the vertex's name, or "" for any other expression.
std::string castAsmVertex(Graph &graph, const expr::Expr &e, const std::vector<Tensor> &ts, const Tensor &out,
                          bool inPlace) {
  const auto *c = e.getAs<expr::Cast>();
  if (!c || inPlace || ts.empty() || c->getRHSType() != HALF) return "";
  const auto *x = c->getLHS().getAs<expr::PlaceHolder>();
  if (!x || x->getIndex() != 1 || ts[0].elementType() != FLOAT || out.elementType() != HALF ||
      ts[0].shape() != out.shape())
    return "";
  std::ostringstream body;
  body << "  poplar::Input<poplar::Vector<float, poplar::VectorLayout::ONE_PTR, 8>> in1;\n"
       << "  poplar::Output<poplar::Vector<half, poplar::VectorLayout::SPAN, 8>> out;\n"
       << "  static const bool isExternalCodelet = true;\n"
       << "  void compute(unsigned) {}\n};\n";
  const std::string attributes = "[[poplar::constraint(\"elem(*in1) != elem(*out)\")]]";
  const std::string preamble = "#include <poplar/Vertex.hpp>\n// f32v4tof16\n";
  // Packed addresses: the even and odd 64-bit words of the floats (each stepping two words: the
  // strides register's field 0 is 2) and the halves.
  const std::string loads = "ld2x64pace $a0:1, $a2:3, $m8:9+=, $m7, 0b0101";
  const std::string loadsStore = "ld2xst64pace $a0:3, $a4:5, $m8:9+=, $m7, 0b000101";
  const std::string store = "st64pace $a4:5, $m8:9+=, $m7, 0b00";
  const std::string convert = "f32v4tof16 $a4:5, $a0:3";
  return ipusim::sdk::addAsmVertex(graph, "ipusim_popops_CastFloatHalf", "poplar::MultiVertex", preamble, body.str(),
                                   attributes, [&](std::ostream &src, const std::string &name) {
    const std::string entry = "__runCodelet_" + name;
    ipusim::sdk::emitEntry(src, entry, "worker", true);
    ipusim::sdk::emitGroupRun(src, 2);
    src << "  ld32 $m4, $mvertex_base, 0\n"
        << "  shl $m0, $m7, 2\n"
        << "  add $m4, $m4, $m0\n"          // floats
        << "  ld32 $m5, $mvertex_base, 1\n"
        << "  shl $m0, $m7, 1\n"
        << "  add $m5, $m5, $m0\n"          // halves
        << "  and $m10, $m3, 3\n"           // trailing elements
        << "  shr $m3, $m3, 2\n"            // groups of four
        << "  shl $m11, $m3, 4\n"           // their float bytes
        << "  add $m0, $m4, 8\n"
        << "  tapack $m8:9, $m4, $m0, $m5\n"
        << "  setzi $m7, 2\n"               // stride field 0: two words
        << "  cmpult $m0, $m3, 2\n"
        << "  brnz $m0, .Lshort\n"
        << "  " << loads << "\n"
        << "  { " << loads << " ; " << convert << " }\n"
        << "  add $m0, $m3, -2\n"
        << "  .align 8\n"
        << "  { rpt $m0, 0 ; fnop }\n"
        << "  { " << loadsStore << " ; " << convert << " }\n"
        << "  { " << store << " ; " << convert << " }\n"
        << "  " << store << "\n"
        << "  bri .Ltail\n"
        << ".Lshort:\n"
        << "  .align 8\n"
        << "  { rpt $m3, 2 ; fnop }\n"
        << "  { " << loads << " ; fnop }\n"
        << "  { nop ; " << convert << " }\n"
        << "  { " << store << " ; fnop }\n"
        << ".Ltail:\n"
        << "  brz $m10, .Lexit\n"
        << "  add $m4, $m4, $m11\n"
        << "  shr $m0, $m11, 1\n"
        << "  add $m5, $m5, $m0\n"
        << "  cmpult $m0, $m10, 2\n"
        << "  brnz $m0, .Lone\n"
        << "  ld64 $a0:1, $m4, 0\n  f32v2tof16 $a2, $a0:1\n  st32 $a2, $m5, 0\n"
        << "  add $m4, $m4, 8\n  add $m5, $m5, 4\n  add $m10, $m10, -2\n"
        << "  brz $m10, .Lexit\n"
        << ".Lone:\n"
        << "  ld32 $a0, $m4, 0\n  f32tof16 $a0, $a0\n";
    ipusim::sdk::emitStoreLowHalf(src, "$a0", "$m5");
    src << ".Lexit:\n  exitz $mzero\n";
    ipusim::sdk::emitEnd(src, entry);
  });
}

} // namespace

namespace {

/// The output's flat elements as runs in memory order ((variable, offset) sorted, adjacent runs
/// merged), as (view offset, length) pairs. An element-wise operation may visit the elements
/// in any order as long as every operand follows the same one: a transposed or rearranged view
/// (the AMP's weight chunks seen as [k][n], a block tensor seen row by row) then gives a vertex
/// a long run instead of one a row.
std::vector<std::pair<std::size_t, std::size_t>> memoryOrder(const Tensor &outFlat) {
  struct Run {
    unsigned var;
    std::size_t begin, end, at;
  };
  std::vector<Run> runs;
  std::size_t at = 0;
  for (const VariableInterval &r : outFlat.getVarRegions()) {
    runs.push_back({r.var.getId(), r.interval.begin(), r.interval.end(), at});
    at += r.interval.size();
  }
  std::stable_sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) {
    return a.var != b.var ? a.var < b.var : a.begin < b.begin;
  });
  std::vector<std::pair<std::size_t, std::size_t>> order;
  for (const Run &r : runs) {
    if (!order.empty() && order.back().first + order.back().second == r.at) order.back().second += r.end - r.begin;
    else
      order.emplace_back(r.at, r.end - r.begin);
  }
  return order;
}

/// t's flat elements in `order`.
Tensor inOrder(const Tensor &t, const std::vector<std::pair<std::size_t, std::size_t>> &order) {
  std::vector<Tensor> parts;
  for (const auto &[at, n] : order) parts.push_back(t.slice(at, at + n));
  return concat(parts);
}

} // namespace

Tensor inMemoryOrder(const Tensor &t) {
  const Tensor flat = t.flatten();
  return inOrder(flat, memoryOrder(flat));
}

std::vector<std::pair<unsigned, std::vector<Interval>>> vertexRegions(const std::vector<std::vector<Interval>> &mapping) {
  std::vector<std::pair<unsigned, std::vector<Interval>>> r;
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    if (mapping[tile].size() > kRegionsPerVertex) r.emplace_back(unsigned(tile), mapping[tile]);
    else
      for (const Interval &i : mapping[tile]) r.emplace_back(unsigned(tile), std::vector<Interval>{i});
  }
  return r;
}

Tensor regionsOf(const Tensor &flat, const std::vector<Interval> &regions) {
  if (regions.size() == 1) return flat.slice(regions[0].begin(), regions[0].end());
  std::vector<Tensor> parts;
  for (const Interval &i : regions) parts.push_back(flat.slice(i.begin(), i.end()));
  return concat(parts);
}

void addMapVertices(Graph &graph, const std::string &op, const expr::Expr &expr, const std::vector<Tensor> &tsIn,
                    const Tensor &outIn, bool inPlace, ComputeSet cs) {
  // Visit the elements in the output's memory order when that is not its view order.
  Tensor out = outIn;
  std::vector<Tensor> ts = tsIn;
  if (outIn.getVarRegions().size() > 1) {
    const Tensor outFlat = outIn.flatten();
    const auto order = memoryOrder(outFlat);
    bool identity = true;
    for (std::size_t i = 0, at = 0; i < order.size() && identity; at += order[i].second, ++i) identity = order[i].first == at;
    if (!identity) {
      out = inOrder(outFlat, order);
      for (Tensor &t : ts)
        if (t.valid() && t.numElements() != 1) t = inOrder(broadcastTo(t, outIn.shape()).flatten(), order);
    }
  }
  Typer typer(op, ts);
  const Type resultType = typer(expr).type;
  std::vector<bool> used(ts.size());
  usedPlaceholders(expr, used);
  const std::vector<std::size_t> shape = out.shape();
  if (out.numElements() == 0) return;
  // The assembly vertices (whole same-shaped operands): one a region of the output on each tile,
  // in1 (not in place) and in2 the operands' same elements.
  std::optional<uint32_t> tas;
  std::string asmVertex = castAsmVertex(graph, expr, ts, out, inPlace);
  if (asmVertex.empty()) asmVertex = binaryAsmVertex(graph, expr, ts, out, inPlace);
  const bool scaledAdd = asmVertex.empty() && !(asmVertex = scaledAddAsmVertex(graph, expr, ts, out, inPlace, tas)).empty();
  if (!asmVertex.empty()) {
    const Tensor outFlat = out.flatten(), x = ts[0].flatten();
    const bool second = ts.size() > 1 && used[1];
    const Tensor y = second ? ts[1].flatten() : Tensor();
    for (const auto &[tile, regions] : vertexRegions(graph.getTileMapping(outFlat))) {
      VertexRef v = graph.addVertex(cs, asmVertex);
      graph.connect(v["out"], regionsOf(outFlat, regions));
      if (!inPlace) graph.connect(v["in1"], regionsOf(x, regions));
      if (second) graph.connect(v["in2"], regionsOf(y, regions));
      if (scaledAdd && tas) graph.setInitialValue(v["scales"], *tas);
      if (scaledAdd && !tas) graph.connect(v["scale"], ts[2].reshape({}));
      graph.setTileMapping(v, tile);
    }
    return;
  }

  // The vertex type: an operand of one element is a scalar field (read once), the others are
  // vectors beside the output; in place, _1 is the output itself.
  std::ostringstream fields, loads, scalars, vloads, vpointers;
  const std::string outT = deviceType(op, out.elementType());
  std::vector<bool> scalar(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!used[i]) continue;
    const std::string T = deviceType(op, ts[i].elementType());
    const std::string n = std::to_string(i + 1);
    if (inPlace && i == 0) {
      loads << "      const " << T << " v1 = out[i];\n";
      vloads << "      const V w1 = po[k];\n";
      continue;
    }
    scalar[i] = ts[i].numElements() == 1;
    if (scalar[i]) {
      fields << "  poplar::Input<" << T << "> in" << n << ";\n";
      scalars << "    const " << T << " v" << n << " = in" << n << ";\n";
      vpointers << "      const V w" << n << " = V{v" << n << ", v" << n
                << (ts[i].elementType() == HALF ? ", v" + n + ", v" + n : std::string()) << "};\n";
    } else {
      fields << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR, 8>> in" << n << ";\n";
      loads << "      const " << T << " v" << n << " = in" << n << "[i];\n";
      vpointers << "      const V *p" << n << " = reinterpret_cast<const V *>(&in" << n << "[begin]);\n";
      vloads << "      const V w" << n << " = p" << n << "[k];\n";
    }
  }
  CodeGen gen(op, typer);
  const std::string value = gen(expr, resultType);
  // float and half expressions of +, -, * alone run 64 bits at a time (float2, half4): the
  // workers' runs start on 64-bit boundaries of 8-byte aligned fields, so every vector access
  // is aligned; the last few elements go one by one.
  bool sameType = resultType == FLOAT || resultType == HALF;
  for (std::size_t i = 0; i < ts.size(); ++i) sameType &= !used[i] || ts[i].elementType() == resultType;
  const std::string V = resultType == HALF ? "half4" : "float2";
  const std::string vectorValue = sameType ? vectorCode(expr, V, typer, resultType) : "";
  std::string vectorLoop;
  if (!vectorValue.empty()) {
    const unsigned width = resultType == HALF ? 4 : 2;
    std::ostringstream l;
    l << "    unsigned i = begin;\n    {\n      typedef " << V << " V;\n"
      << "      V *po = reinterpret_cast<V *>(&out[begin]);\n" << vpointers.str()
      << "      const unsigned groups = (end - begin) / " << width << ";\n"
      << "      for (unsigned k = 0; k < groups; ++k) {\n" << vloads.str() << "        po[k] = " << vectorValue
      << ";\n      }\n      i += groups * " << width << ";\n    }\n";
    vectorLoop = l.str();
  }
  const unsigned grain = std::max(1u, 8 / unsigned(graph.getTarget().getTypeSize(out.elementType())));
  std::ostringstream body;
  body << fields.str() << "  poplar::" << (inPlace ? "InOut" : "Output") << "<poplar::Vector<" << outT
       << ", poplar::VectorLayout::SPAN, 8>> out;\n"
       << "  void compute(unsigned wid) {\n"
       // Each worker a contiguous run of whole 64-bit groups (2 floats, 4 halves ...): no two
       // workers write one word, and the vector loop's accesses are aligned. Groups rather than
       // runs of 8 elements, so that a short tensor is shared by all six (10 floats: two a
       // worker, where worker 0 had taken 8: the MNIST example's AdamW update of them 1,502 ->
       // 678 cycles on one tile).
       << "    const unsigned n = out.size();\n"
       << "    const unsigned per = (n + " << 6 * grain - 1 << ") / " << 6 * grain << " * " << grain << ";\n"
       << "    const unsigned begin = wid * per < n ? wid * per : n;\n"
       << "    const unsigned end = begin + per < n ? begin + per : n;\n"
       << scalars.str() << (vectorLoop.empty() ? "    for (unsigned i = begin; i < end; ++i) {\n"
                                               : vectorLoop + "    for (; i < end; ++i) {\n")
       << loads.str() << "      out[i] = static_cast<" << outT << ">(" << value << ");\n"
       << "    }\n  }\n};\n";
  const std::string name = ipusim::sdk::addGeneratedVertex(graph, "ipusim_popops_Map", "poplar::MultiVertex", kPrelude, body.str());

  // One vertex per region of the output on each tile.
  const Tensor outFlat = out.flatten();
  std::vector<Tensor> operands(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (used[i] && !(inPlace && i == 0)) operands[i] = scalar[i] ? ts[i].reshape({}) : broadcastTo(ts[i], shape).flatten();
  for (const auto &[tile, regions] : vertexRegions(graph.getTileMapping(outFlat))) {
    VertexRef v = graph.addVertex(cs, name);
    graph.connect(v["out"], regionsOf(outFlat, regions));
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (!operands[i].valid()) continue;
      graph.connect(v["in" + std::to_string(i + 1)], scalar[i] ? operands[i] : regionsOf(operands[i], regions));
    }
    graph.setTileMapping(v, tile);
  }
}

} // namespace detail

namespace {

std::string opName(const char *fn, const expr::Expr &e) {
  std::ostringstream s;
  s << "popops::" << fn << "(" << e << ")";
  return s.str();
}

Tensor createOutput(Graph &graph, const std::string &op, const detail::MapSignature &sig, const std::vector<Tensor> &ts,
                    const DebugContext &dc) {
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  for (const Tensor &t : ts)
    if (t.valid() && t.shape() == sig.shape) return graph.clone(sig.type, t, name);
  Tensor out = graph.addVariable(sig.type, sig.shape, name);
  poputil::mapTensorLinearly(graph, out);
  return out;
}

} // namespace

Tensor map(Graph &graph, const expr::Expr &expr, const std::vector<Tensor> &ts, program::Sequence &prog,
           const DebugContext &debugContext, const OptionFlags &options) {
  const std::string op = opName("map", expr);
  detail::checkMapOptions(op, options);
  const detail::MapSignature sig = detail::mapSignature(op, expr, ts);
  Tensor out = createOutput(graph, op, sig, ts, debugContext);
  ComputeSet cs = graph.addComputeSet(debugContext.getPathName().empty() ? op : debugContext.getPathName());
  detail::addMapVertices(graph, op, expr, ts, out, false, cs);
  prog.add(program::Execute(cs));
  return out;
}

void mapInPlace(Graph &graph, const expr::Expr &expr, const std::vector<Tensor> &ts, program::Sequence &prog,
                const DebugContext &debugContext, const OptionFlags &options) {
  const std::string op = opName("mapInPlace", expr);
  detail::checkMapOptions(op, options);
  if (ts.empty()) throw poplar_error(op + ": no tensor to update in place");
  const detail::MapSignature sig = detail::mapSignature(op, expr, ts);
  if (ts[0].shape() != sig.shape)
    throw poplar_error(op + ": the tensor updated in place has shape " + detail::shapeString(ts[0].shape()) +
                       " but the result's is " + detail::shapeString(sig.shape));
  if (ts[0].elementType() != sig.type)
    throw poplar_error(op + ": the tensor updated in place is " + ts[0].elementType().toString() +
                       " but the result is " + sig.type.toString());
  if (ts[0].containsAliases()) throw poplar_error(op + ": the tensor updated in place contains aliases");
  ComputeSet cs = graph.addComputeSet(debugContext.getPathName().empty() ? op : debugContext.getPathName());
  detail::addMapVertices(graph, op, expr, ts, ts[0], true, cs);
  prog.add(program::Execute(cs));
}

void mapWithOutput(Graph &graph, const expr::Expr &expr, const std::vector<Tensor> &ts, const Tensor &out,
                   program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &options) {
  const std::string op = opName("mapWithOutput", expr);
  detail::checkMapOptions(op, options);
  const detail::MapSignature sig = detail::mapSignature(op, expr, ts);
  if (out.shape() != sig.shape)
    throw poplar_error(op + ": the output has shape " + detail::shapeString(out.shape()) + " but the result's is " +
                       detail::shapeString(sig.shape));
  if (out.elementType() != sig.type)
    throw poplar_error(op + ": the output is " + out.elementType().toString() + " but the result is " +
                       sig.type.toString());
  if (out.containsAliases()) throw poplar_error(op + ": the output contains aliases");
  ComputeSet cs = graph.addComputeSet(debugContext.getPathName().empty() ? op : debugContext.getPathName());
  detail::addMapVertices(graph, op, expr, ts, out, false, cs);
  prog.add(program::Execute(cs));
}

} // namespace popops
