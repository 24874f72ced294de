// popnn's batch normalisation from popops: per-channel sums by reductions over every dimension
// but the channels (in float), then fused element-wise expressions with the per-channel values
// broadcast as [channels][1]...
#include <popnn/BatchNorm.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Cast.hpp>
#include <popops/ScaledAdd.hpp>

#include <poplar/exceptions.hpp>

#include "Norms.hpp"

namespace popnn {
namespace bn {

using namespace poplar;
using namespace popops::expr;
using norms::nameOf;
using norms::perChannel;

namespace {

void check(const std::string &op, const Tensor &acts) {
  if (acts.rank() < 2) throw poplar_error(op + ": acts must be [batch][channels][field...], its shape is " + acts.shapeToString());
  if (acts.elementType() != FLOAT && acts.elementType() != HALF)
    throw poplar_error(op + ": acts must be float or half, not " + acts.elementType().toString());
}

// Every dimension but the channels'.
std::vector<std::size_t> statDims(const Tensor &acts) {
  std::vector<std::size_t> d{0};
  for (std::size_t i = 2; i < acts.rank(); ++i) d.push_back(i);
  return d;
}



} // namespace

std::pair<Tensor, Tensor> batchNormStatistics(Graph &graph, const Tensor acts, float eps, program::Sequence &prog,
                                              bool unbiasedVarEstimate, bool stableAlgo, const Type &,
                                              const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popnn::bn::batchNormStatistics", name = nameOf(debugContext, op.c_str());
  check(op, acts);
  const double count = double(acts.numElements()) / double(acts.dim(1));
  const auto dims = statDims(acts);
  Tensor sum = popops::reduce(graph, acts, FLOAT, dims, popops::Operation::ADD, prog, name + "/sum");
  Tensor mean = popops::map(graph, _1 * float(1.0 / count), {sum}, prog, name + "/mean");
  Tensor var;
  if (stableAlgo) {
    Tensor centred = popops::map(graph, Square(Cast(_1, FLOAT) - _2), {acts, perChannel(op, mean, acts, "mean")}, prog,
                                 name + "/centred");
    Tensor ss = popops::reduce(graph, centred, dims, popops::Operation::ADD, prog, name + "/sumSquares");
    var = popops::map(graph, _1 * float(1.0 / count), {ss}, prog, name + "/variance");
  } else {
    Tensor sq = popops::reduce(graph, acts, FLOAT, dims, popops::Operation::SQUARE_ADD, prog, name + "/sumSquares");
    var = popops::map(graph, Max(_1 * float(1.0 / count) - _2 * _2, Const(0.0f)), {sq, mean}, prog, name + "/variance");
  }
  const float unbias = unbiasedVarEstimate && count > 1 ? float(count / (count - 1)) : 1.0f;
  Tensor invStdDev = popops::map(graph, Cast(Rsqrt(_1 * unbias + eps), acts.elementType()), {var}, prog, name + "/invStdDev");
  return {popops::cast(graph, mean, acts.elementType(), prog), invStdDev};
}

Tensor batchNormWhiten(Graph &graph, const Tensor &acts, const Tensor &mean, const Tensor &invStdDev,
                       program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popnn::bn::batchNormWhiten";
  check(op, acts);
  return popops::map(graph, Cast((Cast(_1, FLOAT) - Cast(_2, FLOAT)) * Cast(_3, FLOAT), acts.elementType()),
                     {acts, perChannel(op, mean, acts, "mean"), perChannel(op, invStdDev, acts, "invStdDev")}, prog,
                     nameOf(debugContext, op.c_str()));
}

std::pair<Tensor, Tensor> batchNormalise(Graph &graph, const Tensor &acts, const Tensor &gamma, const Tensor &beta,
                                         const Tensor &mean, const Tensor &invStdDev, program::Sequence &prog,
                                         const DebugContext &debugContext, const OptionFlags &options) {
  const std::string op = "popnn::bn::batchNormalise";
  Tensor whitened = batchNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
  Tensor out = popops::map(graph, Cast(Cast(_1, FLOAT) * Cast(_2, FLOAT) + Cast(_3, FLOAT), acts.elementType()),
                           {whitened, perChannel(op, gamma, acts, "gamma"), perChannel(op, beta, acts, "beta")}, prog,
                           nameOf(debugContext, op.c_str()));
  return {out, whitened};
}

Tensor batchNormalise(Graph &graph, const Tensor &acts, const Tensor &combinedMultiplicand, const Tensor &addend,
                      program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popnn::bn::batchNormalise";
  check(op, acts);
  return popops::map(graph, Cast(Cast(_1, FLOAT) * Cast(_2, FLOAT) + Cast(_3, FLOAT), acts.elementType()),
                     {acts, perChannel(op, combinedMultiplicand, acts, "combinedMultiplicand"),
                      perChannel(op, addend, acts, "addend")},
                     prog, nameOf(debugContext, op.c_str()));
}

std::pair<Tensor, Tensor> batchNormParamGradients(Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn,
                                                  program::Sequence &prog, const Type &,
                                                  const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popnn::bn::batchNormParamGradients", name = nameOf(debugContext, op.c_str());
  check(op, actsWhitened);
  if (gradsIn.shape() != actsWhitened.shape())
    throw poplar_error(op + ": gradsIn has shape " + gradsIn.shapeToString() + ", the activations " +
                       actsWhitened.shapeToString());
  const auto dims = statDims(actsWhitened);
  Tensor prod = popops::map(graph, Cast(_1, FLOAT) * Cast(_2, FLOAT), {actsWhitened, gradsIn}, prog, name + "/product");
  Tensor gammaDelta = popops::reduce(graph, prod, actsWhitened.elementType(), dims, popops::Operation::ADD, prog, name + "/gamma");
  Tensor betaDelta = popops::reduce(graph, gradsIn, actsWhitened.elementType(), dims, popops::Operation::ADD, prog, name + "/beta");
  return {gammaDelta, betaDelta};
}

std::pair<Tensor, Tensor> batchNormParamGradients(Graph &graph, const Tensor &acts, const Tensor &gradsIn,
                                                  const Tensor &mean, const Tensor &iStdDev, program::Sequence &prog,
                                                  const Type &partialsType, const DebugContext &debugContext,
                                                  const OptionFlags &options) {
  Tensor whitened = batchNormWhiten(graph, acts, mean, iStdDev, prog, debugContext, options);
  return batchNormParamGradients(graph, whitened, gradsIn, prog, partialsType, debugContext, options);
}

Tensor batchNormGradients(Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn, const Tensor &invStdDev,
                          const Tensor &gamma, program::Sequence &prog, const Type &partialsType,
                          const DebugContext &debugContext, const OptionFlags &options) {
  // dx = gamma invStdDev (g - (sum g + xhat sum g xhat) / count), per channel.
  const std::string op = "popnn::bn::batchNormGradients", name = nameOf(debugContext, op.c_str());
  const auto grads = batchNormParamGradients(graph, actsWhitened, gradsIn, prog, partialsType, debugContext, options);
  const float inv = float(double(actsWhitened.dim(1)) / double(actsWhitened.numElements()));
  return popops::map(graph,
                     Cast(Cast(_3, FLOAT) * Cast(_4, FLOAT) *
                              (Cast(_2, FLOAT) - (Cast(_6, FLOAT) + Cast(_1, FLOAT) * Cast(_5, FLOAT)) * inv),
                          gradsIn.elementType()),
                     {actsWhitened, gradsIn, perChannel(op, gamma, actsWhitened, "gamma"),
                      perChannel(op, invStdDev, actsWhitened, "invStdDev"), perChannel(op, grads.first, actsWhitened, "gamma's gradient"),
                      perChannel(op, grads.second, actsWhitened, "beta's gradient")},
                     prog, name);
}

Tensor batchNormGradients(Graph &graph, const Tensor &acts, const Tensor &gradsIn, const Tensor &mean,
                          const Tensor &invStdDev, const Tensor &gamma, program::Sequence &prog,
                          const Type &partialsType, const DebugContext &debugContext, const OptionFlags &options) {
  Tensor whitened = batchNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
  return batchNormGradients(graph, whitened, gradsIn, invStdDev, gamma, prog, partialsType, debugContext, options);
}

void batchNormParamUpdate(Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta, float scale, Tensor &gamma,
                          Tensor &beta, program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &) {
  popops::scaledAddTo(graph, gamma, gammaDelta, scale, prog, debugContext);
  popops::scaledAddTo(graph, beta, betaDelta, scale, prog, debugContext);
}

void batchNormParamUpdate(Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta, const Tensor &scale,
                          Tensor &gamma, Tensor &beta, program::Sequence &prog, const DebugContext &debugContext,
                          const OptionFlags &) {
  popops::scaledAddTo(graph, gamma, gammaDelta, scale, prog, debugContext);
  popops::scaledAddTo(graph, beta, betaDelta, scale, prog, debugContext);
}

} // namespace bn
} // namespace popnn
