// ipusim's Poplar SDK: poplar::TypeTraits (declared with Type).
#include <poplar/Type.hpp>
