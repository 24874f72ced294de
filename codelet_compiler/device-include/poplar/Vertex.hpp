// ipusim's <poplar/Vertex.hpp>: the Poplar codelet API (vertex base classes, edge and vector
// field types) for codelets compiled by ipu-cc, and for compiling the same codelets natively on a
// host for unit tests.
//
// Vertex-state storage on the IPU target (__IPU__ defined) follows docs/device-headers.md and
// asm-dialect §3.2 exactly; ipu-cc reads each field's size and offset from clang's record layout
// and recognises the field kinds by the template names Input, Output, InOut, Vector and
// VectorList (for Vector the 2nd template argument is the layout, the 3rd the alignment).
//
//   layout          IPU storage (size/align)          decoding
//   scalar edge     T* (4/4)                          the pointer
//   ONE_PTR         T* (4/4)                          the pointer, no element count
//   SPAN            {T*, uint32 count} (8/4)          pointer, element count
//   SHORT_SPAN      uint32 (4/4)                      pointer = bits [0,20), count = bits [20,32)
//   SCALED_PTR32    uint16 (2/2)                      pointer = (v << 2) + TMEM_REGION0_BASE_ADDR
//   SCALED_PTR64    uint16 (2/2)                      pointer = v << 3
//   SCALED_PTR128   uint16 (2/2)                      pointer = v << 4
//   VectorList DELTAN / DELTANELEMENTS / COMPACT_DELTAN: storage only on the IPU (see below).
//
// On a host (no __IPU__) pointers are 64-bit and cannot be compressed, so every layout stores a
// plain pointer (plus a count where the layout has one); `bind()` sets a field in unit tests.
#ifndef IPUSIM_POPLAR_VERTEX_HPP
#define IPUSIM_POPLAR_VERTEX_HPP

#include <poplar/HalfFloat.hpp>
#include <poplar/QuarterFloat.hpp>

// What the SDK's codelet headers make visible transitively, and codelets use without including
// it (issue 13): the fixed-width integers, size_t, the type traits and, on the IPU, the
// short-vector types (float2, half4 ...) and memcpy. poplibs' codelets rely on each.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility> // std::swap, which libc++'s <type_traits> declares (poplin's SLIC codelets)
#ifdef __IPU__
#include <ipudef.h>
#endif

// Poplar's graph compiler reads vertex constraints such as
// `class [[poplar::constraint("elem(*a) != elem(*b)")]] V`. They mean nothing to code generation,
// and clang does not know the attribute namespace: keep codelets warning-free under -Wall.
#pragma clang diagnostic ignored "-Wunknown-attributes"

namespace poplar {

/// Vector encodings (the names Poplar uses). DELTAN, DELTANELEMENTS and COMPACT_DELTAN are listed
/// for completeness; they belong to VectorList (VectorListLayout) and are rejected for Vector.
enum class VectorLayout {
  ONE_PTR,
  SPAN,
  SHORT_SPAN,
  SCALED_PTR32,
  SCALED_PTR64,
  SCALED_PTR128,
  COMPACT_PTR,
  DELTAN,
  DELTANELEMENTS,
  COMPACT_DELTAN,
};

/// VectorList encodings.
enum class VectorListLayout {
  DELTAN,
  DELTANELEMENTS,
  COMPACT_DELTAN,
};

/// A vertex run by one worker: `bool compute()` (or `void compute()`).
class Vertex {
public:
  static constexpr bool isExternalCodelet = false;
};

/// A vertex whose entry point all six workers run on the same state: `compute(unsigned workerId)`
/// with workerId in [0, numWorkers()).
class MultiVertex {
public:
  static constexpr bool isExternalCodelet = false;
  static constexpr unsigned numWorkers() { return 6; }
};

/// A vertex run on the supervisor context (`bool compute()`); it may start workers itself.
class SupervisorVertex {
public:
  static constexpr bool isExternalCodelet = false;
};

/// poplibs' `SupervisorVertexIf<cond>`: a SupervisorVertex when cond holds (the assembly
/// implementation is a supervisor), else a plain Vertex running the C++ compute().
namespace detail {
template <bool IsSupervisor> struct SupervisorIf { using type = Vertex; };
template <> struct SupervisorIf<true> { using type = SupervisorVertex; };
} // namespace detail
template <bool IsSupervisor>
using SupervisorVertexIf = typename detail::SupervisorIf<IsSupervisor>::type;

namespace detail {

using uint16 = unsigned short;
using uint32 = unsigned int;
using uintptr = __UINTPTR_TYPE__;
using size_type = __SIZE_TYPE__;

/// TMEM_REGION0_BASE_ADDR of the Mk2 (poplar/TileConstants.hpp): SCALED_PTR32's origin.
constexpr uint32 kScaledPtr32Base = 0x4c000;

/// The data pointer with its alignment made known to the optimiser.
template <unsigned Align, typename T> inline T *assumeAligned(T *p) {
  static_assert(Align != 0 && (Align & (Align - 1)) == 0, "alignment must be a power of two");
  return static_cast<T *>(__builtin_assume_aligned(const_cast<void *>(static_cast<const void *>(p)), Align));
}

template <VectorLayout L> struct LayoutTraits {
  static constexpr bool supported = false;
  static constexpr bool hasSize = false;
};

// The encodings. Each Rep<E, L> provides ptr(), count() (only where the layout has one) and
// set(ptr, count). E is the element type including const.
template <typename E, VectorLayout L> struct Rep {
  static_assert(L == VectorLayout::ONE_PTR || L == VectorLayout::SPAN,
                "poplar::Vector: DELTAN / DELTANELEMENTS / COMPACT_DELTAN are VectorList layouts: "
                "use poplar::VectorList with poplar::VectorListLayout");
};

template <typename E> struct Rep<E, VectorLayout::ONE_PTR> {
  E *ptr_;
  E *ptr() const { return ptr_; }
  void set(E *p, size_type) { ptr_ = p; }
};

template <typename E> struct Rep<E, VectorLayout::SPAN> {
  E *ptr_;
  uint32 size_;
  E *ptr() const { return ptr_; }
  size_type count() const { return size_; }
  void set(E *p, size_type n) {
    ptr_ = p;
    size_ = static_cast<uint32>(n);
  }
};

#ifdef __IPU__
template <typename E> struct Rep<E, VectorLayout::SHORT_SPAN> {
  uint32 word_; // pointer in bits [0,20), element count in bits [20,32)
  E *ptr() const { return reinterpret_cast<E *>(static_cast<uintptr>(word_ & 0xfffffu)); }
  size_type count() const { return word_ >> 20; }
  void set(E *p, size_type n) {
    word_ = (static_cast<uint32>(reinterpret_cast<uintptr>(p)) & 0xfffffu) |
            (static_cast<uint32>(n) << 20);
  }
};

template <typename E, unsigned Shift, uint32 Base> struct ScaledRep {
  uint16 scaled_; // (address - Base) >> Shift
  E *ptr() const {
    return reinterpret_cast<E *>(static_cast<uintptr>((static_cast<uint32>(scaled_) << Shift) + Base));
  }
  void set(E *p, size_type) {
    scaled_ = static_cast<uint16>((static_cast<uint32>(reinterpret_cast<uintptr>(p)) - Base) >> Shift);
  }
};
#else
// Host: a full pointer and count (SHORT_SPAN) or a full pointer (SCALED_PTR*).
template <typename E> struct Rep<E, VectorLayout::SHORT_SPAN> : Rep<E, VectorLayout::SPAN> {};
template <typename E, unsigned Shift, uint32 Base> struct ScaledRep : Rep<E, VectorLayout::ONE_PTR> {};
#endif

template <typename E>
struct Rep<E, VectorLayout::SCALED_PTR32> : ScaledRep<E, 2, kScaledPtr32Base> {};
template <typename E> struct Rep<E, VectorLayout::SCALED_PTR64> : ScaledRep<E, 3, 0> {};
template <typename E> struct Rep<E, VectorLayout::SCALED_PTR128> : ScaledRep<E, 4, 0> {};

// COMPACT_PTR: the 16-bit pointer compression the alignment allows, as poplibs' Mk2 assembly
// decodes it (ReduceAdd.S, MultiUpdateOp.S, conv_vmac_common.h.S): SCALED_PTR32 for 4-byte
// aligned data, SCALED_PTR64 from 8 bytes (16-byte aligned data too). Below 4-byte alignment no
// 16-bit encoding reaches all of tile memory (2^16 two-byte units are 128 KiB of 624), so it is a
// full pointer, ONE_PTR ([I]: no poplibs assembly decodes that case; popnn's SelectiveScaling
// has one, in C++).
template <typename E, VectorLayout L, unsigned Align> struct RepOf {
  using type = Rep<E, L>;
};
template <typename E, unsigned Align> struct RepOf<E, VectorLayout::COMPACT_PTR, Align> {
  using type = std::conditional_t<(Align >= 8), Rep<E, VectorLayout::SCALED_PTR64>,
                                  std::conditional_t<(Align >= 4), Rep<E, VectorLayout::SCALED_PTR32>,
                                                     Rep<E, VectorLayout::ONE_PTR>>>;
};

template <VectorLayout L>
constexpr bool layoutHasSize = L == VectorLayout::SPAN || L == VectorLayout::SHORT_SPAN;

template <typename E> constexpr bool isQuarter = std::is_same_v<std::remove_const_t<E>, quarter>;

/// The metadata pointer a vector of quarter carries after its encoding; nothing for other types.
template <typename E, bool = isQuarter<E>> struct MetadataSlot {};
template <typename E> struct MetadataSlot<E, true> {
  const MetadataType *metadata_;
};

template <typename E, typename = void> struct HasMetadata : std::false_type {};
template <typename E>
struct HasMetadata<E, std::void_t<decltype(std::declval<const E &>().getMetadata())>> : std::true_type {};

/// The accessors shared by Vector and the Input/Output/InOut of a Vector. E is the element type
/// as the codelet sees it (const for Input). Access is shallow: a const field still gives
/// writable elements unless E is const, like a span.
template <typename E, VectorLayout L, unsigned Align> class VectorView {
  typename RepOf<E, L, Align>::type rep_;
  [[no_unique_address]] MetadataSlot<E> metadata_;

public:
  using value_type = E;
  using size_type = detail::size_type;
  using iterator = E *;
  using const_iterator = E *;

  E *data() const { return assumeAligned<Align>(rep_.ptr()); }
  E &operator[](size_type i) const { return data()[i]; }
  E *begin() const { return data(); }
  size_type size() const {
    static_assert(layoutHasSize<L>, "size() needs a layout with an element count (SPAN or "
                                    "SHORT_SPAN); ONE_PTR and SCALED_PTR* vectors have none");
    return rep_.count();
  }
  bool empty() const { return size() == 0; }
  E *end() const { return data() + size(); }
  // The SDK's vector edges also read as a pointer to the vector (`in->size()`, `(*in)[i]`), as
  // Graphcore's examples write them.
  const VectorView *operator->() const { return this; }
  const VectorView &operator*() const { return *this; }

  /// ipusim extension: point the field at `n` elements at `p` (unit tests, supervisor-built
  /// worker state). `n` is ignored by layouts without a count.
  void bind(E *p, size_type n = 0) { rep_.set(p, n); }

  /// The metadata byte of a vector of quarter; for a vector of quarter vectors (a 2D field), the
  /// metadata of its first vector, as every vector of one field shares it.
  const MetadataType *getMetadata() const {
    if constexpr (isQuarter<E>) return metadata_.metadata_;
    else {
      static_assert(HasMetadata<E>::value, "getMetadata(): only vectors of quarter have metadata");
      return data()[0].getMetadata();
    }
  }
  /// ipusim extension: the metadata byte of a vector of quarter (unit tests).
  void bindMetadata(const MetadataType *m) {
    static_assert(isQuarter<E>, "bindMetadata(): only vectors of quarter have metadata");
    metadata_.metadata_ = m;
  }
};

/// The storage of a scalar edge: one pointer.
template <typename E> class EdgePtr {
  E *ptr_;

public:
  E &operator*() const { return *ptr_; }
  E *operator->() const { return ptr_; }
  E &operator[](size_type i) const { return ptr_[i]; }
  operator E &() const { return *ptr_; }
  E *data() const { return ptr_; }
  /// A value assigned to an output edge is written through it (`Vector<Output<int>> v; v[0] = x;`).
  EdgePtr &operator=(const E &v) {
    *ptr_ = v;
    return *this;
  }
  EdgePtr &operator=(const EdgePtr &) = default;
  /// ipusim extension: point the edge at `p` (unit tests).
  void bind(E *p) { ptr_ = p; }
};

} // namespace detail

/// A vector of T in the vertex state, encoded per L; its data is Align-byte aligned.
/// Interleaved (data in interleaved memory) does not change the encoding.
template <typename T, VectorLayout L = VectorLayout::SPAN, unsigned Align = alignof(T),
          bool Interleaved = false>
class Vector : public detail::VectorView<T, L, Align> {};

/// A scalar input edge: a pointer to a const T, read with *x, x[i] or by conversion to T.
template <typename T> class Input : public detail::EdgePtr<const T> {};
/// A scalar output edge: a pointer to T.
template <typename T> class Output : public detail::EdgePtr<T> {
public:
  using detail::EdgePtr<T>::operator=;
};
/// A scalar input/output edge: a pointer to T.
template <typename T> class InOut : public detail::EdgePtr<T> {
public:
  using detail::EdgePtr<T>::operator=;
};

/// Vector edges: stored as the Vector's encoding; Input gives const elements.
template <typename T, VectorLayout L, unsigned Align, bool Interleaved>
class Input<Vector<T, L, Align, Interleaved>> : public detail::VectorView<const T, L, Align> {};
template <typename T, VectorLayout L, unsigned Align, bool Interleaved>
class Output<Vector<T, L, Align, Interleaved>> : public detail::VectorView<T, L, Align> {};
template <typename T, VectorLayout L, unsigned Align, bool Interleaved>
class InOut<Vector<T, L, Align, Interleaved>> : public detail::VectorView<T, L, Align> {};

namespace detail {
/// VectorList storage. On the IPU, DELTAN and DELTANELEMENTS are what poplibs' Mk2 assembly
/// decodes (ReductionsCommon.h.S under VECTORLIST_AVAIL_DELTAN): a base word, the base address in
/// bits [0,20) and the number of vectors N in bits [20,32), then a 16-bit SCALED_PTR32 to N
/// table words, each the vector's element count in bits [18,32) and its offset from the base in
/// bits [0,18). The offset's unit is ipusim's reading ([I], docs/device-headers.md): bytes times
/// the list's alignment for DELTAN (poplibs scales it by the byte alignment it was built for),
/// elements for DELTANELEMENTS, bytes for COMPACT_DELTAN (poplibs' dynamicSlice.S and
/// conv_partial_nx1_supervisor.S read COMPACT_DELTAN fields so, offsets in bytes for every type).
template <typename E, VectorListLayout L, unsigned Align> class VectorListView {
#ifdef __IPU__
  uint32 base_;
  uint16 table_;

public:
  using size_type = detail::size_type;
  using Row = VectorView<E, VectorLayout::SPAN, Align>;
  size_type size() const { return base_ >> 20; }
  Row operator[](size_type i) const {
    const uint32 *table =
        reinterpret_cast<const uint32 *>(static_cast<uintptr>((static_cast<uint32>(table_) << 2) + kScaledPtr32Base));
    const uint32 entry = table[i];
    constexpr uint32 unit = L == VectorListLayout::DELTANELEMENTS   ? sizeof(E)
                            : L == VectorListLayout::COMPACT_DELTAN ? 1
                                                                    : Align;
    Row row;
    row.bind(reinterpret_cast<E *>(static_cast<uintptr>((base_ & 0xfffffu) + (entry & 0x3ffffu) * unit)), entry >> 18);
    return row;
  }
#else
  // Host: an array of spans, so host unit tests can use VectorList fields.
  VectorView<const VectorView<E, VectorLayout::SPAN, Align>, VectorLayout::SPAN,
             alignof(VectorView<E, VectorLayout::SPAN, Align>)>
      list_;

public:
  using size_type = detail::size_type;
  using Row = VectorView<E, VectorLayout::SPAN, Align>;
  const Row &operator[](size_type i) const { return list_[i]; }
  size_type size() const { return list_.size(); }
  const Row *begin() const { return list_.begin(); }
  const Row *end() const { return list_.end(); }
  /// ipusim extension (host only): the list is `n` rows at `rows`.
  void bind(const Row *rows, size_type n) { list_.bind(rows, n); }
#endif
};
} // namespace detail

/// A list of vectors of T encoded per L (the DeltaN family).
template <typename T, VectorListLayout L = VectorListLayout::DELTAN, unsigned Align = alignof(T),
          bool Interleaved = false>
class VectorList : public detail::VectorListView<T, L, Align> {};

template <typename T, VectorListLayout L, unsigned Align, bool Interleaved>
class Input<VectorList<T, L, Align, Interleaved>>
    : public detail::VectorListView<const T, L, Align> {};
template <typename T, VectorListLayout L, unsigned Align, bool Interleaved>
class Output<VectorList<T, L, Align, Interleaved>> : public detail::VectorListView<T, L, Align> {};
template <typename T, VectorListLayout L, unsigned Align, bool Interleaved>
class InOut<VectorList<T, L, Align, Interleaved>> : public detail::VectorListView<T, L, Align> {};

} // namespace poplar

#endif // IPUSIM_POPLAR_VERTEX_HPP
