// How every tool prints an error at its boundary: one line, `FILE:LINE:COL: error: ...` or
// `TOOL: error: ...`, never both (issue 14: "ipusim bench: error: x.toml: error: no such file").
#pragma once

#include <cstdio>
#include <string>

namespace ipusim::arch {

/// `message` as the line(s) to print: kept as it is when it already says where and "error:",
/// else prefixed with "TOOL: error: "; ends in one newline.
inline std::string toolError(const std::string &tool, std::string message) {
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (message.find("error: ") == std::string::npos) message = tool + ": error: " + message;
  return message + "\n";
}

inline void printToolError(const std::string &tool, const std::string &message) {
  std::fputs(toolError(tool, message).c_str(), stderr);
}

} // namespace ipusim::arch
