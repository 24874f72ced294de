// ipusim's Poplar SDK: popnn's pooling kinds (names as poplibs').
#ifndef IPUSIM_POPNN_POOLINGDEF_HPP
#define IPUSIM_POPNN_POOLINGDEF_HPP

namespace popnn {
enum class PoolingType { MAX, AVG, SUM };
} // namespace popnn

#endif
