// Slurm's internal headers for the C++ files of select/topo, in one place:
// they are C without __cplusplus guards, so they are included inside
// extern "C", and they trip a g++ warning of their own.
//
// select plugins are loaded by every Slurm client too (sinfo, squeue,
// scontrol, srun), so nothing here may make the plugin reference data that
// only slurmctld defines (job_list, ...): such references fail at dlopen in
// the clients. Those are looked up at run time in slurmctld (topo_view.cc).
#ifndef SLURM_BUDGET_SELECT_TOPO_SLURM_HEADERS_H_
#define SLURM_BUDGET_SELECT_TOPO_SLURM_HEADERS_H_

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
extern "C" {
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/gres.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/select.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/slurm_topology.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
}
#pragma GCC diagnostic pop

// Node and switch tables are defined in slurmctld (libslurmfull), not in the
// libslurm.so that the clients link, so a strong reference to them fails the
// clients' dlopen ("undefined symbol: node_record_count"). Weak references
// resolve to null there; the plugin reads them only inside slurmctld.
#pragma weak node_record_count
#pragma weak switch_record_cnt
#pragma weak switch_record_table
#pragma weak next_node

#endif  // SLURM_BUDGET_SELECT_TOPO_SLURM_HEADERS_H_
