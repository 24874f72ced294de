// Shared by ipusim's poplibs libraries (popops, poplin, popnn, poprand): their vertices are C++ classes
// generated for each operation and type, compiled by ipu-cc through Graph::addCodelets (cached on
// disk by content) and named by a hash of their text, so equal code is one class.
#ifndef IPUSIM_SDK_GENERATED_HPP
#define IPUSIM_SDK_GENERATED_HPP

#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace ipusim::sdk {

/// 64-bit FNV-1a.
inline uint64_t fnv1a(const std::string &s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

/// The name of the class made of `preamble` and `body`: `prefix_<hash>`.
inline std::string generatedName(const std::string &prefix, const std::string &preamble, const std::string &body) {
  char hash[20];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, fnv1a(preamble + body));
  return prefix + "_" + hash;
}

/// The class `prefix_<hash>` deriving from `base` (poplar::Vertex, MultiVertex or SupervisorVertex)
/// with the members `body` (ending with the class's closing "};"), after the `preamble` (includes
/// and helper functions), added to the graph once; returns its name.
/// `attributes` go between `class` and the name (e.g. Poplar's memory-element constraints).
inline std::string addGeneratedVertex(poplar::Graph &graph, const std::string &prefix, const std::string &base,
                                      const std::string &preamble, const std::string &body,
                                      const std::string &attributes = "") {
  const std::string name = generatedName(prefix, preamble + attributes, body);
  if (!graph.hasCodelet(name)) {
    std::stringstream src;
    src << preamble << "class " << attributes << (attributes.empty() ? "" : " ") << name << " : public " << base
        << " {\npublic:\n"
        << body;
    graph.addCodelets(src, "-O2");
  }
  return name;
}

/// Throws poplar_error "OP: WHAT".
[[noreturn]] inline void fail(const std::string &op, const std::string &what) {
  throw poplar::poplar_error(op + ": " + what);
}

/// "{2,3,4}".
inline std::string shapeString(const std::vector<std::size_t> &shape) {
  std::string s = "{";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "}";
}

} // namespace ipusim::sdk

#endif
