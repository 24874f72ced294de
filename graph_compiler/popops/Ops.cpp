// popops' casts, fills and scaled additions: each an element-wise expression written by the
// generated vertices of ElementWise.cpp, so every value is computed on the tiles.
#include "Internal.hpp"

#include "../sdk/Asm.hpp"

#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Fill.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/codelets.hpp>

#include <poplar/exceptions.hpp>

#include <cstring>
#include <sstream>

namespace popops {

using namespace poplar;
using namespace popops::expr;

void addCodelets(Graph &) {
  // Every popops vertex is generated for its expression and types when an operation is added
  // (ElementWise.cpp), so there is no fixed codelet library to load.
}

// ---- cast -------------------------------------------------------------------------------------

Tensor cast(Graph &graph, const Tensor &src, const Type &dstType, program::Sequence &prog,
            const DebugContext &debugContext) {
  return map(graph, Cast(_1, dstType), {src}, prog, debugContext);
}

void cast(Graph &graph, const Tensor &src, const Tensor &dst, program::Sequence &prog,
          const DebugContext &debugContext) {
  mapWithOutput(graph, Cast(_1, dst.elementType()), {src}, dst, prog, debugContext);
}

void cast(Graph &graph, const Tensor &src, const Tensor &dst, ComputeSet cs) {
  const std::string op = "popops::cast";
  if (src.shape() != dst.shape())
    throw poplar_error(op + ": the source and destination shapes differ (" + std::to_string(src.numElements()) +
                       " and " + std::to_string(dst.numElements()) + " elements)");
  detail::addMapVertices(graph, op, Cast(_1, dst.elementType()), {src}, dst, false, cs);
}

// ---- fill -------------------------------------------------------------------------------------

namespace {

// The fill value as a constant of t's type.
Const fillConstant(const Type &type, double value) {
  if (type == FLOAT) return Const(static_cast<float>(value));
  if (type == HALF) return ConstHalf(static_cast<float>(value));
  if (type == BOOL) return Const(value != 0);
  const long long v = static_cast<long long>(value);
  return Const(TypeTraits::make<long long>(), type, reinterpret_cast<const char *>(&v));
}

// The fill of a 2- or 4-byte type in assembly: each worker a contiguous run of whole groups of 8
// elements (emitGroupRun), one 64-bit store a bundle of the value's pattern (the vertex state's
// word 2, the element repeated to 32 bits), the run's last word or halves after. A worker stores
// a bundle every sixth cycle, so the six store 8 bytes a cycle (ipu-facts §2.4).
std::string fillAsmVertex(Graph &graph, const Type &type) {
  const std::size_t size = graph.getTarget().getTypeSize(type);
  const std::string T = detail::deviceType("popops::fill", type);
  std::ostringstream body;
  body << "  poplar::Output<poplar::Vector<" << T << ", poplar::VectorLayout::SPAN, 8>> out;\n"
       << "  unsigned pattern;\n"
       << "  static const bool isExternalCodelet = true;\n"
       << "  void compute(unsigned) {}\n};\n";
  return ipusim::sdk::addAsmVertex(graph, "ipusim_popops_Fill", "poplar::MultiVertex", "#include <poplar/Vertex.hpp>\n",
                                   body.str(), "", [&](std::ostream &src, const std::string &name) {
    const std::string entry = "__runCodelet_" + name;
    ipusim::sdk::emitEntry(src, entry, "worker", true);
    ipusim::sdk::emitGroupRun(src, 1);
    src << "  ld32 $m4, $mvertex_base, 0\n"
        << "  shl $m0, $m7, " << (size == 4 ? 2 : 1) << "\n"
        << "  add $m4, $m4, $m0\n"
        << "  ld32 $a0, $mvertex_base, 2\n"
        << "  ld32 $a1, $mvertex_base, 2\n"
        << "  shr $m1, $m3, " << (size == 4 ? 1 : 2) << "\n" // 64-bit words
        << "  and $m10, $m3, " << (size == 4 ? 1 : 3) << "\n" // the elements after them
        << "  .align 8\n"
        << "  { rpt $m1, 0 ; fnop }\n"
        << "  { st64step $a0:1, $mzero, $m4+=, 1 ; fnop }\n"
        << "  brz $m10, .Lexit\n";
    if (size == 2) {
      src << "  cmpult $m0, $m10, 2\n"
          << "  brnz $m0, .Lone\n"
          << "  st32step $a0, $mzero, $m4+=, 1\n"
          << "  add $m10, $m10, -2\n"
          << "  brz $m10, .Lexit\n"
          << ".Lone:\n";
      ipusim::sdk::emitStoreLowHalf(src, "$a0", "$m4");
    } else {
      src << "  st32 $a0, $m4, 0\n";
    }
    src << ".Lexit:\n  exitz $mzero\n";
    ipusim::sdk::emitEnd(src, entry);
  });
}

} // namespace

void detail::fill(Graph &graph, const Tensor &t, double value, ComputeSet cs) {
  if (t.containsAliases()) throw poplar_error("popops::fill: the tensor contains aliases");
  if (t.numElements() == 0) return;
  // A fill does not care for the order: the elements in memory order, so a view's elements that
  // lie together in memory (a row-major view of blocks, a transposed view) are one region.
  const Tensor runs = detail::inMemoryOrder(t);
  const Type type = t.elementType();
  const std::size_t size = graph.getTarget().getTypeSize(type);
  if ((size != 2 && size != 4) || type == BOOL) {
    detail::addMapVertices(graph, "popops::fill", fillConstant(type, value), {}, runs, false, cs);
    return;
  }
  // The element's bits (as the Map vertex would convert the value), repeated to 32 bits.
  uint32_t pattern = 0;
  if (type == FLOAT) {
    const float f = static_cast<float>(value);
    std::memcpy(&pattern, &f, 4);
  } else if (type == HALF) {
    const float f = static_cast<float>(value);
    uint16_t h = 0;
    copyFloatToDeviceHalf(graph.getTarget(), &f, &h, 1);
    pattern = h;
  } else {
    pattern = uint32_t(static_cast<long long>(value));
  }
  if (size == 2) pattern = (pattern & 0xffff) * 0x10001u;
  const std::string vertex = fillAsmVertex(graph, type);
  for (const auto &[tile, regions] : detail::vertexRegions(graph.getTileMapping(runs))) {
    VertexRef v = graph.addVertex(cs, vertex);
    graph.connect(v["out"], detail::regionsOf(runs, regions));
    graph.setInitialValue(v["pattern"], pattern);
    graph.setTileMapping(v, tile);
  }
}

void detail::fill(Graph &graph, const Tensor &t, double value, program::Sequence &prog,
                  const DebugContext &debugContext) {
  ComputeSet cs = graph.addComputeSet(debugContext.getPathName().empty() ? "popops::fill" : debugContext.getPathName());
  detail::fill(graph, t, value, cs);
  prog.add(program::Execute(cs));
}

// ---- scaled add -------------------------------------------------------------------------------

namespace {

void checkScaledAdd(const std::string &op, const Tensor &A, const Tensor &B) {
  if (A.shape() != B.shape())
    throw poplar_error(op + ": A has " + std::to_string(A.numElements()) + " elements in shape rank " +
                       std::to_string(A.rank()) + ", B " + std::to_string(B.numElements()) + " in rank " +
                       std::to_string(B.rank()) + ": they must have the same shape");
  if (A.elementType() != FLOAT && A.elementType() != HALF && A.elementType() != INT &&
      A.elementType() != UNSIGNED_INT)
    throw poplar_error(op + ": A is " + A.elementType().toString() + "; float, half, int or unsigned int expected");
}

void checkScale(const std::string &op, const char *which, const Tensor &s) {
  if (s.numElements() != 1)
    throw poplar_error(op + ": " + which + " must be a single element, not " + std::to_string(s.numElements()));
}

// An operand in the type the arithmetic is done in: half data is computed in float and rounded
// once, into A.
Any inWork(const Expr &e, const Type &dataType, const Type &exprType) {
  const Type work = dataType == HALF ? FLOAT : dataType;
  if (exprType == work) return Any(e);
  return Any(Cast(e, work));
}

// A = a A + b B (or a A - b B) over the given operand expressions, in place.
void scaledUpdate(Graph &graph, const std::string &op, const Tensor &A, const Tensor &B, const Expr *scaleA,
                  const Type &scaleAType, const Expr &scaleB, const Type &scaleBType, bool subtract,
                  bool xMinusAx, std::vector<Tensor> ts, program::Sequence &prog, const DebugContext &dc,
                  const OptionFlags &options) {
  checkScaledAdd(op, A, B);
  if (A.elementType() != B.elementType())
    throw poplar_error(op + ": A is " + A.elementType().toString() + " and B is " + B.elementType().toString());
  const Type t = A.elementType();
  Any a = inWork(_1, t, t), b = inWork(_2, t, t);
  Any bTerm = Mul(b, inWork(scaleB, t, scaleBType));
  Any aTerm = a;
  if (scaleA) {
    Any sa = inWork(*scaleA, t, scaleAType);
    aTerm = xMinusAx ? Any(Sub(a, Mul(a, sa))) : Any(Mul(a, sa));
  }
  Any sum = subtract ? Any(Sub(aTerm, bTerm)) : Any(Add(aTerm, bTerm));
  Any value = t == HALF ? Any(Cast(sum, HALF)) : sum;
  ts.insert(ts.begin(), {A, B});
  mapInPlace(graph, value, ts, prog, dc, options);
}

} // namespace

void scaledAddTo(Graph &graph, Tensor A, Tensor B, float scaleB, program::Sequence &prog,
                 const DebugContext &debugContext, const OptionFlags &options) {
  scaledUpdate(graph, "popops::scaledAddTo", A, B, nullptr, FLOAT, Const(scaleB), FLOAT, false, false, {}, prog,
               debugContext, options);
}

void scaledAddTo(Graph &graph, Tensor A, Tensor B, Tensor scaleB, program::Sequence &prog,
                 const DebugContext &debugContext, const OptionFlags &options) {
  checkScale("popops::scaledAddTo", "scaleB", scaleB);
  scaledUpdate(graph, "popops::scaledAddTo", A, B, nullptr, FLOAT, _3, scaleB.elementType(), false, false,
               {scaleB}, prog, debugContext, options);
}

void scaledSubtractFrom(Graph &graph, Tensor A, Tensor B, float scaleB, program::Sequence &prog,
                        const DebugContext &debugContext, const OptionFlags &options) {
  scaledUpdate(graph, "popops::scaledSubtractFrom", A, B, nullptr, FLOAT, Const(scaleB), FLOAT, true, false, {},
               prog, debugContext, options);
}

void scaledSubtractFrom(Graph &graph, Tensor A, Tensor B, Tensor scaleB, program::Sequence &prog,
                        const DebugContext &debugContext, const OptionFlags &options) {
  checkScale("popops::scaledSubtractFrom", "scaleB", scaleB);
  scaledUpdate(graph, "popops::scaledSubtractFrom", A, B, nullptr, FLOAT, _3, scaleB.elementType(), true, false,
               {scaleB}, prog, debugContext, options);
}

void scaledAddTo(Graph &graph, Tensor A, Tensor scaleA, Tensor B, Tensor scaleB, program::Sequence &prog,
                 const ScaledAddSpecialisation speciality, const DebugContext &debugContext,
                 const OptionFlags &options) {
  checkScale("popops::scaledAddTo", "scaleA", scaleA);
  checkScale("popops::scaledAddTo", "scaleB", scaleB);
  scaledUpdate(graph, "popops::scaledAddTo", A, B, &_3, scaleA.elementType(), _4, scaleB.elementType(), false,
               speciality == ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY, {scaleA, scaleB}, prog, debugContext,
               options);
}

void scaledAddTo(Graph &graph, Tensor A, Tensor scaleA, Tensor B, Tensor scaleB, program::Sequence &prog,
                 const DebugContext &debugContext, const OptionFlags &options) {
  scaledAddTo(graph, A, scaleA, B, scaleB, prog, ScaledAddSpecialisation::DEFAULT, debugContext, options);
}

void scaledAddTo(Graph &graph, Tensor A, float scaleA, Tensor B, float scaleB, program::Sequence &prog,
                 const ScaledAddSpecialisation speciality, const DebugContext &debugContext,
                 const OptionFlags &options) {
  const Const constA(scaleA);
  scaledUpdate(graph, "popops::scaledAddTo", A, B, &constA, FLOAT, Const(scaleB), FLOAT, false,
               speciality == ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY, {}, prog, debugContext, options);
}

void scaledAddTo(Graph &graph, Tensor A, float scaleA, Tensor B, float scaleB, program::Sequence &prog,
                 const DebugContext &debugContext, const OptionFlags &options) {
  scaledAddTo(graph, A, scaleA, B, scaleB, prog, ScaledAddSpecialisation::DEFAULT, debugContext, options);
}

void scaledSubtractFrom(Graph &graph, Tensor A, Tensor scaleA, Tensor B, Tensor scaleB, program::Sequence &prog,
                        const DebugContext &debugContext, const OptionFlags &options) {
  checkScale("popops::scaledSubtractFrom", "scaleA", scaleA);
  checkScale("popops::scaledSubtractFrom", "scaleB", scaleB);
  scaledUpdate(graph, "popops::scaledSubtractFrom", A, B, &_3, scaleA.elementType(), _4, scaleB.elementType(), true,
               false, {scaleA, scaleB}, prog, debugContext, options);
}

void scaledSubtractFrom(Graph &graph, Tensor A, float scaleA, Tensor B, float scaleB, program::Sequence &prog,
                        const DebugContext &debugContext, const OptionFlags &options) {
  const Const constA(scaleA);
  scaledUpdate(graph, "popops::scaledSubtractFrom", A, B, &constA, FLOAT, Const(scaleB), FLOAT, true, false,
               {}, prog, debugContext, options);
}

} // namespace popops
