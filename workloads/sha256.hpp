// SHA-256 through OpenSSL's libcrypto (EVP), as hex. Surfaces are hashed as the bytes of their FP16 bit
// patterns in little-endian order, so equal hashes mean bitwise-equal results on any host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stasim {

std::string sha256_hex(const void* data, std::size_t size);
std::string sha256_hex(const std::string& text);
std::string sha256_hex_fp16(const std::vector<std::uint16_t>& values);

}  // namespace stasim
