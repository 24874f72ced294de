// popops' gathers (docs/popops.md "Gathers"). Both forms become one multi-slice of a rank-2
// table: the gathered dimensions first, flattened into the table's rows, the rest its columns.
// The row of each slice is worked out on the tiles by one popops expression over the indices
// (clamped into the input, as XLA's gather does), then multiSlice's tiles copy the rows out
// through the exchange; what is left is views (reshape, dimShuffle, squeeze) of its output.
#include "../sdk/Generated.hpp"
#include "Internal.hpp"

#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Gather.hpp>
#include <poputil/TileMapping.hpp>

#include <algorithm>
#include <numeric>

namespace popops {

using namespace poplar;
using ipusim::sdk::fail;
using ipusim::sdk::shapeString;

namespace {

std::size_t product(const std::vector<std::size_t> &v, std::size_t from = 0, std::size_t to = ~std::size_t(0)) {
  std::size_t p = 1;
  for (std::size_t i = from; i < std::min(to, v.size()); ++i) p *= v[i];
  return p;
}

bool contains(const std::vector<unsigned> &v, std::size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

/// The permutation that puts input's dimensions in startIndexMap first (in increasing order),
/// the others after in their order: the canonical input of the general gather.
std::vector<unsigned> slicedFirst(std::size_t rank, const std::vector<unsigned> &startIndexMap) {
  std::vector<unsigned> perm(rank);
  std::iota(perm.begin(), perm.end(), 0u);
  std::stable_partition(perm.begin(), perm.end(), [&](unsigned d) { return contains(startIndexMap, d); });
  return perm;
}

/// The same dimension swapped with dimension 0 (the one-axis gather's canonical order; its own
/// inverse).
std::vector<unsigned> axisFirst(std::size_t rank, unsigned axis) {
  std::vector<unsigned> perm(rank);
  std::iota(perm.begin(), perm.end(), 0u);
  std::swap(perm[0], perm[axis]);
  return perm;
}

std::vector<std::size_t> permuted(const std::vector<std::size_t> &shape, const std::vector<unsigned> &perm) {
  std::vector<std::size_t> s;
  for (unsigned p : perm) s.push_back(shape[p]);
  return s;
}

void checkIndices(const std::string &op, const Tensor &indices) {
  if (indices.elementType() != UNSIGNED_INT && indices.elementType() != INT)
    fail(op, "the indices must be unsigned int or int, not " + indices.elementType().toString());
}

/// index (a column of indices, unsigned or int) clamped into [0, hi] as int.
expr::Any clamped(const Tensor &indices, const expr::Expr &index, int hi) {
  if (indices.elementType() == UNSIGNED_INT) return expr::Cast(expr::Min(index, expr::Const(unsigned(hi))), INT);
  return expr::Clamp(index, expr::Const(0), expr::Const(hi));
}

} // namespace

Tensor createGatherInput(Graph &graph, const Type &type, const std::vector<std::size_t> &operandShape, unsigned axis,
                         GatherParams params, const DebugContext &dc) {
  const std::string op = "popops::createGatherInput";
  if (axis >= operandShape.size())
    fail(op, "axis " + std::to_string(axis) + " is not a dimension of shape " + shapeString(operandShape));
  const std::vector<unsigned> perm = axisFirst(operandShape.size(), axis);
  const std::vector<std::size_t> canon = permuted(operandShape, perm);
  const std::size_t rows = canon[0], cols = product(canon, 1);
  const SlicePlan plan = detail::slicePlan(graph, type, rows, cols, params.maxElementsPerTile);
  Tensor t = createSliceableTensor(graph, type, {rows, cols}, {0}, {1}, plan, {}, dc.getPathName().empty() ? op : dc.getPathName());
  return t.reshape(canon).dimShuffle(perm);
}

Tensor gather(Graph &graph, const Tensor &input, const Tensor &indices, unsigned axis, program::Sequence &prog,
              GatherParams params, const DebugContext &dc) {
  const std::string op = "popops::gather";
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  if (axis >= input.rank()) fail(op, "axis " + std::to_string(axis) + " is not a dimension of the input " + input.shapeToString());
  checkIndices(op, indices);
  const std::vector<unsigned> perm = axisFirst(input.rank(), axis);
  const Tensor canon = input.dimShuffle(perm);
  const std::vector<std::size_t> canonShape = canon.shape();
  std::vector<std::size_t> outShape = canonShape;
  outShape[0] = indices.numElements();
  if (input.dim(axis) == 0) fail(op, "the input " + input.shapeToString() + " has no element on axis " + std::to_string(axis));
  const std::size_t rows = canonShape[0], cols = product(canonShape, 1);
  const Tensor table = canon.reshape({rows, cols});
  const Tensor offsets = map(graph, expr::Cast(clamped(indices, expr::_1, int(rows - 1)), UNSIGNED_INT),
                             {indices.flatten()}, prog, name + "/offsets");
  const SlicePlan plan = detail::slicePlan(graph, input.elementType(), rows, cols, params.maxElementsPerTile);
  const Tensor out = multiSlice(graph, table, offsets, {0}, {1}, prog, plan, {}, name);
  return out.reshape(outShape).dimShuffle(perm);
}

Tensor createGatherInput(Graph &graph, const Type &type, const std::vector<std::size_t> &inputShape,
                         const std::vector<std::size_t> &sliceSizes, std::vector<unsigned> startIndexMap,
                         const DebugContext &dc) {
  const std::string op = "popops::createGatherInput";
  if (sliceSizes.size() != inputShape.size())
    fail(op, "sliceSizes " + shapeString(sliceSizes) + " must have one size a dimension of " + shapeString(inputShape));
  for (unsigned d : startIndexMap)
    if (d >= inputShape.size()) fail(op, "startIndexMap names dimension " + std::to_string(d) + " of " + shapeString(inputShape));
  const std::vector<unsigned> perm = slicedFirst(inputShape.size(), startIndexMap);
  const std::vector<std::size_t> canon = permuted(inputShape, perm);
  const std::size_t k = startIndexMap.size();
  const std::size_t rows = product(canon, 0, k), cols = product(canon, k);
  Tensor t = createSliceableTensor(graph, type, {rows, cols}, {0}, {1}, detail::slicePlan(graph, type, rows, cols, 0), {},
                                   dc.getPathName().empty() ? op : dc.getPathName());
  std::vector<unsigned> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = unsigned(i);
  return t.reshape(canon).dimShuffle(inverse);
}

Tensor gather(Graph &graph, const Tensor &input, const Tensor &indices, std::size_t indexVectorDim,
              const std::vector<std::size_t> &offsetDims, const std::vector<std::size_t> &sliceSizes,
              const std::vector<std::size_t> &collapsedSliceDims, const std::vector<unsigned> &startIndexMap,
              program::Sequence &prog, const DebugContext &dc) {
  const std::string op = "popops::gather";
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  const std::size_t rank = input.rank();
  checkIndices(op, indices);
  if (indexVectorDim > indices.rank())
    fail(op, "indexVectorDim " + std::to_string(indexVectorDim) + " is past the indices' rank " + std::to_string(indices.rank()));
  if (sliceSizes.size() != rank)
    fail(op, "sliceSizes " + shapeString(sliceSizes) + " must have one size a dimension of the input " + input.shapeToString());
  for (std::size_t d = 0; d < rank; ++d)
    if (sliceSizes[d] > input.dim(d))
      fail(op, "sliceSizes " + shapeString(sliceSizes) + " do not fit in the input " + input.shapeToString());
  const std::size_t k = indexVectorDim == indices.rank() ? 1 : indices.dim(indexVectorDim);
  if (startIndexMap.size() != k)
    fail(op, "startIndexMap has " + std::to_string(startIndexMap.size()) + " entries; each index vector has " + std::to_string(k));
  for (std::size_t i = 0; i < k; ++i) {
    if (startIndexMap[i] >= rank) fail(op, "startIndexMap names dimension " + std::to_string(startIndexMap[i]) + " of the input " + input.shapeToString());
    for (std::size_t j = 0; j < i; ++j)
      if (startIndexMap[i] == startIndexMap[j]) fail(op, "startIndexMap names dimension " + std::to_string(startIndexMap[i]) + " twice");
  }
  for (std::size_t d : collapsedSliceDims)
    if (d >= rank || sliceSizes[d] != 1)
      fail(op, "collapsed slice dimension " + std::to_string(d) + " must be a dimension of size 1 of sliceSizes " + shapeString(sliceSizes));
  const std::size_t batchRank = indices.rank() - (indexVectorDim < indices.rank() ? 1 : 0);
  const std::size_t outRank = batchRank + offsetDims.size();
  if (offsetDims.size() != rank - collapsedSliceDims.size())
    fail(op, "offsetDims " + shapeString(offsetDims) + " must name the " + std::to_string(rank - collapsedSliceDims.size()) +
                 " dimensions of a slice left after collapsing");
  for (std::size_t i = 0; i < offsetDims.size(); ++i)
    if (offsetDims[i] >= outRank || (i && offsetDims[i] <= offsetDims[i - 1]))
      fail(op, "offsetDims " + shapeString(offsetDims) + " must increase and lie below the output's rank " + std::to_string(outRank));

  // The index vectors as [B][k], columns in increasing order of the dimension they index.
  Tensor vectors = indexVectorDim == indices.rank() ? indices.expand({indices.rank()}) : indices.dimRoll(unsigned(indexVectorDim), unsigned(indices.rank() - 1));
  const std::size_t batch = vectors.numElements() / k;
  vectors = vectors.reshape({batch, k});
  std::vector<unsigned> byDim(k);
  std::iota(byDim.begin(), byDim.end(), 0u);
  std::sort(byDim.begin(), byDim.end(), [&](unsigned a, unsigned b) { return startIndexMap[a] < startIndexMap[b]; });

  // The canonical input: indexed dimensions first (increasing), the others cut to their slice size.
  const std::vector<unsigned> perm = slicedFirst(rank, startIndexMap);
  Tensor canon = input.dimShuffle(perm);
  for (std::size_t i = k; i < rank; ++i) canon = canon.slice(0, sliceSizes[perm[i]], unsigned(i));
  const std::vector<std::size_t> canonShape = canon.shape();
  const std::size_t rows = product(canonShape, 0, k), cols = product(canonShape, k);

  // A slice is the rows sum_j (start_j + o_j) x stride_j over its offsets o within the slice:
  // a [B][P] tensor of rows, worked out on the tiles from the clamped starts and a constant of
  // the offsets' part.
  std::vector<std::size_t> sizes(k), strides(k);
  for (std::size_t j = k; j-- > 0;) {
    sizes[j] = sliceSizes[perm[j]];
    strides[j] = j + 1 == k ? 1 : strides[j + 1] * canonShape[j + 1];
  }
  const std::size_t P = product(sizes);
  std::vector<unsigned> offsetPart(P);
  for (std::size_t p = 0; p < P; ++p) {
    std::size_t rest = p, sum = 0;
    for (std::size_t j = k; j-- > 0;) sum += rest % sizes[j] * strides[j], rest /= sizes[j];
    offsetPart[p] = unsigned(sum);
  }
  Tensor offsetConst = graph.addConstant(UNSIGNED_INT, {1, P}, offsetPart.data(), name + "/sliceOffsets");
  poputil::mapTensorLinearly(graph, offsetConst);
  std::vector<Tensor> operands;
  expr::Any row = expr::Cast(expr::PlaceHolder(unsigned(k + 1)), INT);
  for (std::size_t j = 0; j < k; ++j) {
    operands.push_back(vectors.slice(byDim[j], byDim[j] + 1, 1));
    const int hi = int(canonShape[j] - sizes[j]);
    row = expr::Add(row, expr::Mul(clamped(indices, expr::PlaceHolder(unsigned(j + 1)), hi), expr::Const(int(strides[j]))));
  }
  operands.push_back(offsetConst);
  const Tensor rowsOf = map(graph, expr::Cast(row, UNSIGNED_INT), operands, prog, name + "/rows");

  // The slices as [B][canonical slice dimensions], then in the input's order, collapsed, the
  // batch dimensions as the indices have them, and the offset dimensions where offsetDims says.
  const Tensor table = canon.reshape({rows, cols});
  Tensor acc = multiSlice(graph, table, rowsOf.flatten(), {0}, {1}, prog, detail::slicePlan(graph, input.elementType(), rows, cols, 0), {}, name);
  std::vector<std::size_t> accShape{batch};
  for (std::size_t j = 0; j < k; ++j) accShape.push_back(sizes[j]);
  for (std::size_t i = k; i < rank; ++i) accShape.push_back(canonShape[i]);
  acc = acc.reshape(accShape);
  std::vector<unsigned> toInput(rank + 1);
  toInput[0] = 0;
  for (std::size_t i = 0; i < rank; ++i) toInput[perm[i] + 1] = unsigned(i + 1);
  acc = acc.dimShuffle(toInput);
  std::vector<std::size_t> squeeze;
  for (std::size_t d : collapsedSliceDims) squeeze.push_back(d + 1);
  std::sort(squeeze.begin(), squeeze.end());
  acc = acc.squeeze(squeeze);
  std::vector<std::size_t> batchShape;
  for (std::size_t d = 0; d < indices.rank(); ++d)
    if (d != indexVectorDim) batchShape.push_back(indices.dim(d));
  std::vector<std::size_t> expanded = batchShape;
  for (std::size_t i = 1; i < acc.rank(); ++i) expanded.push_back(acc.dim(i));
  acc = acc.reshape(expanded);
  std::vector<unsigned> order;
  std::size_t nextBatch = 0, nextOffset = batchRank;
  for (std::size_t d = 0; d < outRank; ++d)
    order.push_back(unsigned(std::find(offsetDims.begin(), offsetDims.end(), d) != offsetDims.end() ? nextOffset++ : nextBatch++));
  return acc.dimShuffle(order);
}

} // namespace popops
