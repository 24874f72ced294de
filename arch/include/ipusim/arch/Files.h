// One check for every tool that reads a file the user names: a missing file, a directory or an
// unreadable file is a one-line error naming it (issue 14), before any parser sees it.
#pragma once

#include <string>

namespace ipusim::arch {

/// "" if `path` is a regular file this process can read; else "PATH: error: no such file",
/// "PATH: error: is a directory, not WHAT" or "PATH: error: cannot read it (REASON)".
std::string unreadableFile(const std::string &path, const std::string &what);

} // namespace ipusim::arch
