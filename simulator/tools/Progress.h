// A progress line for long runs, on a terminal only: simulated cycles, supersteps and the rate,
// rewritten in place at most twice a second and cleared at the end (issue 14). It writes to
// stderr, so stdout (the JSON stats) stays clean, and nothing about the run depends on it.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ipusim::tools {

class Progress {
public:
  /// `show` false: never draws (an MPI rank other than 0).
  explicit Progress(std::string label, bool show = true) : label_(std::move(label)), start_(Clock::now()), last_(start_) {
    terminal_ = terminal_ && show;
  }
  ~Progress() { finish(); }

  /// Host seconds since the start.
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  /// Shows `cycles` (and `supersteps`, unless negative) if stderr is a terminal and half a second
  /// has passed since the last line.
  void update(uint64_t cycles, int64_t supersteps = -1) {
    if (!terminal_) return;
    const auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    std::string line = "\r" + label_ + ": " + group(cycles) + " cycles";
    if (supersteps >= 0) line += ", " + group(uint64_t(supersteps)) + " supersteps";
    char rate[48];
    std::snprintf(rate, sizeof rate, ", %.2f M cycles/s, %.0f s", s > 0 ? double(cycles) / s / 1e6 : 0.0, s);
    line += rate;
    std::fputs((line + "\033[K").c_str(), stderr);
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }

private:
  using Clock = std::chrono::steady_clock;
  static std::string group(uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
    return s;
  }
  std::string label_;
  Clock::time_point start_, last_;
  bool terminal_ = isatty(2) != 0;
  bool shown_ = false;
};

} // namespace ipusim::tools
