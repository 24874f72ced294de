// popnn's losses and accuracy from popops' operations: the one-hot comparison of each class
// index with the row's label, the loss terms and deltas as one fused expression each, the loss
// per row and the count of correct rows by reductions (the count added to numCorrect, as
// poplibs' accuracy vertex does). Masked labels (MASKED_LABEL_CODE) give zero loss and zero
// deltas and are not counted.
#include "../sdk/Generated.hpp"

#include <popnn/Loss.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <vector>

namespace popnn {

using namespace poplar;
using namespace popops::expr;

namespace {

using ipusim::sdk::fail;

// The column indices 0..n-1 as a constant of `type`, mapped over the tiles.
Tensor columnIndices(Graph &graph, const Type &type, std::size_t n, const std::string &name) {
  std::vector<unsigned> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = unsigned(i);
  Tensor t = type == INT ? graph.addConstant<int>(INT, {n}, reinterpret_cast<const int *>(v.data()), name)
                         : graph.addConstant<unsigned>(UNSIGNED_INT, {n}, v.data(), name);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

void checkLabels(const std::string &op, const Tensor &modelOutputs, const Tensor &expected) {
  if (modelOutputs.rank() != 2) fail(op, "modelOutputs must have rank 2 [batch, classes], its shape is " + modelOutputs.shapeToString());
  if (modelOutputs.elementType() != FLOAT && modelOutputs.elementType() != HALF)
    fail(op, "modelOutputs must be float or half, not " + modelOutputs.elementType().toString());
  if (expected.rank() != 1 || expected.dim(0) != modelOutputs.dim(0))
    fail(op, "expected must be the labels [" + std::to_string(modelOutputs.dim(0)) + "], its shape is " +
                 expected.shapeToString());
  if (expected.elementType() != UNSIGNED_INT && expected.elementType() != INT)
    fail(op, "expected must be unsigned int or int, not " + expected.elementType().toString());
}

// The column of each row's first largest (max) or smallest element.
Tensor argBest(Graph &graph, const Tensor &input, bool max, program::Sequence &prog, const std::string &name,
               Tensor *best) {
  const std::string op = max ? "popnn::argMax" : "popnn::argMin";
  if (input.rank() != 2) fail(op, "input must have rank 2, its shape is " + input.shapeToString());
  Tensor value = popops::reduce(graph, input, {1}, max ? popops::Operation::MAX : popops::Operation::MIN, prog,
                                name + "/value");
  Tensor cols = columnIndices(graph, UNSIGNED_INT, input.dim(1), name + "/columns");
  // Each element's column where it equals the row's best, else the number of columns; the
  // smallest of these is the first best column.
  Tensor candidates = popops::map(graph, Select(_2, Const(unsigned(input.dim(1))), Equal(_1, _3)),
                                  {input, cols, value.expand({1})}, prog, name + "/candidates");
  if (best) *best = value;
  return popops::reduce(graph, candidates, {1}, popops::Operation::MIN, prog, name + "/column");
}

} // namespace

Tensor argMax(Graph &graph, const Tensor &input, program::Sequence &prog, const DebugContext &debugContext) {
  return argBest(graph, input, true, prog, debugContext.getPathName().empty() ? "popnn::argMax" : debugContext.getPathName(), nullptr);
}
Tensor argMin(Graph &graph, const Tensor &input, program::Sequence &prog, const DebugContext &debugContext) {
  return argBest(graph, input, false, prog, debugContext.getPathName().empty() ? "popnn::argMin" : debugContext.getPathName(), nullptr);
}
std::pair<Tensor, Tensor> maxAndArgMax(Graph &graph, const Tensor &input, program::Sequence &prog,
                                       const DebugContext &debugContext) {
  Tensor best;
  Tensor arg = argBest(graph, input, true, prog, debugContext.getPathName().empty() ? "popnn::maxAndArgMax" : debugContext.getPathName(), &best);
  return {best, arg};
}
std::pair<Tensor, Tensor> minAndArgMin(Graph &graph, const Tensor &input, program::Sequence &prog,
                                       const DebugContext &debugContext) {
  Tensor best;
  Tensor arg = argBest(graph, input, false, prog, debugContext.getPathName().empty() ? "popnn::minAndArgMin" : debugContext.getPathName(), &best);
  return {best, arg};
}

program::Program calcAccuracy(Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                              const Tensor &numCorrect, const DebugContext &debugContext) {
  const std::string op = "popnn::calcAccuracy";
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  checkLabels(op, modelOutputs, expected);
  if (numCorrect.numElements() != 1 || numCorrect.elementType() != UNSIGNED_INT)
    fail(op, "numCorrect must be one unsigned int, it is " + numCorrect.elementType().toString() + " " +
                 numCorrect.shapeToString());
  program::Sequence prog;
  Tensor arg = argBest(graph, modelOutputs, true, prog, name + "/argMax", nullptr);
  Tensor correct = popops::map(
      graph, Cast(And(Equal(Cast(_1, expected.elementType()), _2), NotEqual(_2, Const(MASKED_LABEL_CODE))), UNSIGNED_INT),
      {arg, expected}, prog, name + "/correct");
  popops::reduceWithOutput(graph, correct, numCorrect.flatten(), {0}, popops::ReduceParams(popops::Operation::ADD, true),
                           prog, name + "/count");
  return prog;
}

program::Program calcLoss(Graph &graph, const Tensor &modelOutputs, const Tensor &expected, const Tensor &loss,
                          const Tensor &deltas, const Tensor &deltasScaleIn, const Tensor &modelOutputScalingIn,
                          LossType lossType, const DebugContext &debugContext) {
  const std::string op = "popnn::calcLoss";
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  checkLabels(op, modelOutputs, expected);
  const Type type = modelOutputs.elementType();
  if (loss.rank() != 1 || loss.dim(0) != modelOutputs.dim(0))
    fail(op, "loss must have shape {" + std::to_string(modelOutputs.dim(0)) + "}, its shape is " + loss.shapeToString());
  if (deltas.shape() != modelOutputs.shape())
    fail(op, "deltas must have modelOutputs' shape " + modelOutputs.shapeToString() + ", its shape is " +
                 deltas.shapeToString());
  auto one = [&](const Tensor &given, const char *what) {
    if (given.valid()) {
      if (given.numElements() != 1) fail(op, std::string(what) + " must be a single element");
      return given.reshape({});
    }
    Tensor c = graph.addConstant<float>(FLOAT, {}, 1.0f, name + "/" + what);
    graph.setTileMapping(c, 0);
    return c;
  };
  const Tensor deltasScale = one(deltasScaleIn, "deltasScale"), scaling = one(modelOutputScalingIn, "modelOutputScaling");
  program::Sequence prog;
  Tensor cols = columnIndices(graph, expected.elementType(), modelOutputs.dim(1), name + "/classes");
  // _1 outputs, _2 the class index, _3 the row's label, _4 deltasScale, _5 modelOutputScaling.
  const std::vector<Tensor> ts = {modelOutputs, cols, expected.expand({1}), deltasScale, scaling};
  const Any oneHot = Cast(Equal(_2, _3), FLOAT);
  const Any valid = NotEqual(_3, Const(MASKED_LABEL_CODE));
  const Any p = Cast(_1, FLOAT), s = Cast(_4, FLOAT), m = Cast(_5, FLOAT);
  Any delta = Const(0.0f), term = Const(0.0f);
  if (lossType == CROSS_ENTROPY_LOSS) {
    // The smallest positive normal of the type keeps log finite at 0 (poplibs' EPS_LOG_N).
    const float eps = type == HALF ? 0.000000059605f : 1.17549435e-38f;
    delta = (s / m) * (p - oneHot * m);
    term = -oneHot * (Log(p + eps) - Log(m));
  } else {
    delta = p - oneHot;
    term = Mul(Any(p - oneHot), Any(p - oneHot)) * 0.5f;
  }
  popops::mapWithOutput(graph, Cast(Select(delta, Const(0.0f), valid), deltas.elementType()), ts, deltas, prog,
                        name + "/deltas");
  Tensor terms = popops::map(graph, Select(term, Const(0.0f), valid), ts, prog, name + "/terms");
  popops::reduceWithOutput(graph, terms, loss, {1}, popops::Operation::ADD, prog, name + "/loss");
  return prog;
}

program::Program calcLoss(Graph &graph, const Tensor &modelOutputs, const Tensor &expected, const Tensor &loss,
                          const Tensor &deltas, LossType lossType, const DebugContext &debugContext) {
  return calcLoss(graph, modelOutputs, expected, loss, deltas, Tensor(), Tensor(), lossType, debugContext);
}

program::Program calcLoss(Graph &graph, const Tensor &modelOutputs, const Tensor &expected, const Tensor &loss,
                          const Tensor &deltas, const Tensor &deltasScale, const Tensor &modelOutputScaling,
                          const Tensor &numCorrect, LossType lossType, const DebugContext &debugContext) {
  program::Sequence prog;
  prog.add(calcLoss(graph, modelOutputs, expected, loss, deltas, deltasScale, modelOutputScaling, lossType, debugContext));
  prog.add(calcAccuracy(graph, modelOutputs, expected, numCorrect, debugContext));
  return prog;
}

program::Program calcLoss(Graph &graph, const Tensor &modelOutputs, const Tensor &expected, const Tensor &loss,
                          const Tensor &deltas, const Tensor &numCorrect, LossType lossType,
                          const DebugContext &debugContext) {
  return calcLoss(graph, modelOutputs, expected, loss, deltas, Tensor(), Tensor(), numCorrect, lossType, debugContext);
}

} // namespace popnn
