#include "sim/core/number_text.hpp"

#include <locale.h>

#include <cstdio>
#include <stdexcept>

namespace stasim {
namespace {

// The "C" locale as a locale_t, made once (never freed: threads may still use it at exit).
locale_t c_locale() {
  static const locale_t c = [] {
    locale_t l = ::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
    if (l == static_cast<locale_t>(nullptr)) throw std::runtime_error("cannot make the C locale");
    return l;
  }();
  return c;
}

}  // namespace

CNumericScope::CNumericScope() : previous_(::uselocale(c_locale())) {}

CNumericScope::~CNumericScope() { ::uselocale(static_cast<locale_t>(previous_)); }

double text_to_double(const std::string& text, std::size_t* used) {
  CNumericScope c;
  return std::stod(text, used);
}

std::string format_double(const char* format, double value) {
  CNumericScope c;
  char text[128];
  int n = std::snprintf(text, sizeof text, format, value);
  if (n < 0) return std::string();
  if (static_cast<std::size_t>(n) < sizeof text) return std::string(text, static_cast<std::size_t>(n));
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, value);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace stasim
