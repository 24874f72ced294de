// ipusim's Poplar SDK: popops' element-wise expressions. An expression is a tree of placeholders
// (_1, _2 ... the tensors given to popops::map), constants, casts and unary, binary and ternary
// operations; popops::map compiles the whole tree into one vertex (docs/popops.md).
#ifndef IPUSIM_POPOPS_EXPR_HPP
#define IPUSIM_POPOPS_EXPR_HPP

#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popops/ExprOp.hpp>

#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace popops {
namespace expr {

class Expr {
public:
  virtual ~Expr();
  template <class T> bool isA() const { return dynamic_cast<const T *>(this) != nullptr; }
  template <class T> T *getAs() { return dynamic_cast<T *>(this); }
  template <class T> const T *getAs() const { return dynamic_cast<const T *>(this); }
  virtual std::unique_ptr<Expr> clone() const = 0;
  /// A name for the expression over these inputs (used in vertex and debug names).
  virtual std::string name(const std::vector<poplar::Tensor> &inputs) const = 0;
  virtual bool deepEquals(const Expr &other) const = 0;
  virtual void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const = 0;
};

std::ostream &operator<<(std::ostream &os, const Expr &expr);

/// The base of each kind of expression (kept for programs that name it).
template <class T> class ExprType : public Expr {};

/// Any expression, by value: for building expressions up in variables.
class Any {
  std::unique_ptr<Expr> expr;

public:
  Any(const Expr &e) : expr(e.clone()) {}
  Any(const Any &o) : expr(o.expr->clone()) {}
  Any(Any &&) = default;
  Any &operator=(const Any &o) {
    expr = o.expr->clone();
    return *this;
  }
  Any &operator=(Any &&) = default;
  operator Expr &() { return *expr; }
  operator const Expr &() const { return *expr; }
  std::string name(const std::vector<poplar::Tensor> &inputs) const { return expr->name(inputs); }
};

/// A constant. Its type is the C++ type's device type (float, int ...; ConstHalf: half); in an
/// operation with a typed operand it takes that operand's type.
class Const : public ExprType<Const> {
  poplar::TypeTraits typeTraits;
  poplar::Type type;
  std::vector<char> data;

  static poplar::Type deviceTypeOf(double) { return poplar::FLOAT; }
  static poplar::Type deviceTypeOf(long double) { return poplar::FLOAT; }
  template <typename T> static poplar::Type deviceTypeOf(T) { return poplar::equivalent_device_type<T>().value; }

protected:
  template <typename T> Const(T x, bool isHalf) : typeTraits(poplar::TypeTraits::make<T>()) {
    static_assert(std::is_integral<T>::value || std::is_floating_point<T>::value,
                  "a constant expression is an integer or a floating-point value");
    // A double constant is a float on the tile (it has no double type).
    type = isHalf ? poplar::HALF : deviceTypeOf(x);
    data.resize(sizeof(T));
    std::memcpy(data.data(), &x, sizeof(T));
  }

public:
  template <typename T, typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<T>(), T>::type>
  Const(T x) : Const(x, false) {}
  Const(poplar::TypeTraits traits, poplar::Type type, const char *bytes)
      : typeTraits(traits), type(type), data(bytes, bytes + traits.size) {}
  char *getData() const { return const_cast<char *>(data.data()); }
  const poplar::TypeTraits &getTypeTraits() const { return typeTraits; }
  const poplar::Type &getType() const { return type; }
  /// The value as the host's C++ type held it, printed exactly.
  std::string printValue() const;
  double getDataAsDouble() const;
  std::uint64_t getDataForUnsignedIntegral() const;
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Const(*this)); }
  std::string name(const std::vector<poplar::Tensor> &) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;
};

/// A constant of type half.
class ConstHalf : public Const {
public:
  ConstHalf(float x) : Const(x, true) {}
};

inline ConstHalf operator"" _half(long double x) { return ConstHalf(static_cast<float>(x)); }

/// The value of an expression converted to another type.
class Cast : public ExprType<Cast> {
  std::unique_ptr<Expr> a;
  poplar::Type bType;

public:
  Cast(const Expr &a, const poplar::Type &bType) : a(a.clone()), bType(bType) {}
  Cast(const Cast &o) : Cast(*o.a, o.bType) {}
  Cast(Cast &&) = default;
  Cast &operator=(const Cast &o) {
    a = o.a->clone();
    bType = o.bType;
    return *this;
  }
  Cast &operator=(Cast &&) = default;
  const Expr &getLHS() const { return *a; }
  const poplar::Type &getRHSType() const { return bType; }
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Cast(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;
};

/// The element of the index-th tensor (counted from 1) given to map.
class PlaceHolder : public ExprType<PlaceHolder> {
  unsigned index;

public:
  PlaceHolder(unsigned index) : index(index) {}
  unsigned getIndex() const { return index; }
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new PlaceHolder(index)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;
};

const PlaceHolder _1(1), _2(2), _3(3), _4(4), _5(5), _6(6), _7(7), _8(8), _9(9), _10(10);
const PlaceHolder _11(11), _12(12), _13(13), _14(14), _15(15), _16(16), _17(17), _18(18), _19(19), _20(20);

class UnaryOp : public ExprType<UnaryOp> {
  UnaryOpType type;
  std::unique_ptr<Expr> a;

public:
  UnaryOp(UnaryOpType type, const Expr &a) : type(type), a(a.clone()) {}
  UnaryOp(const UnaryOp &o) : UnaryOp(o.type, *o.a) {}
  UnaryOp(UnaryOp &&) = default;
  UnaryOp &operator=(const UnaryOp &o) {
    type = o.type;
    a = o.a->clone();
    return *this;
  }
  UnaryOp &operator=(UnaryOp &&) = default;
  UnaryOpType getOpType() const { return type; }
  const Expr &getArg() const { return *a; }
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new UnaryOp(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  std::string exprName(const std::vector<poplar::Tensor> &inputs) const { return a->name(inputs); }
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;
};

class BinaryOp : public ExprType<BinaryOp> {
  BinaryOpType type;
  std::unique_ptr<Expr> a, b;

public:
  BinaryOp(BinaryOpType type, const Expr &a, const Expr &b) : type(type), a(a.clone()), b(b.clone()) {}
  BinaryOp(const BinaryOp &o) : BinaryOp(o.type, *o.a, *o.b) {}
  BinaryOp(BinaryOp &&) = default;
  BinaryOp &operator=(const BinaryOp &o) {
    type = o.type;
    a = o.a->clone();
    b = o.b->clone();
    return *this;
  }
  BinaryOp &operator=(BinaryOp &&) = default;
  BinaryOpType getOpType() const { return type; }
  const Expr &getLHS() const { return *a; }
  const Expr &getRHS() const { return *b; }
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new BinaryOp(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  std::string exprName(const std::vector<poplar::Tensor> &inputs) const {
    return a->name(inputs) + "_" + b->name(inputs);
  }
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;
};

class TernaryOp : public ExprType<TernaryOp> {
  TernaryOpType type;
  std::unique_ptr<Expr> a, b, c;

public:
  TernaryOp(TernaryOpType type, const Expr &a, const Expr &b, const Expr &c)
      : type(type), a(a.clone()), b(b.clone()), c(c.clone()) {}
  TernaryOp(const TernaryOp &o) : TernaryOp(o.type, *o.a, *o.b, *o.c) {}
  TernaryOp(TernaryOp &&) = default;
  TernaryOp &operator=(const TernaryOp &o) {
    type = o.type;
    a = o.a->clone();
    b = o.b->clone();
    c = o.c->clone();
    return *this;
  }
  TernaryOp &operator=(TernaryOp &&) = default;
  TernaryOpType getOpType() const { return type; }
  const Expr &getArg0() const { return *a; }
  const Expr &getArg1() const { return *b; }
  const Expr &getArg2() const { return *c; }
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new TernaryOp(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  std::string exprName(const std::vector<poplar::Tensor> &inputs) const {
    return a->name(inputs) + "_" + b->name(inputs) + "_" + c->name(inputs);
  }
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;
};

// The named operations: a class per operation and, where C++ has one, its operator.
#define IPUSIM_POPOPS_UNARY_EXPR(Name, Op)                                                                   \
  class Name : public UnaryOp {                                                                              \
  public:                                                                                                    \
    Name(const Expr &a) : UnaryOp(UnaryOpType::Op, a) {}                                                     \
  };
#define IPUSIM_POPOPS_UNARY_EXPR_SYM(Name, Op, Sym)                                                          \
  IPUSIM_POPOPS_UNARY_EXPR(Name, Op)                                                                         \
  inline Name operator Sym(const Expr &a) { return Name(a); }

IPUSIM_POPOPS_UNARY_EXPR(Abs, ABSOLUTE)
IPUSIM_POPOPS_UNARY_EXPR(Asin, ASIN)
IPUSIM_POPOPS_UNARY_EXPR_SYM(BitwiseNot, BITWISE_NOT, ~)
IPUSIM_POPOPS_UNARY_EXPR(Cbrt, CBRT)
IPUSIM_POPOPS_UNARY_EXPR(Ceil, CEIL)
IPUSIM_POPOPS_UNARY_EXPR(Cos, COS)
IPUSIM_POPOPS_UNARY_EXPR(Erf, ERF)
IPUSIM_POPOPS_UNARY_EXPR(Exp, EXPONENT)
IPUSIM_POPOPS_UNARY_EXPR(Expm1, EXPONENT_MINUS_ONE)
IPUSIM_POPOPS_UNARY_EXPR(Exp2, EXPONENT2)
IPUSIM_POPOPS_UNARY_EXPR(Floor, FLOOR)
IPUSIM_POPOPS_UNARY_EXPR(GeluErf, GELU_ERF)
IPUSIM_POPOPS_UNARY_EXPR(Inv, INVERSE)
IPUSIM_POPOPS_UNARY_EXPR(IsFinite, IS_FINITE)
IPUSIM_POPOPS_UNARY_EXPR(IsInf, IS_INF)
IPUSIM_POPOPS_UNARY_EXPR(IsNaN, IS_NAN)
IPUSIM_POPOPS_UNARY_EXPR(Log, LOGARITHM)
IPUSIM_POPOPS_UNARY_EXPR(Log1p, LOGARITHM_ONE_PLUS)
IPUSIM_POPOPS_UNARY_EXPR_SYM(Not, LOGICAL_NOT, !)
IPUSIM_POPOPS_UNARY_EXPR_SYM(Neg, NEGATE, -)
IPUSIM_POPOPS_UNARY_EXPR(NearbyInt, NEARBY_INT)
IPUSIM_POPOPS_UNARY_EXPR(Relu, RELU)
IPUSIM_POPOPS_UNARY_EXPR(Signum, SIGNUM)
IPUSIM_POPOPS_UNARY_EXPR(Sin, SIN)
IPUSIM_POPOPS_UNARY_EXPR(Tan, TAN)
IPUSIM_POPOPS_UNARY_EXPR(Tanh, TANH)
IPUSIM_POPOPS_UNARY_EXPR(Round, ROUND)
IPUSIM_POPOPS_UNARY_EXPR(Trunc, TRUNC)
IPUSIM_POPOPS_UNARY_EXPR(Sqrt, SQRT)
IPUSIM_POPOPS_UNARY_EXPR(Square, SQUARE)
IPUSIM_POPOPS_UNARY_EXPR(Sigmoid, SIGMOID)
IPUSIM_POPOPS_UNARY_EXPR(Rsqrt, RSQRT)

#define IPUSIM_POPOPS_BINARY_EXPR(Name, Op)                                                                  \
  class Name : public BinaryOp {                                                                             \
  public:                                                                                                    \
    Name(const Expr &a, const Expr &b) : BinaryOp(BinaryOpType::Op, a, b) {}                                 \
  };
#define IPUSIM_POPOPS_BINARY_EXPR_SYM(Name, Op, Sym)                                                         \
  IPUSIM_POPOPS_BINARY_EXPR(Name, Op)                                                                        \
  template <typename T, typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<T>()>::type>     \
  inline Name operator Sym(const T &a, const Expr &b) {                                                      \
    return Name(Const(a), b);                                                                                \
  }                                                                                                          \
  template <typename T, typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<T>()>::type>     \
  inline Name operator Sym(const Expr &a, const T &b) {                                                      \
    return Name(a, Const(b));                                                                                \
  }                                                                                                          \
  inline Name operator Sym(const Expr &a, const Expr &b) { return Name(a, b); }

IPUSIM_POPOPS_BINARY_EXPR_SYM(Add, ADD, +)
IPUSIM_POPOPS_BINARY_EXPR(Atan2, ATAN2)
IPUSIM_POPOPS_BINARY_EXPR_SYM(BitwiseAnd, BITWISE_AND, &)
IPUSIM_POPOPS_BINARY_EXPR_SYM(BitwiseOr, BITWISE_OR, |)
IPUSIM_POPOPS_BINARY_EXPR_SYM(BitwiseXor, BITWISE_XOR, ^)
IPUSIM_POPOPS_BINARY_EXPR(BitwiseXnor, BITWISE_XNOR)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Divide, DIVIDE, /)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Equal, EQUAL, ==)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Gte, GREATER_THAN_EQUAL, >=)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Gt, GREATER_THAN, >)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Lte, LESS_THAN_EQUAL, <=)
IPUSIM_POPOPS_BINARY_EXPR_SYM(And, LOGICAL_AND, &&)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Or, LOGICAL_OR, ||)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Lt, LESS_THAN, <)
IPUSIM_POPOPS_BINARY_EXPR(InvStdDevToVariance, INV_STD_DEV_TO_VARIANCE)
IPUSIM_POPOPS_BINARY_EXPR(Max, MAXIMUM)
IPUSIM_POPOPS_BINARY_EXPR(Min, MINIMUM)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Mul, MULTIPLY, *)
IPUSIM_POPOPS_BINARY_EXPR_SYM(NotEqual, NOT_EQUAL, !=)
IPUSIM_POPOPS_BINARY_EXPR(Pow, POWER)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Rem, REMAINDER, %)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Shl, SHIFT_LEFT, <<)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Shr, SHIFT_RIGHT, >>)
IPUSIM_POPOPS_BINARY_EXPR(ShrSE, SHIFT_RIGHT_SIGN_EXTEND)
IPUSIM_POPOPS_BINARY_EXPR_SYM(Sub, SUBTRACT, -)
IPUSIM_POPOPS_BINARY_EXPR(VarianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)

/// Select(a, b, c): c ? a : b, with c of type bool.
class Select : public TernaryOp {
public:
  Select(const Expr &a, const Expr &b, const Expr &c) : TernaryOp(TernaryOpType::SELECT, a, b, c) {}
};
/// Clamp(a, b, c): a limited to [b, c].
class Clamp : public TernaryOp {
public:
  Clamp(const Expr &a, const Expr &b, const Expr &c) : TernaryOp(TernaryOpType::CLAMP, a, b, c) {}
};

#undef IPUSIM_POPOPS_UNARY_EXPR
#undef IPUSIM_POPOPS_UNARY_EXPR_SYM
#undef IPUSIM_POPOPS_BINARY_EXPR
#undef IPUSIM_POPOPS_BINARY_EXPR_SYM

} // namespace expr
} // namespace popops

#endif
