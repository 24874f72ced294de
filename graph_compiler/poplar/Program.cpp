// poplar::program classes over the graph compiler's program nodes (ipusim/gc/Graph.h).
#include "Internal.h"

#include <poplar/Program.hpp>
#include <poplar/exceptions.hpp>

#include <set>

namespace poplar::program {

using ipusim::gc::ProgramNode;

namespace {
std::shared_ptr<ProgramNode> makeNode(ProgramNode::Kind k, const DebugContext &dc) {
  auto n = std::make_shared<ProgramNode>();
  n->kind = k;
  n->name = dc.getPathName();
  return n;
}
/// An empty Program (default-constructed) is an empty sequence.
std::shared_ptr<const ProgramNode> of(const Program &p) {
  if (p.node()) return p.node();
  return makeNode(ProgramNode::Sequence, {});
}
const std::shared_ptr<const ipusim::gc::TensorImpl> &tensor(const Tensor &t, const char *what) {
  if (!t.valid()) throw poplar_error(std::string(what) + ": the tensor is empty (default-constructed)");
  return t.ptr();
}
} // namespace

Program::Program() = default;
Program::~Program() = default;
bool Program::isEmpty() const {
  return !node_ || (node_->kind == ProgramNode::Sequence && node_->children.empty());
}

Sequence::Sequence(const DebugContext &dc) : Program(makeNode(ProgramNode::Sequence, dc)) {}
Sequence::Sequence(ArrayRef<Program> programs, const DebugContext &dc) : Sequence(dc) {
  for (const Program &p : programs) add(p);
}
Sequence::Sequence(std::initializer_list<Program> programs, const DebugContext &dc) : Sequence(dc) {
  for (const Program &p : programs) add(p);
}
void Sequence::add(const Program &p) {
  // Copy on write: other copies of this Sequence keep what they had.
  auto copy = std::make_shared<ProgramNode>(node_ ? *node_ : ProgramNode{});
  copy->kind = ProgramNode::Sequence;
  copy->children.push_back(of(p));
  node_ = copy;
}

Execute::Execute(ComputeSet cs, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Execute, dc);
  n->index = cs.getId();
  node_ = n;
}

Execute::Execute(ComputeSet cs, const Tensor &t, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Execute, dc);
  n->index = cs.getId();
  n->tensor = t.ptr();
  node_ = n;
}

Block::Block(const Program &program, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Sequence, dc);
  if (program.node()) n->children.push_back(program.node());
  node_ = n;
}

Repeat::Repeat(unsigned count, const Program &prog, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Repeat, dc);
  n->count = count;
  n->children.push_back(of(prog));
  node_ = n;
}

RepeatWhileTrue::RepeatWhileTrue(const Program &cond, Tensor predicate, const Program &body, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::RepeatWhileTrue, dc);
  n->children = {of(cond), of(body)};
  n->tensor = tensor(predicate, "RepeatWhileTrue");
  node_ = n;
}

RepeatWhileFalse::RepeatWhileFalse(const Program &cond, Tensor predicate, const Program &body, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::RepeatWhileFalse, dc);
  n->children = {of(cond), of(body)};
  n->tensor = tensor(predicate, "RepeatWhileFalse");
  node_ = n;
}

If::If(Tensor predicate, const Program &trueBody, const Program &falseBody, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::If, dc);
  n->children = {of(trueBody), of(falseBody)};
  n->tensor = tensor(predicate, "If");
  node_ = n;
}

Switch::Switch(Tensor control, const std::vector<std::pair<std::int32_t, Program>> &cases, const DebugContext &dc)
    : Switch(control, cases, Program(), dc) {}
Switch::Switch(Tensor control, const std::vector<std::pair<std::int32_t, Program>> &cases, const Program &defaultBody,
               const DebugContext &dc)
    : Switch(control, defaultBody, dc) {
  for (const auto &c : cases) add(c.first, c.second);
}
Switch::Switch(Tensor control, const DebugContext &dc) : Switch(control, Program(), dc) {}
Switch::Switch(Tensor control, const Program &defaultBody, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Switch, dc);
  n->tensor = tensor(control, "Switch");
  n->children.push_back(of(defaultBody));
  node_ = n;
}
Switch &Switch::add(std::int32_t value, const Program &body) {
  for (int64_t v : node_->caseValues)
    if (v == value) throw control_program_error("Switch::add: a case for " + std::to_string(value) + " already exists");
  auto copy = std::make_shared<ProgramNode>(*node_);
  copy->caseValues.push_back(value);
  copy->children.push_back(of(body));
  node_ = copy;
  return *this;
}

Copy::Copy(Tensor src, Tensor dst, bool, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Copy, dc);
  n->src = tensor(src, "Copy");
  n->dst = tensor(dst, "Copy");
  node_ = n;
}
Copy::Copy(const DataStream &stream, Tensor dst, bool, const DebugContext &dc) {
  if (stream.id() == ~0u) throw poplar_error("Copy: the DataStream is empty (not made by a Graph)");
  if (!isHostToDevice(stream.type()))
    throw poplar_error("Copy: stream '" + stream.handle() + "' goes from the device to the host; it cannot be copied to a tensor");
  auto n = makeNode(ProgramNode::StreamToTensor, dc);
  n->index = stream.id();
  n->dst = tensor(dst, "Copy");
  node_ = n;
}
Copy::Copy(Tensor src, const DataStream &stream, bool, const DebugContext &dc) {
  if (stream.id() == ~0u) throw poplar_error("Copy: the DataStream is empty (not made by a Graph)");
  if (!isDeviceToHost(stream.type()))
    throw poplar_error("Copy: stream '" + stream.handle() + "' goes from the host to the device; a tensor cannot be copied to it");
  auto n = makeNode(ProgramNode::TensorToStream, dc);
  n->index = stream.id();
  n->src = tensor(src, "Copy");
  node_ = n;
}

namespace {
std::shared_ptr<ProgramNode> remoteCopy(ProgramNode::Kind kind, const RemoteBuffer &buffer, const DebugContext &dc) {
  if (buffer.id() == ~0u) throw poplar_error("Copy: the RemoteBuffer is empty (not made by Graph::addRemoteBuffer)");
  auto n = makeNode(kind, dc);
  n->index = buffer.id();
  return n;
}
} // namespace
Copy::Copy(const RemoteBuffer &buffer, Tensor dst, const DebugContext &dc) {
  auto n = remoteCopy(ProgramNode::RemoteToTensor, buffer, dc);
  n->dst = tensor(dst, "Copy");
  node_ = n;
}
Copy::Copy(const RemoteBuffer &buffer, Tensor dst, Tensor offset, const DebugContext &dc) {
  auto n = remoteCopy(ProgramNode::RemoteToTensor, buffer, dc);
  n->dst = tensor(dst, "Copy");
  n->tensor = tensor(offset, "Copy");
  node_ = n;
}
Copy::Copy(Tensor src, const RemoteBuffer &buffer, const DebugContext &dc) {
  auto n = remoteCopy(ProgramNode::TensorToRemote, buffer, dc);
  n->src = tensor(src, "Copy");
  node_ = n;
}
Copy::Copy(Tensor src, const RemoteBuffer &buffer, Tensor offset, const DebugContext &dc) {
  auto n = remoteCopy(ProgramNode::TensorToRemote, buffer, dc);
  n->src = tensor(src, "Copy");
  n->tensor = tensor(offset, "Copy");
  node_ = n;
}

WriteUndef::WriteUndef(Tensor t, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::WriteUndef, dc);
  n->tensor = tensor(t, "WriteUndef");
  node_ = n;
}
AssumeEqualAcrossReplicas::AssumeEqualAcrossReplicas(Tensor t, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Nop, dc);
  n->tensor = tensor(t, "AssumeEqualAcrossReplicas");
  node_ = n;
}
Sync::Sync(SyncType type, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Sync, dc);
  n->syncType = unsigned(type);
  node_ = n;
}
Call::Call(Function f, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Call, dc);
  n->index = f.getId();
  node_ = n;
}
PrintTensor::PrintTensor(Tensor t, const DebugContext &dc) : PrintTensor(StringRef(dc.getPathName()), t, dc) {}
PrintTensor::PrintTensor(StringRef title, Tensor t, const DebugContext &dc) {
  auto n = makeNode(ProgramNode::Print, dc);
  n->tensor = tensor(t, "PrintTensor");
  n->name = title.cloneAsString();
  node_ = n;
}

} // namespace poplar::program
