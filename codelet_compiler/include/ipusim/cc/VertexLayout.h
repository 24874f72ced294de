// The state of a vertex as Poplar lays it out (asm-dialect §3.2): the layouts ipu-cc records in an
// object's ".ipu.vertices" section (JSON), and how one vector field's descriptor is encoded. The
// graph compiler writes vertex states with these; `ipusim pack-state` too.
#pragma once

#include "ipusim/cc/Object.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::cc {

/// One field of a vertex's state, as Poplar lays it out (asm-dialect §3.2).
struct VertexField {
  std::string name;   ///< the C++ member name
  uint32_t offset = 0; ///< bytes from the start of the vertex state
  uint32_t size = 0;   ///< bytes the field occupies in the state
  /// "Input", "Output", "InOut" (an edge: pointer(s) to tensor data), "Vector" / "VectorList" (a
  /// plain Vector member, e.g. Vector<Input<Vector<T>>>), or "Value" (a plain member stored inline).
  std::string kind;
  /// The encoding of the field: "SPAN", "ONE_PTR", "SHORT_SPAN", "SCALED_PTR32", "SCALED_PTR64",
  /// "SCALED_PTR128", "DELTAN", "COMPACT_DELTAN" for vectors; "PTR" for an edge to one scalar;
  /// "" for a Value.
  std::string layout;
  /// The element type as C++ spells it ("float", "half", "unsigned int" ...). For a vector of
  /// vectors (Vector<Input<Vector<T, L1>>, L0>) this is T, and innerLayout is L1.
  std::string elementType;
  std::string innerLayout; ///< "" unless the field is a vector of vectors
  /// For a vector of edges (Vector<Input<Vector<T>>>, VectorList<Output<T>> ...): the edges'
  /// direction, "Input", "Output" or "InOut"; "" otherwise.
  std::string innerKind;
  uint32_t elementAlign = 0; ///< the alignment the data must have (Vector's align argument)
  bool interleaved = false;  ///< the data is in interleaved memory (Vector's Interleaved argument)
};

struct VertexLayout {
  std::string className;   ///< fully qualified, with template arguments ("popops::Fill<float>")
  std::string entrySymbol; ///< asm-dialect §3.3 ("__runCodelet_popops__Fill___float")
  std::string vertexKind;  ///< "Vertex", "MultiVertex" or "SupervisorVertex"
  bool external = false;   ///< IS_EXTERNAL_CODELET(true): links to an assembly implementation
  uint32_t size = 0;       ///< bytes of vertex state
  uint32_t align = 1;
  std::vector<VertexField> fields;
  /// Fields whose data must lie in different memory elements, from the class's
  /// `[[poplar::constraint("elem(*a) != elem(*b)")]]` attributes: so that one instruction can
  /// access both without a conflict (ipu-facts §2.4, [F] S4).
  std::vector<std::pair<std::string, std::string>> elemApart;
};

/// The vertex layouts as JSON (what `ipu-cc --print-vertex-layout` prints).
std::string vertexLayoutsToJson(const std::vector<VertexLayout> &vertices);
/// Reads the layouts back from an object's or image's ".ipu.vertices" section (empty if it has
/// none); std::runtime_error if the section is malformed.
std::vector<VertexLayout> readVertexLayouts(const ObjectFile &object);

/// Writes the descriptor of a field of `layout` ("PTR", "ONE_PTR", "SPAN", "SHORT_SPAN",
/// "SCALED_PTR32/64/128") pointing at `count` elements at `addr` into `out` at byte `at`.
/// std::invalid_argument says why it cannot (an address a scaled pointer cannot reach ...).
void writeVectorDescriptor(std::vector<uint8_t> &out, uint32_t at, const std::string &layout, uint32_t addr,
                           uint64_t count, uint32_t memoryBase);
/// Bytes of one element of a C++ type as layouts name it ("float" 4, "half" 2, "unsigned char"
/// 1 ...), or 0 if unknown.
unsigned elementTypeBytes(const std::string &type);

} // namespace ipusim::cc
