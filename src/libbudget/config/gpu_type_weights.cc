// GPU type weights: see gpu_type_weights.h.
#include "libbudget/config/gpu_type_weights.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace budget {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Slurm's GRES type names: letters, digits and `_ . -` (no `:`, `,`, `=`,
// which separate the fields of a GRES string).
bool IsTypeName(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

// A plain decimal ("2", "2.5", ".5"): no sign, exponent, hex, inf or nan.
bool IsPlainDecimal(std::string_view s) {
  if (s.empty() || s == ".") return false;
  size_t dots = 0;
  for (char c : s) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots <= 1;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

Status GpuTypeWeights::Parse(std::string_view text, GpuTypeWeights* out) {
  if (text.empty()) return Status::InvalidArgument("must list TYPE:WEIGHT entries, e.g. h100:1.0,b200:2.0");
  GpuTypeWeights table;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = text.substr(pos, end - pos);
    pos = end + 1;
    size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      return Status::InvalidArgument("entry " + Quoted(entry) + ": expected TYPE:WEIGHT");
    }
    std::string_view type = entry.substr(0, colon);
    std::string_view weight_text = entry.substr(colon + 1);
    if (!IsTypeName(type)) {
      return Status::InvalidArgument("entry " + Quoted(entry) +
                                     ": the GPU type must be a GRES type name (letters, digits, _ . -)");
    }
    if (!IsPlainDecimal(weight_text)) {
      return Status::InvalidArgument("entry " + Quoted(entry) + ": the weight must be a decimal number, got " +
                                     Quoted(weight_text));
    }
    const double weight = std::strtod(std::string(weight_text).c_str(), nullptr);
    if (!(weight > 0) || weight > kMaxGpuTypeWeight || !std::isfinite(weight)) {
      return Status::InvalidArgument("entry " + Quoted(entry) + ": the weight must be > 0 and at most 1000");
    }
    const std::string lower = Lower(type);
    for (const Entry& e : table.entries_) {
      if (e.first == lower) {
        return Status::InvalidArgument("entry " + Quoted(entry) + ": GPU type " + Quoted(lower) +
                                       " is listed twice (types match case-insensitively)");
      }
    }
    table.entries_.emplace_back(lower, weight);
  }
  std::sort(table.entries_.begin(), table.entries_.end());
  *out = std::move(table);
  return Status::Ok();
}

double GpuTypeWeights::WeightOf(std::string_view type) const {
  if (entries_.empty() || type.empty()) return 1.0;
  for (const Entry& e : entries_) {
    if (e.first.size() != type.size()) continue;
    bool same = true;
    for (size_t i = 0; i < type.size() && same; ++i) {
      char c = type[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = c == e.first[i];
    }
    if (same) return e.second;
  }
  return 1.0;
}

std::string GpuTypeWeights::ToString() const {
  std::string out;
  char number[32];
  for (const Entry& e : entries_) {
    std::snprintf(number, sizeof number, "%g", e.second);
    if (!out.empty()) out += ',';
    out += e.first + ':' + number;
  }
  return out;
}

void GpuTypeWeights::Set(std::string_view type, double weight) {
  const std::string lower = Lower(type);
  for (Entry& e : entries_) {
    if (e.first == lower) {
      e.second = weight;
      return;
    }
  }
  entries_.emplace_back(lower, weight);
  std::sort(entries_.begin(), entries_.end());
}

}  // namespace budget
