#include "dataflows/dataflow_registry.hpp"

#include "sim/core/input_error.hpp"

namespace stasim {

void DataflowRegistry::add(Dataflow dataflow) {
  std::string name = dataflow.name;
  dataflows_[name] = std::move(dataflow);
}

const Dataflow& DataflowRegistry::find(const std::string& name) const {
  auto it = dataflows_.find(name);
  if (it != dataflows_.end()) return it->second;
  std::vector<std::string> known = names();
  std::string near = nearest_match(name, known);
  std::string list;
  for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
  throw InputError("unknown dataflow '" + name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                   "; dataflows: " + list);
}

std::vector<std::string> DataflowRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, d] : dataflows_) out.push_back(name);
  return out;
}

void register_builtin(DataflowRegistry& registry) {
  registry.add({"dense", "tuned BF16 megakernel: experts streamed after routing, double-buffered", dense_routed_experts,
                [](std::int64_t, std::int64_t, std::int64_t) { return Representation::dense_bf16(); }});
  registry.add({"cardan", "hybrid LR+VQ (docs/cardan.md): shared z and T, gathers on GpSimd, joint PSUM accumulation",
                cardan_routed_experts,
                [](std::int64_t d, std::int64_t r, std::int64_t K) { return Representation::hybrid(d, r, K); },
                true, true, true, true});
  registry.add({"vq-only", "the hybrid dataflow with r = 0: vector quantization alone", cardan_routed_experts,
                [](std::int64_t d, std::int64_t, std::int64_t K) { return Representation::vq_only(d, K); },
                true, false, true, true});
  registry.add({"xla", "compiler-lowered baseline: one kernel per op, intermediates through HBM, no prefetch across routing",
                xla_routed_experts, [](std::int64_t, std::int64_t, std::int64_t) { return Representation::dense_bf16(); },
                false, false, false, false, true});
  registry.add({"w4a8", "compiler-lowered as the study ran it: MXFP4 gate/up MX kernels, a layout kernel, BF16 down",
                w4a8_routed_experts, [](std::int64_t, std::int64_t, std::int64_t) { return Representation::mxfp4(); },
                false, false, false, false, true});
  registry.add({"w4a8-fused", "MXFP4 gate/up inside the tuned megakernel, packed output converted per expert, BF16 down",
                w4a8_fused_routed_experts, [](std::int64_t, std::int64_t, std::int64_t) { return Representation::mxfp4(); }});
  registry.add({"lr-only", "the hybrid dataflow without VQ: low rank alone", cardan_routed_experts,
                [](std::int64_t, std::int64_t r, std::int64_t) { return Representation::lr_only(r); },
                false, true, false, true});
}

}  // namespace stasim
