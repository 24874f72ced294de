// Assembler expressions: integers, symbols, `.`, local-label references and C operators.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ipusim::cc::as {

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  enum Kind { Number, Symbol, Unary, Binary } kind;
  int64_t number = 0;
  std::string name; ///< Symbol: the (already renamed) symbol; Unary/Binary: the operator
  Expr lhs, rhs;
  unsigned column = 0; ///< 1-based column of the node in its line
  unsigned depth = 0;  ///< operators on the longest path down from this node (0 for a leaf)
  unsigned floatBits = 0; ///< Number from a floating-point literal (`1.5h`, `2.0f`): 16 or 32
};

/// The deepest expression the assembler takes (parsing and evaluation recurse on the tree): far
/// beyond anything written by hand or by macros, and an error, not a crash, past it.
constexpr unsigned kMaxExprDepth = 1000;

/// A value: a constant, or `offset` bytes into `section` (a label), or `offset` from the
/// undefined symbol `external`.
struct ExprValue {
  int64_t constant = 0;
  int section = -1;     ///< >= 0: section-relative
  std::string external; ///< non-empty: relative to an undefined symbol
  bool isConstant() const { return section < 0 && external.empty(); }
};

/// Thrown for malformed or non-representable expressions; `column` is 1-based.
struct ExprError {
  std::string message;
  unsigned column;
};

/// Parses `text` (a whole operand) into an expression. `rename` maps identifiers as written
/// (e.g. `1b`, `.`) to symbol names; it may throw ExprError. `baseColumn` is the column of
/// text[0]. Throws ExprError.
Expr parseExpr(const std::string &text, unsigned baseColumn,
               const std::function<std::string(const std::string &, unsigned column)> &rename);

/// Looks a symbol up: returns its value, or nullopt if it is not (yet) defined. May throw ExprError.
using SymbolLookup = std::function<std::optional<ExprValue>(const std::string &, unsigned column)>;

/// Evaluates; nullopt if some symbol is not yet known. Throws ExprError for invalid arithmetic
/// on relocatable values or division by zero.
std::optional<ExprValue> evaluate(const Expr &e, const SymbolLookup &lookup);

} // namespace ipusim::cc::as
