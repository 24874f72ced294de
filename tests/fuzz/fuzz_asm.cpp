// libFuzzer harness: the assembler must turn any input into an object or a clean AssemblyError.
#include "ipusim/cc/Assembler.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  try {
    ipusim::cc::ObjectFile obj = ipusim::cc::assembleText(text, "fuzz.s");
    // What the assembler produces, the ELF writer and reader must round-trip.
    ipusim::cc::readElf(ipusim::cc::writeElf(obj), "fuzz.o");
  } catch (const ipusim::cc::AssemblyError &) {
  }
  return 0;
}
