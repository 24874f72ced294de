// ipusim's stand-in for the Poplar SDK header <arch/gc_tile_defines.h> (not public): the GC200
// tile's architectural constants (contexts, memory, CSR indices and fields, sync zones, AMP and
// FPU flags) as C macros, usable from C++ codelets and `.S` files (poplibs' popfloat assembly
// includes it directly; <poplar/TileConstants.hpp> includes it). Values marked [F]/[RE] come from
// docs/hardware.md and docs/assembly.md §2.4; values marked "ours" have no public source and are
// ipusim's own definitions, which the simulator implements consistently (docs/assembly.md lists them).
#ifndef IPUSIM_ARCH_GC_TILE_DEFINES_H
#define IPUSIM_ARCH_GC_TILE_DEFINES_H

#define CTXT_WORKERS 6                       /* [F] S3 */
#define NUM_WORKERS CTXT_WORKERS

/* Tile memory ([F] S6 ipuArchInfo ipu2; [RE] S8/S9). */
#define TMEM_REGION0_BASE_ADDR 0x4c000
#define TMEM_ELEMSIZE 0x4000
#define TMEM_BYTE_MAX_ADDRESS_WIDTH 21
#define TMEM_FULL_ADDRESS_MASK 0x1fffff
#define TMEM_SIZE (624 * 1024)
#define TMEM_REGION1_BASE_ADDR 0x80000        /* [RE] S9 executable limit */

/* Pace instructions: three 10-bit signed strides packed in one MRF register ([F] S5 comments). */
#define NUM_STRIDE_BITS 10

/* Worker CSRs for get/put ([F] csrs_ipu2.s via asm-dialect §2.2). */
#define CSR_W_PC__INDEX 0
#define CSR_W_WSR__INDEX 1
#define CSR_W_VERTEX_BASE__INDEX 2
#define CSR_W_WORKER_BASE__INDEX 3
#define CSR_W_REPEAT_COUNT__INDEX 4
#define CSR_W_REPEAT_FIRST__INDEX 5
#define CSR_W_REPEAT_END__INDEX 6
#define CSR_W_COUNT_L__INDEX 96
#define CSR_W_COUNT_U__INDEX 97
#define CSR_W_DBG_DATA__INDEX 112
#define CSR_W_DBG_BRK_ID__INDEX 113
/* $WSR: the context id minus one (0..5 for workers) in the low bits (ours: bits 2:0). */
#define CSR_W_WSR__CTXTID_M1__SHIFT 0
#define CSR_W_WSR__CTXTID_M1__MASK 0x7
#define CSR_W_REPEAT_COUNT__VALUE__MASK 0xffff /* [F] S6 ipu2 */

/* Worker CSRs for uget/uput: the upper space is flagged by bit 8 ([F] old public TileConstants:
   CSR_W_FP_CTL__INDEX = 258). */
#define CSR_UPPER_MASK 0xff
#define CSR_W_FP_STS__INDEX 0x100
#define CSR_W_FP_CLR__INDEX 0x101
#define CSR_W_FP_CTL__INDEX 0x102
#define CSR_W_PRNG_0_0__INDEX 0x103
#define CSR_W_PRNG_0_1__INDEX 0x104
#define CSR_W_PRNG_1_0__INDEX 0x105
#define CSR_W_PRNG_1_1__INDEX 0x106
#define CSR_W_PRNG_SEED__INDEX 0x107
#define CSR_W_TAS__INDEX 0x108
/* $FP_CLR: writing ZAACC zeroes the accumulators ([RE] tessellate-ipu writes 0x8). */
#define CSR_W_FP_CLR__ZAACC__SHIFT 3
#define CSR_W_FP_CLR__ZAACC__MASK 0x1

/* $FP_CTL / $FP_ICTL bit layout: exception enables, the rounding mode, stochastic rounding, NaN on
   overflow ([RE] the field layout of Graphcore's tile constants as dumped for the Mk1,
   Saghetti0/graphcore-ipu-research research/ipu1/ipu1_consts.c). */
#define CSR_W_FP_CTL__INV__SHIFT 0
#define CSR_W_FP_CTL__DIV0__SHIFT 1
#define CSR_W_FP_CTL__OFLO__SHIFT 2
#define CSR_W_FP_CTL__RND__SHIFT 16
#define CSR_W_FP_CTL__RND__MASK 0x7
#define CSR_W_FP_CTL__ESR__SHIFT 19
#define CSR_W_FP_CTL__NANOO__SHIFT 20
#define CSR_S_FP_ICTL__INV__SHIFT 0
#define CSR_S_FP_ICTL__INV__MASK 0x1
#define CSR_S_FP_ICTL__DIV0__SHIFT 1
#define CSR_S_FP_ICTL__DIV0__MASK 0x1
#define CSR_S_FP_ICTL__OFLO__SHIFT 2
#define CSR_S_FP_ICTL__OFLO__MASK 0x1
#define CSR_S_FP_ICTL__RND__SHIFT 16
#define CSR_S_FP_ICTL__RND__MASK 0x7
#define CSR_S_FP_ICTL__ESR__SHIFT 19
#define CSR_S_FP_ICTL__ESR__MASK 0x1
#define CSR_S_FP_ICTL__NANOO__SHIFT 20
#define CSR_S_FP_ICTL__NANOO__MASK 0x1

/* Supervisor CSRs (asm-dialect §2.2; [RE] S8 where ipu2 values are not public). */
#define CSR_S_PC__INDEX 0
#define CSR_S_SSR__INDEX 1
#define CSR_S_CR__INDEX 2
#define CSR_S_TILE_ID__INDEX 3
#define CSR_S_FP_ICTL__INDEX 32
#define CSR_S_WORKER0_BASE__INDEX 33
#define CSR_S_CCCSLOAD__INDEX 80
#define CSR_S_SCOUNT_L__INDEX 96
#define CSR_S_SCOUNT_U__INDEX 97
#define CSR_S_CTXT_STS__INDEX 114
#define CSR_S_INCOMING_MUX__INDEX 0xa0
#define CSR_S_INCOMING_MUXPAIR__INDEX 0xa1
#define CSR_S_INCOMING_DELTA__INDEX 0xa2
#define CSR_S_INCOMING_FORMAT__INDEX 0xa3
#define CSR_S_INCOMING_BASE__INDEX 0xa4
#define CSR_S_INCOMING_SINIT__INDEX 0xa5
#define CSR_S_INCOMING_DCOUNT__INDEX 0xa6
#define CSR_S_OUTGOING_BASE__INDEX 0xa7
#define CSR_S_OUTGOING_DELTA__INDEX 0xa8

/* Sync zones for `sync` ([RE] S8 TileSyncZone). */
#define TEXCH_SYNCZONE_RECV 0
#define TEXCH_SYNCZONE_ANS 1
#define TEXCH_SYNCZONE_LOCAL 2
#define TEXCH_SYNCZONE_INTERNAL 3
#define TEXCH_SYNCZONE_GS1 4
#define TEXCH_SYNCZONE_GS1_HOST 5
#define TEXCH_SYNCZONE_GS2 6
#define TEXCH_SYNCZONE_GS2_HOST 7

/* AMP engine/phase flags (ours): (log2(engines) << 3) | phase. */
#define TAMP_F16V4_E1_P0 0
#define TAMP_F16V4_E2_P0 8
#define TAMP_F16V4_E2_P1 9
#define TAMP_F16V4_E4_P0 16
#define TAMP_F16V4_E4_P1 17
#define TAMP_F16V4_E4_P2 18
#define TAMP_F16V4_E4_P3 19
#define TAMP_F32_E1_P0 0
#define TAMP_F32_E1_P1 1
#define TAMP_F32_E1_P2 2
#define TAMP_F32_E1_P3 3
#define TAMP_F32_E2_P0 8
#define TAMP_F32_E2_P1 9
#define TAMP_F32_E2_P2 10
#define TAMP_F32_E2_P3 11
#define TAMP_F32_E4_P0 16
#define TAMP_F32_E4_P1 17
#define TAMP_F32_E4_P2 18
#define TAMP_F32_E4_P3 19
#define TAMP_F32_E4_P4 20
#define TAMP_F32_E4_P5 21
#define TAMP_F32_E4_P6 22
#define TAMP_F32_E4_P7 23
/* Accumulator store / SLIC flags (ours). */
#define TSTACC_P0 0
#define TSTACC_P1 1
#define TISTACC_P0 0
#define TISTACC_P1 1
#define TSLIC_F16V4_1x4 0
#define TSLIC_F16V4_1 0
/* SLIC forms (ours; poplibs names the 1x4 banks W0/W1): bit 0 the $CWEI bank, bit 1 the 3-tap form. */
#define TSLIC_F16V4_1x4_W0 0
#define TSLIC_F16V4_1x4_W1 1
#define TSLIC_F16V4_1x3_W0 2
#define TSLIC_F16V4_1x3_W1 3

/* FPU constants: comparison results (ours) and the rounding modes of f32int ([L] the Colossus
   LLVM backend's TFPU_ROUND_* values). */
#define TFPU_FP32_TRUE 0xffffffff
#define TFPU_FP32_FALSE 0x00000000
#define TFPU_FP16_TRUE 0xffff
#define TFPU_FP16_FALSE 0x0000
#define TFPU_ROUND_NEAREST 0
#define TFPU_ROUND_UP 1
#define TFPU_ROUND_DOWN 2
#define TFPU_ROUND_ZERO 3
#define TFPU_ROUND_AWAY 4

#endif
