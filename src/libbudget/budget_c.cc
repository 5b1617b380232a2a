// The C API of the tree, diff and order (budget_c.h). Each entry point
// catches everything: no exception may unwind into a C caller (slurmctld).
#include "libbudget/budget_c.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "libbudget/order.h"
#include "libbudget/tree.h"
#include "libbudget/tree_diff.h"

struct budget_tree_t {
  budget::AllocationTree tree;
};

struct budget_order_t {
  budget::FairShareOrder order;
  bool computed = false;
};

namespace {

// A malloc()ed copy, or NULL if out of memory.
char* CopyString(const std::string& s) {
  char* copy = static_cast<char*>(std::malloc(s.size() + 1));
  if (copy != nullptr) std::memcpy(copy, s.c_str(), s.size() + 1);
  return copy;
}

void SaveError(char** errptr, const std::string& message) {
  if (errptr == nullptr) return;
  std::free(*errptr);
  *errptr = CopyString(message);
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) {
    if (!text.empty()) text += '\n';
    text += line;
  }
  return text;
}

// Sets *out to the joined lines, or NULL when there are none.
void SaveLines(char** out, const std::vector<std::string>& lines) {
  if (out == nullptr) return;
  *out = lines.empty() ? nullptr : CopyString(JoinLines(lines));
}

// Runs `body`, turning any exception into an error message.
template <typename T, typename Body>
T Guarded(const char* function, char** errptr, T on_error, Body body) {
  try {
    return body();
  } catch (const std::exception& e) {
    SaveError(errptr, std::string(function) + ": " + e.what());
  } catch (...) {
    SaveError(errptr, std::string(function) + ": unknown C++ exception");
  }
  return on_error;
}

bool ValidNode(const budget_tree_t* tree, int32_t node) {
  return node >= 0 && static_cast<size_t>(node) < tree->tree.size();
}

budget::PendingJob ToPendingJob(const budget_pending_job_t& j) {
  budget::PendingJob job;
  job.job_id = j.job_id;
  job.node = j.node;
  job.allocated = j.allocated != 0;
  job.user_priority = j.user_priority;
  job.submit_time = j.submit_time;
  return job;
}

}  // namespace

namespace budget {

const AllocationTree* TreeFromHandle(const budget_tree_t* tree) {
  return tree == nullptr ? nullptr : &tree->tree;
}

const FairShareOrder* OrderFromHandle(const budget_order_t* order) {
  return order == nullptr ? nullptr : &order->order;
}

}  // namespace budget

extern "C" {

void budget_free(void* ptr) { std::free(ptr); }

budget_tree_t* budget_tree_parse(const char* data, size_t len, const char* source_name,
                                 char** warnings, char** errptr) {
  if (warnings != nullptr) *warnings = nullptr;
  return Guarded<budget_tree_t*>("budget_tree_parse", errptr, nullptr, [&]() -> budget_tree_t* {
    const std::string source = source_name != nullptr ? source_name : "(tree)";
    if (data == nullptr && len > 0) {
      SaveError(errptr, source + ": no data (NULL buffer)");
      return nullptr;
    }
    auto handle = std::make_unique<budget_tree_t>();
    std::vector<std::string> warning_lines;
    budget::Status s = budget::AllocationTree::Parse(
        std::string_view(data == nullptr ? "" : data, len), source, &handle->tree,
        &warning_lines);
    SaveLines(warnings, warning_lines);
    if (!s.ok()) {
      SaveError(errptr, s.message());
      return nullptr;
    }
    return handle.release();
  });
}

budget_tree_t* budget_tree_parse_file(const char* filename, char** warnings, char** errptr) {
  if (warnings != nullptr) *warnings = nullptr;
  return Guarded<budget_tree_t*>("budget_tree_parse_file", errptr, nullptr,
                                 [&]() -> budget_tree_t* {
    if (filename == nullptr) {
      SaveError(errptr, "budget_tree_parse_file: no file name (NULL)");
      return nullptr;
    }
    auto handle = std::make_unique<budget_tree_t>();
    std::vector<std::string> warning_lines;
    budget::Status s = budget::AllocationTree::ParseFile(filename, &handle->tree, &warning_lines);
    SaveLines(warnings, warning_lines);
    if (!s.ok()) {
      SaveError(errptr, s.message());
      return nullptr;
    }
    return handle.release();
  });
}

void budget_tree_destroy(budget_tree_t* tree) { delete tree; }

size_t budget_tree_size(const budget_tree_t* tree) {
  return tree == nullptr ? 0 : tree->tree.size();
}

int32_t budget_tree_find(const budget_tree_t* tree, const char* path) {
  if (tree == nullptr || path == nullptr) return BUDGET_NO_TREE_NODE;
  return tree->tree.Find(path);
}

int32_t budget_tree_node_for(const budget_tree_t* tree, const char* account, const char* user) {
  if (tree == nullptr || account == nullptr) return BUDGET_NO_TREE_NODE;
  return tree->tree.NodeFor(account, user == nullptr ? "" : user);
}

int32_t budget_tree_child(const budget_tree_t* tree, int32_t node, uint32_t i) {
  if (tree == nullptr || !ValidNode(tree, node)) return BUDGET_NO_TREE_NODE;
  const std::vector<budget::NodeId>& children = tree->tree.node(node).children;
  return i < children.size() ? children[i] : BUDGET_NO_TREE_NODE;
}

void budget_tree_node_info(const budget_tree_t* tree, int32_t node,
                           budget_tree_node_info_t* info, char** errptr) {
  if (tree == nullptr || info == nullptr) {
    SaveError(errptr, "budget_tree_node_info: NULL tree or info");
    return;
  }
  if (!ValidNode(tree, node)) {
    SaveError(errptr, "budget_tree_node_info: no node " + std::to_string(node) + " in a tree of " +
                          std::to_string(tree->tree.size()));
    return;
  }
  const budget::TreeNode& n = tree->tree.node(node);
  info->name = n.name.c_str();
  info->path = n.path.c_str();
  info->display_path = tree->tree.DisplayPath(node).c_str();
  info->share = n.share;
  info->normalized_share = n.normalized_share;
  info->entitlement = n.entitlement;
  info->parent = n.parent;
  info->depth = static_cast<uint32_t>(n.depth);
  info->child_count = static_cast<uint32_t>(n.children.size());
  info->account = n.account.c_str();
  info->user = n.user.c_str();
  info->holds_jobs = tree->tree.HoldsJobs(node) ? 1 : 0;
}

char* budget_tree_diff(const budget_tree_t* before, const budget_tree_t* after, char** errptr) {
  return Guarded<char*>("budget_tree_diff", errptr, nullptr, [&]() -> char* {
    if (before == nullptr || after == nullptr) {
      SaveError(errptr, "budget_tree_diff: NULL tree");
      return nullptr;
    }
    std::vector<std::string> lines;
    for (const budget::NodeChange& c : budget::DiffTrees(before->tree, after->tree)) {
      lines.push_back(c.Describe());
    }
    char* text = CopyString(JoinLines(lines));
    if (text == nullptr) SaveError(errptr, "budget_tree_diff: out of memory");
    return text;
  });
}

unsigned char budget_tree_check_edit(const budget_tree_t* before, const budget_tree_t* after,
                                     const char* user, char** violations, char** errptr) {
  if (violations != nullptr) *violations = nullptr;
  return Guarded<unsigned char>("budget_tree_check_edit", errptr, 0, [&]() -> unsigned char {
    if (before == nullptr || after == nullptr || user == nullptr) {
      SaveError(errptr, "budget_tree_check_edit: NULL tree or user");
      return 0;
    }
    std::vector<std::string> lines;
    budget::Status s = budget::CheckEditAllowed(before->tree, after->tree, user, &lines);
    SaveLines(violations, lines);
    return s.ok() ? 1 : 0;
  });
}

budget_order_t* budget_order_create(void) {
  return Guarded<budget_order_t*>("budget_order_create", nullptr, nullptr,
                                  [] { return new budget_order_t(); });
}

void budget_order_destroy(budget_order_t* order) { delete order; }

void budget_order_compute(budget_order_t* order, const budget_tree_t* tree,
                          const double* direct_usage, const double* demand, size_t count,
                          double capacity_gpus, int64_t window_seconds, char** errptr) {
  Guarded<int>("budget_order_compute", errptr, 0, [&]() -> int {
    if (order == nullptr || tree == nullptr) {
      SaveError(errptr, "budget_order_compute: NULL order or tree");
      return 0;
    }
    if (count > 0 && (direct_usage == nullptr || demand == nullptr)) {
      SaveError(errptr, "budget_order_compute: NULL usage or demand array");
      return 0;
    }
    // The C++ API takes vectors; copying 2 x nodes doubles is small next to
    // the pass itself (tens of microseconds for 10,000 nodes).
    const std::vector<double> usage(direct_usage, direct_usage + count);
    const std::vector<double> wants(demand, demand + count);
    budget::Status s = order->order.Compute(tree->tree, usage, wants, capacity_gpus,
                                            window_seconds);
    if (!s.ok()) {
      SaveError(errptr, s.message());
      return 0;
    }
    order->computed = true;
    return 1;
  });
}

uint32_t budget_order_ranked_count(const budget_order_t* order) {
  return order == nullptr ? 0 : order->order.ranked_count();
}

void budget_order_standing(const budget_order_t* order, int32_t node,
                           budget_node_standing_t* standing, char** errptr) {
  if (order == nullptr || standing == nullptr) {
    SaveError(errptr, "budget_order_standing: NULL order or standing");
    return;
  }
  if (!order->computed) {
    SaveError(errptr, "budget_order_standing: no order computed yet");
    return;
  }
  if (node < 0 || static_cast<size_t>(node) >= order->order.size()) {
    SaveError(errptr, "budget_order_standing: no node " + std::to_string(node) +
                          " in an order of " + std::to_string(order->order.size()));
    return;
  }
  const budget::Standing& s = order->order.standing(node);
  standing->rank = s.rank;
  standing->usage_ratio = s.usage_ratio;
  standing->entitlement = s.entitlement;
  standing->window_usage = s.window_usage;
  standing->sibling_ratio = order->order.sibling_ratio(node);
  standing->sibling_position = order->order.sibling_position(node);
  standing->has_demand = order->order.has_demand(node) ? 1 : 0;
}

uint32_t budget_order_job_priority(const budget_order_t* order, const budget_pending_job_t* job,
                                   budget_priority_factors_t* factors, char** errptr) {
  if (order == nullptr || job == nullptr) {
    SaveError(errptr, "budget_order_job_priority: NULL order or job");
    return 0;
  }
  if (!order->computed) {
    SaveError(errptr, "budget_order_job_priority: no order computed yet");
    return 0;
  }
  budget::PriorityFactors f;
  const uint32_t priority = order->order.Priority(ToPendingJob(*job), &f);
  if (factors != nullptr) {
    factors->fairshare = f.fairshare;
    factors->rank = f.rank;
    factors->user_priority = f.user_priority;
    factors->allocated = f.allocated ? 1 : 0;
  }
  return priority;
}

void budget_order_sort_jobs(const budget_order_t* order, budget_pending_job_t* jobs,
                            size_t count, char** errptr) {
  Guarded<int>("budget_order_sort_jobs", errptr, 0, [&]() -> int {
    if (order == nullptr || (jobs == nullptr && count > 0)) {
      SaveError(errptr, "budget_order_sort_jobs: NULL order or jobs");
      return 0;
    }
    if (!order->computed) {
      SaveError(errptr, "budget_order_sort_jobs: no order computed yet");
      return 0;
    }
    std::vector<budget::PendingJob> sorted(count);
    for (size_t i = 0; i < count; ++i) sorted[i] = ToPendingJob(jobs[i]);
    order->order.SortJobs(&sorted);
    for (size_t i = 0; i < count; ++i) {
      jobs[i].job_id = sorted[i].job_id;
      jobs[i].node = sorted[i].node;
      jobs[i].allocated = sorted[i].allocated ? 1 : 0;
      jobs[i].user_priority = sorted[i].user_priority;
      jobs[i].submit_time = sorted[i].submit_time;
    }
    return 1;
  });
}

}  // extern "C"
