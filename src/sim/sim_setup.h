// Setup helpers of a simulation: the tree when none is given, topology
// groups, and the core config file.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SIM_SIM_SETUP_H_
#define SLURM_BUDGET_SIM_SIM_SETUP_H_

#include <string>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/status.h"
#include "libbudget/state/tree.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

// A flat tree: one child per account of the workload, equal shares, named
// after the account (names outside [A-Za-z0-9._-] are replaced by '_').
Status FlatTreeFor(const Workload& workload, AllocationTree* out);

// The tree file of a run: `tree_option` (--tree) when given; else the
// BudgetTree of the budget.conf `config` was loaded from (`config_file`,
// LoadSimConfig, which makes a relative path one beside that file) and a
// file:// URL as its path; else "" (the flat tree). InvalidArgument for
// an http(s):// BudgetTree (budget-sim fetches nothing: give --tree) or
// another scheme.
Status SimTreeFile(const std::string& tree_option, const std::string& config_file,
                   const BudgetConfig& config, std::string* out);

// Loads the tree of SimTreeFile, or builds the flat tree when there is
// none. Errors of a BudgetTree name budget.conf and the key. Warnings
// (unknown keys) are appended to *warnings; *source says where the tree
// came from ("--tree t.json", "BudgetTree of conf/budget.conf:
// /abs/conf/tree.json", "flat: one equal share per account").
Status LoadSimTree(const std::string& tree_option, const std::string& config_file,
                   const BudgetConfig& config, const Workload& workload, AllocationTree* out,
                   std::vector<std::string>* warnings, std::string* source);

// Loads budget.conf; an empty name gives the defaults. Unlike the plugins,
// a missing named file is an error (a typo must not silently simulate the
// defaults). The file is parsed under its absolute name, so that the
// parser makes a relative BudgetTree the file beside it.
Status LoadSimConfig(const std::string& file, BudgetConfig* out);

// The trace's default contract (--default-min-runtime) against
// budget.conf's MaxMinRuntime, the bound config.cc sets on
// DefaultMinRuntime: a default no controller would start with is an error
// of the run ("--default-min-runtime (9:00:00) is longer than MaxMinRuntime
// (8:00:00) of budget.conf"), never a refusal of the jobs that did not
// declare it.
Status CheckDefaultMinRuntime(Seconds default_min_runtime, const BudgetConfig& config);

// Topology groups: consecutive runs of `group_size` nodes (0: none).
std::vector<int32_t> ContiguousGroups(uint32_t nodes, uint32_t group_size);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_SIM_SETUP_H_
