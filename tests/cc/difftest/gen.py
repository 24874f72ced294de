#!/usr/bin/env python3
"""Differential-test generator for ipu-cc (run by hand; its output is committed).

Writes tests/cc/difftest/gen_<k>.cpp (random Poplar-style codelets that stress the backend) and
tests/cc/difftest/expected.inc (each vertex's inputs and its outputs as computed by a host build of
the same C++ with clang++-19 against the device headers: IEEE binary32 without contraction,
binary16 rounded after every operation, signed char). Each vertex is first run alone on the host
under UBSan (-fno-sanitize-recover); a vertex whose program or inputs have undefined behaviour is
drawn again. difftest_test.cpp runs every vertex on the tile ISS and compares bit for bit (any
NaN matches any NaN: NaN payloads and signs are not specified).

Usage: python3 tests/cc/difftest/gen.py [seed]   (deterministic for a given seed)
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
INC = os.path.join(ROOT, "codelet_compiler", "device-include")
CXX = os.environ.get("CLANGXX", "clang++-19")
HOST_FLAGS = ["-std=c++17", "-O1", "-ffp-contract=off", "-fsigned-char", "-Xclang",
              "-ffloat16-excess-precision=none", "-isystem", INC + "/c++", "-isystem", INC, "-w"]
UBSAN = ["-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all"]

# type -> (size, struct code, signed?, kind)
TYPES = {
    "int": (4, "i", True, "int"),
    "unsigned": (4, "I", False, "int"),
    "short": (2, "h", True, "int"),
    "unsigned short": (2, "H", False, "int"),
    "char": (1, "b", True, "int"),
    "unsigned char": (1, "B", False, "int"),
    "long long": (8, "q", True, "int"),
    "float": (4, "f", True, "float"),
    "half": (2, "e", True, "float"),
}
INT_TYPES = ["int", "unsigned", "short", "unsigned short", "char", "unsigned char", "long long"]
COMP = ["int", "unsigned", "long long"]  # integer computation types
UNS = {"int": "unsigned", "unsigned": "unsigned", "long long": "unsigned long long"}
BITS = {"int": 32, "unsigned": 32, "long long": 64}


class Gen:
    def __init__(self, rng):
        self.r = rng

    def chance(self, p):
        return self.r.random() < p

    # ---- data ----
    def value(self, t):
        r = self.r
        size, code, signed, kind = TYPES[t]
        if kind == "int":
            bits = 8 * size
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            c = r.random()
            if c < 0.35:
                v = r.randint(-20, 20)
            elif c < 0.6:
                v = r.randint(-3000, 3000)
            elif c < 0.7:
                v = r.choice([lo, hi, 0, -1, 1, lo + 1, hi - 1])
            else:
                v = r.randint(lo, hi)
            v = max(lo, min(hi, v)) if signed else v % (1 << bits)
            return struct.pack("<" + code, v)
        if t == "float":
            c = r.random()
            if c < 0.08:
                return struct.pack("<I", r.choice([0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000, 0x00000000,
                                                    0x00000003, 0x807FFFFF, 0x7F7FFFFF, 0x3F800000, 0xBF800000]))
            if c < 0.5:
                return struct.pack("<f", r.randint(-64, 64) / r.choice([1, 2, 4, 8]))
            return struct.pack("<f", r.uniform(-200, 200) * 10 ** r.randint(-3, 3))
        # half
        c = r.random()
        if c < 0.08:
            return struct.pack("<H", r.choice([0x7E00, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0003, 0x83FF, 0x7BFF, 0x3C00]))
        if c < 0.5:
            return struct.pack("<e", r.randint(-64, 64) / r.choice([1, 2, 4, 8]))
        return struct.pack("<e", r.uniform(-100, 100))

    def data(self, t, n):
        return b"".join(self.value(t) for _ in range(n))

    # ---- constants ----
    def iconst(self, C):
        r = self.r
        if C == "unsigned":
            v = r.choice([0, 1, 2, 3, 7, 31, 255, 1000, 65535, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, r.randint(0, 1 << 32) - 1])
            return "%du" % v
        if C == "long long":
            v = r.choice([0, 1, -1, 3, -7, 100000, -123456789, 1 << 40, -(1 << 33) + 5, r.randint(-(1 << 62), 1 << 62)])
            return "(%dLL)" % v
        v = r.choice([0, 1, -1, 2, 3, -5, 13, 255, -256, 1000, -32768, 65535, 0x7FFFFFFF, r.randint(-100000, 100000)])
        return "(%d)" % v

    def divisor(self, C):
        r = self.r
        if C == "unsigned":
            return "%du" % r.choice([1, 2, 3, 5, 7, 8, 10, 16, 100, 255, 256, 1000, 65536, 0x80000000, 0xFFFFFFFF])
        if C == "long long":
            return "(%dLL)" % r.choice([1, 2, 3, -3, 7, 16, -16, 1000, 1 << 33])
        return "(%d)" % r.choice([1, 2, 3, -3, 5, -7, 8, -8, 10, 16, 100, -255, 256, 1000, 65536])

    def fconst(self, F):
        r = self.r
        v = r.choice(["0.0f", "1.0f", "-1.0f", "0.5f", "-2.5f", "3.0f", "0.1f", "100.0f", "-0.0f", "1.0e-3f",
                      "%.6gf" % r.uniform(-50, 50)])
        return v if F == "float" else "(half)%s" % v

    # ---- expressions ----
    def var(self, kinds):
        cands = [v for v in self.vars if TYPES[v[1]][3] in kinds]
        return self.r.choice(cands) if cands else None

    def iexpr(self, C, d):
        r = self.r
        U = UNS[C]
        sh = BITS[C] - 1
        if d <= 0 or self.chance(0.2):
            if self.chance(0.8):
                v = self.var(["int"])
                if v:
                    return "(%s)%s" % (C, v[0])
            return self.iconst(C)
        A = lambda: self.iexpr(C, d - 1)
        k = r.choices(["arith", "wrap", "divc", "divv", "shr", "shl", "bit", "not", "neg", "cmp", "fcmp", "sel",
                       "narrow", "f2i", "call"], [3, 5, 2, 1, 2, 2, 3, 1, 1, 2, 1, 2, 2, 1, 1.5])[0]
        if k == "arith":
            return "(%s %s %s)" % (A(), r.choice("+-*"), A())
        if k == "wrap":
            return "(%s)((%s)%s %s (%s)%s)" % (C, U, A(), r.choice("+-*"), U, A())
        if k == "divc":
            return "(%s %s %s)" % (A(), r.choice("/%"), self.divisor(C))
        if k == "divv":
            b = self.iexpr(C, 0)
            return "(%s != 0 ? %s %s %s : %s)" % (b, A(), r.choice("/%"), b, self.iconst(C))
        if k == "shr":
            return "(%s >> (%s & %d))" % (A(), A(), sh)
        if k == "shl":
            return "(%s)((%s)%s << (%s & %d))" % (C, U, A(), A(), sh)
        if k == "bit":
            return "(%s %s %s)" % (A(), r.choice("&|^"), A())
        if k == "not":
            return "(~%s)" % A()
        if k == "neg":
            return "(%s)(0 - (%s)%s)" % (C, U, A())
        if k == "cmp":
            C2 = r.choice(COMP)
            return "(%s)(%s %s %s)" % (C, self.iexpr(C2, d - 1), r.choice(["<", "<=", ">", ">=", "==", "!="]),
                                       self.iexpr(C2, d - 1))
        if k == "fcmp":
            F = r.choice(["float", "half"])
            return "(%s)(%s %s %s)" % (C, self.fexpr(F, d - 1), r.choice(["<", "<=", ">", ">=", "==", "!="]),
                                       self.fexpr(F, d - 1))
        if k == "sel":
            return "(%s ? %s : %s)" % (self.cond(d - 1), A(), A())
        if k == "narrow":
            return "(%s)(%s)%s" % (C, r.choice(["short", "unsigned short", "char", "unsigned char", "int", "unsigned"]), A())
        if k == "f2i":
            lo, hi = {"int": ("-2.0e9f", "2.0e9f"), "unsigned": ("0.0f", "4.0e9f"),
                      "long long": ("-1.0e18f", "1.0e18f")}[C]
            f = self.fexpr("float", d - 1)
            if self.chance(0.3):
                f = "(float)%s" % self.fexpr("half", d - 1)
            return "(%s)std::fmin(std::fmax(%s, %s), %s)" % (C, f, lo, hi)
        if k == "call" and self.helpers:
            e, t = self.call(d - 1)
            return self.conv(C, e, t)
        return A()

    def cond(self, d):
        r = self.r
        if self.chance(0.5):
            C = r.choice(COMP)
            return "%s %s %s" % (self.iexpr(C, d), r.choice(["<", "<=", ">", ">=", "==", "!="]), self.iexpr(C, d))
        F = r.choice(["float", "half"])
        if self.chance(0.15):
            return "std::isnan(%s)" % self.fexpr(F, d)
        return "%s %s %s" % (self.fexpr(F, d), r.choice(["<", "<=", ">", ">=", "==", "!="]), self.fexpr(F, d))

    def fexpr(self, F, d):
        r = self.r
        if d <= 0 or self.chance(0.2):
            c = r.random()
            if c < 0.7:
                v = self.var(["float"])
                if v:
                    return v[0] if v[1] == F else "(%s)%s" % (F, v[0])
            if c < 0.85:
                v = self.var(["int"])
                if v:
                    return "(%s)%s" % (F, v[0])
            return self.fconst(F)
        A = lambda: self.fexpr(F, d - 1)
        k = r.choices(["arith", "div", "neg", "abs", "minmax", "sel", "conv", "i2f", "call"],
                      [6, 1.5, 1, 1, 1.5, 2, 1.5, 1, 1.5])[0]
        if k == "arith":
            return "(%s %s %s)" % (A(), r.choice("+-*"), A())
        if k == "div":
            return "(%s / %s)" % (A(), A())
        if k == "neg":
            return "(-(%s))" % A()
        if k == "abs":
            return "std::fabs(%s)" % A()
        if k == "minmax":
            return "std::%s(%s, %s)" % (r.choice(["fmin", "fmax"]), A(), A())
        if k == "sel":
            return "(%s ? %s : %s)" % (self.cond(d - 1), A(), A())
        if k == "conv":
            G = "half" if F == "float" else "float"
            return "(%s)%s" % (F, self.fexpr(G, d - 1))
        if k == "i2f":
            return "(%s)%s" % (F, self.iexpr(r.choice(["int", "unsigned"]), d - 1))
        if k == "call" and self.helpers:
            e, t = self.call(d - 1)
            return self.conv(F, e, t)
        return A()

    def call(self, d):
        name, ret, params = self.r.choice(self.helpers)
        args = []
        for t in params:
            if TYPES[t][3] == "int":
                C = t if t in COMP else "int"
                args.append("(%s)%s" % (t, self.iexpr(C, min(d, 1))))
            else:
                args.append(self.fexpr(t, min(d, 1)))
        return "%s(%s)" % (name, ", ".join(args)), ret

    def expr(self, t, d):
        if TYPES[t][3] == "float":
            return self.fexpr(t, d)
        C = t if t in COMP else self.r.choice(COMP)
        return "(%s)%s" % (t, self.iexpr(C, d))

    def conv(self, dst, e, src):
        """(dst)e without undefined behaviour."""
        if TYPES[dst][3] == "float":
            return "(%s)%s" % (dst, e)
        if TYPES[src][3] == "int":
            return "(%s)%s" % (dst, e)
        if dst in ("unsigned", "unsigned short", "unsigned char"):
            return "(%s)(unsigned)std::fmin(std::fmax((float)%s, 0.0f), 4.0e9f)" % (dst, e)
        return "(%s)(int)std::fmin(std::fmax((float)%s, -2.0e9f), 2.0e9f)" % (dst, e)


class Vertex:
    def __init__(self, name, kind):
        self.name = name
        self.kind = kind  # Vertex / MultiVertex
        self.fields = []  # (name, role 'i'/'o'/'v', type, layout, count, bytes)
        self.body = []

    def decl(self):
        out = []
        for name, role, t, layout, count, data in self.fields:
            if role == "v":
                out.append("  %s %s;" % (t, name))
            else:
                out.append("  %s<Vector<%s, %s>> %s;" % ("Input" if role == "i" else "Output", t, layout, name))
        return out

    def source(self):
        s = ["class %s : public %s {" % (self.name, self.kind), "public:"] + self.decl()
        sig = "bool compute(unsigned wid)" if self.kind == "MultiVertex" else "bool compute()"
        s += ["", "  %s {" % sig] + ["    " + l for l in self.body] + ["    return true;", "  }", "};"]
        return "\n".join(s)


def hexs(b):
    return b.hex()


class Builder:
    """Makes one vertex of a given category."""

    def __init__(self, g, ns):
        self.g = g
        self.ns = ns

    def new(self, v):
        self.g.vars = []
        self.v = v

    def inp(self, name, t, count, layout="ONE_PTR"):
        self.v.fields.append((name, "i", t, layout, count, self.g.data(t, count)))

    def outp(self, name, t, count, layout="ONE_PTR"):
        self.v.fields.append((name, "o", t, layout, count, b"\xCD" * (TYPES[t][0] * count)))

    def val(self, name, t):
        self.v.fields.append((name, "v", t, None, 1, self.g.value(t)))
        self.g.vars.append((name, t))

    # Elementwise loop over n: straight-line expressions of the loaded elements.
    def elementwise(self, v, n):
        g, r = self.g, self.g.r
        self.new(v)
        ins = [r.choice(list(TYPES)) for _ in range(r.randint(2, 5))]
        for j, t in enumerate(ins):
            self.inp("in%d" % j, t, n + 2, "SPAN" if j == 0 else r.choice(["ONE_PTR", "SPAN"]))
        if r.random() < 0.6:
            self.val("k0", r.choice(["int", "float", "unsigned", "half", "short"]))
        outs = [r.choice(list(TYPES)) for _ in range(r.randint(1, 4))]
        for j, t in enumerate(outs):
            self.outp("out%d" % j, t, n)
        v.body.append("const unsigned n = in0.size() - 2;")
        v.body.append("for (unsigned i = 0; i < n; ++i) {")
        for j, t in enumerate(ins):
            idx = r.choice(["i", "i", "i + 1", "n + 1 - i", "i + 2"])
            v.body.append("  const %s x%d = in%d[%s];" % (t, j, j, idx))
            g.vars.append(("x%d" % j, t))
        for j, t in enumerate(outs):
            v.body.append("  out%d[i] = %s;" % (j, g.expr(t, r.randint(2, 4))))
        v.body.append("}")

    # Many simultaneously live values: forces spills.
    def spill(self, v):
        g, r = self.g, self.g.r
        self.new(v)
        n = 24
        tin = r.choice(["int", "float", "unsigned", "half", "short"])
        tin2 = r.choice(["int", "float", "long long"])
        self.inp("a", tin, n)
        self.inp("b", tin2, n)
        to = r.choice(["int", "float", "unsigned", "long long"])
        self.outp("out", to, n + 1)
        for j in range(n):
            v.body.append("const %s a%d = a[%d];" % (tin, j, j))
            g.vars.append(("a%d" % j, tin))
        for j in range(n):
            v.body.append("const %s b%d = b[%d];" % (tin2, j, (j * 7) % n))
            g.vars.append(("b%d" % j, tin2))
        temps = []
        for j in range(n):
            t = r.choice(["int", "float", "unsigned", "half", "long long"])
            v.body.append("const %s t%d = %s;" % (t, j, g.expr(t, 2)))
            temps.append(("t%d" % j, t))
        g.vars = temps + g.vars
        for j in range(n):
            v.body.append("out[%d] = %s;" % (j, g.conv(to, "t%d" % j, temps[j][1])))
        acc = " ^ ".join("(unsigned)(int)(a%d) ^ (unsigned)(int)(b%d)" % (j, j) for j in range(n)) \
            if False else None
        v.body.append("out[%d] = %s;" % (n, g.expr(to, 3)))

    # Loops with loop-carried values, strides, nesting, early exits.
    def loop(self, v, n):
        g, r = self.g, self.g.r
        self.new(v)
        style = r.choice(["for", "ptr", "nested", "while", "for"])
        t0, t1 = r.choice(list(TYPES)), r.choice(list(TYPES))
        s0, s1 = r.choice([1, 1, 2, 3]), r.choice([1, 2, 4])
        self.inp("a", t0, n * s0 + 4, "SPAN")
        self.inp("b", t1, n * s1 + 4)
        if r.random() < 0.5:
            self.val("lim", r.choice(["int", "unsigned", "float"]))
        accs = [r.choice(["int", "unsigned", "float", "half", "long long", "short"]) for _ in range(r.randint(2, 4))]
        to = r.choice(list(TYPES))
        ostride = r.choice([1, 2])
        self.outp("out", to, n * ostride + 2)
        self.outp("acc", "unsigned", 2 * len(accs), "SPAN")
        v.body.append("const unsigned n = (a.size() - 4) / %d;" % s0)
        for j, t in enumerate(accs):
            v.body.append("%s s%d = %s;" % (t, j, g.expr(t, 0) if g.vars else (
                g.fconst(t) if TYPES[t][3] == "float" else "(%s)%s" % (t, g.iconst("int")))))
        accvars = [("s%d" % j, t) for j, t in enumerate(accs)]
        ind = "  "
        brk = r.random() < 0.5
        if style == "for":
            v.body.append("for (unsigned i = 0; i < n; ++i) {")
            v.body.append("  const %s x = a[i * %d]; const %s y = b[i * %d];" % (t0, s0, t1, s1))
            store = "out[i * %d]" % ostride
        elif style == "ptr":
            v.body.append("const %s *p = &a[0]; const %s *q = &b[%d];" % (t0, t1, r.choice([0, 1, 3])))
            v.body.append("%s *o = &out[0];" % to)
            v.body.append("for (unsigned i = 0; i < n; ++i, p += %d, q += %d, o += %d) {" % (s0, s1, ostride))
            v.body.append("  const %s x = *p; const %s y = *q;" % (t0, t1))
            store = "*o"
        elif style == "nested":
            rows = r.choice([2, 3, 4])
            v.body.append("const unsigned rows = %d, cols = n / rows;" % rows)
            v.body.append("for (unsigned rr = 0; rr < rows; ++rr) {")
            v.body.append("  %s rowacc = %s;" % (accs[0], "0" if TYPES[accs[0]][3] == "int" else "%s(0)" % accs[0]))
            v.body.append("  for (unsigned c = 0; c < cols; ++c) {")
            v.body.append("    const unsigned i = rr * cols + c;")
            v.body.append("    const %s x = a[i * %d]; const %s y = b[i * %d];" % (t0, s0, t1, s1))
            accvars = accvars + [("rowacc", accs[0])]
            store = "out[i * %d]" % ostride
            ind = "    "
        else:  # while with a data-dependent step
            v.body.append("unsigned i = 0;")
            v.body.append("while (i < n) {")
            v.body.append("  const %s x = a[i * %d]; const %s y = b[i * %d];" % (t0, s0, t1, s1))
            store = "out[i * %d]" % ostride
        g.vars += [("x", t0), ("y", t1)] + accvars
        for name, t in accvars:
            v.body.append(ind + "%s = %s;" % (name, g.expr(t, r.randint(1, 3))))
        v.body.append(ind + "%s = %s;" % (store, g.expr(to, 2)))
        if brk:
            v.body.append(ind + "if (%s) break;" % g.cond(1))
        if style == "nested":
            v.body.append("  }")
            v.body.append("  s0 = (%s)(s0 + rowacc);" % accs[0])
            v.body.append("}")
        elif style == "while":
            v.body.append("  i += 1 + ((unsigned)%s & 3u);" % g.iexpr("int", 1))
            v.body.append("}")
        else:
            v.body.append("}")
        for j, t in enumerate(accs):
            if t == "long long":
                v.body.append("acc[%d] = (unsigned)s%d; acc[%d] = (unsigned)((unsigned long long)s%d >> 32);"
                              % (2 * j, j, 2 * j + 1, j))
            elif t in ("float",):
                v.body.append("acc[%d] = __builtin_bit_cast(unsigned, s%d); acc[%d] = 0;" % (2 * j, j, 2 * j + 1))
            elif t == "half":
                v.body.append("acc[%d] = __builtin_bit_cast(unsigned short, s%d); acc[%d] = 1;" % (2 * j, j, 2 * j + 1))
            else:
                v.body.append("acc[%d] = (unsigned)s%d; acc[%d] = 2;" % (2 * j, j, 2 * j + 1))

    # MultiVertex work splits (32-bit outputs only: sub-word stores of different workers race).
    def multi(self, v, n):
        g, r = self.g, self.g.r
        self.new(v)
        t0, t1 = r.choice(list(TYPES)), r.choice(list(TYPES))
        self.inp("a", t0, n, "SPAN")
        self.inp("b", t1, n)
        to = r.choice(["int", "unsigned", "float", "long long"])
        tp = r.choice(["int", "float", "unsigned"])
        self.outp("out", to, n)
        self.outp("part", tp, 6)
        split = r.choice(["interleaved", "contiguous", "blocked"])
        v.body.append("const unsigned n = a.size();")
        if split == "interleaved":
            v.body.append("const unsigned begin = wid, end = n, step = numWorkers();")
        elif split == "contiguous":
            v.body.append("const unsigned begin = wid * n / numWorkers(), end = (wid + 1) * n / numWorkers(), step = 1;")
        else:
            v.body.append("const unsigned chunk = (n + numWorkers() - 1) / numWorkers();")
            v.body.append("const unsigned begin = wid * chunk, end = begin + chunk < n ? begin + chunk : n, step = 1;")
        v.body.append("%s p = %s;" % (tp, "(%s)wid" % tp))
        v.body.append("for (unsigned i = begin; i < end; i += step) {")
        v.body.append("  const %s x = a[i]; const %s y = b[i];" % (t0, t1))
        g.vars += [("x", t0), ("y", t1), ("p", tp)]
        v.body.append("  out[i] = %s;" % g.expr(to, 3))
        v.body.append("  p = %s;" % g.expr(tp, 2))
        v.body.append("}")
        v.body.append("part[wid] = p;")


def make_helpers(g, fid, count):
    """noinline helpers with mixed int/float parameters and results (a later one may call an
    earlier one)."""
    helpers, src = [], []
    g.helpers = []
    for h in range(count):
        nparams = g.r.choice([2, 3, 4, 5, 7, 9])
        # Any mix: what does not fit the argument registers goes on the stack.
        params = [g.r.choice(["int", "float", "unsigned", "half", "long long", "short"]) for _ in range(nparams)]
        ret = g.r.choice(["int", "float", "unsigned", "half", "long long"])
        g.vars = [("p%d" % j, t) for j, t in enumerate(params)]
        body = g.expr(ret, 3)
        name = "helper%d_%d" % (fid, h)
        src.append("__attribute__((noinline)) %s %s(%s) {\n  return %s;\n}" % (
            ret, name, ", ".join("%s p%d" % (t, j) for j, t in enumerate(params)), body))
        g.helpers.append((name, ret, params))
    return src


PRELUDE = """#include <cmath>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;
"""


def file_source(fid, helpers, vertices, header):
    s = [header, PRELUDE, "namespace dt%d {" % fid, ""]
    s += [h + "\n" for h in helpers]
    s += [v.source() + "\n" for v in vertices]
    s.append("} // namespace dt%d" % fid)
    return "\n".join(s) + "\n"


def driver_source(cpp_path, fid, vertices):
    s = ['#include "%s"' % cpp_path, "#include <cstdio>", "#include <cstring>", "#include <cstdlib>",
         "static void dump(const char *name, const void *p, unsigned bytes) {",
         '  printf("%s ", name);',
         '  for (unsigned i = 0; i < bytes; ++i) printf("%02x", ((const unsigned char *)p)[i]);',
         '  printf("\\n");', "}",
         "static unsigned char hexv(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }",
         "static void *fill(const char *hex, unsigned bytes) {",
         "  void *p = aligned_alloc(16, (bytes + 15) / 16 * 16 + 16);",
         "  for (unsigned i = 0; i < bytes; ++i) ((unsigned char *)p)[i] = hexv(hex[2 * i]) << 4 | hexv(hex[2 * i + 1]);",
         "  return p;", "}",
         "int main(int argc, char **argv) {", "  int only = argc > 1 ? atoi(argv[1]) : -1;"]
    for k, v in enumerate(vertices):
        s.append("  if (only < 0 || only == %d) {" % k)
        s.append("    static dt%d::%s v;" % (fid, v.name))
        for name, role, t, layout, count, data in v.fields:
            nb = TYPES[t][0] * count
            if role == "v":
                s.append('    memcpy(&v.%s, fill("%s", %d), %d);' % (name, hexs(data), nb, nb))
            else:
                s.append('    void *buf_%s = fill("%s", %d);' % (name, hexs(data), nb))
                s.append("    v.%s.bind((%s%s *)buf_%s, %d);" % (name, "const " if role == "i" else "", t, name, count))
        if v.kind == "MultiVertex":
            s.append("    for (unsigned w = 0; w < 6; ++w) if (!v.compute(w)) return 3;")
        else:
            s.append("    if (!v.compute()) return 3;")
        for name, role, t, layout, count, data in v.fields:
            if role == "o":
                s.append('    dump("%s", buf_%s, %d);' % (name, name, TYPES[t][0] * count))
        s.append("  }")
    s.append("  return 0;")
    s.append("}")
    return "\n".join(s) + "\n"


def host_run(tmp, cpp_text, drv_text, tag, ubsan):
    cpp = os.path.join(tmp, tag + ".cpp")
    drv = os.path.join(tmp, tag + "_main.cpp")
    exe = os.path.join(tmp, tag)
    open(cpp, "w").write(cpp_text)
    open(drv, "w").write(drv_text.replace('#include "CPP"', '#include "%s"' % cpp))
    cmd = [CXX] + HOST_FLAGS + (UBSAN if ubsan else []) + [drv, "-o", exe]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit("host compile failed:\n" + p.stderr[:4000] + "\n" + cpp_text)
    p = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


# file id -> list of categories
PLAN = {
    1: ["elem", "elem", "elem", "elem", "elem", "elem"],
    2: ["elem", "elem", "spill", "elem", "elem", "spill"],
    3: ["loop", "loop", "loop", "loop", "loop", "loop"],
    4: ["loop", "loop", "loop", "loop", "loop", "loop"],
    5: ["spill", "spill", "spill", "elem", "loop", "spill"],
    6: ["call", "call", "call", "call", "loopcall", "call"],
    7: ["multi", "multi", "multi", "multi", "multi", "multi"],
    8: ["elem", "loop", "multi", "call", "spill", "loopcall"],
}


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 7  # the committed set (2024 found the pipeline bug)
    rng = random.Random(seed)
    g = Gen(rng)
    tmp = tempfile.mkdtemp(prefix="difftest_")
    inc = []
    total = 0
    for fid, cats in PLAN.items():
        nhelpers = 3 if any(c in ("call", "loopcall") for c in cats) else 0
        vertices = []
        helpers_src = []
        # Helpers first (validated with the vertices that call them).
        for k, cat in enumerate(cats):
            for attempt in range(40):
                g.helpers = []
                if nhelpers and not helpers_src:
                    helpers_src = make_helpers(g, fid, nhelpers)
                    helper_list = list(g.helpers)
                g.helpers = helper_list if nhelpers else []
                b = Builder(g, fid)
                v = Vertex("V%d_%s%d" % (fid, cat, k), "MultiVertex" if cat == "multi" else "Vertex")
                n = rng.choice([5, 8, 13, 24, 31])
                if cat in ("elem", "call"):
                    if cat == "call":
                        g.helpers = helper_list
                    b.elementwise(v, n)
                elif cat == "spill":
                    b.spill(v)
                elif cat in ("loop", "loopcall"):
                    b.loop(v, n)
                else:
                    b.multi(v, rng.choice([13, 24, 37, 50]))
                if cat not in ("call", "loopcall") or any("helper" in l for l in v.body):
                    pass
                else:
                    continue
                src = file_source(fid, helpers_src, [v], "")
                rc, out, err = host_run(tmp, src, driver_source("CPP", fid, [v]), "v", True)
                if rc == 0:
                    break
                if attempt == 39:
                    raise SystemExit("could not draw a UB-free vertex:\n" + err[:2000])
            vertices.append(v)
        header = ("// GENERATED by tests/cc/difftest/gen.py (seed %d): random codelets for differential testing.\n"
                  "// Expected outputs (expected.inc) come from a host build of this file; difftest_test.cpp\n"
                  "// runs each vertex on the tile ISS. Do not edit; regenerate." % seed)
        src = file_source(fid, helpers_src, vertices, header)
        rc, out, err = host_run(tmp, src, driver_source("CPP", fid, vertices), "f%d" % fid, False)
        if rc:
            raise SystemExit("file %d host run failed: %s" % (fid, err))
        path = os.path.join(HERE, "gen_%d.cpp" % fid)
        open(path, "w").write(src)
        lines = iter(out.split("\n"))
        for v in vertices:
            fields = []
            for name, role, t, layout, count, data in v.fields:
                if role == "o":
                    got = next(lines).split()
                    assert got[0] == name, (got, name)
                    data = bytes.fromhex(got[1]) if len(got) > 1 else b""
                fields.append('{"%s", \'%s\', "%s", %d, %d, "%s"}' % (name, role, t, TYPES[t][0], count, hexs(data)))
            inc.append('{"gen_%d.cpp", "dt%d::%s", {\n    %s}},' % (fid, fid, v.name, ",\n    ".join(fields)))
            total += 1
        print("gen_%d.cpp: %d vertices" % (fid, len(vertices)))
    open(os.path.join(HERE, "expected.inc"), "w").write(
        "// GENERATED by tests/cc/difftest/gen.py: inputs and host-computed outputs of every generated vertex.\n"
        "// {file, class, {{field, role (i input, o output, v value member), type, element size, count, hex}}}\n"
        + "\n".join(inc) + "\n")
    print("%d vertices" % total)


if __name__ == "__main__":
    main()
