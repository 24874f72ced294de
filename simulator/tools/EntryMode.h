// Whether an entry point is started the way its code was assembled: supervisor code called by the
// supervisor, worker code started on workers (issue 14: worker code run in supervisor mode failed
// with "supervisor CSR 1 is not modelled yet" at its first instruction).
#pragma once

#include "ipusim/cc/Object.h"

#include <string>

namespace ipusim::tools {

/// "" if `mode` ("supervisor", "worker", "multi") fits the code at `symbol`, else why not.
inline std::string entryModeMismatch(const cc::ObjectFile &image, const cc::Symbol &symbol, const std::string &mode) {
  const int code = image.codeModeOf(symbol);
  if (code == 0 && mode == "supervisor")
    return "entry '" + symbol.name + "' is worker code (assembled after .worker): use --mode worker (one worker) or --mode multi (all six)";
  if (code == 1 && mode != "supervisor")
    return "entry '" + symbol.name + "' is supervisor code (assembled after .supervisor): use --mode supervisor";
  return "";
}

} // namespace ipusim::tools
