// What every binding of the Python module shares: results handed over as Python objects, and the library's
// exceptions turned into the Python ones the module documents (bad input ValueError, a failed simulation
// RuntimeError).
#pragma once

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "stasim/stasim.hpp"

namespace stasim::python {

// A JSON document as Python objects, value by value (no text in between): objects are dicts in the document's
// key order, arrays lists, integers int, other numbers float, null None.
inline pybind11::object to_python(const nlohmann::json& doc) {
  using value_t = nlohmann::json::value_t;
  switch (doc.type()) {
    case value_t::object: {
      pybind11::dict out;
      for (const auto& [key, value] : doc.items()) out[pybind11::str(key)] = to_python(value);
      return std::move(out);
    }
    case value_t::array: {
      pybind11::list out(doc.size());
      for (std::size_t i = 0; i < doc.size(); ++i) out[i] = to_python(doc[i]);
      return std::move(out);
    }
    case value_t::string: return pybind11::str(doc.get_ref<const std::string&>());
    case value_t::boolean: return pybind11::bool_(doc.get<bool>());
    case value_t::number_integer: return pybind11::int_(doc.get<std::int64_t>());
    case value_t::number_unsigned: return pybind11::int_(doc.get<std::uint64_t>());
    case value_t::number_float: return pybind11::float_(doc.get<double>());
    default: return pybind11::none();  // null (and the binary and discarded kinds no result holds)
  }
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
