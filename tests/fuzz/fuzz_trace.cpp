// libFuzzer harness: the trace reader must turn any input into a trace or a clean TraceError
// naming the line and column; what it accepts must export to Perfetto JSON (valid UTF-8 whatever
// bytes the values carry) and format back to lines that read again (issue 14).
#include "ipusim/sim/Trace.h"
#include "ipusim/sim/TraceTools.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
  ipusim::sim::TraceFile t;
  try {
    t = ipusim::sim::readTrace(in, "fuzz.trace");
  } catch (const ipusim::sim::TraceError &) {
    return 0;
  }
  (void)ipusim::sim::exportPerfetto(t);
  std::string text = ipusim::sim::formatTraceHeader(t.header);
  for (const ipusim::sim::TraceEvent &e : t.events) text += ipusim::sim::formatTraceEvent(e) + "\n";
  std::istringstream again(text);
  try {
    ipusim::sim::readTrace(again, "again.trace");
  } catch (const ipusim::sim::TraceError &) {
    std::abort(); // what the writer writes, the reader reads
  }
  return 0;
}
