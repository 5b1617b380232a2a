// spank/contract: gives sbatch, srun and salloc the options of the job
// contract, `--min-runtime=<time>` and `--resumable`, hands them to the
// controller, and gives every job and step the contract in force as
// SLURM_SPANK_MIN_RUNTIME (seconds) and SLURM_SPANK_RESUMABLE (0 or 1).
//
// The values travel in the job's SPANK environment (spank_job_control_setenv
// in the local/allocator context), which slurmctld passes to job_submit
// plugins as job_desc->spank_job_env; the names are the core's
// (libbudget/policy/job_contract.h): MIN_RUNTIME_OPTION, the option as typed, which
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
// One job request, one set of options. Two paths would otherwise carry a
// contract into a request that did not declare it:
//   het jobs     sbatch/salloc/srun call the option callbacks and
//                slurm_spank_init_post_opt once per component, in one
//                process, and keep the SPANK environment from one component
//                to the next: every component starts from nothing
//                (ResetRequest) and writes or removes each of its entries;
//   nested jobs  Slurm exports each option given to a job as
//                _SLURM_SPANK_OPTION_contract_<name> in its SPANK
//                environment, which reaches the job's processes as
//                SLURM_SPANK__SLURM_SPANK_OPTION_contract_<name>, and a
//                client started there reads such variables as options
//                (spank_process_env_options): the entries are removed from
//                the request, and a client drops the variables it inherits
//                (slurm_spank_init), so a job submitted from inside a job
//                declares only what its own command line says.
//
// A step inside an existing allocation submits nothing, so the controller
// never sees its options: srun checks --min-runtime itself and refuses text
// that is not a time, with the controller's message.
//
// One argument in plugstack.conf: `notice=no` (or the default, `yes`) tells
// job_submit/contract, through CONTRACT_NOTICE=0 in the request's SPANK
// environment, not to print which default contract a job that declared no
// --min-runtime got (libbudget/policy/job_contract.h); budget.conf's
// DefaultContractNotice turns it off for the whole cluster. Any other
// argument stops the plugin with a message naming it.
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

#include "libbudget/policy/job_contract.h"
#include "slurm_compat/client_api.h"

extern "C" {
extern const char plugin_name[] = "contract";
extern const char plugin_type[] = "spank";
extern const unsigned int plugin_version = SLURM_VERSION_NUMBER;
extern const unsigned int spank_plugin_version = 0;
}

namespace {

// The options seen for the job request (or het component) being read.
std::string g_min_runtime;
bool g_min_runtime_given = false;
bool g_resumable = false;
// From plugstack.conf (notice=yes|no), for every request of this process.
bool g_notice = true;

// Forgets the options of the component just submitted.
void ResetRequest() {
  g_min_runtime.clear();
  g_min_runtime_given = false;
  g_resumable = false;
}

// What Slurm names this plugin's options in a job's SPANK environment
// (plugstack.c _opt_env_name: "_SLURM_SPANK_OPTION_" + plugin name + "_" +
// option name, every character that is not alphanumeric made '_'), and
// with the SLURM_SPANK_ prefix, in the environment of a job's processes.
constexpr const char* kOptionEnvNames[] = {"_SLURM_SPANK_OPTION_contract_min_runtime",
                                           "_SLURM_SPANK_OPTION_contract_resumable"};

// Sets NAME=value in the request's SPANK environment, or removes NAME.
void SetOrRemove(spank_t sp, const char* name, const char* value) {
  if (value) {
    spank_job_control_setenv(sp, name, value, 1);
  } else {
    spank_job_control_unsetenv(sp, name);
  }
}

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
// --resumable and sbatch's own --requeue declare the same contract
// (libbudget/policy/requeue_request.h): the help says so.
struct spank_option kMinRuntimeOption = {
    const_cast<char*>("min-runtime"), const_cast<char*>("time"),
    const_cast<char*>("Time protected from preemption (0: unallocated)"),
    1, 0, OnMinRuntime};

struct spank_option kResumableOption = {
    const_cast<char*>("resumable"), nullptr,
    const_cast<char*>("Requeue (not cancel) when preempted, as --requeue"),
    0, 0, OnResumable};

// Reads the plugin's plugstack.conf arguments; false, with slurm_error
// naming it, on an argument it does not know.
bool ReadArguments(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i] ? argv[i] : "";
    if (arg == "notice=yes" || arg == "notice=no") {
      g_notice = arg == "notice=yes";
    } else {
      slurm_error("spank/contract: unknown argument \"%s\" in plugstack.conf (known: notice=yes, notice=no)",
                  arg.c_str());
      return false;
    }
  }
  return true;
}

bool IsSubmittingContext() {
  spank_context_t context = spank_context();
  return context == S_CTX_LOCAL || context == S_CTX_ALLOCATOR;
}

// The contract recorded on job `job_id`, if the controller answers.
bool RecordedContract(uint32_t job_id, budget::JobContract* out) {
  job_info_msg_t* jobs = nullptr;
  if (slurm_compat::LoadJob(&jobs, job_id, SHOW_ALL) != SLURM_SUCCESS || !jobs) return false;
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
int slurm_spank_init(spank_t sp, int argc, char** argv) {
  try {
    if (!ReadArguments(argc, argv)) return -1;
    // A client run inside a job: the enclosing job's options, exported by
    // an older spank/contract, must not become this request's.
    if (IsSubmittingContext()) {
      for (const char* name : kOptionEnvNames) unsetenv((std::string("SLURM_SPANK_") + name).c_str());
    }
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

// Called once per job request, and once per component of a het job, after
// that component's options.
int slurm_spank_init_post_opt(spank_t sp, int, char**) {
  try {
    if (!IsSubmittingContext()) return 0;
    std::string seconds_text;
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
      if (parsed.ok()) seconds_text = std::to_string(seconds);
    }
    SetOrRemove(sp, budget::kSpankMinRuntimeOption, g_min_runtime_given ? g_min_runtime.c_str() : nullptr);
    SetOrRemove(sp, budget::kSpankMinRuntime, seconds_text.empty() ? nullptr : seconds_text.c_str());
    SetOrRemove(sp, budget::kSpankResumable, g_resumable ? "1" : nullptr);
    SetOrRemove(sp, budget::kSpankContractNotice, g_notice ? nullptr : "0");
    for (const char* name : kOptionEnvNames) spank_job_control_unsetenv(sp, name);
    ResetRequest();
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
