// popops' expressions: names, printing and structural equality.
#include <popops/Expr.hpp>

#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace popops {
namespace expr {

Expr::~Expr() = default;

std::ostream &operator<<(std::ostream &os, const Expr &expr) {
  expr.print(os, 0, false);
  return os;
}

namespace {

// The operation's name in poplibs' enumerator spelling, as it appears in printed expressions.
const char *opName(UnaryOpType t) {
  static const char *names[] = {"ABSOLUTE", "ASIN", "BITWISE_NOT", "CBRT", "CEIL", "COS", "COUNT_LEADING_ZEROS",
                                "ERF", "EXPONENT", "EXPONENT_MINUS_ONE", "EXPONENT2", "FLOOR", "GELU_ERF",
                                "INVERSE", "IS_FINITE", "IS_INF", "IS_NAN", "LOGARITHM", "LOGARITHM_ONE_PLUS",
                                "LOGICAL_NOT", "NEGATE", "NEARBY_INT", "POPCOUNT", "RELU", "SIGNUM", "SIN", "TAN",
                                "TANH", "ROUND", "SQRT", "SQUARE", "SIGMOID", "RSQRT", "TRUNC"};
  return names[static_cast<int>(t)];
}
const char *opName(BinaryOpType t) {
  static const char *names[] = {"ADD", "ATAN2", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "BITWISE_XNOR", "DIVIDE",
                                "EQUAL", "GREATER_THAN_EQUAL", "GREATER_THAN", "INV_STD_DEV_TO_VARIANCE",
                                "LESS_THAN_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "LESS_THAN", "MAXIMUM", "MINIMUM",
                                "MULTIPLY", "NOT_EQUAL", "POWER", "REMAINDER", "SHIFT_LEFT", "SHIFT_RIGHT",
                                "SHIFT_RIGHT_SIGN_EXTEND", "SUBTRACT", "VARIANCE_TO_INV_STD_DEV"};
  return names[static_cast<int>(t)];
}
const char *opName(TernaryOpType t) { return t == TernaryOpType::CLAMP ? "CLAMP" : "SELECT"; }

void indentBy(std::ostream &os, unsigned indent, bool pretty) {
  if (pretty) os << "\n" << std::string(2 * indent, ' ');
}

} // namespace

std::string opTypeName(UnaryOpType t) { return opName(t); }
std::string opTypeName(BinaryOpType t) { return opName(t); }
std::string opTypeName(TernaryOpType t) { return opName(t); }

double Const::getDataAsDouble() const {
  const char *p = data.data();
  auto as = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  if (typeTraits.isFloat) return typeTraits.size == 4 ? as(float()) : typeTraits.size == 8 ? as(double()) : as((long double)0);
  if (typeTraits.size == 1) return typeTraits.isSigned ? as(int8_t()) : as(uint8_t());
  if (typeTraits.size == 2) return typeTraits.isSigned ? as(int16_t()) : as(uint16_t());
  if (typeTraits.size == 4) return typeTraits.isSigned ? as(int32_t()) : as(uint32_t());
  return typeTraits.isSigned ? as(int64_t()) : as(uint64_t());
}

std::uint64_t Const::getDataForUnsignedIntegral() const {
  std::uint64_t v = 0;
  std::memcpy(&v, data.data(), typeTraits.size < 8 ? typeTraits.size : 8);
  return v;
}

std::string Const::printValue() const {
  char buf[64];
  if (typeTraits.isFloat)
    std::snprintf(buf, sizeof buf, "%.9g", getDataAsDouble());
  else if (typeTraits.isSigned)
    std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<int64_t>(getDataAsDouble()));
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64, getDataForUnsignedIntegral());
  return buf;
}

std::string Const::name(const std::vector<poplar::Tensor> &) const { return printValue(); }
bool Const::deepEquals(const Expr &other) const {
  const Const *o = other.getAs<Const>();
  return o && o->type == type && o->typeTraits.size == typeTraits.size && o->data == data;
}
void Const::print(std::ostream &os, unsigned indent, bool pretty) const {
  indentBy(os, indent, pretty);
  os << printValue();
}

std::string Cast::name(const std::vector<poplar::Tensor> &inputs) const {
  return "Cast_" + a->name(inputs) + "_" + bType.toString();
}
bool Cast::deepEquals(const Expr &other) const {
  const Cast *o = other.getAs<Cast>();
  return o && o->bType == bType && a->deepEquals(*o->a);
}
void Cast::print(std::ostream &os, unsigned indent, bool pretty) const {
  indentBy(os, indent, pretty);
  os << "Cast(";
  a->print(os, indent + 1, pretty);
  os << ", " << bType.toString() << ")";
}

std::string PlaceHolder::name(const std::vector<poplar::Tensor> &inputs) const {
  if (index >= 1 && index <= inputs.size()) return inputs[index - 1].elementType().toString() + "_" + std::to_string(index);
  return "_" + std::to_string(index);
}
bool PlaceHolder::deepEquals(const Expr &other) const {
  const PlaceHolder *o = other.getAs<PlaceHolder>();
  return o && o->index == index;
}
void PlaceHolder::print(std::ostream &os, unsigned indent, bool pretty) const {
  indentBy(os, indent, pretty);
  os << "_" << index;
}

std::string UnaryOp::name(const std::vector<poplar::Tensor> &inputs) const {
  return std::string(opName(type)) + "_" + a->name(inputs);
}
bool UnaryOp::deepEquals(const Expr &other) const {
  const UnaryOp *o = other.getAs<UnaryOp>();
  return o && o->type == type && a->deepEquals(*o->a);
}
void UnaryOp::print(std::ostream &os, unsigned indent, bool pretty) const {
  indentBy(os, indent, pretty);
  os << opName(type) << "(";
  a->print(os, indent + 1, pretty);
  os << ")";
}

std::string BinaryOp::name(const std::vector<poplar::Tensor> &inputs) const {
  return std::string(opName(type)) + "_" + exprName(inputs);
}
bool BinaryOp::deepEquals(const Expr &other) const {
  const BinaryOp *o = other.getAs<BinaryOp>();
  return o && o->type == type && a->deepEquals(*o->a) && b->deepEquals(*o->b);
}
void BinaryOp::print(std::ostream &os, unsigned indent, bool pretty) const {
  indentBy(os, indent, pretty);
  os << opName(type) << "(";
  a->print(os, indent + 1, pretty);
  os << ", ";
  b->print(os, indent + 1, pretty);
  os << ")";
}

std::string TernaryOp::name(const std::vector<poplar::Tensor> &inputs) const {
  return std::string(opName(type)) + "_" + exprName(inputs);
}
bool TernaryOp::deepEquals(const Expr &other) const {
  const TernaryOp *o = other.getAs<TernaryOp>();
  return o && o->type == type && a->deepEquals(*o->a) && b->deepEquals(*o->b) && c->deepEquals(*o->c);
}
void TernaryOp::print(std::ostream &os, unsigned indent, bool pretty) const {
  indentBy(os, indent, pretty);
  os << opName(type) << "(";
  a->print(os, indent + 1, pretty);
  os << ", ";
  b->print(os, indent + 1, pretty);
  os << ", ";
  c->print(os, indent + 1, pretty);
  os << ")";
}

} // namespace expr
} // namespace popops
