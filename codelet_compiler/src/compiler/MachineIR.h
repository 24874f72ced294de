// ipu-cc's machine IR: tile instructions over virtual registers, between instruction selection
// (ISel.cpp) and register allocation (RegAlloc.cpp) / bundling and printing (AsmPrinter.cpp).
#pragma once

#include "Frontend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::cc::mir {

/// Register classes: a 32-bit MRF register, a 32-bit ARF register, an even-aligned ARF pair
/// (float2, half4), a 4-aligned ARF quad and an even-aligned MRF pair (tapack's packed addresses).
enum class RegClass : uint8_t { M, A, AP, AQ, MP };
inline bool isMrf(RegClass c) { return c == RegClass::M || c == RegClass::MP; }

/// Physical registers: $m0-$m15 are 0-15, $a0-$a15 are 16-31; virtual registers from kFirstVirtual.
constexpr int kMZero = 15, kSP = 11, kLR = 10, kVertexBase = 13, kWorkerBase = 12;
constexpr int kA0 = 16, kAZero = 31, kAZeros = 30;
constexpr int kFirstVirtual = 64;
inline bool isVirtual(int r) { return r >= kFirstVirtual; }

struct MOp {
  enum Kind : uint8_t { Reg, Imm, Sym, Label, Text } kind = Imm;
  int reg = -1;
  RegClass rc = RegClass::M;
  bool def = false;     ///< the instruction writes the register
  bool use = true;      ///< the instruction reads the register
  bool postInc = false; ///< printed `$mN+=` (read and written)
  /// A lane operand names part of a register group: the registers from reg + lane - 1, of class
  /// rc (one register of a pair, a pair of a quad). 0: the whole register.
  int lane = 0;
  /// An immediate that is a byte offset into the caller's stack arguments: the printer adds the
  /// frame size and scales it (-1: an ordinary immediate).
  int incomingArg = -1;
  bool earlyClobber = false; ///< a def written before the instruction's inputs are all read ("=&r")
  int64_t imm = 0;
  std::string text; ///< symbol, label or raw operand text
  int first() const { return lane ? reg + lane - 1 : reg; } ///< first register, after allocation

  static MOp use_(int r, RegClass c) { MOp o; o.kind = Reg; o.reg = r; o.rc = c; return o; }
  static MOp def_(int r, RegClass c) { MOp o = use_(r, c); o.def = true; o.use = false; return o; }
  static MOp inc(int r) { MOp o = use_(r, RegClass::M); o.def = true; o.postInc = true; return o; }
  static MOp imm_(int64_t v) { MOp o; o.imm = v; return o; }
  static MOp sym(const std::string &s, int64_t addend = 0) { MOp o; o.kind = Sym; o.text = s; o.imm = addend; return o; }
  static MOp label(const std::string &s) { MOp o; o.kind = Label; o.text = s; return o; }
};

struct MInst {
  std::string mnemonic; ///< a table mnemonic; "" for inline assembly (asmText)
  std::vector<MOp> ops;
  bool aux = false;        ///< issues on the AUX pipeline
  bool mayLoad = false, mayStore = false;
  bool barrier = false;    ///< orders against everything (calls, CSR writes, volatile asm, exits)
  bool terminator = false; ///< a branch or exit ending its block
  bool call = false;
  /// A call to an ipu-cc runtime routine that overwrites only `clobbers` and $lr: values live
  /// across it stay in the other registers (any other call clobbers every register).
  bool shortCall = false;
  std::string asmText;     ///< inline assembly with %N operand references
  std::vector<int> clobbers; ///< physical registers inline assembly (its clobber list) or a shortCall overwrites
  unsigned line = 0, col = 0; ///< source position, for diagnostics and the object's line table
  unsigned file = 0;          ///< 1 + index into MFunction::files (0: no position)
};

struct MBlock {
  std::string label;
  std::vector<MInst> insts;
  std::vector<int> succs;
  /// A repeat body: the block runs `rpt $repeatCount` times with no branches of its own.
  bool repeatBody = false;
  int repeatCount = -1;
  unsigned loopDepth = 0; ///< loops around the block (LLVM's LoopInfo): weighs its uses' spill cost
};

struct MFunction {
  std::string name;
  std::string displayName; ///< the C++ name (demangled), for diagnostics
  std::string location; ///< "file:line:col" of the code, for diagnostics
  std::vector<std::string> files; ///< source files of the instructions' positions
  EntryKind entry = EntryKind::None;
  bool supervisor = false;
  bool global = false;
  bool weak = false; ///< a template or inline function another object may define too
  bool hasCalls = false;
  std::vector<MBlock> blocks;
  std::vector<RegClass> vregs; ///< class of virtual register kFirstVirtual + i
  uint32_t localBytes = 0;     ///< allocas
  uint32_t spillBytes = 0;
  uint32_t outgoingBytes = 0;  ///< stack-passed call arguments
  uint32_t frameBytes = 0;     ///< the frame printFunction gave it (locals, spills, saved registers)
  unsigned maxAlign = 4;

  int newVreg(RegClass c) {
    vregs.push_back(c);
    return kFirstVirtual + int(vregs.size()) - 1;
  }
  RegClass classOf(int r) const { return isVirtual(r) ? vregs[size_t(r - kFirstVirtual)] : (r < 16 ? RegClass::M : RegClass::A); }
  /// A repeat body whose iterations touch disjoint memory (the vectoriser's alias checks or
  /// scopes say so), so the backend may overlap them (software pipelining).
  std::vector<int> independentBlocks;
};

/// Registers per class unit: an ARF pair occupies two ARF registers.
inline unsigned widthOf(RegClass c) { return c == RegClass::AP || c == RegClass::MP ? 2 : c == RegClass::AQ ? 4 : 1; }

/// `$m3`, `$a2:3`, `$azeros` ...
std::string regName(int reg, RegClass rc);

} // namespace ipusim::cc::mir
