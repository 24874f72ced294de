// libFuzzer harness: any bytes (or the first code section of an ELF object), loaded as code and
// data into region 0 and run on all six workers (with a vertex base into the same bytes), must
// end in a normal return, a simulated exception or the cycle limit: never a crash, undefined
// behaviour or a hang.
#include "ipusim/arch/Config.h"
#include "ipusim/cc/Object.h"
#include "ipusim/sim/Tile.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

using namespace ipusim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const arch::SystemConfig cfg = arch::loadConfig(IPUSIM_SOURCE_CONFIG_DIR "/mk2.toml");
  static sim::Tile tile(cfg.tile); // reused: a run resets the contexts, and decoded code is
                                   // checked against memory on every fetch
  constexpr size_t kWindow = 0x4000;
  std::vector<uint8_t> code(data, data + size);
  if (size >= 4 && std::memcmp(data, "\x7f" "ELF", 4) == 0) {
    try {
      cc::ObjectFile obj = cc::readElf(code, "seed.o");
      code.clear();
      for (const cc::Section &s : obj.sections)
        if (s.isCode() && !s.data.empty()) {
          code = s.data;
          break;
        }
    } catch (const cc::ObjectError &) {
    }
  }
  if (code.size() < 8) return 0;
  const uint32_t base = cfg.tile.memoryBase;
  std::memset(tile.memory().at(base), 0, kWindow);
  std::memcpy(tile.memory().at(base), code.data(), std::min(code.size(), kWindow));
  tile.setFastPaths(size & 1); // both the fast and the stepping paths
  try {
    tile.runSupervisor(tile.installWorkerLauncher(base, base + 0x2000, size & 2), 0, 50000);
  } catch (const sim::SimException &) {
  }
  return 0;
}
