// popops' implementation, shared by its files: the element-wise vertex generator that every
// element-wise operation (map, cast, fill, scaled add) is built on.
#ifndef IPUSIM_POPOPS_INTERNAL_HPP
#define IPUSIM_POPOPS_INTERNAL_HPP

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/Expr.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace popops {
namespace expr {
std::string opTypeName(UnaryOpType t);
std::string opTypeName(BinaryOpType t);
std::string opTypeName(TernaryOpType t);
} // namespace expr

namespace detail {

/// The result type and shape of `expr` over `ts` (numpy broadcasting); `op` names the operation
/// in errors.
struct MapSignature {
  poplar::Type type;
  std::vector<std::size_t> shape;
};
MapSignature mapSignature(const std::string &op, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts);

/// Adds to `cs` the vertices that write `expr` over `ts` into `out` (whose shape is the
/// broadcast shape and whose type is the result's). With `inPlace`, out is ts[0].
void addMapVertices(poplar::Graph &graph, const std::string &op, const expr::Expr &expr,
                    const std::vector<poplar::Tensor> &ts, const poplar::Tensor &out, bool inPlace,
                    poplar::ComputeSet cs);

/// The C++ type of a Poplar element type on the tile (`op` names the operation in the error
/// for a type without one).
std::string deviceType(const std::string &op, const poplar::Type &t);

/// t's flat elements in memory order (its variables' runs, sorted): the order an element-wise
/// operation visits them in.
poplar::Tensor inMemoryOrder(const poplar::Tensor &t);

/// What each vertex of an element-wise operation takes on a tile: (tile, its regions of the
/// flat output). A region a vertex while a tile has few; past kRegionsPerVertex, all the tile's
/// regions one vertex, whose fields the graph compiler gathers into one run on the tile before
/// it and scatters after it (a copy a region instead of a vertex start a region: a column strip
/// of a row-major tensor is a region a row).
constexpr std::size_t kRegionsPerVertex = 4;
std::vector<std::pair<unsigned, std::vector<poplar::Interval>>>
vertexRegions(const std::vector<std::vector<poplar::Interval>> &mapping);

/// flat's elements in `regions`, in turn.
poplar::Tensor regionsOf(const poplar::Tensor &flat, const std::vector<poplar::Interval> &regions);

/// The multi-slice plan of a [rows][cols] table whose row blocks hold at most maxRowBlock rows
/// (the gathers' GatherParams::maxElementsPerTile).
SlicePlan slicePlan(const poplar::Graph &graph, const poplar::Type &type, std::size_t rows, std::size_t cols,
                    std::size_t maxRowBlock);

/// The options every element-wise operation accepts (poplibs' names); others are invalid_option.
void checkMapOptions(const std::string &op, const poplar::OptionFlags &options);

} // namespace detail
} // namespace popops

#endif
