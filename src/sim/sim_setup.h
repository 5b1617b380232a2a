// Setup helpers of a simulation: the tree when none is given, topology
// groups, and the core config file.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SIM_SIM_SETUP_H_
#define SLURM_BUDGET_SIM_SIM_SETUP_H_

#include <string>
#include <vector>

#include "libbudget/config.h"
#include "libbudget/status.h"
#include "libbudget/tree.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

// A flat tree: one child per account of the workload, equal shares, named
// after the account (names outside [A-Za-z0-9._-] are replaced by '_').
Status FlatTreeFor(const Workload& workload, AllocationTree* out);

// Loads the tree file, or builds the flat tree when `file` is empty.
// Warnings (unknown keys) are appended to *warnings.
Status LoadTreeOrFlat(const std::string& file, const Workload& workload, AllocationTree* out,
                      std::vector<std::string>* warnings);

// Loads budget.conf; an empty name gives the defaults. Unlike the plugins,
// a missing named file is an error (a typo must not silently simulate the
// defaults).
Status LoadSimConfig(const std::string& file, BudgetConfig* out);

// Topology groups: consecutive runs of `group_size` nodes (0: none).
std::vector<int32_t> ContiguousGroups(uint32_t nodes, uint32_t group_size);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_SIM_SETUP_H_
