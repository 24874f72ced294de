#!/usr/bin/env python3
"""Correlation of ipusim's tile timing with poplibs' own cycle estimators (docs/validation.md).

Runs real poplibs vertices, assembled unchanged from a poplibs checkout, on one simulated tile
(ipu-as, ipu-ld, `ipusim pack-state`, `ipusim run-tile`), checks every output word against a
host reference, and compares the worker's simulated cycles (bundles issued: one per worker cycle
when it runs alone) with what poplibs' cycle estimator for that vertex returns. The estimator
formulas are restated here as facts, each with the poplibs file it comes from; no poplibs code is
run or copied.

  scripts/validate-poplibs.py POPLIBS_DIR [--build BUILD] [--table OUT.csv] [--plot OUT.svg]
  scripts/validate-poplibs.py POPLIBS_DIR --check docs/validation.csv   # fail on drift

Exit status: 0, or 1 if an output is wrong, a run fails, or (--check) a simulated count moved.
"""
import argparse
import csv
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STATE = 0x60000  # vertex state
DATA = 0x61000   # the output vector (8-byte aligned; + offset for the alignment cases)


def pack(fmt, values):
    """`values` as consecutive elements of struct format `fmt` ("<f", "<e", "<H" ...)."""
    return b"".join(struct.pack(fmt, v) for v in values)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    return r.stdout


class Tools:
    def __init__(self, build, poplibs, work):
        self.bin = os.path.join(build, "bin")
        self.poplibs = poplibs
        self.work = work
        self.images = {}

    def image(self, lib, source, keep=()):
        """A tile image of one poplibs codelet file, built with its build's flags: an assembly
        file (under codelets/asm) by ipu-as, a C++ file by ipu-cc. `keep`: link only these
        entries (a whole C++ file's code may not fit a tile)."""
        key = (lib, source, tuple(keep))
        if key not in self.images:
            cpp = source.endswith(".cpp")
            src = os.path.join(self.poplibs, "lib", lib, "codelets", *([] if cpp else ["asm"]), source)
            obj = os.path.join(self.work, source + ".o")
            elf = os.path.join(self.work, source + ".elf")
            inc = ["-I", os.path.join(self.poplibs, "include"), "-I", os.path.join(self.poplibs, "lib", lib),
                   "-I", os.path.join(self.poplibs, "lib", lib, "codelets"), "-DNDEBUG"]
            tool = [os.path.join(self.bin, "ipu-cc"), "-c"] if cpp else [os.path.join(self.bin, "ipu-as")]
            run(tool + inc + [src, "-o", obj])
            run([os.path.join(self.bin, "ipu-ld"), obj, "-o", elf] + sum((["--keep", e] for e in keep), []))
            self.images[key] = elf
        return self.images[key]

    def run_worker(self, elf, entry, words, out_addr, out_bytes, preload=(), mode="worker"):
        """Runs `entry` with the vertex state `words` and the data `preload` ((bytes, address)
        pairs) on one worker (mode "worker"), on all six ("multi", a MultiVertex) or on the
        supervisor ("supervisor"); returns (the most bundles a worker issued, or for the
        supervisor the tile cycles to its return, and the output)."""
        state = os.path.join(self.work, "state.bin")
        dump = os.path.join(self.work, "out.bin")
        run([os.path.join(self.bin, "ipusim"), "pack-state", "-o", state] + [str(w) for w in words])
        cmd = [os.path.join(self.bin, "ipusim"), "run-tile", elf, "--entry", entry, "--mode", mode,
               "--vertex-base", hex(STATE), "--load", state + "@" + hex(STATE),
               "--dump", "%s:%d:%s" % (hex(out_addr), out_bytes, dump)]
        for i, (data, addr) in enumerate(preload):
            path = os.path.join(self.work, "load%d.bin" % i)
            with open(path, "wb") as f:
                f.write(data)
            cmd += ["--load", path + "@" + hex(addr)]
        stats = json.loads(run(cmd))
        if mode == "supervisor":
            bundles = stats["ipu0.tile0.cycles"]
        else:
            bundles = max(stats.get("ipu0.tile0.worker%d.bundles" % w, 0) for w in range(6))
        with open(dump, "rb") as f:
            return bundles, f.read()


# ---- the estimators (facts from poplibs' lib/popops/PerformanceEstimation.cpp) -----------------

def fill_estimate(size, elem_bytes):
    """_fillCycleEstimate, dataPathWidth 64 bits: 32-bit types 16 + size/2 + 6 + (size%2==1) + 1;
    half: 15 (1 element), 21 (2), else 26 + size/4 (averaged over 2, 4 and 8-byte alignment)."""
    if elem_bytes == 2:
        return 15 if size == 1 else 21 if size == 2 else 26 + size // 4
    return 16 + size // 2 + 6 + (1 if size % 2 == 1 else 0) + 1


def fill2d_estimate(sizes, elem_bytes):
    """getFill2DCycleEstimate: 5 + sum of the 1D estimates + (type != half) - (2 + (type != half))
    per vector."""
    not_half = 1 if elem_bytes != 2 else 0
    return 5 + sum(fill_estimate(s, elem_bytes) for s in sizes) + not_half - (2 + not_half) * len(sizes)


# ---- the cases ------------------------------------------------------------------------------

FILL_TYPES = [  # (C++ type in the symbol, element bytes, fill value bits, struct format)
    ("float", 4, 0x40200000, "<f"), ("int", 4, 0xFFFFFFF9, "<i"), ("unsigned_int", 4, 0x12345678, "<I"),
    ("half", 2, 0x3C00, "<H"),
]


def fill_cases(tools):
    elf = tools.image("popops", "Fill.S")
    for name, eb, bits, fmt in FILL_TYPES:
        for size in [1, 2, 3, 4, 7, 8, 16, 33, 100, 1000]:
            for offset in ([0] if eb == 4 else [0, 2, 4, 6]):
                addr = DATA + offset
                # The state: the fill value (ld32 / ldb16 at word 0), the output's pointer and size.
                bundles, out = tools.run_worker(elf, "__runCodelet_popops__Fill___" + name, [bits, addr, size],
                                                addr, size * eb + 8)
                want = struct.pack("<I" if eb == 4 else "<H", bits) * size
                ok = out[:size * eb] == want and out[size * eb:] == bytes(8)
                yield ("popops::Fill<%s>" % name.replace("_", " "), "n=%d addr%%8=%d" % (size, offset),
                       bundles, fill_estimate(size, eb), ok)


def fill2d_cases(tools):
    elf = tools.image("popops", "Fill.S")
    for name, eb, bits, fmt in FILL_TYPES:
        for sizes in [[1], [4, 4], [3, 17, 8], [100, 1, 50, 7]]:
            # Each vector 8-byte aligned, 64 bytes apart past its end; the list of (pointer, size)
            # pairs the state points at goes at 0x60800.
            addrs, at = [], DATA
            for s in sizes:
                addrs.append(at)
                at += (s * eb + 64 + 7) // 8 * 8
            listing = b"".join(struct.pack("<II", a, s) for a, s in zip(addrs, sizes))
            bundles, out = tools.run_worker(elf, "__runCodelet_popops__Fill2d___" + name, [bits, 0x60800, len(sizes)],
                                            DATA, at - DATA, preload=[(listing, 0x60800)])
            ok = True
            for a, s in zip(addrs, sizes):
                chunk = out[a - DATA:a - DATA + s * eb]
                ok &= chunk == struct.pack("<I" if eb == 4 else "<H", bits) * s
                ok &= out[a - DATA + s * eb:a - DATA + s * eb + 8] == bytes(8)
            yield ("popops::Fill2d<%s>" % name.replace("_", " "), "n=" + "+".join(map(str, sizes)),
                   bundles, fill2d_estimate(sizes, eb), ok)


def binaryop1d_estimate(size, elem_bytes):
    """BinaryOp1D's worker cycles (popopsCycleEstimators.cpp): 29 (float) or 26 (half), plus
    binaryOpInnerLoopCycles: ADD/SUBTRACT/MULTIPLY are {1 cycle, natural vector width} in
    binaryOpPerfInfo (popopsCycleEstimators.hpp) plus 2 for an external codelet, per vector of 2
    floats or 4 halves, over ceil(size / 6) elements per worker."""
    per_worker = -(-size // 6)
    width = 2 if elem_bytes == 4 else 4
    return (29 if elem_bytes == 4 else 26) + -(-per_worker // width) * 3


def binaryop1d_inplace_estimate(size, elem_bytes):
    """getBinaryOp1DInPlaceEstimate's worker cycles (popopsCycleEstimators.cpp): 58, plus the
    in-place table's {1 cycle, natural vector width} (binaryOpInPlacePerfInfo) plus 2 for an
    external codelet (1 only with forced interleaved estimates, off by default), per vector, over
    ceil(size / 6) elements per worker."""
    per_worker = -(-size // 6)
    width = 2 if elem_bytes == 4 else 4
    return 58 + -(-per_worker // width) * 3


def binaryop1d_cases(tools, in_place=False):
    elf = tools.image("popops", "binaryOps1D.S")
    ops = [("ADD", lambda a, b: a + b), ("SUBTRACT", lambda a, b: a - b), ("MULTIPLY", lambda a, b: a * b)]
    for tname, eb, fmt in [("float", 4, "<f"), ("half", 2, "<e")]:
        for op, fn in ops:
            for size in [6, 12, 13, 60, 96, 600, 1000]:
                a = [((i * 7) % 23 - 11) * 0.25 for i in range(size)]
                b = [((i * 5) % 17 - 8) * 0.125 for i in range(size)]
                # in1, in2 and out in three memory elements (16 KiB apart), each 8-byte aligned;
                # in place, the result overwrites in1.
                ina, inb = DATA, DATA + 0x4000
                outp = ina if in_place else DATA + 0x8000
                name = "BinaryOp1DInPlace" if in_place else "BinaryOp1D"
                entry = "__runCodelet_popops__%s___popops__expr__BinaryOpType__%s_%s" % (name, op, tname)
                # The state: in1, in2 (ONE_PTR), out (SPAN: pointer and count); in place: in1Out
                # (SPAN), in2 (ONE_PTR).
                state = [ina, size, inb] if in_place else [ina, inb, outp, size]
                bundles, out = tools.run_worker(elf, entry, state, outp, size * eb + 8,
                                                preload=[(pack(fmt, a), ina), (pack(fmt, b), inb)], mode="multi")
                # The exact result rounded once (a and b are short binary fractions: + - * exact in double).
                want = pack(fmt, [fn(x, y) for x, y in zip(a, b)])
                ok = out[:size * eb] == want and out[size * eb:] == bytes(8)
                estimate = binaryop1d_inplace_estimate if in_place else binaryop1d_estimate
                yield ("popops::%s<%s,%s>" % (name, op, tname), "n=%d" % size, bundles, estimate(size, eb), ok)


def binaryop1d_inplace_cases(tools):
    return binaryop1d_cases(tools, in_place=True)


def unaryop1d_estimate(size, op, in_place):
    """UnaryOp1D's worker cycles (popopsCycleEstimators.cpp): 17 (55 in place) plus
    unaryOpInnerLoopCycles over ceil(size / 6) elements per worker: SIGNUM half is {5, natural
    vector width} (basicOpLoopCycles: (5 + 4) * (n + 3) / 4, integer division as written),
    BITWISE_NOT short {2 cycles per 4 elements unrolled} (unaryOpPerfInfo and
    unaryOpInPlacePerfInfo, popopsCycleEstimators.hpp)."""
    n = -(-size // 6)
    inner = (9 * (n + 3)) // 4 if op == "SIGNUM" else -(-n // 4) * 2
    return (55 if in_place else 17) + inner


def unaryop1d_cases(tools):
    elf = tools.image("popops", "unaryOps1D.S")
    def signum(x):
        return 1.0 if x > 0 else -1.0 if x < 0 else 0.0
    kinds = [("SIGNUM", "half", "<e", lambda i: ((i * 7) % 11 - 5) * 0.5, signum),
             ("BITWISE___NOT", "short", "<h", lambda i: (i * 977) % 65536 - 32768, lambda x: ~x),
             ("BITWISE___NOT", "unsigned_short", "<H", lambda i: (i * 977) % 65536, lambda x: ~x & 0xFFFF)]
    for op, tname, fmt, gen, fn in kinds:
        for in_place in (False, True):
            for size in [6, 12, 13, 60, 96, 600, 1000]:
                x = [gen(i) for i in range(size)]
                inp = DATA
                outp = inp if in_place else DATA + 0x4000
                name = "UnaryOp1DInPlace" if in_place else "UnaryOp1D"
                entry = "__runCodelet_popops__%s___popops__expr__UnaryOpType__%s_%s" % (name, op, tname)
                # The state: in (ONE_PTR), out (SPAN); in place: inOut (SPAN).
                state = [inp, size] if in_place else [inp, outp, size]
                bundles, out = tools.run_worker(elf, entry, state, outp, size * 2 + 8, preload=[(pack(fmt, x), inp)],
                                                mode="multi")
                want = pack(fmt, [fn(v) for v in x])
                ok = out[:size * 2] == want and out[size * 2:] == bytes(8)
                yield ("popops::%s<%s,%s>" % (name, op.replace("___", "_"), tname.replace("_", " ")), "n=%d" % size,
                       bundles, unaryop1d_estimate(size, op.split("_")[0], in_place), ok)


def scaled_add_estimate(size, mem_constrained):
    """The busiest worker of getScaledArithmeticSupervisorCycleEstimate's (float, float) branch
    (PerformanceEstimation.cpp): 15 prologue, 6 + inner * (vectors - 1) for its vectors of 2
    (inner 3, or memory-constrained 2, 1 from 16 vectors a worker), 2, and on the worker that takes
    the remainder 1 (+8 for a last odd float), 1 for exitz. As written it gives every worker
    `totalVectors / 6` vectors (its `remainingVectors < 0` test on an unsigned is never true)."""
    vectors, rem_elems = size // 2, size % 2
    per_worker, rem_vectors = vectors // 6, vectors % 6
    inner = (1 if per_worker >= 16 else 2) if mem_constrained else 3
    worst = 0
    for wid in range(6):
        c = 15 + (6 + inner * (per_worker - 1) if per_worker else 0) + 2
        if wid == rem_vectors:
            c += 1 + (8 if rem_elems else 0)
        worst = max(worst, c + 1)
    return worst


def scaled_add_cases(tools):
    elf = tools.image("popops", "ScaledAddSupervisor_fp.S")
    for op, sign in [("ScaledAddSupervisor", 1.0), ("ScaledSubtractSupervisor", -1.0)]:
        for constrained in (False, True):
            for size in [12, 13, 60, 96, 100, 600, 1001]:
                a = [((i * 7) % 23 - 11) * 0.25 for i in range(size)]
                b = [((i * 5) % 17 - 8) * 0.125 for i in range(size)]
                ina, inb, scale = DATA, DATA + 0x4000, DATA + 0xE000
                # The state: A and B (ONE_PTR), the scale's SCALED_PTR128 (16 bits: address >> 4)
                # and the element count (16 bits), packed into three words.
                state = [ina, inb, (scale >> 4) | (size << 16)]
                entry = "__runCodelet_popops__%s___float_float_float_%s" % (op, "true" if constrained else "false")
                bundles, out = tools.run_worker(elf, entry, state, ina, size * 4 + 8, mode="multi",
                                                preload=[(pack("<f", a), ina), (pack("<f", b), inb), (pack("<f", [2.0]), scale)])
                # a + 2b (a - 2b): short binary fractions, exact in float.
                want = pack("<f", [x + sign * 2.0 * y for x, y in zip(a, b)])
                ok = out[:size * 4] == want and out[size * 4:] == bytes(8)
                yield ("popops::%s<float,float,float,%s>" % (op, "true" if constrained else "false"), "n=%d" % size,
                       bundles, scaled_add_estimate(size, constrained), ok)


def nl_grad1d_estimate(size, elem_bytes):
    """nonLinearityGrad1D's worker cycles (popnnCycleEstimators.cpp) for RELU, SIGMOID and TANH
    (getNonLinearityGradOpCycles: 3 a vector or element, PerformanceEstimation.hpp): 20 of state,
    work split and pointers, 4 + 3 * (vectors - 1) + 1 for the worker's vectors (2 floats or 4
    halves; ceil(vectors / 6) a worker), then the remainder checks: float 4 (+4 with one left),
    half 6 (+5 with two, +7 with one)."""
    width = 2 if elem_bytes == 4 else 4
    vectors, rem = size // width, size % width
    per_worker = -(-vectors // 6)
    c = 20 + (4 + 3 * (per_worker - 1) + 1 if per_worker else 0)
    if elem_bytes == 4:
        c += 4 + (4 if rem else 0)
    else:
        c += 6 + (5 if rem & 2 else 0) + (7 if rem & 1 else 0)
    return c


def nl_grad1d_cases(tools):
    elf = tools.image("popnn", "NonLinearityGrad1D.S")
    for tname, eb, fmt in [("float", 4, "<f"), ("half", 2, "<e")]:
        for size in [5, 12, 13, 60, 99, 600, 1000]:
            outgrad = [((i * 7) % 23 - 11) * 0.25 for i in range(size)]
            out = [((i * 5) % 17 - 8) * 0.125 for i in range(size)]
            go, o, gi = DATA, DATA + 0x4000, DATA + 0x8000
            # The state: outGrad, out, inGrad (pointers) and the element count (16 bits).
            entry = "__runCodelet_popnn__NonLinearityGrad1D___%s_popnn__NonLinearityType__RELU" % tname
            bundles, res = tools.run_worker(elf, entry, [go, o, gi, size], gi, size * eb + 8, mode="multi",
                                            preload=[(pack(fmt, outgrad), go), (pack(fmt, out), o)])
            # RELU's gradient, outGrad times (out > 0 ? 1 : 0): a negative outGrad gives -0.
            want = pack(fmt, [g * (1.0 if y > 0 else 0.0) for g, y in zip(outgrad, out)])
            ok = res[:size * eb] == want and res[size * eb:] == bytes(8)
            yield ("popnn::NonLinearityGrad1D<%s,RELU>" % tname, "n=%d" % size, bundles, nl_grad1d_estimate(size, eb), ok)


def for_loop_counter_cases(tools):
    """A supervisor vertex: ForLoopCounter's estimator is a constant 43 tile cycles
    (popopsCycleEstimators.cpp)."""
    elf = tools.image("popops", "ForLoopCounter.S")
    for tname, fmt in [("int", "<i"), ("unsigned_int", "<I")]:
        for count, limit, inc in [(7, 10, 3), (0, 5, 1), (-4 if fmt == "<i" else 4, 0, 2)]:
            data = struct.pack(fmt + fmt[-1], count, limit)
            # The state: count, limit and comparisonResult pointers, the increment.
            cycles, out = tools.run_worker(elf, "__runCodelet_popops__ForLoopCounter___" + tname,
                                           [DATA, DATA + 4, DATA + 8, inc & 0xFFFFFFFF], DATA, 12,
                                           preload=[(data, DATA)], mode="supervisor")
            new = count + inc
            ok = out == struct.pack(fmt + fmt[-1] + "I", new, limit, 1 if new != limit else 0)
            yield ("popops::ForLoopCounter<%s>" % tname.replace("_", " "), "%d+%d vs %d" % (count, inc, limit),
                   cycles, 43, ok)


def cast_worker_estimate(size, from_bytes, to_bytes):
    """castWorkerCycles (lib/popops/PerformanceEstimation.cpp) for a float<->half conversion (the
    AUX pipeline), dataPathWidth 64 bits: the vector width is min(2 x the elements one 64-bit load
    holds, the elements one 64-bit store holds); a vector costs max(load cycles, store cycles)
    with one load port used; 19 prologue cycles; per bit of log2(width) 1 cycle, plus 2 where the
    remainder has that bit. quarter<->half is estimated as half<->float."""
    load_w, store_w = 8 // from_bytes, 8 // to_bytes
    width = min(2 * load_w, store_w)
    per_vector = max(width // min(width, load_w), width // min(width, store_w))
    c = 19 + per_vector * (size // width)
    rem = size % width
    for i in range(width.bit_length() - 1):
        c += 1 + (2 if rem & (1 << i) else 0)
    return c


def quarter_decode(code, f143, scale):
    """Poplar's quarter (docs/device-headers.md): F143 = 4 exponent bits, 3 mantissa, bias 8;
    F152 = 5 and 2, bias 16; 0x80 is NaN; the value times 2^scale."""
    import math
    mbits, bias = (3, 8) if f143 else (2, 16)
    e, m = (code & 0x7F) >> mbits, code & ((1 << mbits) - 1)
    v = math.ldexp(1 + m / (1 << mbits), e - bias) if e else math.ldexp(m, 1 - bias - mbits)
    return math.ldexp(-v if code & 0x80 else v, scale)


def cast_cases(tools):
    """Cast1DSingleWorker, C++ with inline assembly (elemwiseMiscCodelets.cpp) compiled by ipu-cc:
    float->half (f32v4tof16), half->float and poplibs' Mk2 software quarter->half. The estimator:
    getCast1DSingleWorkerCycleEstimate = 3 + 2 + castWorkerCycles."""
    elf = tools.image("popops", "elemwiseMiscCodelets.cpp",
                      ["__runCodelet_popops__Cast1DSingleWorker___" + t for t in ("float_half", "half_float", "quarter_half")])
    for src_t, dst_t, sb, db in [("float", "half", 4, 2), ("half", "float", 2, 4)]:
        for size in [1, 2, 3, 4, 7, 8, 33, 100, 1000]:
            values = [((i * 37) % 101 - 50) * 0.0625 + (1.0 / 3 if i % 5 == 0 else 0) for i in range(size)]
            if src_t == "half":
                values = [struct.unpack("<e", struct.pack("<e", v))[0] for v in values]
            src, dst = DATA, DATA + 0x4000
            entry = "__runCodelet_popops__Cast1DSingleWorker___%s_%s" % (src_t, dst_t)
            # The state: src, dst (ONE_PTR) and numElems.
            bundles, out = tools.run_worker(elf, entry, [src, dst, size], dst, size * db + 8,
                                            preload=[(pack("<f" if sb == 4 else "<e", values), src)])
            want = pack("<e" if db == 2 else "<f", values)  # struct rounds to nearest even
            ok = out[:size * db] == want and out[size * db:] == bytes(8)
            yield ("popops::Cast1DSingleWorker<%s,%s>" % (src_t, dst_t), "n=%d" % size, bundles,
                   5 + cast_worker_estimate(size, sb, db), ok)
    for f143, scale in [(True, 0), (True, -3), (False, 0), (False, -4)]:  # (F152 at scale > 0 overflows half)
        for size in [8, 16, 40, 256]:
            codes = [(i * 29 + 3) % 256 for i in range(size)]
            codes = [c if c != 0x80 else 0x81 for c in codes]  # NaN's half pattern is checked elsewhere
            md = (0x80 if f143 else 0) | (scale & 0x3F)
            src, meta, dst = DATA, DATA + 0x2000, DATA + 0x4000
            # The state: src, src's metadata pointer (the pointer a quarter field adds), dst, numElems.
            bundles, out = tools.run_worker(elf, "__runCodelet_popops__Cast1DSingleWorker___quarter_half",
                                            [src, meta, dst, size], dst, size * 2 + 8,
                                            preload=[(bytes(codes), src), (bytes([md]), meta)])
            want = pack("<e", [quarter_decode(c, f143, scale) for c in codes])
            ok = out[:size * 2] == want and out[size * 2:] == bytes(8)
            yield ("popops::Cast1DSingleWorker<quarter,half>", "n=%d %s scale %d" % (size, "F143" if f143 else "F152", scale),
                   bundles, 5 + cast_worker_estimate(size, 2, 4), ok)


# ---- popops: reductions (facts from lib/popops/reduction/CycleEstimationFunctions.cpp) ---------

def continuous_reduce_estimate(num_partials, num_outputs, elem_bytes, update):
    """getCycleEstimateReduceAllRegionsContinuous: elements per inner loop min(accumulator width
    8 half / 4 float, data path 64 bits) = 4 half, 2 float, one cycle each: numOutputs x
    (numPartials / width) + 2 (odd numPartials) + 12 numOutputs + 10 + update + 7 (call and
    return). Evaluated with the number of outputs, as its parameter is named; its caller,
    getCycleEstimateForReduceVertex, passes numOutputsM1 (docs/validation.md)."""
    width = 4 if elem_bytes == 2 else 2
    return (num_outputs * (num_partials // width) + (2 if num_partials & 1 else 0) + 12 * num_outputs
            + 10 + (1 if update else 0) + 7)


def continuous_reduce_cases(tools):
    """ContinuousReduce (ContinuousReductionAcc.S: ADD, SQUARE_ADD with the f16v8acc / f32v4acc
    accumulators; ContinuousReductionNoAcc.S: MAX, MIN): out[o] (+)= op over
    partials[o * numPartials .. + numPartials) (the vertex's C++ in ContinuousReduce.cpp)."""
    kinds = [("ReduceAdd", "float", "float", lambda v: sum(v)), ("ReduceAdd", "half", "half", lambda v: sum(v)),
             ("ReduceAdd", "half", "float", lambda v: sum(v)), ("ReduceSquareAdd", "float", "float", lambda v: sum(x * x for x in v)),
             ("ReduceMax", "half", "half", max), ("ReduceMin", "float", "float", min)]
    acc_file = {"ReduceAdd": "ContinuousReductionAcc.S", "ReduceSquareAdd": "ContinuousReductionAcc.S",
                "ReduceMax": "ContinuousReductionNoAcc.S", "ReduceMin": "ContinuousReductionNoAcc.S"}
    for op, ptype, otype, fn in kinds:
        elf = tools.image("popops", acc_file[op])
        pb, ob = (2 if ptype == "half" else 4), (2 if otype == "half" else 4)
        pfmt, ofmt = ("<e" if pb == 2 else "<f"), ("<e" if ob == 2 else "<f")
        for update in (False, True):
            if update and op in ("ReduceMax", "ReduceSquareAdd"):
                continue
            for num_partials, num_outputs in [(1, 1), (2, 1), (3, 1), (8, 1), (64, 1), (255, 1), (5, 3), (16, 4), (33, 7),
                                              (100, 2), (1000, 1)]:
                # Multiples of 1/4 in [-4, 4): sums, squares and their sums stay exact in binary16
                # and float at these sizes.
                parts = [((o * 13 + p * 7) % 32 - 16) * 0.25 for o in range(num_outputs) for p in range(num_partials)]
                if op == "ReduceSquareAdd":
                    parts = [v / 4 for v in parts]
                old = [o * 1.5 - 2 for o in range(num_outputs)]
                partials, out_addr = DATA, DATA + 0x8000
                # The state: partials and out (SCALED_PTR32: (address - 0x4C000) / 4, 16 bits),
                # numOutputsM1 and numPartials (16 bits).
                state = [((partials - 0x4C000) >> 2) | ((out_addr - 0x4C000) >> 2) << 16,
                         (num_outputs - 1) | num_partials << 16]
                entry = "__runCodelet_popops__ContinuousReduce___popops__%s_%s_%s_%s" % (op, ptype, otype, "true" if update else "false")
                cycles, out = tools.run_worker(elf, entry, state, out_addr, num_outputs * ob + 8,
                                               preload=[(pack(pfmt, parts), partials), (pack(ofmt, old) if update else bytes(num_outputs * ob), out_addr)])
                want = [fn(parts[o * num_partials:(o + 1) * num_partials]) + (old[o] if update else 0) for o in range(num_outputs)]
                ok = out[:num_outputs * ob] == pack(ofmt, want) and out[num_outputs * ob:] == bytes(8)
                yield ("popops::ContinuousReduce<%s,%s,%s,%s>" % (op, ptype, otype, "true" if update else "false"),
                       "%dx%d" % (num_outputs, num_partials), cycles,
                       continuous_reduce_estimate(num_partials, num_outputs, pb, update), ok)


# ---- poplin: the AMP convolution partials (facts from lib/poplin/PerformanceEstimation.hpp) ---

def conv1x1_estimate(worker_n, ncg, nig, nog, ocpg, float_acts, ld128):
    """getConvPartial1x1SupervisorCycleEstimate (PerformanceEstimation.hpp) for 8 conv units,
    half/half or float/float (no retention savings, not the common half/float code path), in tile
    cycles. A worker's cycles with the first input group zeroing the partials (z = 1) or not:
    n = 0: 24; 1: 39 (47 float) + (2 + zc) z; 2: 40 (46) + (2 + 2 zc) z; n >= 3: 41 (46) +
    (2 + zc n) z + (n - 3) core, zc = 2 (4 float), core 4 (8); a pass costs max(6 max t, 6 min t +
    14). The outer loop: 50 + ncg (12 + (nig - 1)(16 + nog (19 + passes (6 + L + inner))) +
    11 + nog (19 + passes (7 + L + inner zeroing))), passes = ocpg / 8, L the weight loads:
    8 units x 32 bytes at 16 bytes a cycle (ld128) or 8 (ld64)."""
    zc, core = (4, 8) if float_acts else (2, 4)
    def worker(n, z):
        if n == 0:
            return 24
        if n == 1:
            return (47 if float_acts else 39) + (2 + zc) * z
        if n == 2:
            return (46 if float_acts else 40) + (2 + 2 * zc) * z
        return (46 if float_acts else 41) + (2 + zc * n) * z + (n - 3) * core
    def inner(z):
        t = [6 * worker(n, z) for n in worker_n]
        return max(max(t), min(t) + 14)
    loads = 8 * 32 // (16 if ld128 else 8)
    passes = ocpg // 8
    return 50 + ncg * (12 + (nig - 1) * (15 + 1 + nog * (19 + passes * (6 + loads + inner(0))))
                       + (10 + 1 + nog * (19 + passes * (7 + loads + inner(1)))))


def conv1x1_cases(tools):
    """ConvPartial1x1Out, a supervisor vertex (conv_partial_1x1_supervisor.S with the half/half
    f16v4hihoamp and float/float f32sisoamp workers): for every conv group cg and output group og,
    out[cg nog + og][p][oc] = sum over input groups ig and input channels ic of
    in[cg nig + ig][p][ic] x weights[cg nog nig + ig nog + (nog - 1 - og)][oc][ic]
    (the vertex's C++ reference in ConvPartial1x1Out.cpp), at unit input and output stride."""
    for acts, float_acts, fmt in [("half", False, "<e"), ("float", True, "<f")]:
        eb = 4 if float_acts else 2
        icpg = 8 if float_acts else 16
        inner_elems = 2 if float_acts else 4
        elf = tools.image("poplin", "conv_partial_1x1_%s_%s.S" % (acts, acts))
        sweep = [(n, 1, 1, 1, 8, False) for n in [1, 3, 6, 7, 12, 18, 30, 60, 96]]
        sweep += [(18, 1, 1, 1, 8, True), (60, 1, 1, 1, 8, True), (12, 1, 2, 1, 8, False), (12, 1, 1, 2, 8, False),
                  (12, 2, 2, 2, 8, True), (30, 1, 3, 2, 16, False), (24, 1, 1, 1, 16, True)]
        for size, ncg, nig, nog, ocpg, ld128 in sweep:
            # Small integers: every product and sum is exact in binary16 and float.
            def x(row, p, ic): return (row * 3 + p * 5 + ic) % 5 - 2
            def w(row, oc, ic): return (row * 7 + oc * 3 + ic * 2) % 5 - 2
            # Region 1 (interleaved, as ld128putcs needs): weights at 0x80000, in at 0x90000, out
            # at 0xA0000, each block 16-byte aligned; the pointer tables and the worklists in region 0.
            wblock, iblock, oblock = ocpg * icpg * eb, size * icpg * eb, size * ocpg * eb
            wptr = [0x80000 + i * wblock for i in range(ncg * nig * nog)]
            iptr = [0x90000 + i * ((iblock + 15) // 16 * 16) for i in range(ncg * nig)]
            ostep = (oblock + 16 + 15) // 16 * 16
            optr = [0xA0000 + i * ostep for i in range(ncg * nog)]
            tables = 0x60800
            ptab, itab, otab, wl = tables, tables + 0x100, tables + 0x200, tables + 0x300
            worklist = []
            for wid in range(6):
                lo, hi = wid * size // 6, (wid + 1) * size // 6
                worklist += [lo * ocpg * eb // 8, (hi - lo - 3) & 0xFFFF, lo * icpg * eb // 8]
            weights = b"".join(pack(fmt, [w(r, oc, ic) for oc in range(ocpg) for ic in range(icpg)])
                               for r in range(ncg * nig * nog))
            inputs = [pack(fmt, [x(r, p, ic) for p in range(size) for ic in range(icpg)]) for r in range(ncg * nig)]
            garbage = bytes([0x5A]) * (ostep * ncg * nog)
            preload = [(struct.pack("<%dI" % len(wptr), *wptr), ptab), (struct.pack("<%dI" % len(iptr), *iptr), itab),
                       (struct.pack("<%dI" % len(optr), *optr), otab), (struct.pack("<18H", *worklist), wl),
                       (weights, 0x80000), (garbage, 0xA0000)] + [(d, a) for d, a in zip(inputs, iptr)]
            # The state: in, weights, out, worklists (pointers); 16-bit numConvGroupsM1,
            # numOutGroupsM1, numInGroups, transformedInStride (unit stride: 1), outChansPerGroup,
            # transformedOutStride (-4 for half partials, -6 float, + the output stride x
            # outChansPerGroup: ConvPartialsStridesPacking.cpp), inChansPerGroup.
            out_stride = (-6 if float_acts else -4) + ocpg
            state = [itab, ptab, otab, wl, (ncg - 1) | (nog - 1) << 16, nig | 1 << 16,
                     ocpg | (out_stride & 0xFFFF) << 16, icpg]
            entry = "__runCodelet_poplin__ConvPartial1x1Out___%s_%s_true_%s_8_%d_false" % (
                acts, acts, "true" if ld128 else "false", inner_elems)
            cycles, out = tools.run_worker(elf, entry, state, 0xA0000, len(garbage), preload=preload, mode="supervisor")
            want = bytearray(garbage)
            for cg in range(ncg):
                for og in range(nog):
                    res = []
                    for p in range(size):
                        for oc in range(ocpg):
                            res.append(sum(x(cg * nig + ig, p, ic) * w(cg * nog * nig + ig * nog + nog - 1 - og, oc, ic)
                                           for ig in range(nig) for ic in range(icpg)))
                    at = (cg * nog + og) * ostep
                    want[at:at + oblock] = pack(fmt, res)
            ok = out == bytes(want)
            workers = [(wid + 1) * size // 6 - wid * size // 6 for wid in range(6)]
            yield ("poplin::ConvPartial1x1Out<%s,%s,%s>" % (acts, acts, "ld128" if ld128 else "ld64"),
                   "n=%d cg%d ig%d og%d oc%d" % (size, ncg, nig, nog, ocpg), cycles,
                   conv1x1_estimate(workers, ncg, nig, nog, ocpg, float_acts, ld128), ok)


CASES = [fill_cases, fill2d_cases, binaryop1d_cases, binaryop1d_inplace_cases, unaryop1d_cases, scaled_add_cases,
         nl_grad1d_cases, for_loop_counter_cases, cast_cases, continuous_reduce_cases,
         conv1x1_cases]


# ---- reporting --------------------------------------------------------------------------------

def svg_plot(rows, path):
    """Simulated against estimated worker cycles, log-log, with the y = x line."""
    import math
    w, h, m = 640, 640, 60
    vals = [r["simulated"] for r in rows] + [r["estimated"] for r in rows]
    lo, hi = math.log10(max(1, min(vals)) / 1.5), math.log10(max(vals) * 1.5)
    def sx(v): return m + (math.log10(v) - lo) / (hi - lo) * (w - 2 * m)
    def sy(v): return h - m - (math.log10(v) - lo) / (hi - lo) * (h - 2 * m)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<line x1="%f" y1="%f" x2="%f" y2="%f" stroke="#999" stroke-dasharray="4"/>' % (sx(10 ** lo), sy(10 ** lo), sx(10 ** hi), sy(10 ** hi))]
    for d in range(int(math.floor(lo)), int(math.ceil(hi)) + 1):
        if lo <= d <= hi:
            out.append('<text x="%f" y="%d" text-anchor="middle">%d</text>' % (sx(10 ** d), h - m + 18, 10 ** d))
            out.append('<text x="%d" y="%f" text-anchor="end">%d</text>' % (m - 6, sy(10 ** d) + 4, 10 ** d))
    # One colour per vertex family (the name without its template arguments).
    colours = {}
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
               "#bcbd22", "#7f7f7f", "#393b79", "#ad494a", "#637939", "#843c39", "#3182bd", "#e6550d"]
    for r in rows:
        family = r["vertex"].split("<")[0]
        c = colours.setdefault(family, palette[len(colours) % len(palette)])
        out.append('<circle cx="%f" cy="%f" r="3" fill="%s" fill-opacity="0.7"/>' % (sx(r["estimated"]), sy(r["simulated"]), c))
    for i, (name, c) in enumerate(colours.items()):
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>' % (m + 10, m + 10 + 16 * i, c, m + 20, m + 14 + 16 * i, name.replace("<", "&lt;").replace(">", "&gt;")))
    out.append('<text x="%d" y="%d" text-anchor="middle">poplibs estimate (worker cycles)</text>' % (w / 2, h - 20))
    out.append('<text x="20" y="%d" transform="rotate(-90 20 %d)" text-anchor="middle">ipusim (worker cycles)</text>' % (h / 2, h / 2))
    out.append('</svg>')
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("poplibs")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--table")
    ap.add_argument("--plot")
    ap.add_argument("--check")
    ap.add_argument("--only", help="run only the case sets whose name contains this (e.g. conv1x1)")
    a = ap.parse_args()
    rows, bad = [], 0
    with tempfile.TemporaryDirectory() as work:
        tools = Tools(os.path.abspath(a.build), os.path.abspath(a.poplibs), work)
        for gen in CASES:
            if a.only and a.only not in gen.__name__:
                continue
            for vertex, case, sim, est, ok in gen(tools):
                err = (sim - est) / est
                rows.append({"vertex": vertex, "case": case, "simulated": sim, "estimated": est,
                             "error_percent": "%.1f" % (100 * err), "output": "ok" if ok else "WRONG"})
                if not ok:
                    bad += 1
                    print("error: %s %s: the output differs from the host reference" % (vertex, case), file=sys.stderr)
    errs = [abs(r["simulated"] - r["estimated"]) / r["estimated"] for r in rows]
    print("%d cases, %d vertices: mean |error| %.1f%%, worst %.1f%%; %d wrong outputs" % (
        len(rows), len({r["vertex"] for r in rows}), 100 * sum(errs) / len(errs), 100 * max(errs), bad))
    fields = ["vertex", "case", "simulated", "estimated", "error_percent", "output"]
    if a.table:
        with open(a.table, "w", newline="") as f:
            w = csv.DictWriter(f, fields, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    if a.plot:
        svg_plot(rows, a.plot)
    if a.check:
        with open(a.check) as f:
            want = {(r["vertex"], r["case"]): int(r["simulated"]) for r in csv.DictReader(f)}
        got = {(r["vertex"], r["case"]): r["simulated"] for r in rows}
        for key in sorted(set(want) | set(got)):
            if want.get(key) != got.get(key):
                bad += 1
                print("error: %s %s: simulated %s, the table says %s" % (key[0], key[1], got.get(key), want.get(key)),
                      file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
