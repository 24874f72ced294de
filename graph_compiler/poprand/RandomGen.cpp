// poprand from the tiles' hardware PRNG: one generated MultiVertex per distribution and type; on
// every tile holding part of the result, one vertex per region. With a seed, each worker first
// writes its PRNG state ($PRNG_0_0 .. $PRNG_1_1) from a splitmix64 chain over the seed, the
// seed modifier, the vertex's number and the worker, so the numbers depend only on those.
#include "../sdk/Generated.hpp"

#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>

#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <sstream>

namespace poprand {

using namespace poplar;

void addCodelets(Graph &) {
  // Generated per distribution and type when an operation is added.
}

namespace {

enum class Kind { Uniform, Bernoulli, Normal, TruncatedNormal, Dropout, Seed };

std::string cType(const std::string &op, const Type &t) {
  if (t == FLOAT) return "float";
  if (t == HALF) return "half";
  if (t == INT) return "int";
  if (t == UNSIGNED_INT) return "unsigned int";
  throw poplar_error(op + ": the output type must be float, half, int or unsigned int, not " + t.toString());
}

const char *kPrelude = R"(#include <poplar/Vertex.hpp>
#include <arch/gc_tile_defines.h>
#include <cmath>
#include <ipu_builtins.h>
static inline unsigned long long splitmix(unsigned long long &x) {
  unsigned long long z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
// The worker's PRNG state from the seed, the modifier, the vertex and the worker.
static inline void seedWorker(unsigned s0, unsigned s1, unsigned modifier, unsigned vertex, unsigned wid) {
  unsigned long long x = ((unsigned long long)s1 << 32 | s0) ^ ((unsigned long long)modifier << 20) ^
                         ((unsigned long long)vertex << 3) ^ wid;
  const unsigned long long a = splitmix(x), b = splitmix(x);
  __builtin_ipu_uput((unsigned)a, CSR_W_PRNG_0_0__INDEX);
  __builtin_ipu_uput((unsigned)(a >> 32), CSR_W_PRNG_0_1__INDEX);
  __builtin_ipu_uput((unsigned)b, CSR_W_PRNG_1_0__INDEX);
  __builtin_ipu_uput((unsigned)(b >> 32) | 1u, CSR_W_PRNG_1_1__INDEX);
}
// A uniform float in [0, 1) from the top 24 of 32 random bits.
static inline float uniform01() { return (float)(__builtin_ipu_urand32() >> 8) * 5.9604645e-08f; }
)";

// The vertex: out[i] from the distribution, each worker a contiguous run of whole groups of 8
// elements (no two workers store into one word).
std::string vertexFor(Graph &graph, const std::string &op, Kind kind, const Type &outType, bool seeded) {
  const std::string T = cType(op, outType);
  const bool integral = outType == INT || outType == UNSIGNED_INT;
  std::string value;
  switch (kind) {
  case Kind::Uniform:
    value = integral ? "static_cast<" + T + ">(static_cast<long long>(a) + (long long)(__builtin_ipu_urand32() % "
                                            "(unsigned)(b - a + 1)))"
                     : "static_cast<" + T + ">(a + (b - a) * uniform01())";
    break;
  case Kind::Bernoulli: value = "static_cast<" + T + ">(uniform01() < a ? 1 : 0)"; break;
  case Kind::Normal:
  case Kind::TruncatedNormal:
    value = "static_cast<" + T + ">(a + b * z)";
    break;
  case Kind::Dropout: value = "static_cast<" + T + ">(uniform01() < a ? static_cast<float>(in[i]) * b : 0.0f)"; break;
  case Kind::Seed: break;
  }
  std::ostringstream body;
  if (kind == Kind::Dropout) body << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>> in;\n";
  if (seeded) body << "  poplar::Input<poplar::Vector<unsigned, poplar::VectorLayout::ONE_PTR>> seed;\n";
  body << "  poplar::Output<poplar::Vector<" << T << ">> out;\n"
       << "  float a;\n  float b;\n  float c;\n  unsigned modifier;\n  unsigned vertex;\n"
       << "  void compute(unsigned wid) {\n";
  if (seeded) body << "    seedWorker(seed[0], seed[1], modifier, vertex, wid);\n";
  if (kind == Kind::Seed) {
    body << "  }\n};\n";
  } else {
    body << "    const unsigned n = out.size();\n"
         << "    const unsigned per = (n + 47) / 48 * 8;\n"
         << "    const unsigned begin = wid * per < n ? wid * per : n;\n"
         << "    const unsigned end = begin + per < n ? begin + per : n;\n"
         << "    for (unsigned i = begin; i < end; ++i) {\n";
    if (kind == Kind::Normal || kind == Kind::TruncatedNormal) {
      body << "      float z;\n"
           << "      for (unsigned tries = 0;; ++tries) {\n"
           << "        const float u1 = 1.0f - uniform01(), u2 = uniform01();\n"
           << "        z = std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * u2);\n"
           << (kind == Kind::TruncatedNormal ? "        if (std::fabs(z) <= c || tries == 63) break;\n" : "        break;\n")
           << "      }\n"
           << (kind == Kind::TruncatedNormal ? "      z = z > c ? c : (z < -c ? -c : z);\n" : "");
    }
    body << "      out[i] = " << value << ";\n    }\n  }\n};\n";
  }
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_poprand", "poplar::MultiVertex", kPrelude, body.str());
}

Tensor generate(Graph &graph, const std::string &op, Kind kind, const Tensor *seed, uint32_t modifier,
                const Tensor &reference, const Type &outType, double a, double b, double c, const Tensor *input,
                program::Sequence &prog, const DebugContext &dc) {
  if (seed && (seed->numElements() != 2 || seed->elementType() != UNSIGNED_INT))
    throw poplar_error(op + ": the seed must be two unsigned ints, not " + seed->elementType().toString() + " " +
                       seed->shapeToString());
  if (input && input->shape() != reference.shape())
    throw poplar_error(op + ": the input's shape " + input->shapeToString() + " is not the reference's " +
                       reference.shapeToString());
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  const std::string vertex = vertexFor(graph, op, kind, outType, seed != nullptr);
  Tensor out = graph.clone(outType, reference, name);
  const Tensor flat = out.flatten();
  ComputeSet cs = graph.addComputeSet(name);
  unsigned number = 0;
  const auto mapping = graph.getTileMapping(flat);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &r : mapping[tile]) {
      VertexRef v = graph.addVertex(cs, vertex);
      graph.connect(v["out"], flat.slice(r.begin(), r.end()));
      if (input) graph.connect(v["in"], input->flatten().slice(r.begin(), r.end()));
      if (seed) graph.connect(v["seed"], seed->flatten());
      graph.setInitialValue(v["a"], float(a));
      graph.setInitialValue(v["b"], float(b));
      graph.setInitialValue(v["c"], float(c));
      graph.setInitialValue(v["modifier"], modifier);
      graph.setInitialValue(v["vertex"], number++);
      graph.setTileMapping(v, unsigned(tile));
    }
  prog.add(program::Execute(cs));
  return out;
}

void checkFloat(const std::string &op, const Type &t) {
  if (t != FLOAT && t != HALF) throw poplar_error(op + ": the output type must be float or half, not " + t.toString());
}

} // namespace

Tensor uniform(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference, const Type &outType,
               double minVal, double maxVal, program::Sequence &prog, const DebugContext &debugContext) {
  if (maxVal < minVal) throw poplar_error("poprand::uniform: maxVal is below minVal");
  return generate(graph, "poprand::uniform", Kind::Uniform, seed, seedModifier, reference, outType, minVal, maxVal, 0,
                  nullptr, prog, debugContext);
}

Tensor bernoulli(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference, const Type &outType,
                 double prob, program::Sequence &prog, const DebugContext &debugContext) {
  if (prob < 0 || prob > 1) throw poplar_error("poprand::bernoulli: prob must be in [0, 1]");
  return generate(graph, "poprand::bernoulli", Kind::Bernoulli, seed, seedModifier, reference, outType, prob, 0, 0,
                  nullptr, prog, debugContext);
}

Tensor normal(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference, const Type &outType,
              double mean, double stdDev, program::Sequence &prog, const DebugContext &debugContext) {
  checkFloat("poprand::normal", outType);
  return generate(graph, "poprand::normal", Kind::Normal, seed, seedModifier, reference, outType, mean, stdDev, 0,
                  nullptr, prog, debugContext);
}

Tensor truncatedNormal(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference,
                       const Type &outType, double mean, double stdDev, double alpha, program::Sequence &prog,
                       const DebugContext &debugContext) {
  checkFloat("poprand::truncatedNormal", outType);
  if (alpha <= 0) throw poplar_error("poprand::truncatedNormal: alpha must be positive");
  return generate(graph, "poprand::truncatedNormal", Kind::TruncatedNormal, seed, seedModifier, reference, outType,
                  mean, stdDev, alpha, nullptr, prog, debugContext);
}

Tensor dropout(Graph &graph, const Tensor *seed, const uint32_t seedModifier, const Tensor &input,
               const Tensor &reference, double keepProbability, double scale, program::Sequence &prog,
               const DebugContext &debugContext) {
  checkFloat("poprand::dropout", input.elementType());
  if (keepProbability < 0 || keepProbability > 1) throw poplar_error("poprand::dropout: keepProbability must be in [0, 1]");
  return generate(graph, "poprand::dropout", Kind::Dropout, seed, seedModifier, reference, input.elementType(),
                  keepProbability, scale, 0, &input, prog, debugContext);
}

Tensor dropout(Graph &graph, const Tensor *seed, const uint32_t seedModifier, const Tensor &input,
               const Tensor &reference, double keepProbability, double scale, bool, program::Sequence &prog,
               const DebugContext &debugContext) {
  return dropout(graph, seed, seedModifier, input, reference, keepProbability, scale, prog, debugContext);
}

void setSeed(Graph &graph, const Tensor &masterSeed, uint32_t seedModifier, program::Sequence &prog,
             const DebugContext &debugContext) {
  // Every tile's workers seeded by one vertex a tile (a one-element dummy output).
  const std::string op = "poprand::setSeed";
  if (masterSeed.numElements() != 2 || masterSeed.elementType() != UNSIGNED_INT)
    throw poplar_error(op + ": the seed must be two unsigned ints");
  const std::string vertex = vertexFor(graph, op, Kind::Seed, UNSIGNED_INT, true);
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  const unsigned tiles = graph.getTarget().getNumTiles();
  Tensor dummy = graph.addVariable(UNSIGNED_INT, {tiles}, name + "/unused");
  ComputeSet cs = graph.addComputeSet(name);
  for (unsigned tile = 0; tile < tiles; ++tile) {
    graph.setTileMapping(dummy[tile], tile);
    VertexRef v = graph.addVertex(cs, vertex);
    graph.connect(v["seed"], masterSeed.flatten());
    graph.connect(v["out"], dummy.slice(tile, tile + 1));
    graph.setInitialValue(v["a"], 0.0f);
    graph.setInitialValue(v["b"], 0.0f);
    graph.setInitialValue(v["c"], 0.0f);
    graph.setInitialValue(v["modifier"], seedModifier);
    graph.setInitialValue(v["vertex"], tile);
    graph.setTileMapping(v, tile);
  }
  prog.add(program::Execute(cs));
}

} // namespace poprand
