// ipu-cc: the codelet compiler. A Poplar-style C++ codelet file -> clang 19 (in process) -> LLVM IR
// -> LLVM's -O2 pipeline -> ipusim's own backend (instruction selection, register allocation,
// MAIN+AUX bundling) -> assembly in the Colossus dialect -> ipu-as -> a relocatable object.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipusim/cc/Object.h"

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
};

struct CompileOptions {
  std::vector<std::string> includeDirs; ///< -I
  std::vector<std::string> defines;     ///< -D NAME or NAME=VALUE
  int optLevel = 2;                     ///< -O0 .. -O3 (the LLVM pipeline before our backend)
  std::string cxxStandard = "c++17";    ///< -std=
};

/// What compiling one codelet file gives.
struct CompileResult {
  std::string assembly;              ///< the generated Colossus assembly (what -S writes)
  ObjectFile object;                 ///< assembled, with the layouts in section ".ipu.vertices"
  std::vector<VertexLayout> vertices; ///< every vertex class the file defines
  std::string warnings;               ///< diagnostics that did not stop compilation, one per line
};

/// Compilation failed; what() holds every diagnostic, one `file:line:col: error: ...` per line.
class CompileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

CompileResult compileCodelet(const std::string &path, const CompileOptions &options = {});

/// The vertex layouts as JSON (what `ipu-cc --print-vertex-layout` prints).
std::string vertexLayoutsToJson(const std::vector<VertexLayout> &vertices);
/// Reads the layouts back from an object's ".ipu.vertices" section (empty if it has none).
std::vector<VertexLayout> readVertexLayouts(const ObjectFile &object);

} // namespace ipusim::cc
