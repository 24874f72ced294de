// ipusim's Poplar SDK: the kinds of codelet file Graph::addCodelets takes (docs/poplar.md).
#ifndef IPUSIM_POPLAR_CODELETFILETYPE_HPP
#define IPUSIM_POPLAR_CODELETFILETYPE_HPP

#include <string>

namespace poplar {

enum class CodeletFileType { PreprocessedAsmSource, AsmSource, CSource, CppSource, IrSource, Object, Auto };
/// The type a file's extension names (.S, .s, .c, .cpp/.cc/.cxx, .ll, .gp/.o); poplar_error otherwise.
CodeletFileType getCodeletFileType(const char *path);

} // namespace poplar

#endif
