// popnn's group normalisation (and so layer normalisation): the activations viewed as
// [batch][groups][channels of the group x field], statistics by popops' reductions over the last
// dimension, the rest fused element-wise expressions; the per-channel parameter gradients are
// batch normalisation's.
#include <popnn/BatchNorm.hpp>
#include <popnn/GroupNorm.hpp>

#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include <poplar/exceptions.hpp>

#include "Norms.hpp"

namespace popnn {
namespace gn {

using namespace poplar;
using namespace popops::expr;
using norms::nameOf;
using norms::perChannel;

namespace {


// acts as [batch][groups][the rest].
Tensor grouped(const std::string &op, const Tensor &acts, std::size_t groups) {
  if (acts.rank() < 2) throw poplar_error(op + ": acts must be [batch][channels][field...], its shape is " + acts.shapeToString());
  if (acts.elementType() != FLOAT && acts.elementType() != HALF)
    throw poplar_error(op + ": acts must be float or half, not " + acts.elementType().toString());
  if (groups == 0 || acts.dim(1) % groups)
    throw poplar_error(op + ": " + std::to_string(acts.dim(1)) + " channels do not split into " + std::to_string(groups) + " groups");
  return acts.reshape({acts.dim(0), groups, acts.numElements() / (acts.dim(0) * groups)});
}

// The number of groups a [batch x groups] statistic implies.
std::size_t groupsOf(const std::string &op, const Tensor &acts, const Tensor &stat) {
  if (acts.rank() < 1 || stat.numElements() % acts.dim(0))
    throw poplar_error(op + ": the statistics (" + std::to_string(stat.numElements()) + " elements) are not per example and group");
  return stat.numElements() / acts.dim(0);
}


} // namespace

std::pair<Tensor, Tensor> groupNormStatistics(Graph &graph, const Tensor acts, float eps, program::Sequence &prog,
                                              unsigned numGroups, bool unbiasedVarEstimate, bool stableAlgo,
                                              const Type &, const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popnn::gn::groupNormStatistics", name = nameOf(debugContext, op);
  const Tensor x = grouped(op, acts, numGroups);
  const double count = double(x.dim(2));
  Tensor sum = popops::reduce(graph, x, FLOAT, {2}, popops::Operation::ADD, prog, name + "/sum");
  Tensor mean = popops::map(graph, _1 * float(1.0 / count), {sum}, prog, name + "/mean");
  Tensor var;
  if (stableAlgo) {
    Tensor centred = popops::map(graph, Square(Cast(_1, FLOAT) - _2), {x, mean.expand({2})}, prog, name + "/centred");
    var = popops::map(graph, _1 * float(1.0 / count),
                      {popops::reduce(graph, centred, {2}, popops::Operation::ADD, prog, name + "/sumSquares")}, prog,
                      name + "/variance");
  } else {
    Tensor sq = popops::reduce(graph, x, FLOAT, {2}, popops::Operation::SQUARE_ADD, prog, name + "/sumSquares");
    var = popops::map(graph, Max(_1 * float(1.0 / count) - _2 * _2, Const(0.0f)), {sq, mean}, prog, name + "/variance");
  }
  const float unbias = unbiasedVarEstimate && count > 1 ? float(count / (count - 1)) : 1.0f;
  Tensor inv = popops::map(graph, Cast(Rsqrt(_1 * unbias + eps), acts.elementType()), {var}, prog, name + "/invStdDev");
  return {popops::cast(graph, mean, acts.elementType(), prog).flatten(), inv.flatten()};
}

Tensor groupNormWhiten(Graph &graph, const Tensor &acts, const Tensor &mean, const Tensor &invStdDev,
                       program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popnn::gn::groupNormWhiten";
  const std::size_t groups = groupsOf(op, acts, mean);
  const Tensor x = grouped(op, acts, groups);
  Tensor w = popops::map(graph, Cast((Cast(_1, FLOAT) - Cast(_2, FLOAT)) * Cast(_3, FLOAT), acts.elementType()),
                         {x, mean.reshape({acts.dim(0), groups, 1}), invStdDev.reshape({acts.dim(0), groups, 1})}, prog,
                         nameOf(debugContext, op));
  return w.reshape(acts.shape());
}

std::pair<Tensor, Tensor> groupNormalise(Graph &graph, const Tensor &acts, const Tensor &gamma, const Tensor &beta,
                                         const Tensor &mean, const Tensor &invStdDev, program::Sequence &prog,
                                         const DebugContext &debugContext, const OptionFlags &options) {
  const std::string op = "popnn::gn::groupNormalise";
  Tensor whitened = groupNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
  Tensor out = popops::map(graph, Cast(Cast(_1, FLOAT) * Cast(_2, FLOAT) + Cast(_3, FLOAT), acts.elementType()),
                           {whitened, perChannel(op, gamma, acts, "gamma"), perChannel(op, beta, acts, "beta")}, prog,
                           nameOf(debugContext, op));
  return {out, whitened};
}

std::pair<Tensor, Tensor> groupNormParamGradients(Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn,
                                                  program::Sequence &prog, const Type &partialsType,
                                                  const DebugContext &debugContext, const OptionFlags &options) {
  return bn::batchNormParamGradients(graph, actsWhitened, gradsIn, prog, partialsType, debugContext, options);
}

std::pair<Tensor, Tensor> groupNormParamGradients(Graph &graph, const Tensor &acts, const Tensor &gradsIn,
                                                  const Tensor &mean, const Tensor &iStdDev, program::Sequence &prog,
                                                  const Type &partialsType, const DebugContext &debugContext,
                                                  const OptionFlags &options) {
  Tensor whitened = groupNormWhiten(graph, acts, mean, iStdDev, prog, debugContext, options);
  return groupNormParamGradients(graph, whitened, gradsIn, prog, partialsType, debugContext, options);
}

Tensor groupNormGradients(Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn, const Tensor &invStdDev,
                          const Tensor &gamma, program::Sequence &prog, const Type &, const DebugContext &debugContext,
                          const OptionFlags &) {
  // With d = g gamma: dx = invStdDev (d - (sum d + xhat sum d xhat) / count) over each group.
  const std::string op = "popnn::gn::groupNormGradients", name = nameOf(debugContext, op);
  if (gradsIn.shape() != actsWhitened.shape())
    throw poplar_error(op + ": gradsIn has shape " + gradsIn.shapeToString() + ", the activations " + actsWhitened.shapeToString());
  const std::size_t groups = groupsOf(op, actsWhitened, invStdDev);
  Tensor d = popops::map(graph, Cast(_1, FLOAT) * Cast(_2, FLOAT), {gradsIn, perChannel(op, gamma, actsWhitened, "gamma")},
                         prog, name + "/d");
  const Tensor d3 = grouped(op, d, groups), x3 = grouped(op, actsWhitened, groups);
  Tensor dx = popops::map(graph, Cast(_1, FLOAT) * _2, {x3, d3}, prog, name + "/dx");
  Tensor s1 = popops::reduce(graph, d3, {2}, popops::Operation::ADD, prog, name + "/sum");
  Tensor s2 = popops::reduce(graph, dx, {2}, popops::Operation::ADD, prog, name + "/sumProduct");
  const float inv = float(1.0 / double(x3.dim(2)));
  Tensor out = popops::map(graph,
                           Cast(Cast(_5, FLOAT) * (_2 - (_3 + Cast(_1, FLOAT) * _4) * inv), gradsIn.elementType()),
                           {x3, d3, s1.expand({2}), s2.expand({2}), invStdDev.reshape({actsWhitened.dim(0), groups, 1})},
                           prog, name);
  return out.reshape(actsWhitened.shape());
}

Tensor groupNormGradients(Graph &graph, const Tensor &acts, const Tensor &gradsIn, const Tensor &mean,
                          const Tensor &invStdDev, const Tensor &gamma, program::Sequence &prog,
                          const Type &partialsType, const DebugContext &debugContext, const OptionFlags &options) {
  Tensor whitened = groupNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
  return groupNormGradients(graph, whitened, gradsIn, invStdDev, gamma, prog, partialsType, debugContext, options);
}

void groupNormParamUpdate(Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta, float scale, Tensor &gamma,
                          Tensor &beta, program::Sequence &prog, const DebugContext &debugContext,
                          const OptionFlags &options) {
  bn::batchNormParamUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog, debugContext, options);
}

void groupNormParamUpdate(Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta, const Tensor &scale,
                          Tensor &gamma, Tensor &beta, program::Sequence &prog, const DebugContext &debugContext,
                          const OptionFlags &options) {
  bn::batchNormParamUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog, debugContext, options);
}

} // namespace gn
} // namespace popnn
