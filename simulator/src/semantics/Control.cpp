// Control flow, worker exit, CSRs, starting workers and sync ([F] S2, S3; asm-dialect §3.1).
#include "../Semantics.h"
#include "../Hex.h"
#include "ipusim/sim/Ipu.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace ipusim::sim {

namespace {
void branch(Context &c, uint32_t target) {
  c.pc = target;
  c.branchTaken = true;
}
void exitWorker(Tile &t, Context &c, bool status) {
  c.exitStatus = status ? 1 : 0;
  c.running = false;
  c.exitCycle = t.now();
  if (t.tracing()) t.traceEvent(t.now(), c.id, "vertex.end").add("status", uint64_t(c.exitStatus));
}
} // namespace

IPU_SEMANTICS(br) { branch(c, c.m[op.v[0]]); }
IPU_SEMANTICS(bri) { branch(c, uint32_t(op.v[0])); }
IPU_SEMANTICS(brz) { if (c.m[op.v[0]] == 0) branch(c, uint32_t(op.v[1])); }
IPU_SEMANTICS(brnz) { if (c.m[op.v[0]] != 0) branch(c, uint32_t(op.v[1])); }
IPU_SEMANTICS(brneg) { if (int32_t(c.m[op.v[0]]) < 0) branch(c, uint32_t(op.v[1])); }
IPU_SEMANTICS(brpos) { if (int32_t(c.m[op.v[0]]) >= 0) branch(c, uint32_t(op.v[1])); } // sign clear ([L])
// brnzdec: if the register is not zero, decrement it and branch ([F] S2).
IPU_SEMANTICS(brnzdec) {
  uint32_t r = c.m[op.v[0]];
  if (r == 0) return;
  c.setM(unsigned(op.v[0]), r - 1);
  branch(c, uint32_t(op.v[1]));
}
// brzdec: branch if the register is zero; decrement it either way ([F] S2).
IPU_SEMANTICS(brzdec) {
  uint32_t r = c.m[op.v[0]];
  c.setM(unsigned(op.v[0]), r - 1);
  if (r == 0) branch(c, uint32_t(op.v[1]));
}
IPU_SEMANTICS(call) {
  c.setM(unsigned(op.v[0]), c.pc); // the link register gets the next instruction's address
  branch(c, uint32_t(op.v[1]));
}

// rpt: the next (imm + 1) bundles run `count` times with no loop overhead ([F] S2, S5).
IPU_SEMANTICS(rpt) {
  uint32_t count = (isReg(op, 0) ? c.m[op.v[0]] : uint32_t(op.v[0])) &
                   ((1u << t.config().repeatCountBits) - 1); // [F] S6: 16-bit count on ipu2
  uint32_t body = c.pc, end = body + 8 * (uint32_t(op.v[1]) + 1);
  if (body % 8) t.raise(c, "repeat body at " + hex(body) + " is not 8-byte aligned");
  if (c.rptCount) t.raise(c, "rpt inside a repeat body");
  if (count == 0) {
    c.pc = end;
    return;
  }
  c.rptCount = count;
  c.rptStart = body;
  c.rptEnd = end;
}

// Worker exits: the Boolean status goes to the supervisor (asm-dialect §3.1).
IPU_SEMANTICS(exitz) { exitWorker(t, c, c.m[op.v[0]] == 0); }
IPU_SEMANTICS(exitnz) { exitWorker(t, c, c.m[op.v[0]] != 0); }
IPU_SEMANTICS(exitneg) { exitWorker(t, c, int32_t(c.m[op.v[0]]) < 0); }
IPU_SEMANTICS(exitpos) { exitWorker(t, c, int32_t(c.m[op.v[0]]) >= 0); } // sign clear ([L])
IPU_SEMANTICS(trap) { t.raise(c, "trap " + std::to_string(op.v[0])); }

// CSRs (indices: asm-dialect §2.2 and arch/src/Registers.cpp).
namespace {
/// $FP_CTL and $FP_ICTL: the rounding modes 0-3 of bits 16-18 are modelled (docs/tile-timing.md).
uint32_t checkedFpControl(Tile &t, const Context &c, uint32_t v, const char *name) {
  if (unsigned mode = (v >> 16) & 7; mode > 3)
    t.raise(c, std::string(name) + " rounding mode " + std::to_string(mode) +
                   " (bits 16-18) is not modelled: 0 nearest even, 1 up, 2 down and 3 toward zero are");
  return v;
}
} // namespace
IPU_SEMANTICS(get) {
  uint32_t v;
  unsigned i = unsigned(op.v[1]);
  if (c.id != kSupervisor) {
    switch (i) {
    case 1: v = c.wsr; break;
    case 2: v = c.vertexBase; break;
    case 3: v = c.workerBase; break;
    case 4: v = c.rptCount; break;
    case 96: v = uint32_t(t.now()); break;
    case 97: v = uint32_t(t.now() >> 32); break;
    default: t.raise(c, "worker CSR " + std::to_string(i) + " is not modelled yet");
    }
  } else {
    switch (i) {
    case 3: v = t.tileId(); break; // $TILE_ID
    case 32: v = c.fpIctl; break;
    case 80: v = c.cccsload; break;
    case 0xa0: v = t.incomingMux; break;
    case 0xa2: v = t.incomingDelta; break;
    case 0xa3: v = t.incomingFormat; break;
    case 0xa4: v = t.incomingBase; break;
    case 0xa5: v = t.incomingSinit; break;
    case 0xa7: v = t.outgoingBase; break;
    case 96: v = uint32_t(t.now()); break;
    case 97: v = uint32_t(t.now() >> 32); break;
    default:
      if (i >= 33 && i <= 38) v = t.context(i - 32).workerBase;
      else t.raise(c, "supervisor CSR " + std::to_string(i) + " is not modelled yet");
    }
  }
  c.setM(unsigned(op.v[0]), v);
}
namespace {
/// Writes an incoming-exchange CSR as of `cycle` (a put, or a timed PIC/XPIC control). Returns
/// false for the other CSRs.
bool setIncoming(Tile &t, const Context &c, unsigned csr, uint32_t v, uint64_t cycle) {
  ExchangeLog &log = t.exchange();
  switch (csr) {
  case 0xa0: // $INCOMING_MUX: the source tile this tile receives from ([RE] S8 INCOMING_MUX_BITWIDTH = 11)
  case 0xa1: // $INCOMING_MUXPAIR also sets the pair partner's mux, a cycle later, for 64-bit exchange ([F] S2)
    t.incomingMux = v & 0x7FF;
    (csr == 0xa0 ? log.mux : log.muxPair).push_back({cycle, t.incomingMux});
    return true;
  case 0xa3: // $INCOMING_FORMAT: 0 32-bit words, 1 and 2 64-bit items from the east and the west ([RE] S8)
    if ((v & 3) == 3) t.raise(c, "$INCOMING_FORMAT 3 is not a format (0 32-bit, 1 64-bit east, 2 64-bit west)");
    t.incomingFormat = v & 3;
    log.format.push_back({cycle, t.incomingFormat});
    return true;
  case 0xa4:
    t.incomingBase = v;
    log.base.push_back({cycle, v});
    return true;
  case 0xa2:
    t.incomingDelta = v;
    log.delta.push_back({cycle, v});
    return true;
  default: return false;
  }
}
} // namespace

IPU_SEMANTICS(put) {
  unsigned i = unsigned(op.v[0]);
  uint32_t v = c.m[op.v[1]];
  if (c.id == kSupervisor && setIncoming(t, c, i, v, t.now())) return;
  if (c.id == kSupervisor && i == 0xa5) t.incomingSinit = v;
  else if (c.id == kSupervisor && i == 0xa7) t.outgoingBase = v;
  else if (c.id == kSupervisor && i == 80) c.cccsload = v;
  else if (c.id == kSupervisor && i == 32) c.fpIctl = checkedFpControl(t, c, v, "$FP_ICTL");
  else if (c.id == kSupervisor && i >= 33 && i <= 38) t.context(i - 32).workerBase = v;
  else t.raise(c, std::string(c.id == kSupervisor ? "supervisor" : "worker") + " CSR " + std::to_string(i) +
                      " cannot be written (or is not modelled yet)");
}
IPU_SEMANTICS(uget) {
  unsigned i = unsigned(op.v[1]) & 0xFF;
  uint32_t v = 0;
  switch (i) {
  case 0: v = c.fpSts; break;
  case 2: v = c.fpCtl; break;
  case 3: case 4: case 5: case 6: v = c.prng[i - 3]; break;
  case 7: v = c.prngSeed; break;
  case 8: v = c.tas; break;
  default: t.raise(c, "uget of CSR " + std::to_string(i) + " is not modelled yet");
  }
  c.setA(unsigned(op.v[0]), v);
}
IPU_SEMANTICS(uput) {
  unsigned i = unsigned(op.v[0]) & 0xFF;
  uint32_t v = c.a[op.v[1]];
  switch (i) {
  case 1: // $FP_CLR: clears the status; the ZAACC bit (0x8, TileConstants.hpp) zeroes the accumulators
    c.fpSts = 0;
    if (v & 0x8) { // and the second AMP set's hidden sums ([I])
      c.aacc.zero();
      c.ampB.zero();
    }
    break;
  case 2: c.fpCtl = checkedFpControl(t, c, v, "$FP_CTL"); break;
  case 3: case 4: case 5: case 6: c.prng[i - 3] = v; break;
  case 7: c.prngSeed = v; break;
  case 8: c.tas = v; break;
  default: t.raise(c, "uput of CSR " + std::to_string(i) + " is not modelled yet");
  }
}

// run: one worker, vertex base relative to TMEM_REGION0_BASE_ADDR; runall: all six, worker n at
// base + n * imm * 4; an exception if a worker is still running ([F] S2 runall.md; asm-dialect §3.1).
IPU_SEMANTICS(run) {
  uint32_t vbase = c.m[op.v[1]] + uint32_t(op.v[2]) * 4 + t.config().memoryBase;
  for (unsigned w = 1; w <= 6; ++w)
    if (!t.context(w).running) return t.startWorker(c, w, c.m[op.v[0]], vbase);
  t.raise(c, "run with all six workers running");
}
IPU_SEMANTICS(runall) {
  if (t.anyWorkerRunning()) t.raise(c, "runall while a worker is still running");
  for (unsigned w = 1; w <= 6; ++w) t.startWorker(c, w, c.m[op.v[0]], c.m[op.v[1]] + (w - 1) * uint32_t(op.v[2]) * 4);
}

// Exchange (ipu-facts §4.3, [RE] S9): send streams words (or, with sctl bit 2, 64-bit items) from
// $OUTGOING_BASE + the offset, one per cycle, east and/or west as sctl bits 0 and 1 say; the
// supervisor's next issue waits until the last is out. delay waits n cycles. The IPU delivers the
// words at the next IPU-wide sync (ipusim/sim/Ipu.h).
namespace {
void sendWords(Tile &t, Context &c, uint32_t addr, unsigned count, unsigned sctl) {
  if (!t.inIpu()) t.raise(c, "send on a lone tile: the exchange needs the IPU model (ipusim run, not run-tile)");
  ExchangeLog &log = t.exchange();
  const unsigned bytes = sctl & 4 ? 8 : 4;
  log.instructions.push_back({t.now(), addr, count, uint32_t(log.sends.size()), uint8_t(sctl)});
  t.outgoingNext = addr + bytes * count; // where sendpic continues
  t.outgoingSctl = uint8_t(sctl);
  for (unsigned i = 0; i < count; ++i) {
    uint32_t a = t.loadAddress(c, addr + bytes * i, bytes);
    log.sends.push_back({t.memory().read<uint32_t>(a), bytes == 8 ? t.memory().read<uint32_t>(a + 4) : 0});
  }
  c.extraSupervisorCycles += count - 1;
}
} // namespace
IPU_SEMANTICS(send) { sendWords(t, c, t.outgoingBase + uint32_t(op.v[0]), unsigned(op.v[1]), unsigned(op.v[2])); }
IPU_SEMANTICS(sendoff) { sendWords(t, c, t.outgoingBase + c.m[op.v[0]], unsigned(op.v[1]), unsigned(op.v[2])); }
IPU_SEMANTICS(delay) { c.extraSupervisorCycles += unsigned(op.v[0]) - 1; }

// The timed incoming controls ([RE] S9, whose encodings the ISA table uses): a PIC control sets the
// receive pointer ($INCOMING_DELTA, a word address: [I] from S9's cursor test) or $INCOMING_FORMAT;
// an XPIC control sets $INCOMING_MUX or $INCOMING_MUXPAIR. delaypic and delayxpic wait like delay
// and apply theirs at the last cycle of the wait; sendpic continues the outgoing stream (the
// address after the last send's words, its sctl) and applies its control with its first word.
namespace {
void picControl(Tile &t, const Context &c, unsigned select, uint32_t value, uint64_t cycle) {
  setIncoming(t, c, select ? 0xa3 : 0xa2, select ? value : value << 2, cycle);
}
void xpicControl(Tile &t, const Context &c, unsigned select, uint32_t value, uint64_t cycle) {
  setIncoming(t, c, select ? 0xa1 : 0xa0, value, cycle);
}
} // namespace
IPU_SEMANTICS(delaypic) {
  c.extraSupervisorCycles += unsigned(op.v[0]) - 1;
  picControl(t, c, unsigned(op.v[1]), uint32_t(op.v[2]), t.now() + unsigned(op.v[0]) - 1);
}
IPU_SEMANTICS(delayxpic) {
  c.extraSupervisorCycles += unsigned(op.v[0]) - 1;
  xpicControl(t, c, unsigned(op.v[1]), uint32_t(op.v[2]), t.now() + unsigned(op.v[0]) - 1);
}
IPU_SEMANTICS(sendpic) {
  if (!t.outgoingNext) t.raise(c, "sendpic continues an outgoing stream, but nothing was sent before it");
  const unsigned select = unsigned(op.v[1]);
  const uint32_t value = uint32_t(op.v[2]);
  // Selects 0 and 1: the XPIC controls (13-bit value); 2 and 3: the PIC ones (18-bit value).
  if (select < 2) xpicControl(t, c, select, value & 0x1FFF, t.now());
  else picControl(t, c, select - 2, value, t.now());
  sendWords(t, c, t.outgoingNext, unsigned(op.v[0]), t.outgoingSctl);
}
// sans arms the automatic non-participatory sync: the hardware raises this tile's request to the
// next INTERNAL sync from here on, and `sync 1` (ANS) waits for that sync's release ([F] S2
// $ANS_DCOUNT; [RE] S9 runs `sans 0; sync 1` on tiles idle in an exchange phase; [I] the rest).
IPU_SEMANTICS(sans) { c.ansCycle = t.now() + 1; }

// sync ([RE] S8 zones, ipu-facts §4.5): LOCAL (2) waits until the supervisor's workers have
// exited; INTERNAL (3, all tiles of the IPU) and the EXTERNAL zones (4-7 GS1, GS1 with the host,
// GS2, GS2 with the host; 12-15 their master variants) wait for the other tiles, which the IPU's
// sync controller resolves (ipusim/sim/Ipu.h).
IPU_SEMANTICS(sync) {
  unsigned zone = unsigned(op.v[0]);
  c.syncCycle = t.now();
  // A sync sets $INCOMING_DELTA from $INCOMING_SINIT ([F] S2).
  t.incomingDelta = t.incomingSinit;
  t.exchange().delta.push_back({t.now(), t.incomingSinit});
  if (zone == 1) {
    if (!c.ansCycle) t.raise(c, "sync 1 (ANS) without a sans to arm it");
    // The tile took part in the INTERNAL sync from the sans on.
    c.syncCycle = c.ansCycle - 1;
    c.ansCycle = 0;
    zone = 3;
  }
  if (zone == 2) {
    c.waitingSync = true;
  } else if (isIpuSyncZone(zone)) {
    // Poplar ends a compute set with sync LOCAL before the IPU-wide sync, so no worker runs here.
    if (t.anyWorkerRunning())
      t.raise(c, "sync " + std::to_string(zone) + " (" + syncZoneName(zone) + ") while workers are still running: sync LOCAL (2) first");
    c.ipuSyncZone = zone;
    if (t.tracing()) t.traceEvent(t.now(), c.id, "sync.enter").add("zone", zone);
  } else {
    t.raise(c, "sync zone " + std::to_string(zone) +
                   " is not modelled (zones 1 ANS, 2 LOCAL, 3 INTERNAL, 4-7 and 12-15 EXTERNAL are)");
  }
}

} // namespace ipusim::sim
