// ipusim's Poplar SDK: control programs (namespace poplar::program). Programs are cheap handles
// with value semantics: adding to a Sequence never changes another copy of it.
#ifndef IPUSIM_POPLAR_PROGRAM_HPP
#define IPUSIM_POPLAR_PROGRAM_HPP

#include <poplar/ArrayRef.hpp>
#include <poplar/DataStream.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/Tensor.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace ipusim {
namespace gc {
struct ProgramNode;
}
} // namespace ipusim

namespace poplar {
namespace program {

class Program {
public:
  Program();
  Program(const Program &) = default;
  Program(Program &&) = default;
  Program &operator=(const Program &) = default;
  Program &operator=(Program &&) = default;
  virtual ~Program();
  bool isEmpty() const;

  // ipusim (internal).
  explicit Program(std::shared_ptr<const ipusim::gc::ProgramNode> node) : node_(std::move(node)) {}
  const std::shared_ptr<const ipusim::gc::ProgramNode> &node() const { return node_; }

protected:
  std::shared_ptr<const ipusim::gc::ProgramNode> node_;
};

class Sequence : public Program {
  template <class... T> struct allPrograms;
  template <class A> struct allPrograms<A> {
    static const bool value = std::is_base_of<Program, typename std::decay<A>::type>::value;
  };
  template <class A, class B, class... T> struct allPrograms<A, B, T...> {
    static const bool value = allPrograms<A>::value && allPrograms<B, T...>::value;
  };

public:
  Sequence(const DebugContext &debugContext = {});
  Sequence(ArrayRef<Program> programs, const DebugContext &debugContext = {});
  Sequence(std::initializer_list<Program> programs, const DebugContext &debugContext = {});
  Sequence(const Sequence &) = default;
  Sequence(Sequence &&) = default;
  Sequence &operator=(const Sequence &) = default;
  Sequence &operator=(Sequence &&) = default;
  /// Sequence{a, b, c}: the programs in order.
  template <class First, class... Rest,
            typename std::enable_if<allPrograms<First, Rest...>::value &&
                                        !(sizeof...(Rest) == 0 &&
                                          std::is_same<typename std::decay<First>::type, Sequence>::value),
                                    int>::type = 0>
  Sequence(First &&first, Rest &&...rest) : Sequence() {
    add(first);
    addAll(rest...);
  }
  /// Appends a step (a copy of the handle: later changes to `p` do not reach this sequence).
  void add(const Program &p);

private:
  void addAll() {}
  template <class A, class... T> void addAll(A &&a, T &&...rest) {
    add(a);
    addAll(rest...);
  }
};

class Execute : public Program {
public:
  explicit Execute(ComputeSet cs, const DebugContext &debugContext = {});
  /// The SDK's form that also writes the AND of the vertices' results to `t`. ipusim does not
  /// model how vertex results reach a tensor: building an engine with it is an error.
  Execute(ComputeSet cs, const Tensor &t, const DebugContext &debugContext = {});
};

/// A program marked as a block for the SDK's lightweight profiling: it runs `program`.
class Block : public Program {
public:
  explicit Block(const Program &program, const DebugContext &debugContext = {});
};

class Repeat : public Program {
public:
  Repeat(unsigned count, const Program &prog, const DebugContext &debugContext = {});
};

class RepeatWhileTrue : public Program {
public:
  RepeatWhileTrue(const Program &cond, Tensor predicate, const Program &body, const DebugContext &debugContext = {});
};

class RepeatWhileFalse : public Program {
public:
  RepeatWhileFalse(const Program &cond, Tensor predicate, const Program &body, const DebugContext &debugContext = {});
};

class If : public Program {
public:
  If(Tensor predicate, const Program &trueBody, const Program &falseBody, const DebugContext &debugContext = {});
};

class Switch : public Program {
public:
  Switch(Tensor control, const std::vector<std::pair<std::int32_t, Program>> &cases, const DebugContext &debugContext = {});
  Switch(Tensor control, const std::vector<std::pair<std::int32_t, Program>> &cases, const Program &defaultCaseBody,
         const DebugContext &debugContext = {});
  Switch(Tensor control, const DebugContext &debugContext = {});
  Switch(Tensor control, const Program &defaultCaseBody, const DebugContext &debugContext = {});
  /// Adds a case; values must be unique.
  Switch &add(std::int32_t value, const Program &body);
};

class Copy : public Program {
public:
  Copy(Tensor src, Tensor dst, bool dontOutline = false, const DebugContext &debugContext = {});
  Copy(const DataStream &stream, Tensor dst, bool optimiseMemory = false, const DebugContext &debugContext = {});
  Copy(Tensor src, const DataStream &stream, bool optimiseMemory = false, const DebugContext &debugContext = {});
  /// Row 0 of the buffer to `dst`; with `offset` (unsigned or int, n elements), n rows: row
  /// offset[i] to the i-th numElements() elements of `dst`.
  Copy(const RemoteBuffer &buffer, Tensor dst, const DebugContext &debugContext = {});
  Copy(const RemoteBuffer &buffer, Tensor dst, Tensor offset, const DebugContext &debugContext = {});
  Copy(Tensor src, const RemoteBuffer &buffer, const DebugContext &debugContext = {});
  Copy(Tensor src, const RemoteBuffer &buffer, Tensor offset, const DebugContext &debugContext = {});
};

class WriteUndef : public Program {
public:
  explicit WriteUndef(Tensor t, const DebugContext &debugContext = {});
};

class AssumeEqualAcrossReplicas : public Program {
public:
  explicit AssumeEqualAcrossReplicas(Tensor t, const DebugContext &debugContext = {});
};

class Sync : public Program {
public:
  explicit Sync(SyncType type, const DebugContext &debugContext = {});
};

class Call : public Program {
public:
  explicit Call(Function f, const DebugContext &debugContext = {});
};

class PrintTensor : public Program {
public:
  explicit PrintTensor(Tensor t, const DebugContext &debugContext = {});
  PrintTensor(StringRef title, Tensor t, const DebugContext &debugContext = {});
};

} // namespace program
} // namespace poplar

#endif
