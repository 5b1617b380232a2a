// spank/contract: gives sbatch, srun and salloc the options of the job
// contract, `--min-runtime=<time>` and `--resumable`, hands them to the
// controller, and gives every job and step the contract in force as
// SLURM_SPANK_MIN_RUNTIME (seconds) and SLURM_SPANK_RESUMABLE (0 or 1).
//
// The values travel in the job's SPANK environment (spank_job_control_setenv
// in the local/allocator context), which slurmctld passes to job_submit
// plugins as job_desc->spank_job_env; the names are the core's
// (libbudget/job_contract.h): MIN_RUNTIME_OPTION, the option as typed, which
// job_submit/contract validates once, in the controller, against the site's
// limits (budget.conf); MIN_RUNTIME, its seconds when it parses; RESUMABLE.
//
// Where the job's processes get SLURM_SPANK_MIN_RUNTIME and
// SLURM_SPANK_RESUMABLE:
//   batch jobs   job_submit/contract writes the admitted contract into the
//                job's environment (declared or default);
//   salloc       its own environment, from the options (seconds), when
//                they were given;
//   srun         every srun, a new job or a step of an existing one, reads
//                the contract recorded on the job (AdminComment, one
//                slurm_load_job) after the allocation and before the launch
//                (slurm_spank_local_user_init), so its tasks see the
//                contract in force.
//
// A step inside an existing allocation submits nothing, so the controller
// never sees its options: srun checks --min-runtime itself and refuses text
// that is not a time, with the controller's message.
//
// This is the only translation unit that includes slurm/spank.h (it clashes
// with Slurm's internal log.h); the version script exports only plugin_* and
// slurm_spank_* symbols.
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_version.h>
#include <slurm/spank.h>
}

#include "libbudget/job_contract.h"

extern "C" {
extern const char plugin_name[] = "contract";
extern const char plugin_type[] = "spank";
extern const unsigned int plugin_version = SLURM_VERSION_NUMBER;
extern const unsigned int spank_plugin_version = 0;
}

namespace {

// The options seen on this command line (one process, one job request).
std::string g_min_runtime;
bool g_min_runtime_given = false;
bool g_resumable = false;

int OnMinRuntime(int, const char* optarg, int) {
  g_min_runtime = optarg ? optarg : "";
  g_min_runtime_given = true;
  return 0;
}

int OnResumable(int, const char*, int) {
  g_resumable = true;
  return 0;
}

// One line each in `sbatch --help` (Slurm wraps usage text at 80 columns).
struct spank_option kMinRuntimeOption = {
    const_cast<char*>("min-runtime"), const_cast<char*>("time"),
    const_cast<char*>("Time protected from preemption (0: unallocated)"),
    1, 0, OnMinRuntime};

struct spank_option kResumableOption = {
    const_cast<char*>("resumable"), nullptr,
    const_cast<char*>("Requeue (not cancel) the job when preempted"),
    0, 0, OnResumable};

bool IsSubmittingContext() {
  spank_context_t context = spank_context();
  return context == S_CTX_LOCAL || context == S_CTX_ALLOCATOR;
}

// The contract recorded on job `job_id`, if the controller answers.
bool RecordedContract(uint32_t job_id, budget::JobContract* out) {
  job_info_msg_t* jobs = nullptr;
  if (slurm_load_job(&jobs, job_id, SHOW_ALL) != SLURM_SUCCESS || !jobs) return false;
  bool found = false;
  for (uint32_t i = 0; i < jobs->record_count && !found; ++i) {
    const slurm_job_info_t& job = jobs->job_array[i];
    if (job.job_id == job_id && job.admin_comment) found = budget::ParseContractRecord(job.admin_comment, out);
  }
  slurm_free_job_info_msg(jobs);
  return found;
}

}  // namespace

extern "C" {

// Registered in every context: the remote side must know the options that
// srun forwards to it, and sbatch ignores a static spank_options table.
int slurm_spank_init(spank_t sp, int, char**) {
  try {
    if (spank_option_register(sp, &kMinRuntimeOption) != ESPANK_SUCCESS ||
        spank_option_register(sp, &kResumableOption) != ESPANK_SUCCESS) {
      slurm_error("spank/contract: cannot register --min-runtime and --resumable");
      return -1;
    }
    return 0;
  } catch (...) {
    return -1;
  }
}

int slurm_spank_init_post_opt(spank_t sp, int, char**) {
  try {
    if (!IsSubmittingContext()) return 0;
    if (g_min_runtime_given) {
      budget::Seconds seconds = 0;
      budget::Status parsed = budget::ParseMinRuntimeOption(g_min_runtime, &seconds);
      // srun may be a step of an existing allocation, which no controller
      // check sees: refuse the text here (a new job would be refused with
      // the same message). sbatch and salloc leave it to the controller.
      if (!parsed.ok() && spank_context() == S_CTX_LOCAL) {
        slurm_error("%s", parsed.message().c_str());
        return -1;
      }
      spank_job_control_setenv(sp, budget::kSpankMinRuntimeOption, g_min_runtime.c_str(), 1);
      if (parsed.ok()) spank_job_control_setenv(sp, budget::kSpankMinRuntime, std::to_string(seconds).c_str(), 1);
    }
    if (g_resumable) spank_job_control_setenv(sp, budget::kSpankResumable, "1", 1);
    return 0;
  } catch (...) {
    return -1;
  }
}

// srun, after the allocation and before the launch: its tasks inherit this
// process's environment (srun merges it into theirs right after this call).
int slurm_spank_local_user_init(spank_t sp, int, char**) {
  try {
    if (spank_context() != S_CTX_LOCAL) return 0;
    uint32_t job_id = 0;
    if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || job_id == 0) return 0;
    budget::JobContract contract;
    if (!RecordedContract(job_id, &contract)) return 0;  // no record: leave the environment as it is
    setenv("SLURM_SPANK_MIN_RUNTIME", std::to_string(contract.min_runtime).c_str(), 1);
    setenv("SLURM_SPANK_RESUMABLE", contract.resumable ? "1" : "0", 1);
    return 0;
  } catch (...) {
    return 0;
  }
}

}  // extern "C"
