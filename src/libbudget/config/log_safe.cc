#include "libbudget/config/log_safe.h"

#include <cstdio>

namespace budget {

std::string LogSafe(std::string_view text, size_t max_bytes) {
  std::string out;
  out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
  size_t used = 0;  // bytes of `text` written
  for (; used < text.size(); ++used) {
    const unsigned char c = static_cast<unsigned char>(text[used]);
    char piece[5] = {static_cast<char>(c), 0, 0, 0, 0};
    if (c == '\\') {
      piece[1] = '\\';
    } else if (c < 0x20 || c > 0x7e) {
      std::snprintf(piece, sizeof piece, "\\x%02x", c);
    }
    const std::string_view escaped(piece);
    if (out.size() + escaped.size() > max_bytes) break;
    out.append(escaped);
  }
  if (used < text.size()) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace budget
