// The only part of sbudget that talks to Slurm (libslurm's public API):
// a job's record, the pending jobs, and StateSaveLocation from the
// controller. Everything else
// in sbudget is plain code over the report snapshot and these values, and is
// unit-tested without Slurm.
//
// Thread safety: libslurm calls; use from one thread.
#ifndef SLURM_BUDGET_SBUDGET_SLURM_API_H_
#define SLURM_BUDGET_SBUDGET_SLURM_API_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/status.h"
#include "sbudget/explain.h"

namespace sbudget {

// slurm_load_job. NotFound if the controller does not know the job,
// IOError (with Slurm's message) if it does not answer.
budget::Status LoadSlurmJob(uint32_t job_id, SlurmJob* out);

// slurm_load_jobs: every pending job (array tasks one by one).
// IOError (with Slurm's message) if the controller does not answer.
budget::Status LoadPendingSlurmJobs(std::vector<SlurmJob>* out);

// slurm_load_jobs: every job Slurm remembers, any state (explain -u/-A).
budget::Status LoadSlurmJobs(std::vector<SlurmJob>* out);

// Whether slurmctld (the primary) answers slurm_ping, as `scontrol ping`
// asks.
bool ControllerAnswers();

// slurm_load_ctl_conf's state_save_location.
budget::Status LoadStateSaveLocation(std::string* out);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_SLURM_API_H_
