// What popnn's normalisations share (BatchNorm.cpp, GroupNorm.cpp).
#ifndef IPUSIM_POPNN_NORMS_HPP
#define IPUSIM_POPNN_NORMS_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/exceptions.hpp>

#include <string>
#include <vector>

namespace popnn::norms {

/// A per-channel tensor [C] as [C][1]... to broadcast against acts [batch][C][field...].
inline poplar::Tensor perChannel(const std::string &op, const poplar::Tensor &t, const poplar::Tensor &acts,
                                 const char *what) {
  if (t.numElements() != acts.dim(1))
    throw poplar::poplar_error(op + ": " + what + " must have one element per channel (" +
                               std::to_string(acts.dim(1)) + "), it has " + std::to_string(t.numElements()));
  std::vector<std::size_t> shape{acts.dim(1)};
  for (std::size_t i = 2; i < acts.rank(); ++i) shape.push_back(1);
  return t.reshape(shape);
}

/// The debug context's name, or the operation's.
inline std::string nameOf(const poplar::DebugContext &dc, const std::string &op) {
  return dc.getPathName().empty() ? op : dc.getPathName();
}

} // namespace popnn::norms

#endif
