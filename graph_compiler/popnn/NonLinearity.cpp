// popnn's non-linearities: element-wise ones as one fused popops expression each, softmax as
// reductions over the innermost dimension and element-wise steps, gradients the same way. Every
// value is computed on the tiles by popops' generated vertices.
#include <popnn/NonLinearity.hpp>
#include <popnn/codelets.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include <poplar/exceptions.hpp>

#include "../popops/Internal.hpp"

namespace popnn {

using namespace poplar;
using namespace popops::expr;

void addCodelets(Graph &) {
  // Built from popops' operations, whose vertices are generated per expression.
}

namespace {

// The factor SOFTMAX_SCALED multiplies its outputs by (poplibs' value: the outputs use most of
// half's range), which the caller passes on to calcLoss as modelOutputScaling.
const float kSoftmaxScaling = 62000.0f;

bool isSoftmax(NonLinearityType t) {
  return t == NonLinearityType::SOFTMAX || t == NonLinearityType::SOFTMAX_STABLE ||
         t == NonLinearityType::SOFTMAX_SCALED;
}

// The element-wise non-linearity of x.
Any elementwise(NonLinearityType type, const Expr &x) {
  switch (type) {
  case NonLinearityType::SIGMOID: return Sigmoid(x);
  case NonLinearityType::HARD_SIGMOID: return Max(Const(0.0f), Min(Const(1.0f), x * 0.2f + 0.5f));
  case NonLinearityType::RELU: return Relu(x);
  case NonLinearityType::TANH: return Tanh(x);
  case NonLinearityType::GELU: return Mul(x * 0.5f, Tanh((x + x * x * x * 0.044715f) * 0.7978845608f) + 1.0f);
  case NonLinearityType::GELU_ERF: return GeluErf(x);
  case NonLinearityType::SWISH: return Mul(x, Sigmoid(x));
  default: throw poplar_error("popnn::nonLinearity: softmax is not element-wise");
  }
}

void checkType(const std::string &op, const Tensor &t) {
  if (t.elementType() != FLOAT && t.elementType() != HALF)
    throw poplar_error(op + ": the tensor must be float or half, not " + t.elementType().toString());
}

// Softmax over the innermost dimension of t, written into out.
void softmax(Graph &graph, NonLinearityType type, const Tensor &t, const Tensor &out, program::Sequence &prog,
             const std::string &name) {
  if (t.rank() == 0) throw poplar_error("popnn::nonLinearity: softmax needs a tensor of rank 1 or more");
  const unsigned last = unsigned(t.rank() - 1);
  const bool stable = type != NonLinearityType::SOFTMAX;
  Tensor e;
  if (stable) {
    Tensor max = popops::reduce(graph, t, {last}, popops::Operation::MAX, prog, name + "/max");
    e = popops::map(graph, Exp(_1 - _2), {t, max.expand({last})}, prog, name + "/exp");
  } else {
    e = popops::map(graph, Exp(_1), {t}, prog, name + "/exp");
  }
  Tensor sum = popops::reduce(graph, e, FLOAT, {last}, popops::Operation::ADD, prog, name + "/sum");
  const float scale = type == NonLinearityType::SOFTMAX_SCALED ? kSoftmaxScaling : 1.0f;
  popops::mapWithOutput(graph, Cast(Cast(_1, FLOAT) * (scale / _2), t.elementType()), {e, sum.expand({last})}, out,
                        prog, name + "/normalise");
}

} // namespace

void nonLinearityInPlace(Graph &graph, NonLinearityType type, Tensor t, float &scaling, program::Sequence &prog,
                         const DebugContext &debugContext) {
  const std::string name = debugContext.getPathName().empty() ? "popnn::nonLinearity" : debugContext.getPathName();
  checkType("popnn::nonLinearity", t);
  scaling = type == NonLinearityType::SOFTMAX_SCALED ? kSoftmaxScaling : 1.0f;
  if (isSoftmax(type)) softmax(graph, type, t, t, prog, name);
  else popops::mapInPlace(graph, elementwise(type, _1), {t}, prog, name);
}

void nonLinearityInPlace(Graph &graph, NonLinearityType type, Tensor t, program::Sequence &prog,
                         const DebugContext &debugContext) {
  float scaling;
  nonLinearityInPlace(graph, type, t, scaling, prog, debugContext);
}

Tensor nonLinearity(Graph &graph, NonLinearityType type, Tensor t, float &scaling, program::Sequence &prog,
                    const DebugContext &debugContext) {
  const std::string name = debugContext.getPathName().empty() ? "popnn::nonLinearity" : debugContext.getPathName();
  checkType("popnn::nonLinearity", t);
  scaling = type == NonLinearityType::SOFTMAX_SCALED ? kSoftmaxScaling : 1.0f;
  if (!isSoftmax(type)) return popops::map(graph, elementwise(type, _1), {t}, prog, name);
  Tensor out = graph.clone(t, name);
  softmax(graph, type, t, out, prog, name);
  return out;
}

Tensor nonLinearity(Graph &graph, NonLinearityType type, Tensor t, program::Sequence &prog,
                    const DebugContext &debugContext) {
  float scaling;
  return nonLinearity(graph, type, t, scaling, prog, debugContext);
}

namespace {

void checkGradient(const std::string &op, const Tensor &act, const Tensor &outGradient) {
  checkType(op, act);
  if (act.shape() != outGradient.shape())
    throw poplar_error(op + ": act has shape " + act.shapeToString() + " and outGradient " +
                       outGradient.shapeToString() + ": they must be the same");
  if (act.elementType() != outGradient.elementType())
    throw poplar_error(op + ": act is " + act.elementType().toString() + " and outGradient " +
                       outGradient.elementType().toString());
}

// The gradient at the input of an element-wise non-linearity from a = act (_1) and g =
// outGradient (_2).
Any elementwiseGradient(NonLinearityType type) {
  const PlaceHolder &a = _1, &g = _2;
  switch (type) {
  case NonLinearityType::SIGMOID: return g * a * (1.0f - a);
  case NonLinearityType::HARD_SIGMOID:
    return Select(g * 0.2f, Const(0.0f), And(Gt(a, Const(0.0f)), Lt(a, Const(1.0f))));
  case NonLinearityType::RELU: return Select(g, Const(0.0f), Gt(a, Const(0.0f)));
  case NonLinearityType::TANH: return g * (1.0f - a * a);
  case NonLinearityType::GELU: {
    // d/dx 0.5 x (1 + tanh u), u = k (x + c x^3): 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3 c x^2).
    const Any t = Tanh((a + a * a * a * 0.044715f) * 0.7978845608f);
    return g * ((t + 1.0f) * 0.5f + a * 0.5f * (1.0f - t * t) * 0.7978845608f * (a * a * 0.134145f + 1.0f));
  }
  case NonLinearityType::GELU_ERF:
    // Phi(x) + x phi(x).
    return g * ((Erf(a * 0.70710678118f) + 1.0f) * 0.5f + a * Exp(a * a * -0.5f) * 0.39894228040f);
  case NonLinearityType::SWISH: {
    const Any s = Sigmoid(a);
    return g * s * (a * (1.0f - s) + 1.0f);
  }
  default: throw poplar_error("popnn::nonLinearityInputGradient: softmax's gradient is not element-wise");
  }
}

} // namespace

Tensor nonLinearityInputGradient(Graph &graph, NonLinearityType type, Tensor act, Tensor outGradient,
                                 program::Sequence &prog, const DebugContext &debugContext) {
  const std::string op = "popnn::nonLinearityInputGradient";
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  checkGradient(op, act, outGradient);
  if (!isSoftmax(type)) return popops::map(graph, elementwiseGradient(type), {act, outGradient}, prog, name);
  // Softmax: act (g - sum over the row of g act).
  if (act.rank() == 0) throw poplar_error(op + ": softmax needs a tensor of rank 1 or more");
  const unsigned last = unsigned(act.rank() - 1);
  const PlaceHolder &a = _1, &g = _2;
  Tensor prod = popops::map(graph, Cast(g, FLOAT) * Cast(a, FLOAT), {act, outGradient}, prog, name + "/product");
  Tensor sum = popops::reduce(graph, prod, {last}, popops::Operation::ADD, prog, name + "/sum");
  return popops::map(graph, Cast(Cast(a, FLOAT) * (Cast(g, FLOAT) - _3), act.elementType()),
                     {act, outGradient, sum.expand({last})}, prog, name);
}

// The compute-set forms add popops' element-wise vertices to the caller's compute set; softmax
// needs reductions (compute sets of their own), so as in poplibs it has program forms only.
Tensor nonLinearityInputGradient(Graph &graph, NonLinearityType type, Tensor act, Tensor outGradient, ComputeSet &cs,
                                 const DebugContext &debugContext) {
  const std::string op = "popnn::nonLinearityInputGradient";
  checkGradient(op, act, outGradient);
  if (isSoftmax(type))
    throw poplar_error(op + ": softmax's gradient needs reductions: use the form that takes a program");
  Tensor out = graph.clone(outGradient, debugContext.getPathName().empty() ? op : debugContext.getPathName());
  popops::detail::addMapVertices(graph, op, elementwiseGradient(type), {act, outGradient}, out, false, cs);
  return out;
}

void nonLinearityInPlace(Graph &graph, NonLinearityType type, Tensor t, ComputeSet &cs, const DebugContext &) {
  const std::string op = "popnn::nonLinearityInPlace";
  checkType(op, t);
  if (isSoftmax(type)) throw poplar_error(op + ": softmax needs reductions: use the form that takes a program");
  if (t.containsAliases()) throw poplar_error(op + ": the tensor contains aliases");
  popops::detail::addMapVertices(graph, op, elementwise(type, _1), {t}, t, true, cs);
}

} // namespace popnn
