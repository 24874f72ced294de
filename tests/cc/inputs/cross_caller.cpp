// A vertex calling a C++ function defined in another codelet file (cross_callee.cpp), as poplibs'
// MultiSlice calls MultiSliceUpdateCommon.cpp's lowerBinarySearch: ipu-ld links the call and
// sizes the worker stack from both objects' records.
#include <poplar/Vertex.hpp>

namespace xfile {
int weighted(const int *v, unsigned n); // cross_callee.cpp
}

class CrossCaller : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<int>> in;
  poplar::Output<int> out;
  bool compute() {
    *out = xfile::weighted(&in[0], in.size()) + 1;
    return true;
  }
};
