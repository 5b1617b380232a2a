// What select/topo's forwarders share: the wrapped cons_tres's calls, filled
// by init() (select_topo.cc), and the hook after a call that may change
// allocations. The forwarders of calls that only some Slurm series have are
// in slurm_compat/select_series_calls.cc. Include after slurm_headers.h.
#ifndef SLURM_BUDGET_SELECT_TOPO_SELECT_FORWARDING_H_
#define SLURM_BUDGET_SELECT_TOPO_SELECT_FORWARDING_H_

#include "select_topo/slurm_headers.h"

namespace select_topo {

// cons_tres's select_p_* calls, in slurm_compat::kSelectSyms's order.
extern slurm_select_ops_t g_cons_tres;

// Publishes the packing state (inside slurmctld only); never throws.
void AfterChange();

}  // namespace select_topo

#endif  // SLURM_BUDGET_SELECT_TOPO_SELECT_FORWARDING_H_
