// sbudget's calls into libslurm (slurm_api.h).
#include "sbudget/slurm_api.h"

#include <pwd.h>

#include <string_view>
#include <unordered_map>

#include "libbudget/config/gpu_count.h"
// libslurm, where 22.05 and 24.11 differ; the state and reason strings are
// the names scontrol itself prints.
#include "slurm_compat/client_api.h"

namespace sbudget {

namespace {

std::string OrEmpty(const char* s) { return s != nullptr ? s : ""; }
std::string_view View(const char* s) { return s != nullptr ? s : ""; }

// The user's name; looked up once per uid (a listing of 20,000 jobs would
// otherwise read the password database 20,000 times).
std::string UserName(uint32_t uid) {
  static std::unordered_map<uint32_t, std::string> known;
  auto it = known.find(uid);
  if (it != known.end()) return it->second;
  struct passwd pw;
  struct passwd* found = nullptr;
  char buf[4096];
  std::string name = getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr
                         ? std::string(found->pw_name)
                         : std::to_string(uid);
  return known.emplace(uid, std::move(name)).first->second;
}

SlurmJob FromJobInfo(const slurm_job_info_t& j) {
  SlurmJob job;
  const bool pending = (j.job_state & JOB_STATE_BASE) == JOB_PENDING;
  job.job_id = j.job_id;
  job.state = OrEmpty(slurm_job_state_string(j.job_state));
  job.base_state = OrEmpty(slurm_job_state_string(j.job_state & JOB_STATE_BASE));
  job.reason = OrEmpty(slurm_compat::JobReasonString(static_cast<job_state_reason>(j.state_reason)));
  job.user = j.user_name != nullptr ? j.user_name : UserName(j.user_id);
  job.account = OrEmpty(j.account);
  job.admin_comment = OrEmpty(j.admin_comment);
  job.system_comment = OrEmpty(j.system_comment);
  job.priority = j.priority;
  job.submit_time = j.submit_time;
  job.start_time = pending ? 0 : j.start_time;
  // For a pending job Slurm's start_time is its estimate (backfill's).
  job.estimated_start = pending ? j.start_time : 0;
  job.restart_count = j.restart_cnt;
  job.requeue = j.requeue != 0;
  budget::JobGpuStrings strings;
  strings.tres = View(pending ? j.tres_req_str : j.tres_alloc_str);
  strings.per_job = View(j.tres_per_job);
  strings.per_node = View(j.tres_per_node);
  strings.per_task = View(j.tres_per_task);
  strings.nodes = j.num_nodes;
  strings.tasks = j.num_tasks == NO_VAL ? 1 : j.num_tasks;
  job.gpus = static_cast<uint32_t>(budget::JobGpuCount(strings));
  return job;
}

}  // namespace

budget::Status LoadSlurmJob(uint32_t job_id, SlurmJob* out) {
  slurm_compat::ClientInit();
  job_info_msg_t* msg = nullptr;
  if (slurm_compat::LoadJob(&msg, job_id, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
    int err = slurm_compat::LastError();
    if (err == ESLURM_INVALID_JOB_ID) {
      return budget::Status::NotFound("Slurm does not know job " + std::to_string(job_id));
    }
    return budget::Status::IOError("slurm_load_job(" + std::to_string(job_id) +
                                   "): " + slurm_strerror(err));
  }
  if (msg == nullptr || msg->record_count == 0) {
    slurm_free_job_info_msg(msg);
    return budget::Status::NotFound("Slurm does not know job " + std::to_string(job_id));
  }
  *out = FromJobInfo(msg->job_array[0]);
  slurm_free_job_info_msg(msg);
  return budget::Status::Ok();
}

namespace {

budget::Status LoadJobs(bool pending_only, std::vector<SlurmJob>* out) {
  slurm_compat::ClientInit();
  job_info_msg_t* msg = nullptr;
  // SHOW_ALL: every partition's jobs, hidden ones included, as squeue -a.
  if (slurm_load_jobs(0, &msg, SHOW_ALL | (pending_only ? 0 : SHOW_DETAIL)) != SLURM_SUCCESS) {
    return budget::Status::IOError(std::string("slurm_load_jobs: ") + slurm_strerror(slurm_compat::LastError()));
  }
  out->clear();
  for (uint32_t i = 0; msg != nullptr && i < msg->record_count; ++i) {
    const slurm_job_info_t& j = msg->job_array[i];
    if (!pending_only || (j.job_state & JOB_STATE_BASE) == JOB_PENDING) out->push_back(FromJobInfo(j));
  }
  slurm_free_job_info_msg(msg);
  return budget::Status::Ok();
}

}  // namespace

budget::Status LoadPendingSlurmJobs(std::vector<SlurmJob>* out) { return LoadJobs(true, out); }

budget::Status LoadSlurmJobs(std::vector<SlurmJob>* out) { return LoadJobs(false, out); }

bool ControllerAnswers() {
  slurm_compat::ClientInit();
  return slurm_ping(0) == SLURM_SUCCESS;
}

budget::Status LoadStateSaveLocation(std::string* out) {
  slurm_compat::ClientInit();
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || conf == nullptr) {
    return budget::Status::IOError(std::string("cannot ask slurmctld for StateSaveLocation: ") +
                                   slurm_strerror(slurm_compat::LastError()));
  }
  *out = OrEmpty(conf->state_save_location);
  slurm_compat::FreeConf(conf);
  if (out->empty()) return budget::Status::NotFound("slurmctld reports no StateSaveLocation");
  return budget::Status::Ok();
}

}  // namespace sbudget
