// Numbers read from and written as text in the "C" locale, whatever the process's: a host program of the Python
// module (or any library user) that called setlocale(LC_NUMERIC, "de_DE.UTF-8") makes strtod, std::stod and
// printf's %g read and write a decimal comma, so `2.4` would fail to read and outputs would print `2,4`. Every
// number of user input (configs, --set, CLI values, sweep files) and every number printed into an output goes
// through these, or runs inside a CNumericScope.
#pragma once

#include <cstddef>
#include <string>

namespace stasim {

// std::stod's contract (leading blanks, a sign, decimal, hex, inf or nan; *used = the characters read; throws
// std::invalid_argument when there is no number and std::out_of_range past the double range), with '.' as the
// decimal point always.
double text_to_double(const std::string& text, std::size_t* used = nullptr);

// snprintf(format, value) for one double in the "C" locale ('.' as the decimal point), e.g. ("%.4g", 2.5) -> "2.5".
std::string format_double(const char* format, double value);

// While it lives, this thread reads and writes numbers in the "C" locale (uselocale): strtod, printf and the
// parsers of the libraries it calls (CLI11 reads doubles with strtold). The Python module's calls and the CLI
// run inside one.
class CNumericScope {
 public:
  CNumericScope();
  ~CNumericScope();
  CNumericScope(const CNumericScope&) = delete;
  CNumericScope& operator=(const CNumericScope&) = delete;

 private:
  void* previous_;  // the thread's locale_t before
};

}  // namespace stasim
