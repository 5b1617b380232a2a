// Fuzz target: the allocation tree loader (BudgetTree=, a file or a URL's
// body), through AllocationTree::Parse, which ParseFile and the priority
// plugin's tree reloader call with the bytes they read.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "libbudget/state/tree.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  budget::AllocationTree tree;
  std::vector<std::string> warnings;
  budget::Status st = budget::AllocationTree::Parse(json, "fuzz.json", &tree, &warnings);
  if (!st.ok()) {
    FUZZ_CHECK(!st.message().empty(), "a refused tree says why");
    return 0;
  }
  // A loaded tree answers the lookups the plugins make for every job, and
  // its shares are fractions (src/libbudget/state/tree.h, "Shares").
  for (budget::NodeId id = 0; id < static_cast<budget::NodeId>(tree.size()); ++id) {
    const budget::TreeNode& n = tree.node(id);
    FUZZ_CHECK(std::isfinite(n.normalized_share) && n.normalized_share >= 0 && n.normalized_share <= 1,
               "a normalized share is a fraction");
    FUZZ_CHECK(std::isfinite(n.entitlement) && n.entitlement >= 0 && n.entitlement <= 1,
               "an entitlement is a fraction");
    FUZZ_CHECK(tree.Find(n.path) == id, "every node is found by its own path");
    double sum = 0;
    bool any_share = false;
    for (budget::NodeId child : n.children) {
      sum += tree.node(child).normalized_share;
      any_share = any_share || tree.node(child).share > 0;
    }
    FUZZ_CHECK(!any_share || std::fabs(sum - 1) < 1e-9,
               "the normalized shares of siblings with a share sum to 1");
    (void)tree.DisplayPath(id);
    (void)tree.NodeFor(n.effective_account, n.user);
  }
  return 0;
}
