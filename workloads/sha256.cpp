#include "workloads/sha256.hpp"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

namespace stasim {

std::string sha256_hex(const void* data, std::size_t size) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), data, size) != 1 || EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
    throw std::runtime_error("OpenSSL SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xF];
  }
  return out;
}

std::string sha256_hex(const std::string& text) { return sha256_hex(text.data(), text.size()); }

std::string sha256_hex_fp16(const std::vector<std::uint16_t>& values) {
  std::vector<unsigned char> bytes;
  bytes.reserve(values.size() * 2);
  for (std::uint16_t v : values) {
    bytes.push_back(static_cast<unsigned char>(v & 0xFF));
    bytes.push_back(static_cast<unsigned char>(v >> 8));
  }
  return sha256_hex(bytes.data(), bytes.size());
}

}  // namespace stasim
