#include "Expr.h"

#include "ipusim/arch/Half.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ipusim::cc::as {
namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

class Parser {
public:
  Parser(const std::string &t, unsigned base,
         const std::function<std::string(const std::string &, unsigned)> &rename)
      : s_(t), base_(base), rename_(rename) {}

  Expr parse() {
    Expr e = binary(0);
    skip();
    if (p_ < s_.size()) error("unexpected '" + std::string(1, s_[p_]) + "' in expression");
    return e;
  }

private:
  const std::string &s_;
  size_t p_ = 0;
  unsigned base_;
  const std::function<std::string(const std::string &, unsigned)> &rename_;

  unsigned depth_ = 0; ///< parser recursion: parentheses and unary operators open a level
  unsigned col() const { return base_ + unsigned(p_); }
  void deeper() {
    if (++depth_ > kMaxExprDepth)
      error("expression nested more than " + std::to_string(kMaxExprDepth) + " levels deep");
  }
  /// A node over lhs (and rhs): one level deeper than its deepest child.
  void setDepth(ExprNode &n) {
    n.depth = 1 + std::max(n.lhs ? n.lhs->depth : 0u, n.rhs ? n.rhs->depth : 0u);
    // (a leaf is 0 deep: the 1001st operator on a path is the one too many)
    if (n.depth > kMaxExprDepth)
      throw ExprError{"expression more than " + std::to_string(kMaxExprDepth) + " operators deep", n.column};
  }
  [[noreturn]] void error(const std::string &m) const { throw ExprError{m, col()}; }
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }

  struct Op { const char *text; int prec; };
  // C precedence, lowest first.
  static constexpr Op kOps[] = {{"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5},
                                {"==", 6}, {"!=", 6}, {"<=", 7}, {">=", 7}, {"<<", 8},
                                {">>", 8}, {"<", 7},  {">", 7},  {"+", 9},  {"-", 9},
                                {"*", 10}, {"/", 10}, {"%", 10}};

  const Op *peekOp() {
    skip();
    for (const Op &op : kOps) {
      size_t n = std::char_traits<char>::length(op.text);
      if (s_.compare(p_, n, op.text) != 0) continue;
      // '|' must not match "||" etc.: kOps lists the two-character forms first.
      return &op;
    }
    return nullptr;
  }

  Expr make(ExprNode::Kind k, unsigned c) {
    auto n = std::make_shared<ExprNode>();
    n->kind = k;
    n->column = c;
    return n;
  }

  Expr binary(int minPrec) {
    Expr lhs = unary();
    for (;;) {
      const Op *op = peekOp();
      if (!op || op->prec <= minPrec) return lhs;
      unsigned c = col();
      p_ += std::char_traits<char>::length(op->text);
      Expr rhs = binary(op->prec);
      auto n = std::make_shared<ExprNode>();
      n->kind = ExprNode::Binary;
      n->name = op->text;
      n->lhs = lhs;
      n->rhs = rhs;
      n->column = c;
      setDepth(*n);
      lhs = n;
    }
  }

  Expr unary() {
    skip();
    if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '~' || s_[p_] == '!' || s_[p_] == '+')) {
      auto n = std::make_shared<ExprNode>();
      n->kind = ExprNode::Unary;
      n->name = std::string(1, s_[p_]);
      n->column = col();
      deeper();
      ++p_;
      n->lhs = unary();
      --depth_;
      setDepth(*n);
      // A negated floating-point literal is the literal of the negative value (sign bit set),
      // as the SDK's assembler reads `setzi $a0, -1.0h` (0xBC00, not -0x3C00).
      if (n->name == "-" && n->lhs->kind == ExprNode::Number && n->lhs->floatBits) {
        auto f = std::make_shared<ExprNode>(*n->lhs);
        f->number ^= int64_t(1) << (f->floatBits - 1);
        f->column = n->column;
        return f;
      }
      return n;
    }
    return primary();
  }

  /// `digits.digits[e[+-]digits](h|f)`: the bits of the value as binary16 (`h`) or binary32 (`f`),
  /// rounded to nearest even (poplibs writes `-1.0h` as a setzi immediate).
  Expr floatLiteral(size_t start, unsigned c) {
    p_ = start;
    while (p_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[p_])) || s_[p_] == '.')) ++p_;
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      size_t q = p_ + 1;
      if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
      if (q < s_.size() && std::isdigit(static_cast<unsigned char>(s_[q]))) {
        p_ = q;
        while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
      }
    }
    std::string text = s_.substr(start, p_ - start);
    char suffix = p_ < s_.size() ? s_[p_] : 0;
    if (suffix != 'h' && suffix != 'f')
      throw ExprError{"floating-point literal '" + text + "' needs a suffix: 'h' (half) or 'f' (float)", c};
    ++p_;
    if (p_ < s_.size() && isIdentChar(s_[p_])) throw ExprError{"malformed floating-point literal", c};
    double d = std::strtod(text.c_str(), nullptr);
    auto n = std::make_shared<ExprNode>();
    n->kind = ExprNode::Number;
    n->column = c;
    if (suffix == 'h') {
      n->number = arch::doubleToHalf(d);
      n->floatBits = 16;
    } else {
      float f = std::strtof(text.c_str(), nullptr); // rounded once, from the decimal
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      n->number = bits;
      n->floatBits = 32;
    }
    return n;
  }

  Expr primary() {
    skip();
    if (p_ >= s_.size()) error("expected an expression");
    unsigned c = col();
    char ch = s_[p_];
    if (ch == '(') {
      deeper();
      ++p_;
      Expr e = binary(0);
      --depth_;
      skip();
      if (p_ >= s_.size() || s_[p_] != ')') error("expected ')'");
      ++p_;
      return e;
    }
    if (ch == '\'') { // character constant
      if (p_ + 2 < s_.size() && s_[p_ + 2] == '\'') {
        auto n = std::make_shared<ExprNode>();
        n->kind = ExprNode::Number;
        n->number = static_cast<unsigned char>(s_[p_ + 1]);
        n->column = c;
        p_ += 3;
        return n;
      }
      error("malformed character constant");
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      size_t start = p_;
      while (p_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[p_]))) ++p_;
      std::string tok = s_.substr(start, p_ - start);
      if (p_ < s_.size() && s_[p_] == '.' && tok.find_first_not_of("0123456789") == std::string::npos)
        return floatLiteral(start, c);
      // Local label reference: digits followed by 'b' or 'f' (GNU as), but not 0b0101.
      if (tok.size() >= 2 && (tok.back() == 'b' || tok.back() == 'f') &&
          tok.find_first_not_of("0123456789") == tok.size() - 1) {
        auto n = std::make_shared<ExprNode>();
        n->kind = ExprNode::Symbol;
        n->name = rename_(tok, c);
        n->column = c;
        return n;
      }
      int base = 10;
      std::string digits = tok;
      if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) base = 16, digits = tok.substr(2);
      else if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'b' || tok[1] == 'B')) base = 2, digits = tok.substr(2);
      else if (tok.size() > 1 && tok[0] == '0') base = 8, digits = tok.substr(1);
      uint64_t v = 0;
      for (char d : digits) {
        int dv = std::isdigit(static_cast<unsigned char>(d)) ? d - '0'
                 : std::isxdigit(static_cast<unsigned char>(d)) ? std::tolower(d) - 'a' + 10 : 99;
        if (dv >= base) throw ExprError{"invalid number '" + tok + "'", c};
        if (v > (UINT64_MAX - uint64_t(dv)) / uint64_t(base))
          throw ExprError{"number '" + tok + "' is too large", c};
        v = v * uint64_t(base) + uint64_t(dv);
      }
      if (v > uint64_t(INT64_MAX)) throw ExprError{"number '" + tok + "' is too large", c};
      auto n = std::make_shared<ExprNode>();
      n->kind = ExprNode::Number;
      n->number = int64_t(v);
      n->column = c;
      return n;
    }
    if (isIdentStart(ch)) {
      size_t start = p_;
      ++p_;
      while (p_ < s_.size() && isIdentChar(s_[p_])) ++p_;
      std::string name = s_.substr(start, p_ - start);
      if (name[0] == '$') throw ExprError{"'" + name + "' is not valid here", c};
      auto n = std::make_shared<ExprNode>();
      n->kind = ExprNode::Symbol;
      n->name = rename_(name, c);
      n->column = c;
      return n;
    }
    error("unexpected '" + std::string(1, ch) + "' in expression");
  }
};

} // namespace

Expr parseExpr(const std::string &text, unsigned baseColumn,
               const std::function<std::string(const std::string &, unsigned)> &rename) {
  return Parser(text, baseColumn, rename).parse();
}

std::optional<ExprValue> evaluate(const Expr &e, const SymbolLookup &lookup) {
  switch (e->kind) {
  case ExprNode::Number: return ExprValue{e->number, -1, {}};
  case ExprNode::Symbol: return lookup(e->name, e->column);
  case ExprNode::Unary: {
    auto v = evaluate(e->lhs, lookup);
    if (!v) return std::nullopt;
    if (e->name == "+") return v;
    if (!v->isConstant()) throw ExprError{"operator '" + e->name + "' needs a constant", e->column};
    int64_t x = v->constant;
    int64_t r = e->name == "-" ? int64_t(0ull - uint64_t(x)) : e->name == "~" ? ~x : int64_t(!x);
    return ExprValue{r, -1, {}};
  }
  case ExprNode::Binary: {
    auto a = evaluate(e->lhs, lookup);
    auto b = evaluate(e->rhs, lookup);
    if (!a || !b) return std::nullopt;
    const std::string &op = e->name;
    if (op == "+") {
      if (!a->isConstant() && !b->isConstant())
        throw ExprError{"cannot add two addresses", e->column};
      ExprValue r = a->isConstant() ? *b : *a;
      r.constant = int64_t(uint64_t(a->constant) + uint64_t(b->constant));
      return r;
    }
    if (op == "-") {
      if (b->isConstant()) {
        ExprValue r = *a;
        r.constant = int64_t(uint64_t(a->constant) - uint64_t(b->constant));
        return r;
      }
      if (a->section >= 0 && a->section == b->section)
        return ExprValue{a->constant - b->constant, -1, {}};
      throw ExprError{"the difference of these symbols is not a constant (they are not in one section)",
                      e->column};
    }
    if (!a->isConstant() || !b->isConstant())
      throw ExprError{"operator '" + op + "' needs constants, not addresses", e->column};
    int64_t x = a->constant, y = b->constant, r = 0;
    if (op == "*") r = int64_t(uint64_t(x) * uint64_t(y));
    else if (op == "/" || op == "%") {
      if (y == 0) throw ExprError{"division by zero", e->column};
      if (x == INT64_MIN && y == -1) r = op == "/" ? x : 0;
      else r = op == "/" ? x / y : x % y;
    } else if (op == "<<") r = (y < 0 || y > 63) ? 0 : int64_t(uint64_t(x) << y);
    else if (op == ">>") r = (y < 0 || y > 63) ? (x < 0 ? -1 : 0) : (x >> y);
    else if (op == "&") r = x & y;
    else if (op == "|") r = x | y;
    else if (op == "^") r = x ^ y;
    else if (op == "==") r = x == y;
    else if (op == "!=") r = x != y;
    else if (op == "<") r = x < y;
    else if (op == ">") r = x > y;
    else if (op == "<=") r = x <= y;
    else if (op == ">=") r = x >= y;
    else if (op == "&&") r = x && y;
    else if (op == "||") r = x || y;
    return ExprValue{r, -1, {}};
  }
  }
  return std::nullopt;
}

} // namespace ipusim::cc::as
