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
#include "slurm_compat/begin_internal_headers.h"
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
// Slurm 23.02+ moved the plugin interfaces to src/interfaces/.
#if SLURM_BUDGET_SLURM_SERIES >= 2302
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#else
#include "src/common/gres.h"
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
#endif
#include "slurm_compat/end_internal_headers.h"
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
// 23.11+: the switch table comes through the topology interface
// (slurm_compat/select_api.h), also defined in slurmctld only.
#if SLURM_BUDGET_SLURM_SERIES >= 2311
#pragma weak topology_g_get
#if SLURM_BUDGET_SLURM_SERIES >= 2505
#pragma weak topology_g_topoinfo_free
#else
#pragma weak topology_g_topology_free
#endif
#pragma weak topology_get_plugin_id
#pragma weak node_name2bitmap
#endif

// After the weak declarations: its inline calls test those symbols.
#include "slurm_compat/select_api.h"

#endif  // SLURM_BUDGET_SELECT_TOPO_SLURM_HEADERS_H_
