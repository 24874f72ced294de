// ipusim's Poplar SDK: the exceptions of <poplar/exceptions.hpp>. Every one is a poplar_error,
// which is a std::runtime_error; `type` names the class.
#ifndef IPUSIM_POPLAR_EXCEPTIONS_HPP
#define IPUSIM_POPLAR_EXCEPTIONS_HPP

#include <stdexcept>
#include <string>

namespace poplar {

struct poplar_error : std::runtime_error {
  std::string type;
  explicit poplar_error(const std::string &s) : std::runtime_error(s), type("poplar_error") {}
  explicit poplar_error(const char *s) : std::runtime_error(s), type("poplar_error") {}

protected:
  poplar_error(const std::string &s, const char *t) : std::runtime_error(s), type(t) {}
};

#define IPUSIM_POPLAR_ERROR(NAME, BASE)                                                                                  \
  struct NAME : BASE {                                                                                                   \
    explicit NAME(const std::string &s) : BASE(s, #NAME) {}                                                              \
    explicit NAME(const char *s) : BASE(std::string(s), #NAME) {}                                                        \
                                                                                                                         \
  protected:                                                                                                             \
    NAME(const std::string &s, const char *t) : BASE(s, t) {}                                                            \
  };

IPUSIM_POPLAR_ERROR(graph_program_compilation_error, poplar_error)
IPUSIM_POPLAR_ERROR(graph_object_creation_error, poplar_error)
IPUSIM_POPLAR_ERROR(no_environment, poplar_error)
IPUSIM_POPLAR_ERROR(control_program_error, poplar_error)
IPUSIM_POPLAR_ERROR(type_error, poplar_error)
IPUSIM_POPLAR_ERROR(index_error, poplar_error)
IPUSIM_POPLAR_ERROR(no_size_specified, poplar_error)
IPUSIM_POPLAR_ERROR(graph_connection_error, poplar_error)
IPUSIM_POPLAR_ERROR(graph_cycle_error, poplar_error)
IPUSIM_POPLAR_ERROR(graph_recursion_error, poplar_error)
IPUSIM_POPLAR_ERROR(graph_replication_error, poplar_error)
IPUSIM_POPLAR_ERROR(missing_graph_profile, poplar_error)
IPUSIM_POPLAR_ERROR(invalid_tile_mapping, poplar_error)
IPUSIM_POPLAR_ERROR(tensor_creation_error, poplar_error)
IPUSIM_POPLAR_ERROR(tensor_io_state_error, poplar_error)
IPUSIM_POPLAR_ERROR(tensor_metadata_error, poplar_error)
IPUSIM_POPLAR_ERROR(stream_connection_error, poplar_error)
IPUSIM_POPLAR_ERROR(overflow_error, poplar_error)
IPUSIM_POPLAR_ERROR(memory_elem_constraints_error, poplar_error)
IPUSIM_POPLAR_ERROR(stream_memory_allocation_error, poplar_error)
IPUSIM_POPLAR_ERROR(invalid_machine_model, poplar_error)
IPUSIM_POPLAR_ERROR(invalid_option, poplar_error)
IPUSIM_POPLAR_ERROR(parse_error, poplar_error)
IPUSIM_POPLAR_ERROR(runtime_error, poplar_error)
IPUSIM_POPLAR_ERROR(application_runtime_error, runtime_error)
IPUSIM_POPLAR_ERROR(system_runtime_error, runtime_error)
IPUSIM_POPLAR_ERROR(unrecoverable_runtime_error, system_runtime_error)
IPUSIM_POPLAR_ERROR(unknown_runtime_error, system_runtime_error)

/// Out of memory on a tile; what() names the tile, the bytes it needs and its largest items.
struct graph_memory_allocation_error : poplar_error {
  std::string profilePath;
  explicit graph_memory_allocation_error(const std::string &s) : poplar_error(s, "graph_memory_allocation_error") {}
  explicit graph_memory_allocation_error(const char *s) : poplar_error(std::string(s), "graph_memory_allocation_error") {}
};

struct graph_object_load_error : poplar_error {
  graph_object_load_error(const std::string &path, const std::string &error)
      : poplar_error(path + ": " + error, "graph_object_load_error") {}
  explicit graph_object_load_error(const std::string &s) : poplar_error(s, "graph_object_load_error") {}
};

struct unknown_vertex_type : poplar_error {
  explicit unknown_vertex_type(const std::string &name) : poplar_error(name, "unknown_vertex_type") {}
};

struct unknown_field : poplar_error {
  explicit unknown_field(const std::string &s) : poplar_error(s, "unknown_field") {}
  unknown_field(const std::string &fieldName, const std::string &vertexTypeName)
      : poplar_error("no field '" + fieldName + "' in vertex class " + vertexTypeName, "unknown_field") {}
};

struct profiling_disabled : poplar_error {
  profiling_disabled() : poplar_error(std::string("profiling is disabled"), "profiling_disabled") {}
};

struct missing_perf_estimate : poplar_error {
  explicit missing_perf_estimate(const std::string &vertexName)
      : poplar_error("no performance estimate for " + vertexName, "missing_perf_estimate") {}
};

struct link_error : poplar_error {
  std::string output;
  explicit link_error(const std::string &s, const std::string &out = "") : poplar_error(s, "link_error"), output(out) {}
  explicit link_error(const char *s, const char *out = "") : poplar_error(std::string(s), "link_error"), output(out) {}
};

struct symbol_error : poplar_error {
  symbol_error(const std::string &name, const unsigned tile)
      : poplar_error("symbol '" + name + "' is not defined on tile " + std::to_string(tile), "symbol_error") {}
};

struct file_load_error : poplar_error {
  explicit file_load_error(const std::string &path) : poplar_error("cannot load " + path, "file_load_error") {}
};

#undef IPUSIM_POPLAR_ERROR

} // namespace poplar

#endif
