// Eligibility: see eligibility.h.
#include "libbudget/policy/eligibility.h"

#include <algorithm>
#include <cctype>

namespace budget {

void NodeSet::Add(int32_t index) {
  if (index < 0) return;
  size_t word = size_t(index) / 64;
  if (word >= words_.size()) words_.resize(word + 1, 0);
  words_[word] |= uint64_t{1} << (size_t(index) % 64);
}

size_t NodeSet::Count() const {
  size_t n = 0;
  for (uint64_t w : words_) n += size_t(__builtin_popcountll(w));
  return n;
}

bool NodeSet::operator==(const NodeSet& o) const { return words_ == o.words_; }

EligibleNodes NodeSetInterner::Intern(NodeSet set) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a over the words
  for (uint64_t w : set.words()) hash = (hash ^ w) * 1099511628211ull;
  std::vector<EligibleNodes>& same_hash = by_hash_[hash];
  for (const EligibleNodes& e : same_hash)
    if (*e == set) return e;
  same_hash.push_back(std::make_shared<const NodeSet>(std::move(set)));
  return same_hash.back();
}

void KeepEligible(const EligibleNodes& eligible, std::vector<NodeState>* nodes) {
  if (!eligible) return;
  for (NodeState& n : *nodes)
    if (!eligible->Contains(n.index)) n.usable = false;
}

namespace {

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// The type of one GRES entry, "" if untyped; false if it is no GPU entry.
// Entries: "gres:gpu:b200:8", "gres/gpu:b200=8", "gpu:b200", "gpu:8(S:0-1)",
// "gpu" (Slurm keeps `--gpus=b200:16` as "gres:gpu:b200:16").
bool GpuTypeOfEntry(std::string_view entry, std::string* type) {
  size_t paren = entry.find('(');
  if (paren != std::string_view::npos) entry = entry.substr(0, paren);
  if (entry.substr(0, 5) == "gres:" || entry.substr(0, 5) == "gres/") entry.remove_prefix(5);
  type->clear();
  size_t name_end = entry.find_first_of(":=");
  std::string_view name = entry.substr(0, name_end);
  if (name != "gpu") return false;
  if (name_end == std::string_view::npos || entry[name_end] == '=') return true;
  std::string_view rest = entry.substr(name_end + 1);
  std::string_view field = rest.substr(0, rest.find_first_of(":="));
  if (!IsDigits(field)) *type = std::string(field);
  return true;
}

// A recursive-descent evaluator of Slurm's feature expressions:
//   or   := and ('|' and)*
//   and  := atom (('&' | ',') atom)*
//   atom := name | '(' or ')'
class ConstraintEvaluator {
 public:
  ConstraintEvaluator(std::string_view text, const std::vector<std::string>& features)
      : text_(text), features_(features) {}

  int Evaluate() {
    bool value = Or();
    SkipSpaces();
    if (unknown_ || pos_ != text_.size()) return -1;
    return value ? 1 : 0;
  }

 private:
  void SkipSpaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool Peek(char c) {
    SkipSpaces();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Or() {
    bool value = And();
    while (Peek('|')) {
      ++pos_;
      value = And() || value;
    }
    return value;
  }
  bool And() {
    bool value = Atom();
    while (Peek('&') || Peek(',')) {
      ++pos_;
      value = Atom() && value;
    }
    return value;
  }
  bool Atom() {
    if (Peek('(')) {
      ++pos_;
      bool value = Or();
      if (!Peek(')')) {
        unknown_ = true;
        return true;
      }
      ++pos_;
      return value;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && std::string_view("&|,()[]*^ ").find(text_[pos_]) == std::string_view::npos) ++pos_;
    if (pos_ == start) {
      unknown_ = true;  // counts, brackets, XOR, or a stray operator
      pos_ = text_.size();
      return true;
    }
    std::string_view name = text_.substr(start, pos_ - start);
    return std::find(features_.begin(), features_.end(), name) != features_.end();
  }

  std::string_view text_;
  const std::vector<std::string>& features_;
  size_t pos_ = 0;
  bool unknown_ = false;
};

}  // namespace

int EvaluateConstraint(std::string_view constraint, const std::vector<std::string>& features) {
  if (constraint.empty()) return 1;
  return ConstraintEvaluator(constraint, features).Evaluate();
}

bool NodeMatches(const NodeOffers& offers, const NodeAsks& asks) {
  if (!asks.gpu_type.empty() &&
      std::find(offers.gpu_types.begin(), offers.gpu_types.end(), asks.gpu_type) == offers.gpu_types.end())
    return false;
  return EvaluateConstraint(asks.constraint, offers.features) != 0;
}

std::string GpuTypeOfRequest(std::string_view spec) {
  size_t pos = 0;
  std::string type;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string_view::npos) end = spec.size();
    if (GpuTypeOfEntry(spec.substr(pos, end - pos), &type) && !type.empty()) return type;
    pos = end + 1;
  }
  return "";
}

std::vector<std::string_view> GresEntries(std::string_view gres) {
  std::vector<std::string_view> entries;
  size_t pos = 0;
  while (pos < gres.size()) {
    size_t end = pos;
    int depth = 0;
    while (end < gres.size() && (gres[end] != ',' || depth > 0)) {
      if (gres[end] == '(') ++depth;
      if (gres[end] == ')') --depth;
      ++end;
    }
    entries.push_back(gres.substr(pos, end - pos));
    pos = end + 1;
  }
  return entries;
}

std::vector<std::string> GpuTypesOfNode(std::string_view gres) {
  std::vector<std::string> types;
  std::string type;
  for (std::string_view entry : GresEntries(gres)) {
    if (GpuTypeOfEntry(entry, &type) && !type.empty() && std::find(types.begin(), types.end(), type) == types.end())
      types.push_back(type);
  }
  return types;
}

}  // namespace budget
