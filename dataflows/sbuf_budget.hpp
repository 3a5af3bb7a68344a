// How a layer's kernels divide the usable SBUF of a core (shares of HardwareConfig usable bytes per partition).
// The static weights of a layer (attention weights and KV cache, router weights, the hybrid's B and D, shared
// experts) live in a region of their own, two of which alternate between layers, so the next layer's are
// prefetched while this layer's routed experts still stream through theirs. Each share caps a ring: a ring
// takes no more slots than its kernel asks for, so most models use far less (the SBUF check reports the peak).
#pragma once

namespace stasim {

inline constexpr double kStaticShare = 0.25;        // one layer's static weights (two layers' may be live)
inline constexpr double kExpertWeightShare = 0.3;   // the routed experts' streamed weight tiles
inline constexpr double kPrivateShare = 0.15;       // the hybrid's J_e and C_e of the resident experts
inline constexpr double kLmHeadShare = 0.5;         // the LM head's vocabulary chunks (after the last layer)

}  // namespace stasim
