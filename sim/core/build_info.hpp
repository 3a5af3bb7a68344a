// What build this is: the project version (CMakeLists.txt) and `git describe` of the source tree when it was
// built ("unknown" without a git checkout). Defined in a file CMake generates at every build
// (cmake/build_info.cmake), so results can say which simulator made them.
#pragma once

namespace stasim {

const char* stasim_version();       // "0.1.0"
const char* stasim_git_describe();  // "v0.1.0-12-gabc1234-dirty", a bare hash without tags, or "unknown"

}  // namespace stasim
