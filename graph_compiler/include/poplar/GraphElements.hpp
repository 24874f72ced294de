// ipusim's Poplar SDK: handles of graph elements: vertices, their fields, compute sets, functions.
#ifndef IPUSIM_POPLAR_GRAPHELEMENTS_HPP
#define IPUSIM_POPLAR_GRAPHELEMENTS_HPP

#include <poplar/StringRef.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace ipusim {
namespace gc {
struct GraphData;
}
} // namespace ipusim

namespace poplar {

typedef unsigned vertex_id;
class FieldRef;

class VertexRef {
public:
  VertexRef() : graph_(nullptr), id_(0) {}
  FieldRef operator[](StringRef fieldName) const;
  vertex_id getId() const { return id_; }

  // ipusim (internal).
  VertexRef(ipusim::gc::GraphData *graph, unsigned id) : graph_(graph), id_(id) {}
  ipusim::gc::GraphData *graph() const { return graph_; }

private:
  ipusim::gc::GraphData *graph_;
  unsigned id_;
};

class FieldRef {
public:
  FieldRef() : fieldId(0), index(0), indexed(false) {}
  /// Element `index` of a vector-of-vectors field.
  FieldRef operator[](std::size_t i) const {
    FieldRef f = *this;
    f.index = i;
    f.indexed = true;
    return f;
  }
  bool isIndexed() const { return indexed; }
  std::size_t getIndex() const { return index; }

  VertexRef vertex;
  unsigned fieldId;
  std::size_t index;
  bool indexed;
};

class ComputeSet {
public:
  ComputeSet() : id_(~0u) {}
  ComputeSet(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }

private:
  unsigned id_;
};
inline bool operator==(const ComputeSet &a, const ComputeSet &b) { return a.getId() == b.getId(); }
inline bool operator!=(const ComputeSet &a, const ComputeSet &b) { return a.getId() != b.getId(); }

class Function {
public:
  Function() : id_(~0u) {}
  Function(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }

private:
  unsigned id_;
};
inline bool operator==(const Function &a, const Function &b) { return a.getId() == b.getId(); }

} // namespace poplar

#endif
