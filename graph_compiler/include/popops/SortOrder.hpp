// ipusim's Poplar SDK: popops::SortOrder, the order of topK's results.
#ifndef IPUSIM_POPOPS_SORTORDER_HPP
#define IPUSIM_POPOPS_SORTORDER_HPP

#include <iosfwd>

namespace popops {

enum class SortOrder { NONE, ASCENDING, DESCENDING };

std::ostream &operator<<(std::ostream &os, const SortOrder &o);

} // namespace popops

#endif
