// Sample: a worker codelet using the __builtin_ipu_* API (as poplibs' inline-assembler helpers
// do), <ipu_memory_intrinsics>, <ipudef.h> vector types and <print.h>.
#include <ipu_builtins.h>
#include <ipu_memory_intrinsics>
#include <ipudef.h>
#include <poplar/HalfFloat.hpp>
#include <poplar/TileConstants.hpp>
#include <poplar/VectorTypes.hpp>
#include <poplar/Vertex.hpp>
#include <print.h>

using namespace poplar;

static_assert(sizeof(half2) == 4 && alignof(half2) == 4, "half2");
static_assert(sizeof(half4) == 8 && alignof(half4) == 8, "half4");
static_assert(sizeof(half8) == 16 && alignof(half8) == 8, "half8: 8-aligned");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2");
static_assert(sizeof(float4) == 16 && alignof(float4) == 8, "float4: 8-aligned");
static_assert(sizeof(uchar4) == 4 && sizeof(short4) == 8 && sizeof(int2) == 8 && sizeof(uint4) == 16, "int vectors");

class Builtins : public Vertex {
public:
  Input<Vector<float2, VectorLayout::SPAN, 8>> in;
  Output<Vector<float2, VectorLayout::ONE_PTR, 8>> out;
  InOut<Vector<half4, VectorLayout::SPAN, 8>> h;
  Output<Vector<unsigned, VectorLayout::ONE_PTR>> words;

  bool compute() {
    const float2 *src = &in[0];
    float2 *dst = &out[0];
    const float2 lim = {-1.0f, 1.0f};
    for (unsigned i = 0; i < in.size(); ++i) {
      float2 x = ipu::load_postinc(&src, 1);
      float2 m = __builtin_ipu_cmplt(x, float2{0.0f, 0.0f});
      x = __builtin_ipu_andc(x, m); // zero the negative lanes
      x = __builtin_ipu_max(x, __builtin_ipu_f32v2clamp(x, lim));
      ipu::store_postinc(&dst, x, 1);
    }
    for (auto &v : h) {
      half4 e = __builtin_ipu_absmax(v, half4{1, 2, 3, 4});
      half2 lo = __builtin_shufflevector(e, e, 0, 1);
      v = __builtin_ipu_f16v4clamp(e, __builtin_ipu_exp2(lo));
    }
    float f = __builtin_ipu_andc_f32(1.5f, -0.0f);
    unsigned bits = __builtin_bit_cast(unsigned, f);
    words[0] = __builtin_ipu_shuf8x8lo(bits, 0x01020304u) ^ __builtin_ipu_swap8(bits) ^ __builtin_ipu_bitrev8(bits) ^
               __builtin_ipu_sort8x8hi(bits, 7) ^ __builtin_ipu_roll8l(bits, 3) ^ __builtin_ipu_cms(-3);
    words[1] = __builtin_ipu_isnan(f) + __builtin_ipu_isinf(f) + __builtin_ipu_isfinite(f) + __builtin_clz(bits) +
               __builtin_popcount(bits);
#ifdef __IPU__
    unsigned fpctl = __builtin_ipu_uget(CSR_W_FP_CTL__INDEX);
    __builtin_ipu_uput(fpctl, CSR_W_FP_CTL__INDEX);
    uint2 tri = __builtin_ipu_tapack(&in[0], &out[0], &words[0]);
    words[2] = tri[0] + tri[1] + __builtin_ipu_urand32() + __builtin_ipu_get_worker_id() +
               (unsigned)__builtin_ipu_get(CSR_W_WSR__INDEX);
    words[3] = (unsigned)(__builtin_ipu_urand_f32() * 100.0f) + (unsigned)(float)__builtin_ipu_urand_f16();
    short2 c = __builtin_ipu_class(half2{1, 2});
    words[4] = (unsigned)c[0] + (unsigned)__builtin_ipu_class(1.0f);
    __builtin_ipu_f16v4cmac(half4{1, 2, 3, 4}, half4{1, 1, 1, 1});
    float2 acc = __builtin_ipu_f32v2axpy(float2{1, 2}, float2{3, 4});
    __builtin_ipu_f32v2aop(acc, acc, 0);
    acc = __builtin_ipu_f32v2gina(acc, 0);
    out[0] = acc + __builtin_ipu_f32v2rmask(acc, 0.5f) + __builtin_ipu_f32v2grand();
#endif
    printf("words[0] = %u\n", words[0]);
    return true;
  }
};

// Emit compute() in the sample IR (ipu-cc generates the real __runCodelet_ wrapper).
[[gnu::used]] static bool sampleEntry(void *v) { return static_cast<Builtins *>(v)->compute(); }
