/*
 * The select plugin API where Slurm 22.05 and 24.11 differ, for
 * select/topo. Include after Slurm's internal headers (slurm_headers.h).
 *
 *   - 23.02+ ends select_p_job_test with `resv_exc_t *, will_run_data_t *`
 *     (what a reservation excludes, and WILL_RUN's data) where 22.05 had one
 *     `bitstr_t *exc_core_bitmap`. cons_tres dereferences resv_exc_ptr: pass
 *     on the caller's, never NULL. SELECT_EXCLUSIONS_PARAMS declares them,
 *     SELECT_EXCLUSIONS_ARGS passes them on.
 *   - 23.02+ keeps slurm_select_ops_t private to src/interfaces/select.c:
 *     the copy below must match it, field for field (select/topo's
 *     static_assert checks the count against its symbol list). 23.11 removed
 *     job_signal, jobinfo_sprint, jobinfo_xstrdup, update_node_config and
 *     resv_test.
 *   - 25.05+ drops the jobinfo/nodeinfo layer, state save/restore, the step
 *     calls and get_info_from_plugin: slurm_select_ops_t has 13 entries
 *     (src/interfaces/select.c of 25.11 and 26.05); 26.05 adds the required
 *     select_p_job_mem_reduce. kSelectSyms below lists, per series, the
 *     names select.c resolves, in the order of slurm_select_ops_t; the calls
 *     that not every series has are forwarded in select_series_calls.cc.
 *   - 25.05+ loads only the SelectType plugin (no longer every select_*.so
 *     in PluginDir), and running_cons_tres() compares that plugin's
 *     plugin_id with cons_tres's (SELECT_PLUGIN_CONS_TRES, 109): with any
 *     other id slurmctld refuses SelectTypeParameters=CR_Core_Memory at start
 *     and takes the non-cons_tres GRES paths. select/topo, which is
 *     cons_tres underneath, carries 109 there (kSelectTopoPluginId). Before
 *     25.05 every select_*.so is loaded and duplicate ids abort, so it keeps
 *     its own id, 150.
 *   - 23.11+ keeps the switch table private to topology/tree.so (a weak
 *     reference to it is silently null); topology_g_get(TOPO_DATA_TOPOLOGY_PTR)
 *     copies it out, as topo_info_t records whose `nodes` is a host list,
 *     behind the private topoinfo_tree_t mirrored below. 25.05+ (checked on
 *     25.11 and 26.05) adds a topology name to topology_g_get (NULL: the
 *     default topology) and renames topology_g_topology_free to
 *     topology_g_topoinfo_free: TopologyPtrGet and TopologyPtrFree hide it.
 */
#ifndef SLURM_BUDGET_SLURM_COMPAT_SELECT_API_H_
#define SLURM_BUDGET_SLURM_COMPAT_SELECT_API_H_

#if SLURM_BUDGET_SLURM_SERIES >= 2311
#define SELECT_EXCLUSIONS_PARAMS resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
#define SELECT_EXCLUSIONS_ARGS resv_exc_ptr, will_run_ptr
#else
#define SELECT_EXCLUSIONS_PARAMS bitstr_t *exc_core_bitmap
#define SELECT_EXCLUSIONS_ARGS exc_core_bitmap
#endif

#if SLURM_BUDGET_SLURM_SERIES >= 2505

/* src/interfaces/select.c of 25.11 and 26.05. */
typedef struct {
  uint32_t *plugin_id;
  int (*node_init)(void);
  int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
                  uint32_t req_nodes, uint16_t mode, list_t *preeemptee_candidates, list_t **preemptee_job_list,
                  resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr);
  int (*job_begin)(job_record_t *job_ptr);
  int (*job_ready)(job_record_t *job_ptr);
  int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
  int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
#if SLURM_BUDGET_SLURM_SERIES >= 2605
  void (*job_mem_reduce)(job_record_t *job_ptr);
#endif
  int (*job_fini)(job_record_t *job_ptr);
  int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
  int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
  int (*nodeinfo_set_all)(void);
  int (*nodeinfo_set)(job_record_t *job_ptr);
  int (*reconfigure)(void);
} slurm_select_ops_t;

#elif SLURM_BUDGET_SLURM_SERIES >= 2311

/* src/interfaces/select.c of 23.11 and 24.11. */
typedef struct {
  uint32_t *plugin_id;
  int (*state_save)(char *dir_name);
  int (*state_restore)(char *dir_name);
  int (*job_init)(list_t *job_list);
  int (*node_init)(void);
  int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
                  uint32_t req_nodes, uint16_t mode, list_t *preeemptee_candidates, list_t **preemptee_job_list,
                  resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr);
  int (*job_begin)(job_record_t *job_ptr);
  int (*job_ready)(job_record_t *job_ptr);
  int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
  int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
  int (*job_fini)(job_record_t *job_ptr);
  int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
  int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
  bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr, select_jobinfo_t *step_jobinfo, uint32_t node_count,
                               bitstr_t **avail_nodes);
  int (*step_start)(step_record_t *step_ptr);
  int (*step_finish)(step_record_t *step_ptr, bool killing_step);
  int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version);
  int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version);
  select_nodeinfo_t *(*nodeinfo_alloc)(void);
  int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
  int (*nodeinfo_set_all)(void);
  int (*nodeinfo_set)(job_record_t *job_ptr);
  int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo, enum node_states state,
                      void *data);
  select_jobinfo_t *(*jobinfo_alloc)(void);
  int (*jobinfo_free)(select_jobinfo_t *jobinfo);
  int (*jobinfo_set)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data);
  int (*jobinfo_get)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data);
  select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
  int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version);
  int (*jobinfo_unpack)(select_jobinfo_t **jobinfo_pptr, buf_t *buffer, uint16_t protocol_version);
  int (*get_info_from_plugin)(enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data);
  int (*reconfigure)(void);
} slurm_select_ops_t;

#endif  /* 22.05: slurm_select_ops_t is public, in src/common/select.h */

#if SLURM_BUDGET_SLURM_SERIES >= 2311
/* topology/tree's answer to TOPO_DATA_TOPOLOGY_PTR (topology_tree.c). */
typedef struct {
  uint32_t record_count;
  topo_info_t *topo_array;
} slurm_compat_topoinfo_tree_t;
#endif

namespace slurm_compat {

#if SLURM_BUDGET_SLURM_SERIES >= 2505
constexpr uint32_t kSelectTopoPluginId = SELECT_PLUGIN_CONS_TRES;
#else
constexpr uint32_t kSelectTopoPluginId = 150;  // unique, >= 100: Slurm's own use 101-110
#endif

// The names select.c resolves, in the order of slurm_select_ops_t; our own
// copy, since referencing select.c's node_select_syms breaks the clients,
// which do not all export it.
inline const char *kSelectSyms[] = {
    "plugin_id",
#if SLURM_BUDGET_SLURM_SERIES < 2505
    "select_p_state_save",
    "select_p_state_restore",
    "select_p_job_init",
#endif
    "select_p_node_init",
    "select_p_job_test",
    "select_p_job_begin",
    "select_p_job_ready",
    "select_p_job_expand",
    "select_p_job_resized",
#if SLURM_BUDGET_SLURM_SERIES < 2311
    "select_p_job_signal",
#endif
#if SLURM_BUDGET_SLURM_SERIES >= 2605
    "select_p_job_mem_reduce",
#endif
    "select_p_job_fini",
    "select_p_job_suspend",
    "select_p_job_resume",
#if SLURM_BUDGET_SLURM_SERIES < 2505
    "select_p_step_pick_nodes",
    "select_p_step_start",
    "select_p_step_finish",
    "select_p_select_nodeinfo_pack",
    "select_p_select_nodeinfo_unpack",
    "select_p_select_nodeinfo_alloc",
    "select_p_select_nodeinfo_free",
#endif
    "select_p_select_nodeinfo_set_all",
    "select_p_select_nodeinfo_set",
#if SLURM_BUDGET_SLURM_SERIES < 2505
    "select_p_select_nodeinfo_get",
    "select_p_select_jobinfo_alloc",
    "select_p_select_jobinfo_free",
    "select_p_select_jobinfo_set",
    "select_p_select_jobinfo_get",
    "select_p_select_jobinfo_copy",
    "select_p_select_jobinfo_pack",
    "select_p_select_jobinfo_unpack",
#endif
#if SLURM_BUDGET_SLURM_SERIES < 2311
    "select_p_select_jobinfo_sprint",
    "select_p_select_jobinfo_xstrdup",
#endif
#if SLURM_BUDGET_SLURM_SERIES < 2505
    "select_p_get_info_from_plugin",
#endif
#if SLURM_BUDGET_SLURM_SERIES < 2311
    "select_p_update_node_config",
#endif
    "select_p_reconfigure",
#if SLURM_BUDGET_SLURM_SERIES < 2311
    "select_p_resv_test",
#endif
};
static_assert(sizeof(slurm_select_ops_t) == sizeof(kSelectSyms),
              "slurm_select_ops_t and kSelectSyms must list the same calls");

#if SLURM_BUDGET_SLURM_SERIES >= 2311
// topology/tree's switch table (slurm_compat_topoinfo_tree_t), or NULL.
// These symbols are slurmctld's: the caller checks they resolved (weak).
inline dynamic_plugin_data_t *TopologyPtrGet() {
  dynamic_plugin_data_t *topo = nullptr;
#if SLURM_BUDGET_SLURM_SERIES >= 2505
  if (topology_g_get(TOPO_DATA_TOPOLOGY_PTR, nullptr, &topo) != SLURM_SUCCESS) return nullptr;
#else
  if (topology_g_get(TOPO_DATA_TOPOLOGY_PTR, &topo) != SLURM_SUCCESS) return nullptr;
#endif
  return topo;
}
inline bool TopologyPtrCallsResolved() {
#if SLURM_BUDGET_SLURM_SERIES >= 2505
  return topology_g_get && topology_g_topoinfo_free && topology_get_plugin_id;
#else
  return topology_g_get && topology_g_topology_free && topology_get_plugin_id;
#endif
}
inline void TopologyPtrFree(dynamic_plugin_data_t *topo) {
#if SLURM_BUDGET_SLURM_SERIES >= 2505
  topology_g_topoinfo_free(topo);
#else
  topology_g_topology_free(topo);
#endif
}
#endif

}  // namespace slurm_compat

#endif /* SLURM_BUDGET_SLURM_COMPAT_SELECT_API_H_ */
