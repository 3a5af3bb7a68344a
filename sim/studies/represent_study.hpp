// `stasim represent`'s study of one layer: where its calibration activations come from (--activations: a
// seeded synthetic draw or a .safetensors dump of hidden states), and the table that compares the hybrid LR+VQ
// representation with VQ-only and LR-only at matched storage rates, printed and as its --json document.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/studies/weights_source.hpp"
#include "workloads/representation_builder.hpp"

namespace stasim {

// How the matched rates are chosen (workloads/matched_rate.hpp), as the table's header and JSON state it.
inline constexpr const char* kMatchedRateRule =
    "VQ-only keeps K and takes the block length d' dividing H whose bits/weight is nearest the hybrid's; "
    "LR-only takes the rank r' whose bits/weight is nearest it (Representation::bits_per_weight on the layer's H, I, E)";

// --activations: "synthetic[:tokens=..,spread=..,outliers=..,outlier_scale=..,seed=..]" (drawn from `seed`
// + kActivationSeedOffset unless seed= is given), or a .safetensors file with one F32/F16/BF16 tensor
// `activations` of shape [n, H] whose last `eval_tokens` tokens are held out for evaluation. InputError naming
// the key or the file for bad input.
ActivationSamples load_activations(const std::string& text, int hidden, int eval_tokens, std::uint64_t seed);

// One line per representation: d, r, K, bits/weight, nmse and build seconds.
void print_representation_table(std::FILE* out, const std::vector<RepresentationQuality>& rows);
// The --json document: the layer (`weights` as given), its experts and projections, the token counts, the
// matched-rate rule and the rows.
nlohmann::json representation_table_json(const std::string& weights, const LayerWeights& w, const ActivationSamples& a,
                                         const std::vector<RepresentationQuality>& rows);

}  // namespace stasim
