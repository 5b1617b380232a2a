// spank/contract: gives sbatch, srun and salloc the options of the job
// contract, `--min-runtime=<time>` and `--resumable`, and hands their raw text
// to the controller.
//
// The values travel in the job's SPANK environment (spank_job_control_setenv
// in the local/allocator context), which slurmctld passes to job_submit
// plugins as job_desc->spank_job_env ("MIN_RUNTIME=15", "RESUMABLE=1") and
// the job's processes see as SLURM_SPANK_MIN_RUNTIME / SLURM_SPANK_RESUMABLE.
// Nothing is validated here: job_submit/contract validates once, in the
// controller, against the site's configured limits (budget.conf).
//
// This is the only translation unit that includes slurm/spank.h (it clashes
// with Slurm's internal log.h); the version script exports only plugin_* and
// slurm_spank_* symbols.
#include <string>

extern "C" {
#include <slurm/slurm_version.h>
#include <slurm/spank.h>
}

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
    // A step inside an existing allocation has no job to submit; the call
    // then fails harmlessly (the job's contract is already recorded).
    if (g_min_runtime_given) spank_job_control_setenv(sp, "MIN_RUNTIME", g_min_runtime.c_str(), 1);
    if (g_resumable) spank_job_control_setenv(sp, "RESUMABLE", "1", 1);
    return 0;
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
