// libFuzzer harness: the ELF reader (and the disassembler on what it accepts) must turn any
// input into an ObjectFile or a clean ObjectError.
#include "ipusim/cc/Disassembler.h"
#include "ipusim/cc/Object.h"
#include "ipusim/cc/VertexLayout.h"

#include <stdexcept>

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  try {
    ipusim::cc::ObjectFile obj = ipusim::cc::readElf(bytes, "fuzz.o");
    ipusim::cc::disassemble(obj, "fuzz.o");
    ipusim::cc::disassembleToSource(obj, "fuzz.o");
    try {
      ipusim::cc::readVertexLayouts(obj); // any .ipu.vertices: layouts or one clean error
    } catch (const std::runtime_error &) {
    }
  } catch (const ipusim::cc::ObjectError &) {
  }
  return 0;
}
