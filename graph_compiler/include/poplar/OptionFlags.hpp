// ipusim's Poplar SDK: poplar::OptionFlags, string options ("debug.instrument" -> "true").
#ifndef IPUSIM_POPLAR_OPTIONFLAGS_HPP
#define IPUSIM_POPLAR_OPTIONFLAGS_HPP

#include <poplar/StringRef.hpp>

#include <initializer_list>
#include <istream>
#include <map>
#include <string>
#include <utility>

namespace poplar {

class OptionFlags {
public:
  typedef std::pair<const std::string, std::string> OptionFlag;
  typedef std::initializer_list<OptionFlag> initializer_list;
  typedef std::map<std::string, std::string>::const_iterator iterator;

  OptionFlags() {}
  OptionFlags(initializer_list &&list) { set(std::move(list)); }
  OptionFlags(const OptionFlags &) = default;
  OptionFlags(OptionFlags &&) = default;
  OptionFlags &operator=(const OptionFlags &) = default;
  OptionFlags &operator=(OptionFlags &&) = default;
  bool operator==(const OptionFlags &o) const { return flags_ == o.flags_; }

  void set(initializer_list &&list) {
    for (const OptionFlag &f : list) flags_[f.first] = f.second;
  }
  void set(StringRef option, StringRef value) { flags_[option.cloneAsString()] = value.cloneAsString(); }
  /// The value of `option`; throws poplar::invalid_option if it is not set.
  StringRef at(StringRef option) const;
  const std::string *find(StringRef option) const {
    iterator it = flags_.find(option.cloneAsString());
    return it == flags_.end() ? nullptr : &it->second;
  }
  std::size_t size() const { return flags_.size(); }
  void clear() { flags_.clear(); }
  iterator begin() const { return flags_.begin(); }
  iterator end() const { return flags_.end(); }

private:
  std::map<std::string, std::string> flags_;
};

/// Merges the JSON object `string` ({"name": "value", ...}) into `flags`; throws parse_error.
void readJSON(StringRef string, OptionFlags &flags);
void readJSON(std::istream &stream, OptionFlags &flags);
void readJSONFromEnv(StringRef envVarName, OptionFlags &flags);

} // namespace poplar

#endif
