// A model's weights as one or several .safetensors files. The path may name a single .safetensors file, a
// sharded set's index (`model.safetensors.index.json`: {"weight_map": {tensor: shard file}}, shards relative to
// the index), or a directory holding either (the index first, then `model.safetensors`, then its only
// .safetensors file). Shards are opened (header only) when a tensor in them is first asked for.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/safetensors_file.hpp"

namespace stasim {

class SafetensorsSet {
 public:
  // InputError when the path, the index JSON or its weight_map is unusable.
  explicit SafetensorsSet(const std::string& path);

  // The file that holds `name` (opened on first use). InputError naming the set and the tensor when no file
  // has it, or when the index names a shard that does not hold it.
  const SafetensorsFile& file_of(const std::string& name) const;
  const TensorInfo& find(const std::string& name) const { return file_of(name).find(name); }
  bool has(const std::string& name) const;

  const std::string& path() const { return path_; }  // what the user gave
  bool sharded() const { return !weight_map_.empty(); }

 private:
  const SafetensorsFile& open(const std::string& file) const;

  std::string path_;
  std::string single_;                               // the one file when not sharded
  std::map<std::string, std::string> weight_map_;    // tensor -> shard path (resolved)
  mutable std::map<std::string, std::unique_ptr<SafetensorsFile>> open_;
};

}  // namespace stasim
