// Checks for the tools' command-line numbers: a count or a cycle is a whole number of 0 or more
// (CLI11 would read "-5" into an unsigned as 2^64 - 5, turning a cycle limit off).
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace ipusim::tools {

inline CLI::Validator wholeNumber() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        if (s.empty() || s[0] == '-' || s[0] == '+') return "'" + s + "' is not a whole number of 0 or more";
        char *end = nullptr;
        errno = 0;
        std::strtoull(s.c_str(), &end, 0);
        if (*end) return "'" + s + "' is not a whole number of 0 or more";
        if (errno == ERANGE) return "'" + s + "' is out of range (at most 18446744073709551615)";
        return "";
      },
      "NUMBER >= 0");
}

/// A number the user wrote (decimal, 0x hex or 0 octal) of at most `max`; "" and the value, or
/// why it is not one: "'X' is not a number" or "'X' is out of range (at most MAX)".
inline std::string parseNumber(const std::string &text, uint64_t max, uint64_t &value) {
  if (text.empty() || text[0] == '-' || text[0] == '+' || text[0] == ' ') return "'" + text + "' is not a number";
  char *end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (*end) return "'" + text + "' is not a number";
  if (errno == ERANGE || v > max) return "'" + text + "' is out of range (at most " + std::to_string(max) + ")";
  value = v;
  return "";
}

} // namespace ipusim::tools
