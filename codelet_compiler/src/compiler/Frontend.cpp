// Runs clang in process twice: once to find the vertex classes (and lay out their state), once on
// the file plus generated entry wrappers to emit LLVM IR. Parsing twice keeps the wrappers plain
// C++ (clang type-checks them like user code) and costs a few tens of milliseconds.
#include "Frontend.h"

#include "ipusim/arch/Files.h"
#include "ipusim/cc/Assembler.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/RecordLayout.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <filesystem>
#include <regex>

namespace ipusim::cc {

namespace {

namespace fs = std::filesystem;

// The clang installation whose resource headers (stddef.h, stdint.h ...) codelets get.
constexpr const char *kClangPath = "/usr/lib/llvm-19/bin/clang";

// ---------------------------------------------------------------------------------------------
// Names

bool inPoplar(const clang::NamedDecl *d) {
  const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(d->getDeclContext());
  return ns && ns->getName() == "poplar";
}

// Poplar's own names of its float types: "half" (_Float16) and "quarter" (poplar::quarter), as
// Poplar prints them in vertex names and entry symbols; "" for any other type.
std::string poplarFloatName(clang::QualType t) {
  if (t->isFloat16Type() || t->isHalfType()) return "half";
  if (const auto *rd = t->getAsCXXRecordDecl(); rd && rd->getName() == "quarter" && inPoplar(rd)) return "quarter";
  return "";
}

// A template argument as asm-dialect §3.3 spells it in entry symbols.
std::string symbolArg(const clang::TemplateArgument &arg, const clang::ASTContext &ctx) {
  switch (arg.getKind()) {
  case clang::TemplateArgument::Type: {
    clang::QualType t = arg.getAsType();
    if (std::string p = poplarFloatName(t); !p.empty()) return p;
    if (t->isBooleanType()) return "bool";
    clang::PrintingPolicy policy(ctx.getLangOpts());
    policy.SuppressTagKeyword = true;
    policy.FullyQualifiedName = true;
    std::string s = t.getAsString(policy);
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.compare(i, 2, "::") == 0) out += "__", ++i;
      else if (s[i] == ' ') out += '_';
      else if (s[i] == '<' || s[i] == '>' || s[i] == ',') out += '_';
      else out += s[i];
    }
    return out;
  }
  case clang::TemplateArgument::Integral: {
    clang::QualType t = arg.getIntegralType();
    llvm::APSInt v = arg.getAsIntegral();
    if (t->isBooleanType()) return v.getBoolValue() ? "true" : "false";
    if (const auto *et = t->getAs<clang::EnumType>()) {
      for (const clang::EnumConstantDecl *c : et->getDecl()->enumerators())
        if (llvm::APSInt::isSameValue(c->getInitVal(), v)) {
          // Fully qualified, "::" -> "__", and an underscore inside the enumerator -> "___".
          std::string scope = et->getDecl()->getQualifiedNameAsString(), out;
          for (size_t i = 0; i < scope.size(); ++i) {
            if (scope.compare(i, 2, "::") == 0) out += "__", ++i;
            else out += scope[i];
          }
          out += "__";
          for (char ch : c->getName().str()) out += ch == '_' ? std::string("___") : std::string(1, ch);
          return out;
        }
    }
    return llvm::toString(v, 10);
  }
  default:
    return "unsupported";
  }
}

std::string typeArgText(const clang::TemplateArgument &arg, const clang::ASTContext &ctx) {
  if (arg.getKind() != clang::TemplateArgument::Type) return "";
  clang::QualType t = arg.getAsType();
  if (std::string p = poplarFloatName(t.getCanonicalType()); !p.empty()) return p;
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressTagKeyword = true;
  return t.getCanonicalType().getAsString(policy);
}

std::string entrySymbolOf(const clang::CXXRecordDecl *rd, const clang::ASTContext &ctx) {
  std::string qualified = rd->getQualifiedNameAsString(), sym = "__runCodelet_";
  for (size_t i = 0; i < qualified.size(); ++i) {
    if (qualified.compare(i, 2, "::") == 0) sym += "__", ++i;
    else sym += qualified[i];
  }
  if (const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(rd)) {
    sym += "__";
    for (const clang::TemplateArgument &a : spec->getTemplateArgs().asArray()) sym += "_" + symbolArg(a, ctx);
  }
  return sym;
}

// The C++ spelling of the class for the wrapper's cast, every name qualified (template
// arguments too: an enumerator argument is spelled as a cast of its value to the qualified enum).
std::string cxxTypeName(clang::QualType t, const clang::ASTContext &ctx);

std::string cxxNameOf(const clang::CXXRecordDecl *rd, const clang::ASTContext &ctx) {
  std::string name = "::" + rd->getQualifiedNameAsString();
  const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(rd);
  if (!spec) return name;
  std::string args;
  for (const clang::TemplateArgument &a : spec->getTemplateArgs().asArray()) {
    if (!args.empty()) args += ", ";
    if (a.getKind() == clang::TemplateArgument::Type) args += cxxTypeName(a.getAsType(), ctx);
    else if (a.getKind() == clang::TemplateArgument::Integral) {
      clang::QualType it = a.getIntegralType();
      llvm::APSInt v = a.getAsIntegral();
      if (it->isBooleanType()) args += v.getBoolValue() ? "true" : "false";
      else if (it->getAs<clang::EnumType>()) args += "static_cast<" + cxxTypeName(it, ctx) + ">(" + llvm::toString(v, 10) + ")";
      else args += "static_cast<" + cxxTypeName(it, ctx) + ">(" + llvm::toString(v, 10) + ")";
    } else
      args += "/*unsupported template argument*/";
  }
  return name + "<" + args + " >";
}

std::string cxxTypeName(clang::QualType t, const clang::ASTContext &ctx) {
  clang::QualType c = t.getCanonicalType();
  if (const clang::CXXRecordDecl *rd = c->getAsCXXRecordDecl()) {
    std::string q = c.isConstQualified() ? "const " : "";
    return q + cxxNameOf(rd, ctx);
  }
  if (const auto *et = c->getAs<clang::EnumType>()) return "::" + et->getDecl()->getQualifiedNameAsString();
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressTagKeyword = true;
  policy.FullyQualifiedName = true;
  return c.getAsString(policy);
}

// ---------------------------------------------------------------------------------------------
// Vertex classes and their state

// "Vertex", "MultiVertex", "SupervisorVertex" if `rd` derives from one of Poplar's vertex bases.
std::string vertexKindOf(const clang::CXXRecordDecl *rd) {
  std::string kind;
  rd->forallBases([&](const clang::CXXRecordDecl *base) {
    std::string n = base->getName().str();
    if (inPoplar(base) && (n == "Vertex" || n == "MultiVertex" || n == "SupervisorVertex")) kind = n;
    return true;
  });
  return kind;
}

const clang::ClassTemplateSpecializationDecl *poplarTemplate(clang::QualType t, const char *name) {
  const auto *rd = t->getAsCXXRecordDecl();
  const auto *spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(rd);
  if (!spec || spec->getName() != name || !inPoplar(spec)) return nullptr;
  return spec;
}

std::string enumeratorName(const clang::TemplateArgument &arg) {
  if (arg.getKind() != clang::TemplateArgument::Integral) return "";
  if (const auto *et = arg.getIntegralType()->getAs<clang::EnumType>())
    for (const clang::EnumConstantDecl *c : et->getDecl()->enumerators())
      if (llvm::APSInt::isSameValue(c->getInitVal(), arg.getAsIntegral())) return c->getName().str();
  return "";
}

// Fills layout, elementType and alignment from Vector<T, Layout, Align, ...>.
void describeVector(const clang::ClassTemplateSpecializationDecl *vec, VertexField &f, const clang::ASTContext &ctx,
                    bool outer) {
  const auto &args = vec->getTemplateArgs();
  std::string layout = args.size() > 1 ? enumeratorName(args[1]) : "SPAN";
  clang::QualType elem = args[0].getAsType();
  if (layout == "COMPACT_PTR") {
    // The pointer compression the alignment allows (poplar/Vertex.hpp): SCALED_PTR32 for 4-byte
    // aligned data, SCALED_PTR64 from 8 (poplibs' assembly decodes them so), a full pointer below 4.
    unsigned align = args.size() > 2 && args[2].getKind() == clang::TemplateArgument::Integral
                         ? unsigned(args[2].getAsIntegral().getZExtValue())
                         : unsigned(ctx.getTypeAlignInChars(elem).getQuantity());
    layout = align >= 8 ? "SCALED_PTR64" : align >= 4 ? "SCALED_PTR32" : "ONE_PTR";
  }
  if (outer) f.layout = layout;
  else f.innerLayout = layout;
  for (const char *edge : {"Input", "Output", "InOut"})
    if (const auto *inner = poplarTemplate(elem, edge)) {
      f.innerKind = edge;
      if (const auto *iv = poplarTemplate(inner->getTemplateArgs()[0].getAsType(), "Vector")) {
        describeVector(iv, f, ctx, false);
        return;
      }
      f.elementType = typeArgText(inner->getTemplateArgs()[0], ctx);
      f.innerLayout = "PTR";
      return;
    }
  f.elementType = typeArgText(args[0], ctx);
  f.elementAlign = args.size() > 2 && args[2].getKind() == clang::TemplateArgument::Integral
                       ? unsigned(args[2].getAsIntegral().getZExtValue())
                       : unsigned(ctx.getTypeAlignInChars(elem).getQuantity());
  f.interleaved = args.size() > 3 && args[3].getKind() == clang::TemplateArgument::Integral &&
                  args[3].getAsIntegral().getBoolValue();
}

VertexField describeField(const clang::FieldDecl *fd, uint64_t offsetBits, const clang::ASTContext &ctx) {
  VertexField f;
  f.name = fd->getNameAsString();
  f.offset = uint32_t(offsetBits / 8);
  f.size = uint32_t(ctx.getTypeSizeInChars(fd->getType()).getQuantity());
  clang::QualType t = fd->getType();
  for (const char *edge : {"Input", "Output", "InOut"})
    if (const auto *e = poplarTemplate(t, edge)) {
      f.kind = edge;
      clang::QualType inner = e->getTemplateArgs()[0].getAsType();
      if (const auto *vec = poplarTemplate(inner, "Vector")) describeVector(vec, f, ctx, true);
      else if (const auto *list = poplarTemplate(inner, "VectorList")) describeVector(list, f, ctx, true);
      else {
        f.layout = "PTR";
        f.elementType = typeArgText(e->getTemplateArgs()[0], ctx);
        f.elementAlign = unsigned(ctx.getTypeAlignInChars(inner).getQuantity());
      }
      return f;
    }
  if (const auto *vec = poplarTemplate(t, "Vector")) {
    f.kind = "Vector";
    describeVector(vec, f, ctx, true);
    return f;
  }
  if (const auto *list = poplarTemplate(t, "VectorList")) {
    f.kind = "VectorList";
    describeVector(list, f, ctx, true);
    return f;
  }
  f.kind = "Value";
  clang::PrintingPolicy policy(ctx.getLangOpts());
  clang::QualType canon = t.getCanonicalType().getUnqualifiedType();
  f.elementType = canon->isFloat16Type() ? "half" : canon.getAsString(policy);
  return f;
}

// The class as Poplar users write it: "popops::Fill<half>", "ns::X<float, true, 4>".
std::string displayNameOf(const clang::CXXRecordDecl *rd, const clang::ASTContext &ctx) {
  std::string name = rd->getQualifiedNameAsString();
  const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(rd);
  if (!spec) return name;
  std::string args;
  for (const clang::TemplateArgument &a : spec->getTemplateArgs().asArray()) {
    if (!args.empty()) args += ", ";
    if (a.getKind() == clang::TemplateArgument::Type) {
      clang::QualType t = a.getAsType();
      if (std::string p = poplarFloatName(t); !p.empty()) args += p;
      else {
        clang::PrintingPolicy policy(ctx.getLangOpts());
        policy.SuppressTagKeyword = true;
        policy.FullyQualifiedName = true;
        args += t.getAsString(policy);
      }
    } else if (a.getKind() == clang::TemplateArgument::Integral) {
      clang::QualType it = a.getIntegralType();
      if (it->isBooleanType()) args += a.getAsIntegral().getBoolValue() ? "true" : "false";
      else if (const auto *et = it->getAs<clang::EnumType>()) {
        std::string e = enumeratorName(a);
        args += et->getDecl()->getQualifiedNameAsString() + "::" + (e.empty() ? llvm::toString(a.getAsIntegral(), 10) : e);
      } else
        args += llvm::toString(a.getAsIntegral(), 10);
    }
  }
  return name + "<" + args + ">";
}

/// The class's `[[poplar::constraint("elem(*a) != elem(*b)")]]` pairs. Clang drops attributes of
/// namespaces it does not know, so they are read from the source between `class` and the name
/// (of the template the class was instantiated from, if any).
std::vector<std::pair<std::string, std::string>> elemConstraintsOf(const clang::CXXRecordDecl *rd,
                                                                   const clang::ASTContext &ctx) {
  std::vector<std::pair<std::string, std::string>> out;
  if (const clang::CXXRecordDecl *pattern = rd->getTemplateInstantiationPattern()) rd = pattern;
  const clang::SourceManager &sm = ctx.getSourceManager();
  const clang::SourceLocation begin = sm.getFileLoc(rd->getBeginLoc()), name = sm.getFileLoc(rd->getLocation());
  if (begin.isInvalid() || name.isInvalid() || sm.getFileID(begin) != sm.getFileID(name)) return out;
  const unsigned from = sm.getFileOffset(begin), to = sm.getFileOffset(name);
  if (to <= from) return out;
  const std::string head = sm.getBufferData(sm.getFileID(begin)).substr(from, to - from).str();
  static const std::regex constraint(R"(elem\(\s*\*+\s*(\w+)\s*\)\s*!=\s*elem\(\s*\*+\s*(\w+)\s*\))");
  for (std::sregex_iterator it(head.begin(), head.end(), constraint), end; it != end; ++it)
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  return out;
}

VertexLayout layoutOf(const clang::CXXRecordDecl *rd, const std::string &kind, const clang::ASTContext &ctx) {
  VertexLayout v;
  v.className = displayNameOf(rd, ctx);
  v.entrySymbol = entrySymbolOf(rd, ctx);
  v.vertexKind = kind;
  const clang::ASTRecordLayout &rl = ctx.getASTRecordLayout(rd);
  v.size = uint32_t(rl.getSize().getQuantity());
  v.align = uint32_t(rl.getAlignment().getQuantity());
  // Fields of bases first (Poplar vertices may inherit state), then the class's own.
  std::function<void(const clang::CXXRecordDecl *, uint64_t)> add = [&](const clang::CXXRecordDecl *r, uint64_t base) {
    const clang::ASTRecordLayout &l = ctx.getASTRecordLayout(r);
    for (const clang::CXXBaseSpecifier &b : r->bases())
      if (const clang::CXXRecordDecl *brd = b.getType()->getAsCXXRecordDecl())
        if (!inPoplar(brd)) add(brd, base + uint64_t(l.getBaseClassOffset(brd).getQuantity()) * 8);
    for (const clang::FieldDecl *fd : r->fields())
      if (!fd->isUnnamedBitField()) v.fields.push_back(describeField(fd, base + l.getFieldOffset(fd->getFieldIndex()), ctx));
  };
  add(rd, 0);
  v.elemApart = elemConstraintsOf(rd, ctx);
  for (const clang::Decl *d : rd->decls())
    if (const auto *var = llvm::dyn_cast<clang::VarDecl>(d))
      if (var->getName() == "isExternalCodelet" && var->isStaticDataMember())
        if (const clang::Expr *init = var->getAnyInitializer()) {
          if (auto value = init->getIntegerConstantExpr(ctx)) v.external = value->getBoolValue();
        }
  return v;
}

struct VertexFinder : clang::RecursiveASTVisitor<VertexFinder> {
  const clang::ASTContext &ctx;
  std::vector<VertexLayout> &out;
  std::vector<std::string> &wrappers;
  VertexFinder(const clang::ASTContext &c, std::vector<VertexLayout> &o, std::vector<std::string> &w)
      : ctx(c), out(o), wrappers(w) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Variables that would need code before or after the vertex runs: a dynamic initialiser (a
  /// constructor, a call), a destructor, or thread-local storage. The IPU runs only the vertex
  /// entry points (no start-up code, no exit), so these are errors at the declaration rather
  /// than silently left zero (issue 14).
  bool VisitVarDecl(clang::VarDecl *vd) {
    if (!vd->hasGlobalStorage() || vd->isInvalidDecl() || vd->getDeclContext()->isDependentContext()) return true;
    const clang::SourceManager &sm = ctx.getSourceManager();
    if (sm.isInSystemHeader(vd->getLocation()) || vd->getType()->isDependentType()) return true;
    auto error = [&](const std::string &what) {
      clang::DiagnosticsEngine &d = ctx.getDiagnostics();
      d.Report(vd->getLocation(), d.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << what;
    };
    const std::string name = "'" + vd->getNameAsString() + "'";
    const char *kind = vd->isStaticLocal() ? "the static local " : "the global ";
    if (vd->getTLSKind() != clang::VarDecl::TLS_None) {
      error(std::string("thread_local is not supported: ") + kind + name +
            " would need thread-local storage, which IPU worker code does not have");
      return true;
    }
    if (vd->hasInit() && !vd->hasConstantInitialization()) {
      error(std::string(kind) + name +
            " needs code to initialise it (a constructor or a call), which the IPU never runs before a vertex: "
            "give it a constant initialiser (constexpr) or set it in compute()");
      return true;
    }
    if (vd->needsDestruction(ctx))
      error(std::string(kind) + name + " has a destructor, which the IPU never runs: give it a trivially destructible type");
    return true;
  }

  void sourceError(clang::SourceLocation loc, const std::string &what) const {
    clang::DiagnosticsEngine &d = ctx.getDiagnostics();
    d.Report(loc, d.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << what;
  }
  // Computed goto (`&&label`, `goto *p`) becomes an indirect branch ipu-cc cannot lower.
  bool VisitAddrLabelExpr(clang::AddrLabelExpr *e) {
    if (!ctx.getSourceManager().isInSystemHeader(e->getExprLoc()))
      sourceError(e->getExprLoc(), "computed goto (taking a label's address with &&) is not supported by ipu-cc");
    return true;
  }
  bool VisitIndirectGotoStmt(clang::IndirectGotoStmt *g) {
    if (!ctx.getSourceManager().isInSystemHeader(g->getGotoLoc()))
      sourceError(g->getGotoLoc(), "computed goto (goto *p) is not supported by ipu-cc");
    return true;
  }

  /// Whether the class or a base declares a member function `compute`.
  static bool hasCompute(const clang::CXXRecordDecl *rd) {
    for (const clang::CXXMethodDecl *m : rd->methods())
      if (m->getIdentifier() && m->getName() == "compute") return true;
    for (const clang::CXXBaseSpecifier &b : rd->bases())
      if (const clang::CXXRecordDecl *base = b.getType()->getAsCXXRecordDecl())
        if (base->hasDefinition() && hasCompute(base->getDefinition())) return true;
    return false;
  }

  /// A vertex class template nobody instantiates defines no vertex: Poplar names vertices by
  /// their instantiations (`template class V<float>;`), so say so rather than compile nothing.
  bool VisitClassTemplateDecl(clang::ClassTemplateDecl *td) {
    const clang::CXXRecordDecl *rd = td->getTemplatedDecl();
    if (!rd || !rd->isThisDeclarationADefinition() || inPoplar(rd)) return true;
    if (ctx.getSourceManager().isInSystemHeader(td->getLocation()) || vertexKindOf(rd).empty()) return true;
    for (const clang::ClassTemplateSpecializationDecl *spec : td->specializations()) {
      const auto k = spec->getSpecializationKind();
      if (k == clang::TSK_ExplicitInstantiationDefinition || k == clang::TSK_ExplicitSpecialization) return true;
    }
    clang::DiagnosticsEngine &d = ctx.getDiagnostics();
    d.Report(td->getLocation(), d.getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0"))
        << "vertex class template '" + td->getNameAsString() +
               "' is never instantiated, so it defines no vertex: add an explicit instantiation such as "
               "'template class " + td->getNameAsString() + "<float>;'";
    return true;
  }

  bool VisitCXXRecordDecl(clang::CXXRecordDecl *rd) {
    if (!rd->isThisDeclarationADefinition() || rd->isDependentContext() || rd->isInvalidDecl()) return true;
    if (inPoplar(rd)) return true;
    if (const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(rd)) {
      // Poplar vertices are instantiated explicitly (`template class X<float>;`).
      auto k = spec->getSpecializationKind();
      if (k != clang::TSK_ExplicitInstantiationDefinition && k != clang::TSK_ExplicitSpecialization) return true;
    }
    std::string kind = vertexKindOf(rd);
    if (kind.empty()) return true;
    for (const VertexLayout &v : out)
      if (v.entrySymbol == entrySymbolOf(rd, ctx)) return true;
    out.push_back(layoutOf(rd, kind, ctx));
    const VertexLayout &v = out.back();
    if (v.external) return true; // linked to its assembly implementation (asm-dialect §3.3)
    if (!hasCompute(rd)) {
      sourceError(rd->getLocation(), "vertex class '" + v.className + "' has no compute() (a " + kind +
                                         (kind == "MultiVertex" ? " needs compute(unsigned workerId)"
                                                                : " needs bool compute() or void compute()") + ")");
      return true;
    }
    wrappers.push_back("extern \"C\" __attribute__((used)) int " + v.entrySymbol + "(" + cxxNameOf(rd, ctx) +
                       " *v) { return " + (kind == "MultiVertex" ? "__ipucc_run_multi(v); }\n" : "__ipucc_run(v); }\n"));
    return true;
  }
};

class FinderConsumer : public clang::ASTConsumer {
public:
  FinderConsumer(std::vector<VertexLayout> &o, std::vector<std::string> &w) : out_(o), wrappers_(w) {}
  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred()) return;
    VertexFinder(ctx, out_, wrappers_).TraverseDecl(ctx.getTranslationUnitDecl());
  }

private:
  std::vector<VertexLayout> &out_;
  std::vector<std::string> &wrappers_;
};

class FinderAction : public clang::ASTFrontendAction {
public:
  FinderAction(std::vector<VertexLayout> &o, std::vector<std::string> &w) : out_(o), wrappers_(w) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) override {
    return std::make_unique<FinderConsumer>(out_, wrappers_);
  }

private:
  std::vector<VertexLayout> &out_;
  std::vector<std::string> &wrappers_;
};

// ---------------------------------------------------------------------------------------------
// Running clang

struct Diagnostics {
  std::string text;
  llvm::raw_string_ostream os{text};
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> opts = new clang::DiagnosticOptions();
  clang::TextDiagnosticPrinter printer{os, opts.get()};
  clang::DiagnosticsEngine engine{new clang::DiagnosticIDs(), opts, &printer, false};
  Diagnostics() { opts->ShowColors = false; }
};

std::shared_ptr<clang::CompilerInvocation> makeInvocation(const std::string &path, const CompileOptions &options,
                                                          Diagnostics &diags) {
  std::vector<std::string> flags = clangDriverFlags(options);
  std::vector<const char *> argv{kClangPath};
  for (const std::string &f : flags) argv.push_back(f.c_str());
  argv.push_back(path.c_str());
  clang::CreateInvocationOptions ciOpts;
  ciOpts.Diags = llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine>(&diags.engine);
  ciOpts.Diags->Retain(); // owned by `diags`
  std::shared_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, ciOpts);
  if (!inv) throw CompileError(diags.text.empty() ? path + ": error: cannot set up clang\n" : diags.text);
  return inv;
}

// Inline assembly names the IPU's registers in its clobber lists ("$m0", "$a2:3"), which clang's
// riscv32 front end (ipu-cc's carrier to LLVM IR) does not know. Every source file is read through
// this file system, which renames a string literal that is exactly an IPU register to riscv
// registers standing for it one to one: $mN is "xN+1", $aN is "fN", a group names each register
// ("$a2:3" is "f2","f3"). ISel maps the names back (ipuRegisterOfClobber). Nothing else in a
// source is a string of that exact form.
class ClobberRenamingFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  explicit ClobberRenamingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs) : ProxyFileSystem(std::move(fs)) {}

  // Each file is read once: a file with nothing to rename is served from the text read.
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &path) override {
    auto file = ProxyFileSystem::openFileForRead(path);
    if (!file) return file;
    auto status = (*file)->status();
    if (!status) return status.getError();
    auto buffer = (*file)->getBuffer(path.str());
    if (!buffer) return buffer.getError();
    std::string text = (*buffer)->getBuffer().str();
    if (text.find("\"$") != std::string::npos) text = renameClobbers(text);
    return std::unique_ptr<llvm::vfs::File>(new RenamedFile(*status, path.str(), std::move(text)));
  }

private:
  class RenamedFile : public llvm::vfs::File {
  public:
    RenamedFile(const llvm::vfs::Status &s, std::string name, std::string text)
        : status_(llvm::vfs::Status::copyWithNewSize(s, text.size())), name_(std::move(name)), text_(std::move(text)) {}
    llvm::ErrorOr<llvm::vfs::Status> status() override { return status_; }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine &, int64_t, bool, bool) override {
      return llvm::MemoryBuffer::getMemBufferCopy(text_, name_);
    }
    std::error_code close() override { return {}; }

  private:
    llvm::vfs::Status status_;
    std::string name_, text_;
  };

  static std::string renameClobbers(const std::string &text) {
    static const std::regex reg(R"re("\$([am])([0-9]+)(?::([0-9]+))?")re");
    std::string out;
    auto it = std::sregex_iterator(text.begin(), text.end(), reg);
    size_t last = 0;
    for (; it != std::sregex_iterator(); ++it) {
      const std::smatch &m = *it;
      int first = std::stoi(m[2].str()), lastReg = m[3].matched ? std::stoi(m[3].str()) : first;
      if (first > 15 || lastReg > 15 || lastReg < first) continue;
      out += text.substr(last, size_t(m.position(0)) - last);
      for (int r = first; r <= lastReg; ++r)
        out += std::string(r == first ? "" : ",") + "\"" + (m[1] == "m" ? "x" + std::to_string(r + 1) : "f" + std::to_string(r)) + "\"";
      last = size_t(m.position(0) + m.length(0));
    }
    return out + text.substr(last);
  }
};

/// The file manager both clang passes read sources through.
void useIpuFileSystem(clang::CompilerInstance &ci) {
  ci.createFileManager(llvm::makeIntrusiveRefCnt<ClobberRenamingFileSystem>(llvm::vfs::getRealFileSystem()));
}

} // namespace

std::vector<std::string> clangDriverFlags(const CompileOptions &options) {
  // riscv32 only carries clang to LLVM IR: 32-bit pointers, a native IEEE half type
  // (_Float16 with +zfh and no excess precision); ipusim's backend takes the IR from there.
  std::string inc = builtinIncludeDirectory();
  std::vector<std::string> f = {"--target=riscv32-unknown-elf", "-march=rv32imf_zfh", "-mabi=ilp32f",
                                "-Xclang", "-ffloat16-excess-precision=none", "-ffreestanding", "-fno-exceptions",
                                "-fno-rtti", "-fno-math-errno", "-ffp-contract=off", "-fsigned-char",
                                "-nostdinc++", "-nostdlibinc", "-gline-tables-only", "-isystem", inc + "/c++",
                                "-isystem", inc, "-D__IPU__", "-D__IPU_ARCH_VERSION__=2", "-D__POPC__", // popc defines it: headers skip host-only parts
                                "-D__IPU_REPEAT_COUNT_SIZE__=16",
                                // The __builtin_ipu_* functions are the SDK compiler's builtins: visible
                                // without an include (poplibs' Dot.hpp calls __builtin_ipu_tapack so).
                                "-include", "ipu_builtins.h", "-std=" + options.cxxStandard, "-O" + std::to_string(std::max(options.optLevel, 1)), "-fsyntax-only",
                                "-Wno-unknown-attributes"};
  for (const std::string &d : options.includeDirs) f.push_back("-I" + d);
  for (const std::string &d : options.defines) f.push_back("-D" + d);
  return f;
}

FrontendResult runFrontend(const std::string &path, const CompileOptions &options, llvm::LLVMContext &context) {
  if (const std::string bad = arch::unreadableFile(path, "a C++ source file"); !bad.empty()) throw CompileError(bad + "\n");
  std::string absPath = fs::absolute(path).lexically_normal().string();
  FrontendResult result;
  std::vector<std::string> wrappers;
  {
    Diagnostics diags;
    clang::CompilerInstance ci;
    ci.setInvocation(makeInvocation(absPath, options, diags));
    ci.createDiagnostics(&diags.printer, false);
    useIpuFileSystem(ci);
    ci.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>()); // no "N errors generated."
    FinderAction finder(result.vertices, wrappers);
    bool ok = ci.ExecuteAction(finder);
    if (!ok || ci.getDiagnostics().hasErrorOccurred()) throw CompileError(diags.text);
    result.warnings = diags.text;
  }
  for (const VertexLayout &v : result.vertices)
    if (!v.external) result.entries[v.entrySymbol] = v.vertexKind == "SupervisorVertex" ? EntryKind::Supervisor : EntryKind::Worker;

  // Pass 2: the file and its wrappers as one translation unit, remapped in memory.
  std::string source = "#include \"" + absPath + "\"\n";
  source += "static inline __attribute__((always_inline)) unsigned __ipucc_worker_id() {\n"
            "  unsigned w; asm volatile(\"get %0, $WSR\" : \"=r\"(w)); return w & 7; }\n"
            // compute() returns bool or void; the entry returns 1 for true (exitnz: status true).
            "template <class V> static inline __attribute__((always_inline)) int __ipucc_run(V *v) {\n"
            "  if constexpr (__is_same(decltype(v->compute()), void)) { v->compute(); return 1; }\n"
            "  else return v->compute() ? 1 : 0; }\n"
            "template <class V> static inline __attribute__((always_inline)) int __ipucc_run_multi(V *v) {\n"
            "  unsigned w = __ipucc_worker_id();\n"
            "  if constexpr (__is_same(decltype(v->compute(w)), void)) { v->compute(w); return 1; }\n"
            "  else return v->compute(w) ? 1 : 0; }\n";
  for (const std::string &w : wrappers) source += w;
  std::string wrapperPath = absPath + ".ipucc-entry.cpp";
  Diagnostics diags;
  std::shared_ptr<clang::CompilerInvocation> inv = makeInvocation(wrapperPath, options, diags);
  inv->getFrontendOpts().ProgramAction = clang::frontend::EmitLLVMOnly;
  inv->getPreprocessorOpts().addRemappedFile(wrapperPath, llvm::MemoryBuffer::getMemBufferCopy(source).release());
  inv->getCodeGenOpts().OptimizationLevel = unsigned(std::max(options.optLevel, 1));
  inv->getCodeGenOpts().DisableLLVMPasses = true; // ipu-cc runs the pipeline with its own cost model
  inv->getCodeGenOpts().DiscardValueNames = false;
  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  ci.createDiagnostics(&diags.printer, false);
  useIpuFileSystem(ci);
  ci.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());
  clang::EmitLLVMOnlyAction action(&context);
  bool ok = ci.ExecuteAction(action);
  if (!ok || ci.getDiagnostics().hasErrorOccurred()) throw CompileError(diags.text);
  result.module = action.takeModule();
  if (!result.module) throw CompileError(path + ": error: clang produced no IR\n");
  return result;
}

} // namespace ipusim::cc
