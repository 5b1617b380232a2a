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
 *   - 23.11+ keeps the switch table private to topology/tree.so (a weak
 *     reference to it is silently null); topology_g_get(TOPO_DATA_TOPOLOGY_PTR)
 *     copies it out, as topo_info_t records whose `nodes` is a host list,
 *     behind the private topoinfo_tree_t mirrored below.
 */
#ifndef SLURM_BUDGET_SLURM_COMPAT_SELECT_API_H_
#define SLURM_BUDGET_SLURM_COMPAT_SELECT_API_H_

#if SLURM_BUDGET_SLURM_SERIES >= 2311

#define SELECT_EXCLUSIONS_PARAMS resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
#define SELECT_EXCLUSIONS_ARGS resv_exc_ptr, will_run_ptr

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

/* topology/tree's answer to TOPO_DATA_TOPOLOGY_PTR (topology_tree.c). */
typedef struct {
  uint32_t record_count;
  topo_info_t *topo_array;
} slurm_compat_topoinfo_tree_t;

#else

#define SELECT_EXCLUSIONS_PARAMS bitstr_t *exc_core_bitmap
#define SELECT_EXCLUSIONS_ARGS exc_core_bitmap

#endif

#endif /* SLURM_BUDGET_SLURM_COMPAT_SELECT_API_H_ */
