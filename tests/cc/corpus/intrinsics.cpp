// poplibs-style device intrinsics: post-incrementing loads and stores from <ipu_memory_intrinsics>
// and the worker's context id read from $WSR with __builtin_ipu_get (<ipu_builtins.h>), as
// elementwiseCodelets.cpp's getWsr() does.
#include <ipu_builtins.h>
#include <ipu_memory_intrinsics>
#include <ipudef.h>
#include <poplar/TileConstants.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace corpus {

inline unsigned getWsr() { return __builtin_ipu_get(CSR_W_WSR__INDEX) & CSR_W_WSR__CTXTID_M1__MASK; }

// out = in * scale by float2 atoms through ipu::load_postinc / store_postinc, scalar tail.
class PostIncScale : public Vertex {
public:
  Input<Vector<float, SPAN, 8>> in;
  Output<Vector<float, ONE_PTR, 8>> out;
  float scale;

  bool compute() {
    const unsigned n = in.size();
    const float2 s2 = {scale, scale};
    const float2 *src = reinterpret_cast<const float2 *>(&in[0]);
    float2 *dst = reinterpret_cast<float2 *>(&out[0]);
    for (unsigned i = 0; i < n / 2; ++i) ipu::store_postinc(&dst, ipu::load_postinc(&src, 1) * s2, 1);
    if (n & 1) out[n - 1] = in[n - 1] * scale;
    return true;
  }
};

// Every worker writes 16 * (its context id from $WSR) + workerId to ids[workerId]: both ids
// agree, so ids[w] = 17 w.
class WorkerIdFromCsr : public MultiVertex {
public:
  Output<Vector<unsigned, ONE_PTR>> ids;

  bool compute(unsigned wid) {
    ids[wid] = getWsr() * 16 + wid;
    return true;
  }
};

} // namespace corpus
