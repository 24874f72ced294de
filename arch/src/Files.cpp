#include "ipusim/arch/Files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ipusim::arch {

std::string unreadableFile(const std::string &path, const std::string &what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return path + ": error: no such file";
  if (fs::is_directory(st)) return path + ": error: is a directory, not " + what;
  if (!fs::is_regular_file(st) && !fs::is_character_file(st) && !fs::is_fifo(st))
    return path + ": error: is not a regular file, not " + what;
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": error: cannot read it (" + std::strerror(errno) + ")";
  return "";
}

} // namespace ipusim::arch
