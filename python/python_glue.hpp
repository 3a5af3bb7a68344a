// What every binding of the Python module shares: results handed over as Python objects, and the library's
// exceptions turned into the Python ones the module documents (bad input ValueError, a failed simulation
// RuntimeError).
#pragma once

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

#include "sim/core/input_error.hpp"
#include "sim/core/number_text.hpp"

namespace stasim::python {

// JSON text -> Python objects, through Python's own json module (numbers keep their JSON types).
inline pybind11::object to_python(const nlohmann::json& doc) {
  return pybind11::module_::import("json").attr("loads")(doc.dump());
}

// Runs `body`, turning the library's exceptions into the Python ones the module documents. Numbers are read and
// printed with '.' inside, whatever locale the host program set (locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")).
template <typename Body>
auto guarded(Body body) -> decltype(body()) {
  CNumericScope c_numbers;
  try {
    return body();
  } catch (const pybind11::error_already_set&) {
    throw;  // a Python exception (e.g. KeyboardInterrupt from a signal) reaches Python as itself
  } catch (const InputError& e) {
    throw pybind11::value_error(e.what());
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace stasim::python
