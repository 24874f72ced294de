// Checks for the tools' command-line numbers: a count or a cycle is a whole number of 0 or more
// (CLI11 would read "-5" into an unsigned as 2^64 - 5, turning a cycle limit off).
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
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

} // namespace ipusim::tools
