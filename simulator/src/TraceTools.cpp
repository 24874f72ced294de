// ipu-trace's show, diff and export (docs/trace-format.md, "Tools").
#include "ipusim/sim/TraceTools.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>

namespace ipusim::sim {

namespace {

/// Reads a decimal number at `pos` of `s`, advancing `pos`; false if there is none.
bool readNumber(const std::string &s, size_t &pos, unsigned &out) {
  auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), out);
  if (ec != std::errc() || end == s.data() + pos) return false;
  pos = size_t(end - s.data());
  return true;
}

bool readWord(const std::string &s, size_t &pos, const char *word) {
  std::string w(word);
  if (s.compare(pos, w.size(), w) != 0) return false;
  pos += w.size();
  return true;
}

bool parseUnsigned(const std::string &s, uint64_t &out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string formatFields(const TraceEvent &e) {
  std::string out;
  for (const auto &[k, v] : e.fields) out += (out.empty() ? "" : " ") + k + "=" + formatTraceValue(v);
  return out;
}

/// A number for messages: no trailing zeros ("10", "2.5").
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// A clock as the config line writes it (1325000000, not 1.325e+09).
std::string hertz(double hz) {
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, hz, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, end) : number(hz);
}

} // namespace

std::optional<TracePlace> parseTracePlace(const std::string &where) {
  TracePlace p;
  size_t pos = 0;
  if (!readWord(where, pos, "ipu") || !readNumber(where, pos, p.ipu)) return std::nullopt;
  if (pos == where.size()) return p;
  if (readWord(where, pos, ".sync")) return pos == where.size() ? std::optional(p) : std::nullopt;
  unsigned tile = 0, worker = 0;
  if (!readWord(where, pos, ".tile") || !readNumber(where, pos, tile)) return std::nullopt;
  p.tile = tile;
  if (readWord(where, pos, ".supervisor")) {
    p.context = 0;
  } else if (readWord(where, pos, ".worker") && readNumber(where, pos, worker) && worker < 6) {
    p.context = 1 + worker; // [F] six worker contexts
  } else {
    return std::nullopt;
  }
  return pos == where.size() ? std::optional(p) : std::nullopt;
}

// ---- show ----

std::string showTrace(const TraceFile &trace, const TraceShowOptions &options) {
  struct Row {
    std::string cycle, event, where, fields;
  };
  std::vector<Row> rows;
  std::map<std::string, uint64_t> counts;
  uint64_t first = 0, last = 0;
  for (const TraceEvent &e : trace.events) {
    if (options.tile) {
      std::optional<TracePlace> p = parseTracePlace(e.where);
      if (!p || p->tile != options.tile) continue;
    }
    if ((options.from && e.cycle < *options.from) || (options.to && e.cycle > *options.to)) continue;
    if (e.event.compare(0, options.eventPrefix.size(), options.eventPrefix) != 0) continue;
    if (rows.empty()) first = e.cycle;
    last = e.cycle;
    rows.push_back({std::to_string(e.cycle), e.event, e.where, formatFields(e)});
    ++counts[e.event];
  }
  size_t w[3] = {0, 0, 0};
  for (const Row &r : rows) {
    w[0] = std::max(w[0], r.cycle.size());
    w[1] = std::max(w[1], r.event.size());
    w[2] = std::max(w[2], r.where.size());
  }
  std::string out;
  for (const Row &r : rows) {
    std::string line = std::string(w[0] - r.cycle.size(), ' ') + r.cycle + "  " + r.event +
                       std::string(w[1] - r.event.size(), ' ') + "  " + r.where;
    if (!r.fields.empty()) line += std::string(w[2] - r.where.size(), ' ') + "  " + r.fields;
    out += line + "\n";
  }
  // The summary: what was shown, over which cycles, and how many of each event.
  if (!rows.empty()) out += "\n";
  out += std::to_string(rows.size()) + " of " + std::to_string(trace.events.size()) + " events";
  if (!rows.empty())
    out += ", cycles " + std::to_string(first) + " to " + std::to_string(last) + " (" +
           std::to_string(last - first) + " cycles)";
  out += "\n";
  size_t nameWidth = 0;
  for (const auto &[name, n] : counts) nameWidth = std::max(nameWidth, name.size());
  for (const auto &[name, n] : counts)
    out += "  " + name + std::string(nameWidth - name.size(), ' ') + "  " + std::to_string(n) + "\n";
  return out;
}

// ---- diff ----

bool parseCycleTolerance(const std::string &text, CycleTolerance &out) {
  bool percent = !text.empty() && text.back() == '%';
  std::string n = percent ? text.substr(0, text.size() - 1) : text;
  // A whole number of cycles, or a percentage that may have a fraction ("2.5%").
  if (n.empty() || n.find_first_not_of(percent ? "0123456789." : "0123456789") != std::string::npos) return false;
  double v = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
  if (ec != std::errc() || end != n.data() + n.size()) return false;
  out = {v, percent};
  return true;
}

namespace {

/// Cycle values `a` (the first trace's) and `b` agree within the tolerance.
bool withinTolerance(uint64_t a, uint64_t b, const CycleTolerance &t) {
  const double delta = double(a > b ? a - b : b - a);
  return t.percent ? delta * 100 <= double(a) * t.amount : delta <= t.amount;
}

std::string toleranceNote(uint64_t a, const CycleTolerance &t) {
  if (t.amount == 0) return "";
  if (!t.percent) return " (tolerance " + number(t.amount) + ")";
  return " (tolerance " + number(t.amount) + "% of " + std::to_string(a) + " = " +
         number(double(a) * t.amount / 100) + ")";
}

/// What differs between two events (one line each), or nothing.
std::vector<std::string> eventDifferences(const TraceEvent &a, const TraceEvent &b, const CycleTolerance &t) {
  std::vector<std::string> out;
  if (!withinTolerance(a.cycle, b.cycle, t))
    out.push_back("cycle: " + std::to_string(a.cycle) + " vs " + std::to_string(b.cycle) + toleranceNote(a.cycle, t));
  if (a.event != b.event) out.push_back("event: " + a.event + " vs " + b.event);
  if (a.where != b.where) out.push_back("where: " + a.where + " vs " + b.where);
  // Fields by key, in the first trace's order, then those only the second has.
  for (const auto &[key, va] : a.fields) {
    const std::string *vb = b.field(key);
    if (!vb) {
      out.push_back("field " + key + ": " + formatTraceValue(va) + " vs (missing)");
      continue;
    }
    uint64_t ca, cb;
    bool equal = isCycleField(key) && parseUnsigned(va, ca) && parseUnsigned(*vb, cb) ? withinTolerance(ca, cb, t)
                                                                                        : va == *vb;
    if (!equal) {
      std::string note = isCycleField(key) && parseUnsigned(va, ca) ? toleranceNote(ca, t) : "";
      out.push_back("field " + key + ": " + formatTraceValue(va) + " vs " + formatTraceValue(*vb) + note);
    }
  }
  for (const auto &[key, vb] : b.fields)
    if (!a.field(key)) out.push_back("field " + key + ": (missing) vs " + formatTraceValue(vb));
  return out;
}

std::string configLine(const TraceHeader &h) {
  std::string s = formatTraceHeader(h);
  size_t start = s.find('\n') + 1;
  return s.substr(start, s.size() - start - 1);
}

/// One trace's side of the report: up to three events before index `i`, then event `i` marked
/// with `>` (or the end of the trace).
std::string context(const TraceFile &t, const std::string &name, size_t i) {
  std::string out;
  for (size_t k = i >= 3 ? i - 3 : 0; k < i && k < t.events.size(); ++k)
    out += "  " + name + ":" + std::to_string(t.lines[k]) + ": " + formatTraceEvent(t.events[k]) + "\n";
  if (i < t.events.size())
    out += "> " + name + ":" + std::to_string(t.lines[i]) + ": " + formatTraceEvent(t.events[i]) + "\n";
  else
    out += "> " + name + ": end of trace (" + std::to_string(t.events.size()) + " events)\n";
  return out;
}

} // namespace

std::string diffTraces(const TraceFile &a, const std::string &nameA, const TraceFile &b, const std::string &nameB,
                       const CycleTolerance &tolerance) {
  // The headers (line 2 of each file): clock_hz is not a cycle field, so it must match exactly.
  std::vector<std::string> what;
  const TraceHeader &ha = a.header, &hb = b.header;
  if (ha.config != hb.config)
    what.push_back("name: " + formatTraceValue(ha.config) + " vs " + formatTraceValue(hb.config));
  if (ha.clockHz != hb.clockHz) what.push_back("clock_hz: " + hertz(ha.clockHz) + " vs " + hertz(hb.clockHz));
  if (ha.ipus != hb.ipus) what.push_back("ipus: " + std::to_string(ha.ipus) + " vs " + std::to_string(hb.ipus));
  if (ha.tiles != hb.tiles) what.push_back("tiles: " + std::to_string(ha.tiles) + " vs " + std::to_string(hb.tiles));
  if (!what.empty()) {
    std::string out = "first divergence: " + nameA + ":2 vs " + nameB + ":2 (the config line)\n";
    for (const std::string &w : what) out += "  " + w + "\n";
    out += "--- " + nameA + "\n> " + nameA + ":2: " + configLine(ha) + "\n";
    out += "+++ " + nameB + "\n> " + nameB + ":2: " + configLine(hb) + "\n";
    return out;
  }

  const size_t n = std::min(a.events.size(), b.events.size());
  size_t i = 0;
  for (; i < n; ++i) {
    what = eventDifferences(a.events[i], b.events[i], tolerance);
    if (!what.empty()) break;
  }
  if (i == n && a.events.size() == b.events.size()) return "";

  std::string out;
  if (i < n) {
    out = "first divergence: " + nameA + ":" + std::to_string(a.lines[i]) + " vs " + nameB + ":" +
          std::to_string(b.lines[i]) + " (event " + std::to_string(i + 1) + ")\n";
  } else {
    // Equal as far as the shorter one goes.
    const bool aLonger = a.events.size() > b.events.size();
    const TraceFile &longer = aLonger ? a : b;
    const std::string &longName = aLonger ? nameA : nameB, &shortName = aLonger ? nameB : nameA;
    out = "first divergence: " + longName + ":" + std::to_string(longer.lines[i]) + " vs the end of " + shortName +
          "\n";
    what = {longName + " is longer: " + std::to_string(longer.events.size()) + " events, " + shortName + " " +
            std::to_string(n)};
  }
  for (const std::string &w : what) out += "  " + w + "\n";
  out += "--- " + nameA + "\n" + context(a, nameA, i);
  out += "+++ " + nameB + "\n" + context(b, nameB, i);
  return out;
}

// ---- export --perfetto ----

std::string exportPerfetto(const TraceFile &trace) {
  using nlohmann::json;
  const double hz = trace.header.clockHz;
  auto micros = [hz](uint64_t cycles) { return double(cycles) / hz * 1e6; };
  const uint64_t lastCycle = trace.events.empty() ? 0 : trace.events.back().cycle;

  // pid per IPU (N+1: Perfetto treats pid 0 as the kernel's), tid per tile context, tid 0 for the
  // IPU's own track. Threads are named as they appear.
  using Thread = std::pair<unsigned, unsigned>; // pid, tid
  std::map<Thread, std::string> threads;
  std::map<unsigned, std::string> processes;
  std::map<Thread, unsigned> openSlices;             // B events not yet ended
  std::map<Thread, const TraceEvent *> pendingSyncs; // sync.enter awaiting its release

  // Viewers nest the slices of a thread by start time, and slices that start in the same cycle in
  // file order, so the output is sorted: by cycle; within one, B and E first in trace order (an
  // E ends an earlier slice, a B encloses what starts with it), then X, longest first (a sync
  // encloses the issue of its `sync` instruction), then instants.
  struct Out {
    uint64_t cycle;
    int rank;          // 0 B/E, 1 X, 2 i
    uint64_t duration; // cycles, for X
    json event;
  };
  std::vector<Out> events;

  auto args = [](const TraceEvent &e, json into = json::object()) {
    into["cycle"] = e.cycle;
    for (const auto &[k, v] : e.fields) {
      uint64_t n;
      if (parseUnsigned(v, n))
        into[k] = n;
      else
        into[k] = v;
    }
    return into;
  };
  // A B, E or i event at the cycle of `e`, with its fields as arguments.
  auto mark = [&](const char *ph, const std::string &name, const TraceEvent &e, Thread th) {
    json j = {{"cat", e.event}, {"ph", ph}, {"ts", micros(e.cycle)}, {"pid", th.first}, {"tid", th.second},
              {"args", args(e)}};
    if (ph[0] != 'E') j["name"] = name; // an end takes its slice's name
    if (ph[0] == 'i') j["s"] = "t";     // an instant on its thread's track
    events.push_back({e.cycle, ph[0] == 'i' ? 2 : 0, 0, std::move(j)});
  };
  // An X event from cycle `begin` to `end`.
  auto complete = [&](const std::string &name, const TraceEvent &e, Thread th, uint64_t begin, uint64_t end,
                      json a) {
    end = std::max(end, begin);
    events.push_back({begin, 1, end - begin,
                      json{{"name", name}, {"cat", e.event}, {"ph", "X"}, {"ts", micros(begin)},
                           {"dur", micros(end - begin)}, {"pid", th.first}, {"tid", th.second},
                           {"args", std::move(a)}}});
  };
  auto fieldOr = [](const TraceEvent &e, const char *key, const std::string &otherwise) {
    const std::string *v = e.field(key);
    return v ? *v : otherwise;
  };
  auto count = [](const TraceEvent &e, const char *key) {
    uint64_t n = 0;
    const std::string *v = e.field(key);
    return v && parseUnsigned(*v, n) ? n : 0;
  };
  // A supervisor's sync as one slice from sync.enter to sync.release (or `end`).
  auto syncSlice = [&](const TraceEvent &enter, const TraceEvent *release, Thread th, uint64_t end) {
    json a = args(enter);
    if (release) {
      a = args(*release, a);
      a["cycle"] = enter.cycle;
      a["release_cycle"] = release->cycle;
    }
    const std::string *zone = enter.field("zone");
    complete(zone ? "sync " + *zone : "sync", enter, th, enter.cycle, end, std::move(a));
  };

  for (const TraceEvent &e : trace.events) {
    // An unknown WHERE (a later format's part) goes to the first IPU's track rather than nowhere.
    TracePlace place = parseTracePlace(e.where).value_or(TracePlace{});
    const unsigned pid = place.ipu + 1;
    const unsigned tid = place.tile ? 1 + *place.tile * 7 + place.context : 0;
    const Thread th{pid, tid};
    processes[pid] = "ipu" + std::to_string(place.ipu);
    if (!threads.count(th))
      threads[th] = !place.tile ? "phases & syncs"
                    : place.context == 0
                        ? "tile" + std::to_string(*place.tile) + " supervisor"
                        : "tile" + std::to_string(*place.tile) + " worker" + std::to_string(place.context - 1);

    if (e.event == "tile.begin" || e.event == "vertex.begin") {
      mark("B", fieldOr(e, "symbol", fieldOr(e, "pc", e.event)), e, th);
      ++openSlices[th];
    } else if ((e.event == "tile.end" || e.event == "vertex.end") && openSlices[th] > 0) {
      mark("E", "", e, th);
      --openSlices[th];
    } else if (e.event == "sync.enter") {
      if (auto it = pendingSyncs.find(th); it != pendingSyncs.end())
        syncSlice(*it->second, nullptr, th, e.cycle); // entered again: the first never released
      pendingSyncs[th] = &e;
    } else if (e.event == "sync.release" && pendingSyncs.count(th)) {
      syncSlice(*pendingSyncs[th], &e, th, e.cycle);
      pendingSyncs.erase(th);
    } else if (e.event == "phase") {
      complete(fieldOr(e, "kind", "phase"), e, th, e.cycle, e.cycle + count(e, "cycles"), args(e));
    } else if (e.event == "exchange.send") {
      complete(e.event, e, th, e.cycle, e.cycle + count(e, "words"), args(e)); // a word per cycle
    } else if (e.event == "exchange.receive") {
      const uint64_t end = e.field("last_cycle") ? count(e, "last_cycle") + 1 : e.cycle + count(e, "words");
      complete(e.event, e, th, e.cycle, end, args(e));
    } else if (e.event == "issue") {
      complete(fieldOr(e, "insn", e.event), e, th, e.cycle, e.cycle + 1, args(e));
    } else {
      // ipuN.sync's `sync`, unpaired ends and releases, and events of later format versions.
      mark("i", e.event, e, th);
    }
  }
  // What is still open at the end of the trace ends at its last cycle.
  for (const auto &[th, enter] : pendingSyncs) syncSlice(*enter, nullptr, th, lastCycle);
  for (const auto &[th, open] : openSlices)
    for (unsigned k = 0; k < open; ++k)
      events.push_back(
          {lastCycle, 0, 0, {{"ph", "E"}, {"ts", micros(lastCycle)}, {"pid", th.first}, {"tid", th.second}}});
  std::stable_sort(events.begin(), events.end(), [](const Out &a, const Out &b) {
    if (a.cycle != b.cycle) return a.cycle < b.cycle;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.rank == 1 && a.duration > b.duration;
  });

  // Metadata first: process and thread names, threads sorted by tid (tile order).
  std::vector<json> meta;
  for (const auto &[pid, name] : processes)
    meta.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
  for (const auto &[th, name] : threads) {
    meta.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", th.first}, {"tid", th.second}, {"args", {{"name", name}}}});
    meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", th.first}, {"tid", th.second},
                    {"args", {{"sort_index", th.second}}}});
  }

  // One event per line: readable, and diffable between runs.
  std::string out = "{\"traceEvents\":[\n";
  // JSON is UTF-8: a value holding other bytes (a trace may escape any byte, \xNN) is written
  // with U+FFFD in their place rather than failing the export.
  auto dump = [](const json &j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  for (const json &j : meta) out += dump(j) + ",\n";
  for (const Out &o : events) out += dump(o.event) + ",\n";
  if (out.size() > 2 && out[out.size() - 2] == ',') out.erase(out.size() - 2, 1); // no comma after the last
  json other = {{"config", trace.header.config},
                {"clock_hz", trace.header.clockHz},
                {"ipus", trace.header.ipus},
                {"tiles", trace.header.tiles}};
  out += "],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" + dump(other) + "}\n";
  return out;
}

} // namespace ipusim::sim
