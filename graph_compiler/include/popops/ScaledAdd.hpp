// ipusim's Poplar SDK: popops' scaled additions, A = scaleA A + scaleB B (one fused vertex per
// tile region, as the element-wise maps are generated).
#ifndef IPUSIM_POPOPS_SCALEDADD_HPP
#define IPUSIM_POPOPS_SCALEDADD_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

enum class ScaledAddSpecialisation { DEFAULT, X_MINUS_AX_PLUS_BY };

/// A += scaleB * B.
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, poplar::Tensor scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});
/// A -= scaleB * B.
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, poplar::Tensor scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});
/// A = scaleA * A + scaleB * B (X_MINUS_AX_PLUS_BY: A = A - scaleA * A + scaleB * B).
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                 poplar::Tensor scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                 poplar::Tensor scaleB, poplar::program::Sequence &prog, const ScaledAddSpecialisation speciality,
                 const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const ScaledAddSpecialisation speciality,
                 const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
/// A = scaleA * A - scaleB * B.
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                        poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});

} // namespace popops

#endif
