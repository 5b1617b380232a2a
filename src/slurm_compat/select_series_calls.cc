// select/topo's forwarders of the select_p_* calls that not every supported
// Slurm series has (slurm_compat/select_api.h lists them per series); the
// calls every series has are in select_topo/select_topo.cc. Each passes
// straight to cons_tres, as the rest do.
#include "select_topo/select_forwarding.h"

using select_topo::AfterChange;
using select_topo::g_cons_tres;

extern "C" {

#if SLURM_BUDGET_SLURM_SERIES >= 2605
// 26.05+: cons_tres gives back the memory a job no longer needs.
void select_p_job_mem_reduce(job_record_t* job_ptr) {
  g_cons_tres.job_mem_reduce(job_ptr);
  AfterChange();
}
#endif

#if SLURM_BUDGET_SLURM_SERIES < 2505  // gone in 25.05
int select_p_state_save(char* dir_name) { return g_cons_tres.state_save(dir_name); }

int select_p_state_restore(char* dir_name) { return g_cons_tres.state_restore(dir_name); }

int select_p_job_init(List job_list) { return g_cons_tres.job_init(job_list); }

bitstr_t* select_p_step_pick_nodes(job_record_t* job_ptr, select_jobinfo_t* step_jobinfo, uint32_t node_count,
                                   bitstr_t** avail_nodes) {
  return g_cons_tres.step_pick_nodes(job_ptr, step_jobinfo, node_count, avail_nodes);
}

int select_p_step_start(step_record_t* step_ptr) { return g_cons_tres.step_start(step_ptr); }

int select_p_step_finish(step_record_t* step_ptr, bool killing_step) {
  return g_cons_tres.step_finish(step_ptr, killing_step);
}

int select_p_select_nodeinfo_pack(select_nodeinfo_t* nodeinfo, buf_t* buffer, uint16_t protocol_version) {
  return g_cons_tres.nodeinfo_pack(nodeinfo, buffer, protocol_version);
}

int select_p_select_nodeinfo_unpack(select_nodeinfo_t** nodeinfo, buf_t* buffer, uint16_t protocol_version) {
  return g_cons_tres.nodeinfo_unpack(nodeinfo, buffer, protocol_version);
}

select_nodeinfo_t* select_p_select_nodeinfo_alloc(void) { return g_cons_tres.nodeinfo_alloc(); }

int select_p_select_nodeinfo_free(select_nodeinfo_t* nodeinfo) { return g_cons_tres.nodeinfo_free(nodeinfo); }

int select_p_select_nodeinfo_get(select_nodeinfo_t* nodeinfo, enum select_nodedata_type dinfo,
                                 enum node_states state, void* data) {
  return g_cons_tres.nodeinfo_get(nodeinfo, dinfo, state, data);
}

select_jobinfo_t* select_p_select_jobinfo_alloc(void) { return g_cons_tres.jobinfo_alloc(); }

int select_p_select_jobinfo_free(select_jobinfo_t* jobinfo) { return g_cons_tres.jobinfo_free(jobinfo); }

int select_p_select_jobinfo_set(select_jobinfo_t* jobinfo, enum select_jobdata_type data_type, void* data) {
  return g_cons_tres.jobinfo_set(jobinfo, data_type, data);
}

int select_p_select_jobinfo_get(select_jobinfo_t* jobinfo, enum select_jobdata_type data_type, void* data) {
  return g_cons_tres.jobinfo_get(jobinfo, data_type, data);
}

select_jobinfo_t* select_p_select_jobinfo_copy(select_jobinfo_t* jobinfo) { return g_cons_tres.jobinfo_copy(jobinfo); }

int select_p_select_jobinfo_pack(select_jobinfo_t* jobinfo, buf_t* buffer, uint16_t protocol_version) {
  return g_cons_tres.jobinfo_pack(jobinfo, buffer, protocol_version);
}

int select_p_select_jobinfo_unpack(select_jobinfo_t** jobinfo_pptr, buf_t* buffer, uint16_t protocol_version) {
  return g_cons_tres.jobinfo_unpack(jobinfo_pptr, buffer, protocol_version);
}

int select_p_get_info_from_plugin(enum select_plugindata_info dinfo, job_record_t* job_ptr, void* data) {
  return g_cons_tres.get_info_from_plugin(dinfo, job_ptr, data);
}
#endif

#if SLURM_BUDGET_SLURM_SERIES < 2311  // gone in 23.11
int select_p_job_signal(job_record_t* job_ptr, int signal) { return g_cons_tres.job_signal(job_ptr, signal); }

char* select_p_select_jobinfo_sprint(select_jobinfo_t* jobinfo, char* buf, size_t size, int mode) {
  return g_cons_tres.jobinfo_sprint(jobinfo, buf, size, mode);
}

char* select_p_select_jobinfo_xstrdup(select_jobinfo_t* jobinfo, int mode) {
  return g_cons_tres.jobinfo_xstrdup(jobinfo, mode);
}

int select_p_update_node_config(int index) {
  int rc = g_cons_tres.update_node_config(index);
  AfterChange();
  return rc;
}

bitstr_t* select_p_resv_test(resv_desc_msg_t* resv_desc_ptr, uint32_t node_cnt, bitstr_t* avail_bitmap,
                             bitstr_t** core_bitmap) {
  return g_cons_tres.resv_test(resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap);
}
#endif

}  // extern "C"
