// ipusim_rt::CopyList in assembly (the class is declared in CopyList.cpp): worker w copies
// descriptors w, w + 6, ... of {destination, source, bytes}. Each copy moves the widest unit all
// three allow:
//   8 bytes: one bundle a unit, ldst64pace loading unit k while storing unit k-1 (the stored
//            register is read before the load writes it), after one plain load and before one
//            plain store;
//   4 bytes: ld32step and st32step, two bundles a unit (a copy of one word skips the checks
//            of the others: 14 bundles a descriptor instead of 19; CopyWordList's leading
//            one-word copies, `words` of them, take five);
//   4 bytes from a source two bytes past a word (a half tensor's elements moved by one): each
//            word stored is the high half of one source word and the low half of the next
//            (roll16), three bundles a word;
//   2 bytes of one word (the graph compiler cuts copies into whole words and pieces of one
//            word): a read-modify-write of that word (tile memory has no narrower stores);
//   1 byte: the same, a byte at a time, as the compiled C++ did.
#include <poplar/TileConstants.hpp>

  .section .text.__runCodelet_ipusim_rt__CopyList, "ax"
  .globl __runCodelet_ipusim_rt__CopyList
  .type __runCodelet_ipusim_rt__CopyList, @function
  .globl __runCodelet_ipusim_rt__CopyWordList
  .type __runCodelet_ipusim_rt__CopyWordList, @function
  .worker

// $m0 the worker's index, $m1 the descriptors, $m2 their end.
.macro SETUP
  get $m0, $WSR
  and $m0, $m0, CSR_W_WSR__CTXTID_M1__MASK
  ld32 $m1, $mvertex_base, 0         // descriptors
  ld32 $m2, $mvertex_base, 1         // their words
  shl $m2, $m2, 2
  add $m2, $m1, $m2                  // the end of the descriptors
.endm

// The unit at the source $m6 (loaded by `load`, `mask` its bits) into its place in the word
// that holds the destination $m5: a read-modify-write of that word (tile memory has no narrower
// stores); `place` masks the address bits that give the unit's byte in the word.
.macro INSERT load, mask, place
  \load $m0, $m6, $mzero, 0
  andc $m3, $m5, 3
  ld32 $m4, $m3, 0
  and $m9, $m5, \place
  shl $m9, $m9, 3                    // the unit's bit offset in the word
  setzi $m10, \mask
  shl $m10, $m10, $m9
  andc $m4, $m4, $m10
  shl $m0, $m0, $m9
  or $m4, $m4, $m0
  st32 $m4, $m3, 0
.endm

  // CopyWordList: the first `words` descriptors copy one aligned word each. This worker's
  // ceil((words - w) / 6) of them, (words + 5 - w) * 0xAAAB >> 18, go in a loop of four bundles
  // and a branch a word; the rest as CopyList's.
  .align 8
__runCodelet_ipusim_rt__CopyWordList:
  SETUP
  ld32 $m3, $mvertex_base, 2
  add $m3, $m3, 5
  sub $m3, $m3, $m0
  setzi $m4, 0xAAAB
  mul $m3, $m3, $m4
  shr $m3, $m3, 18
  mul $m0, $m0, 12
  add $m1, $m1, $m0                  // this worker's first descriptor
  brz $m3, .Lnext
  add $m3, $m3, -1
  add $m4, $m1, 4                    // its source
.Lwords:
  ld32step $m5, $mzero, $m1+=, 18    // destination; six descriptors on
  ld32step $m6, $mzero, $m4+=, 18    // source
  ld32 $a0, $m6, 0
  st32 $a0, $m5, 0
  brnzdec $m3, .Lwords
  bri .Lnext

  .align 8
__runCodelet_ipusim_rt__CopyList:
  SETUP
  mul $m0, $m0, 12
  add $m1, $m1, $m0                  // this worker's first descriptor
.Lnext:
  cmpult $m0, $m1, $m2
  brz $m0, .Ldone
  ld32 $m5, $m1, 0                   // destination
  ld32 $m6, $m1, 1                   // source
  ld32 $m7, $m1, 2                   // bytes
  add $m1, $m1, 72                   // six descriptors on
  // One aligned word (an expansion's or a gather's element): loaded and stored straight away.
  cmpeq $m0, $m7, 4
  brz $m0, .Lgeneral
  or $m0, $m5, $m6
  and $m0, $m0, 3
  brnz $m0, .Lgeneral
  ld32 $a0, $m6, 0
  st32 $a0, $m5, 0
  bri .Lnext
.Lgeneral:
  brz $m7, .Lnext
  or $m0, $m5, $m6
  or $m0, $m0, $m7
  and $m3, $m0, 7
  brnz $m3, .Lnarrow
  // 8 bytes a unit: units - 1 paced bundles between a load and a store.
  shr $m7, $m7, 3
  add $m7, $m7, -1
  ld64step $a0:1, $mzero, $m6+=, 1
  tapack $m8:9, $m6, $mzero, $m5
  .align 8
  { rpt $m7, 0 ; fnop }
  { ldst64pace $a0:1, $a0:1, $m8:9+=, $mzero, 0b0000 ; fnop }
  shl $m7, $m7, 3
  st64 $a0:1, $m5, $m7, 0
  bri .Lnext
.Lnarrow:
  and $m3, $m0, 3
  brnz $m3, .Lunaligned
  shr $m7, $m7, 2
  .align 8
  { rpt $m7, 1 ; fnop }
  { ld32step $a0, $mzero, $m6+=, 1 ; fnop }
  { st32step $a0, $mzero, $m5+=, 1 ; fnop }
  bri .Lnext
.Lunaligned:
  or $m3, $m5, $m7
  and $m3, $m3, 3
  brnz $m3, .Lhalf
  and $m3, $m6, 3
  cmpeq $m3, $m3, 2
  brz $m3, .Lbytes
  // Whole destination words from a source two bytes past a word, two words a turn of the loop:
  // the source's words are read from the one holding its first byte to the one holding its
  // last (all inside the source's 8-byte aligned item).
  andc $m6, $m6, 3
  ld32step $m4, $mzero, $m6+=, 1     // the first source word
  shr $m7, $m7, 2                    // words
  shr $m3, $m7, 1                    // pairs of words
  .align 8
  { rpt $m3, 5 ; fnop }
  { ld32step $m8, $mzero, $m6+=, 1 ; fnop }
  { roll16 $m9, $m4, $m8 ; fnop }
  { st32step $m9, $mzero, $m5+=, 1 ; fnop }
  { ld32step $m4, $mzero, $m6+=, 1 ; fnop }
  { roll16 $m9, $m8, $m4 ; fnop }
  { st32step $m9, $mzero, $m5+=, 1 ; fnop }
  and $m7, $m7, 1
  brz $m7, .Lnext
  ld32 $m8, $m6, 0
  roll16 $m9, $m4, $m8
  st32 $m9, $m5, 0
  bri .Lnext
.Lhalf:
  // Two bytes of one word from two aligned bytes: the half into its place in the word.
  cmpeq $m3, $m7, 2
  brz $m3, .Lbytes
  or $m3, $m5, $m6
  and $m3, $m3, 1
  brnz $m3, .Lbytes
  INSERT ldz16, 0xffff, 2
  bri .Lnext
.Lbytes:
  // One byte at a time: the byte into its place in the destination's word.
  INSERT ldz8, 0xff, 3
  add $m5, $m5, 1
  add $m6, $m6, 1
  add $m7, $m7, -1
  brnz $m7, .Lbytes
  bri .Lnext
.Ldone:
  exitz $mzero
  .size __runCodelet_ipusim_rt__CopyList, . - __runCodelet_ipusim_rt__CopyList
  .size __runCodelet_ipusim_rt__CopyWordList, __runCodelet_ipusim_rt__CopyList - __runCodelet_ipusim_rt__CopyWordList
