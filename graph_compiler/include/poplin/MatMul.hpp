// ipusim's Poplar SDK: poplin's matrix multiplications. A product is planned over the tiles
// (its rows, columns and depth split by a cost model of compute, exchange and memory), each tile
// computes a block of partial sums, and the partials over the depth are reduced by
// popops::reduce (docs/poplin.md).
#ifndef IPUSIM_POPLIN_MATMUL_HPP
#define IPUSIM_POPLIN_MATMUL_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <ostream>
#include <vector>

namespace poplin {

namespace matmul {
/// Plans computed once for a shape, types and options (ipusim plans quickly; the cache keeps
/// nothing and is accepted for the SDK's signatures).
class PlanningCache {
public:
  PlanningCache();
  ~PlanningCache();
};
} // namespace matmul

using matmul::PlanningCache;

/// C = A B for 2-D A [m, k] and B [k, n]. Options: availableMemoryProportion (0..1, the share of
/// a tile's memory the operands and partials may take) [=0.6], partialsType (half, float)
/// [=float], fullyConnectedPass (NONE, INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD, TRAINING_WU),
/// and poplibs' other option names (accepted, no effect: docs/poplin.md).
poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::Type &outputType,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                      PlanningCache *cache = nullptr);
poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
void matMulWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B, poplar::Tensor &out,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
/// The plan matMul would use, printed.
void matMulReportPlan(std::ostream &out, const poplar::Graph &graph, const poplar::Type &inputType,
                      const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                      const std::vector<std::size_t> &bShape, const poplar::OptionFlags &options = {},
                      PlanningCache *cache = nullptr);

/// The grouped forms: A [g, m, k], B [g, k, n], C [g, m, n], one product per group.
poplar::Tensor matMulGrouped(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::Type &outputType,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
void matMulGroupedWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::Tensor &out, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
void matMulGroupedReportPlan(std::ostream &out, const poplar::Graph &graph, const poplar::Type &inputType,
                             const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                             const std::vector<std::size_t> &bShape, const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

/// A grouped matrix [G][rows][cols] as [G][cols][rows]: a view, no copy (as in poplibs, a product
/// given one plans for the transposed operand).
poplar::Tensor transposeGroupedMatrix(const poplar::Tensor &A);

/// C += k A B.
void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A,
               const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
               PlanningCache *cache = nullptr);
void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k, const poplar::Tensor &A,
               const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
               PlanningCache *cache = nullptr);
void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A,
                      const poplar::Tensor &B, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                      PlanningCache *cache = nullptr);
void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k,
                      const poplar::Tensor &A, const poplar::Tensor &B, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                      PlanningCache *cache = nullptr);

/// Operands laid out as matMul's plan wants them (each tile holds the blocks it multiplies).
poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
poplar::Tensor createMatMulGroupedInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
poplar::Tensor createMatMulGroupedInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

} // namespace poplin

#endif
