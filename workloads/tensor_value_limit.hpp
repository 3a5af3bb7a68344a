// The largest magnitude a weight or activation may have. The low-rank fit sums squares of weights, whitens them
// by the activations' Gram matrix and solves an eigen-problem in float (largest 3.4e38): values up to 1e6 keep
// those sums (1e6^4 x at most 1e12 terms = 1e36) finite, real checkpoints stay far below it (|w| < 1e3, activation
// outliers < 1e5), and a value beyond it (a BF16-max element, a scale of 1e308) is bad input named where it
// enters instead of an eigen-solver that "did not converge".
#pragma once

#include <cmath>

namespace stasim {

inline constexpr double kMaxTensorMagnitude = 1e6;

// True for a finite value within ±kMaxTensorMagnitude (false for NaN and infinities too).
inline bool within_tensor_limit(double value) { return std::fabs(value) <= kMaxTensorMagnitude; }

}  // namespace stasim
