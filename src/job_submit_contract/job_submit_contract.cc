// job_submit/contract (`JobSubmitPlugins=contract`): admits the contract a job
// declares with `--min-runtime` / `--resumable` (spank/contract puts them in
// job_desc->spank_job_env) and with Slurm's own `--requeue` (the same as
// `--resumable`) and `--no-requeue`, records it in the job's AdminComment,
// sets Slurm's Requeue flag for a resumable job (leaving it to Slurm
// otherwise: doc/admin-guide.md, "Requeue"), and writes the admitted contract
// where the job's processes read it (PublishContract: SLURM_SPANK_MIN_RUNTIME
// in seconds). On `scontrol update` it keeps an owner from changing the
// contract of a started job, and records why it refused a change in the
// job's SystemComment (RecordRefusal), where `sbudget explain` shows it.
//
// A thin adapter: translate Slurm's records, ask the core (job_contract.h),
// apply the answer. Every rule and message lives in the core. Whatever the
// user wrote (--min-runtime, the account) reaches slurmctld.log and the
// reply only through budget::LogSafe (log_safe.h): one short printable line.
//
// With PriorityType=priority/budget and UnknownAccount=reject it also refuses
// a job whose account (-A, else the user's default account in slurmdbd:
// default_account.h) no node of the allocation tree binds, or any job while
// no tree has loaded (known_accounts.h: the tree priority/budget last
// loaded, never fetched). A refusal gives every reason at once (account and
// contract), and a job that declared no --min-runtime is told at submission
// which contract the default gave it.
//
// budget.conf is read at init() and again at the first submission or update
// after it changed (config_watch.h: one stat() per call): Slurm 22.05 has no
// reconfigure hook for job_submit plugins, and MaxMinRuntime,
// DefaultMinRuntime and UnknownAccount must follow an edit (and `scontrol
// reconfigure`) as the other plugins of the suite do. A changed file that
// does not parse keeps the settings in force, with one error in the log.
//
// Locks: Slurm calls job_submit() with at least the job and partition read
// locks held, and job_modify() with the job write lock held, possibly from
// several RPC threads at once. The plugin's state (the settings and the
// watch on budget.conf) is guarded by g_settings_mutex; each call works on a
// copy of the settings.
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

// Slurm's internal headers are C without __cplusplus guards, and trip a
// g++ warning of their own.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
extern "C" {
#include "slurm_compat/begin_internal_headers.h"
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
#include "slurm_compat/end_internal_headers.h"
}
#pragma GCC diagnostic pop

#include "libbudget/config/config.h"
#include "libbudget/config/config_watch.h"
#include "libbudget/policy/charged_account.h"
#include "libbudget/policy/job_notes.h"
#include "libbudget/policy/job_contract.h"
#include "libbudget/policy/requeue_request.h"
#include "libbudget/config/log_safe.h"
#include "libbudget/config/time_string.h"
#include "default_account.h"
#include "known_accounts.h"
#include "plugin_support/budget_conf_location.h"
#include "plugin_support/guarded_call.h"
#include "slurm_compat/reconfigure.h"

extern "C" {
extern const char plugin_name[] = "Job contract (--min-runtime, --resumable) plugin";
extern const char plugin_type[] = "job_submit/contract";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

// What one submission or update is checked against.
struct Settings {
  budget::BudgetConfig config;
  // Set when UnknownAccount=reject applies (priority/budget in use).
  std::shared_ptr<budget_submit::KnownAccounts> known_accounts;
};

std::mutex g_settings_mutex;
Settings g_settings;                               // GUARDED_BY(g_settings_mutex)
std::unique_ptr<budget::BudgetConfigWatch> g_watch;  // GUARDED_BY(g_settings_mutex)

const char* PolicyName(budget::UnknownAccountPolicy policy) {
  return policy == budget::UnknownAccountPolicy::kReject ? "reject" : "unallocated";
}

// The settings a configuration gives in this slurmctld.
Settings SettingsFor(const budget::BudgetConfig& config) {
  Settings settings;
  settings.config = config;
  if (config.unknown_account == budget::UnknownAccountPolicy::kReject && slurm_conf.priority_type &&
      std::string(slurm_conf.priority_type) == "priority/budget" && slurm_conf.state_save_location) {
    settings.known_accounts = std::make_shared<budget_submit::KnownAccounts>(
        std::string(slurm_conf.state_save_location) + "/" + budget_submit::kLastGoodTreeFileName);
  }
  return settings;
}

void AnnounceSettings(const char* what, const budget::BudgetConfig& config) {
  info("job_submit/contract: %s; MaxMinRuntime=%s DefaultMinRuntime=%s UnknownAccount=%s", what,
       budget::FormatDuration(config.max_min_runtime).c_str(),
       budget::FormatDuration(config.default_min_runtime).c_str(), PolicyName(config.unknown_account));
}

// The settings in force, budget.conf read again first if it changed.
Settings CurrentSettings() {
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  if (g_watch) {
    budget::BudgetConfig config = g_settings.config;
    bool missing = false;
    budget::Status why;
    switch (g_watch->Refresh(&config, &missing, &why)) {
      case budget::BudgetConfigWatch::Change::kNone:
        break;
      case budget::BudgetConfigWatch::Change::kReloaded:
        if (missing) info("job_submit/contract: %s not found, using the defaults", g_watch->path().c_str());
        g_settings = SettingsFor(config);
        AnnounceSettings(("re-read " + g_watch->path()).c_str(), config);
        break;
      case budget::BudgetConfigWatch::Change::kRefused:
        error("job_submit/contract: %s; keeping the settings in force (MaxMinRuntime=%s DefaultMinRuntime=%s "
              "UnknownAccount=%s) until the file is fixed",
              why.message().c_str(), budget::FormatDuration(g_settings.config.max_min_runtime).c_str(),
              budget::FormatDuration(g_settings.config.default_min_runtime).c_str(),
              PolicyName(g_settings.config.unknown_account));
        break;
    }
  }
  return g_settings;
}

// Slurm time limits are minutes, NO_VAL (not given) or INFINITE; the core
// takes seconds, < 0 meaning unlimited or unknown.
budget::Seconds LimitSeconds(uint32_t minutes) {
  if (minutes == NO_VAL || minutes == INFINITE) return -1;
  return static_cast<budget::Seconds>(minutes) * 60;
}

// The limit a job gets from one partition when it gives no --time: the
// partition's DefaultTime, else its MaxTime (as job_mgr.c assigns it).
budget::Seconds PartitionLimit(const part_record_t* part) {
  if (part->default_time != NO_VAL) return LimitSeconds(part->default_time);
  return LimitSeconds(part->max_time);
}

// The time limit a submission will run under. Without --time it comes from
// the partition(s); with several, the most generous one (the job may run in
// any). Limits from QOS or associations are not looked at: the check is
// then skipped (-1) rather than refusing a job that might be fine.
budget::Seconds SubmissionTimeLimit(const job_desc_msg_t* job_desc) {
  if (job_desc->time_limit != NO_VAL) return LimitSeconds(job_desc->time_limit);
  if (!job_desc->partition) return default_part_loc ? PartitionLimit(default_part_loc) : -1;
  budget::Seconds most = 0;
  std::string names(job_desc->partition);
  size_t start = 0;
  while (start <= names.size()) {
    size_t comma = names.find(',', start);
    std::string name = names.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? names.size() + 1 : comma + 1;
    part_record_t* part = find_part_record(const_cast<char*>(name.c_str()));
    if (!part) return -1;  // Slurm itself will refuse the unknown partition
    budget::Seconds limit = PartitionLimit(part);
    if (limit < 0) return -1;
    if (limit > most) most = limit;
  }
  return most;
}

// The value of "NAME=value" in a job's SPANK environment, if present.
std::optional<std::string> SpankEnv(char** env, uint32_t size, std::string_view name) {
  if (!env) return std::nullopt;
  for (uint32_t i = 0; i < size; ++i) {
    if (!env[i]) continue;
    std::string_view entry(env[i]);
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=') {
      return std::string(entry.substr(name.size() + 1));
    }
  }
  return std::nullopt;
}

bool IsTrue(const std::string& value) { return !value.empty() && value != "0"; }

// sbatch's --requeue (1) or --no-requeue (0) (sbatch.c fills
// job_desc->requeue only when one was given: NO_VAL16 otherwise, and
// slurmctld then applies JobRequeue), or `scontrol update Requeue=`.
std::optional<bool> SlurmRequeue(const job_desc_msg_t* job_desc) {
  if (job_desc->requeue == NO_VAL16) return std::nullopt;
  return job_desc->requeue != 0;
}

// The --min-runtime text of a request: MIN_RUNTIME_OPTION, or from an older
// spank/contract, MIN_RUNTIME (job_contract.h).
std::optional<std::string> MinRuntimeText(const job_desc_msg_t* job_desc) {
  if (auto text = SpankEnv(job_desc->spank_job_env, job_desc->spank_job_env_size, budget::kSpankMinRuntimeOption))
    return text;
  return SpankEnv(job_desc->spank_job_env, job_desc->spank_job_env_size, budget::kSpankMinRuntime);
}

// Sets "NAME=value" in an xmalloc'ed environment array owned by Slurm,
// replacing the entry of that name if there is one.
void SetEnvEntry(char*** env, uint32_t* size, const std::string& name, const std::string& value) {
  const std::string entry = name + "=" + value;
  for (uint32_t i = 0; *env && i < *size; ++i) {
    if ((*env)[i] && std::string_view((*env)[i]).substr(0, name.size() + 1) == name + "=") {
      xfree((*env)[i]);
      (*env)[i] = xstrdup(entry.c_str());
      return;
    }
  }
  xrealloc(*env, sizeof(char*) * (*size + 2));
  (*env)[(*size)++] = xstrdup(entry.c_str());
  (*env)[*size] = nullptr;
}

// The admitted contract, where the job's processes read it: its SPANK
// environment (prolog, epilog) and, for a batch job, the environment of its
// script, which sbatch filled with the options as typed (or with nothing,
// or with those of an enclosing job, when the default applied). srun and
// salloc jobs get it from spank/contract.
void PublishContract(job_desc_msg_t* job_desc, const budget::JobContract& contract) {
  const std::string seconds = std::to_string(contract.min_runtime < 0 ? 0 : contract.min_runtime);
  const std::string resumable = contract.resumable ? "1" : "0";
  SetEnvEntry(&job_desc->spank_job_env, &job_desc->spank_job_env_size, budget::kSpankMinRuntime, seconds);
  SetEnvEntry(&job_desc->spank_job_env, &job_desc->spank_job_env_size, budget::kSpankResumable, resumable);
  if (!job_desc->script) return;
  SetEnvEntry(&job_desc->environment, &job_desc->env_size, std::string("SLURM_SPANK_") + budget::kSpankMinRuntime,
              seconds);
  SetEnvEntry(&job_desc->environment, &job_desc->env_size, std::string("SLURM_SPANK_") + budget::kSpankResumable,
              resumable);
}

// Replaces an xmalloc'ed string owned by Slurm.
void SetSlurmString(char** field, const std::string& value) {
  xfree(*field);
  *field = xstrdup(value.c_str());
}

budget::TreeBinding BindingOf(budget_submit::KnownAccounts::Verdict verdict) {
  switch (verdict) {
    case budget_submit::KnownAccounts::Verdict::kKnown:
      return budget::TreeBinding::kBound;
    case budget_submit::KnownAccounts::Verdict::kNoTree:
      return budget::TreeBinding::kNoTree;
    case budget_submit::KnownAccounts::Verdict::kUnknown:
      break;
  }
  return budget::TreeBinding::kUnbound;
}

// UnknownAccount=reject: the account the job will be charged to must be
// bound in the allocation tree. That is -A, else the user's default
// account, which slurmctld fills in only after job_submit plugins have run
// (charged_account.h). Returns the refusal, or nothing.
std::optional<std::string> AccountRefusal(const job_desc_msg_t* job_desc, const Settings& settings) {
  if (!settings.known_accounts) return std::nullopt;
  const std::string requested = job_desc->account ? job_desc->account : "";
  const budget::ChargedAccount account = budget::ChargedAccountOf(
      requested, requested.empty() ? budget_submit::UserDefaultAccount(job_desc->user_id) : std::string());
  return budget::UnknownAccountRefusal(account, BindingOf(settings.known_accounts->Check(account.name)),
                                       budget_submit::WithSlurmdbd());
}

// Whether the submission may be told its default contract: budget.conf's
// DefaultContractNotice, the submitting host's notice=no (spank/contract),
// and the het job component (het_job_offset: NO_VAL for a job that is not
// one, 0 for the first component; proc_req.c joins every component's
// message into the reply).
budget::NoticeContext NoticeContextOf(const job_desc_msg_t* job_desc, const Settings& settings) {
  budget::NoticeContext context;
  context.conf_notice = settings.config.default_contract_notice;
  auto host = SpankEnv(job_desc->spank_job_env, job_desc->spank_job_env_size, budget::kSpankContractNotice);
  context.host_notice = !host || IsTrue(*host);
  context.later_het_component = job_desc->het_job_offset != NO_VAL && job_desc->het_job_offset > 0;
  return context;
}

int Submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg) {
  const Settings settings = CurrentSettings();
  std::optional<std::string> account_refusal = AccountRefusal(job_desc, settings);
  std::optional<std::string> min_runtime = MinRuntimeText(job_desc);
  std::optional<std::string> resumable_option =
      SpankEnv(job_desc->spank_job_env, job_desc->spank_job_env_size, budget::kSpankResumable);
  const std::optional<bool> slurm_requeue = SlurmRequeue(job_desc);
  bool resumable = false;
  budget::Status st = budget::ResumableOf(
      budget::RequeueRequest{resumable_option && IsTrue(*resumable_option), slurm_requeue}, &resumable);
  budget::JobContract contract;
  if (st.ok()) {
    st = budget::ValidateContract(min_runtime ? min_runtime->c_str() : nullptr, resumable,
                                  SubmissionTimeLimit(job_desc), settings.config, &contract);
  }
  // Every reason at once: fixing one must not reveal the next.
  if (account_refusal || !st.ok()) {
    std::string message = account_refusal ? *account_refusal : "";
    if (!st.ok()) message += (message.empty() ? "" : "; and ") + st.message();
    info("job_submit/contract: refused a job of uid %u: %s", submit_uid, message.c_str());
    if (err_msg) *err_msg = xstrdup(message.c_str());
    return account_refusal ? ESLURM_INVALID_ACCOUNT : ESLURM_INVALID_TIME_VALUE;
  }
  // Slurm lets only operators set an AdminComment at submission; theirs is kept.
  SetSlurmString(&job_desc->admin_comment,
                 budget::ReplaceContractRecord(job_desc->admin_comment ? job_desc->admin_comment : "", contract));
  // Slurm's Requeue flag keeps Slurm's meaning (requeue_request.h): set for
  // a resumable job, else as sent (--no-requeue, or JobRequeue's default).
  if (auto flag = budget::RequeueFlagFor(contract.resumable, slurm_requeue)) job_desc->requeue = *flag ? 1 : 0;
  PublishContract(job_desc, contract);
  // Shown by sbatch/srun/salloc on success: a job that declared nothing is
  // told which contract it got, once per submission (job_contract.h).
  if (err_msg && budget::ShowsDefaultContractNote(contract, NoticeContextOf(job_desc, settings))) {
    *err_msg = xstrdup(budget::DefaultContractNote(contract).c_str());
  }
  return SLURM_SUCCESS;
}

// The contract a job carries; a job submitted before the plugin was enabled
// has none and is taken to run under the default.
budget::JobContract CurrentContract(const job_record_t* job_ptr, const budget::BudgetConfig& config) {
  budget::JobContract contract;
  if (job_ptr->admin_comment && budget::ParseContractRecord(job_ptr->admin_comment, &contract)) return contract;
  contract.min_runtime = config.default_min_runtime;
  contract.resumable = job_ptr->details && job_ptr->details->requeue;
  contract.declared = false;
  return contract;
}

budget::ContractUpdate RequestedUpdate(const job_desc_msg_t* job_desc) {
  budget::ContractUpdate update;
  budget::JobContract in_comment;
  // An operator's new AdminComment may carry a contract of its own.
  if (job_desc->admin_comment && budget::ParseContractRecord(job_desc->admin_comment, &in_comment)) {
    update.min_runtime_text = budget::FormatDuration(in_comment.min_runtime);
    update.resumable = in_comment.resumable;
  }
  if (auto text = MinRuntimeText(job_desc)) update.min_runtime_text = *text;
  if (auto flag = SpankEnv(job_desc->spank_job_env, job_desc->spank_job_env_size, budget::kSpankResumable)) {
    update.resumable = IsTrue(*flag);
  }
  if (job_desc->requeue != NO_VAL16) update.resumable = job_desc->requeue != 0;
  if (job_desc->time_limit != NO_VAL) update.time_limit = LimitSeconds(job_desc->time_limit);
  return update;
}

int RefusalCode(budget::UpdateVerdict verdict) {
  switch (verdict) {
    case budget::UpdateVerdict::kForbidden:
      return ESLURM_ACCESS_DENIED;
    case budget::UpdateVerdict::kTimeLimitTooShort:
      return ESLURM_INVALID_TIME_LIMIT;
    default:
      return ESLURM_INVALID_TIME_VALUE;
  }
}

// The reason of a refused update, where `sbudget explain` shows it: the
// job's SystemComment (libbudget/policy/job_notes.h), which no RPC can write, so
// the note cannot be forged; the job write lock is held. Slurm keeps what a
// plugin sets on the record even when the update fails.
void RecordRefusal(job_record_t* job_ptr, const std::string& reason) {
  const time_t now = time(nullptr);
  SetSlurmString(&job_ptr->system_comment,
                 budget::WithRefusal(job_ptr->system_comment ? job_ptr->system_comment : "",
                                     budget::FormatRefusalNote(static_cast<budget::TimePoint>(now), reason)));
  last_job_update = now;  // saved with the job's state
}

// `err_msg`: where the requester's message goes (23.02+), or null (22.05,
// whose job_modify() has none).
int Modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid, char** err_msg) {
  const Settings settings = CurrentSettings();
  budget::ContractedJob job;
  job.contract = CurrentContract(job_ptr, settings.config);
  job.time_limit = LimitSeconds(job_ptr->time_limit);
  // Not start_time: for a pending job it is the scheduler's estimate.
  job.started = IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr);
  budget::ContractUpdateReview review =
      budget::ReviewContractUpdate(job, validate_operator(submit_uid), RequestedUpdate(job_desc), settings.config);
  switch (review.verdict) {
    case budget::UpdateVerdict::kUnchanged:
    case budget::UpdateVerdict::kChanged:
      break;
    default:
      // On 22.05 (no err_msg) the requester sees the error code's text; the
      // log and the job's notes (sbudget explain) say why on both.
      info("job_submit/contract: refused update of JobId=%u by uid %u: %s", job_ptr->job_id, submit_uid,
           review.message.c_str());
      RecordRefusal(job_ptr, review.message);
      if (err_msg) SetSlurmString(err_msg, review.message);
      return RefusalCode(review.verdict);
  }
  std::string record_holder;
  if (job_desc->admin_comment) {
    // A super user replaces the AdminComment: the record must survive it.
    SetSlurmString(&job_desc->admin_comment, budget::ReplaceContractRecord(job_desc->admin_comment, review.contract));
  } else if (review.verdict == budget::UpdateVerdict::kChanged) {
    // Slurm refuses an AdminComment in an update from anyone but a super
    // user, even when a plugin put it there; so the record is written on the
    // job itself (the job write lock is held). Known gap: should Slurm then
    // refuse another field of the same update before it applies requeue,
    // the record shows the new `resumable` and the requeue flag the old one
    // until the next update.
    SetSlurmString(&job_ptr->admin_comment,
                   budget::ReplaceContractRecord(job_ptr->admin_comment ? job_ptr->admin_comment : "",
                                                 review.contract));
  }
  if (review.verdict == budget::UpdateVerdict::kChanged) {
    if (auto flag = budget::RequeueFlagFor(review.contract.resumable, SlurmRequeue(job_desc))) {
      job_desc->requeue = *flag ? 1 : 0;
    }
    info("job_submit/contract: JobId=%u contract is now %s (changed by uid %u)", job_ptr->job_id,
         budget::FormatContractRecord(review.contract).c_str(), submit_uid);
  }
  return SLURM_SUCCESS;
}

int Init() {
  auto watch = std::make_unique<budget::BudgetConfigWatch>(plugin_support::BudgetConfPath(slurm_conf.slurm_conf));
  // The watch remembers the version it saw, even a bad one, so that a bad
  // file is not reported again at each submission.
  budget::BudgetConfig seen;
  bool seen_missing = false;
  (void)watch->Load(&seen, &seen_missing);
  plugin_support::LoadOptions options;
  if (slurm_conf.state_save_location) options.state_dir = slurm_conf.state_save_location;
  options.reconfiguring = slurm_compat::SlurmctldReexecutedByReconfigure();
  plugin_support::LoadedBudgetConf conf;
  budget::Status st = plugin_support::LoadBudgetConf(slurm_conf.slurm_conf, options, &conf);
  // One fatal line naming file, line and key, the last line slurmctld
  // prints (were init() to fail, Slurm would end with a line of its own).
  if (!st.ok()) fatal("job_submit/contract: %s", st.message().c_str());
  // A bad file at a reconfigure (23.11+ re-executes slurmctld): the last
  // good one is used, and the log says so as an error.
  if (!conf.fallback.empty()) error("job_submit/contract: %s", conf.fallback.c_str());
  const budget::BudgetConfig& config = conf.config;
  if (conf.missing) info("job_submit/contract: %s not found, using the defaults", watch->path().c_str());
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  g_settings = SettingsFor(config);
  g_watch = std::move(watch);
  AnnounceSettings("loaded", config);
  return SLURM_SUCCESS;
}

}  // namespace

extern "C" {

int init(void) {
  return plugin_support::GuardedCall(SLURM_ERROR, Init, [](const char* why) {
    error("job_submit/contract: init failed on an internal error: %s", why);
  });
}

int fini(void) {
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  g_watch.reset();
  g_settings = Settings();
  return SLURM_SUCCESS;
}

int job_submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg) {
  try {
    return Submit(job_desc, submit_uid, err_msg);
  } catch (...) {
    error("job_submit/contract: internal error on a job of uid %u; refused", submit_uid);
    return SLURM_ERROR;
  }
}

#if SLURM_BUDGET_SLURM_SERIES >= 2302
// 23.02+ gives job_modify() an err_msg, shown to the requester.
int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid, char** err_msg) {
#else
int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid) {
  char** err_msg = nullptr;
#endif
  try {
    return Modify(job_desc, job_ptr, submit_uid, err_msg);
  } catch (...) {
    error("job_submit/contract: internal error on update of JobId=%u; refused", job_ptr->job_id);
    return SLURM_ERROR;
  }
}

}  // extern "C"
