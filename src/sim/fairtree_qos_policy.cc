#include "sim/fairtree_qos_policy.h"

#include "libbudget/config/time_string.h"

namespace budget {
namespace sim {

Status FairTreeQosPolicy::Init(const SimContext& context) {
  Status st = FairTreePolicy::Init(context);
  if (!st.ok()) return st;
  if (!ctx_.thresholds) return Status::InvalidArgument("fairtree+qos: no debug class given");
  queue_.Resize(ctx_.tree->size() + 2);
  const ClassThresholds& c = *ctx_.thresholds;
  in_qos_.assign(ctx_.workload->jobs.size(), 0);
  for (size_t i = 0; i < in_qos_.size(); ++i) {
    const TraceJob& t = ctx_.workload->jobs[i];
    in_qos_[i] = t.min_runtime > 0 && t.min_runtime <= c.debug_max_min_runtime && t.gpus <= c.debug_max_gpus &&
                 t.time_limit <= ctx_.options->debug_qos_max_wall;
  }
  running_.clear();
  offered_.clear();
  return Status::Ok();
}

size_t FairTreeQosPolicy::LaneOf(uint32_t job) const {
  return InDebugQos(job) ? qos_lane() : FairTreePolicy::LaneOf(job);
}

int64_t FairTreeQosPolicy::UserKey(uint32_t job) const {
  const TraceJob& t = ctx_.workload->jobs[job];
  return t.user != kNoUser ? int64_t(t.user) : -1 - int64_t(t.account);
}

uint64_t FairTreeQosPolicy::Gpus(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  return uint64_t{j.shape.node_count} * j.shape.gpus_per_node;
}

void FairTreeQosPolicy::OnStart(uint32_t job, TimePoint now) {
  FairTreePolicy::OnStart(job, now);
  if (!InDebugQos(job)) return;
  UserUse& use = running_[UserKey(job)];
  ++use.jobs;
  use.gpus += Gpus(job);
}

void FairTreeQosPolicy::OnStop(uint32_t job, TimePoint now) {
  FairTreePolicy::OnStop(job, now);
  if (!InDebugQos(job)) return;
  UserUse& use = running_[UserKey(job)];
  --use.jobs;
  use.gpus -= Gpus(job);
}

bool FairTreeQosPolicy::MayStart(uint32_t job) {
  if (!InDebugQos(job)) return true;
  const int64_t user = UserKey(job);
  UserUse use = offered_[user];
  auto it = running_.find(user);
  if (it != running_.end()) {
    use.jobs += it->second.jobs;
    use.gpus += it->second.gpus;
  }
  if (use.jobs + 1 > ctx_.options->debug_qos_max_jobs_per_user ||
      use.gpus + Gpus(job) > ctx_.options->debug_qos_max_gpus_per_user)
    return false;
  UserUse& offered = offered_[user];
  ++offered.jobs;
  offered.gpus += Gpus(job);
  return true;
}

void FairTreeQosPolicy::Recompute(TimePoint now) {
  FairTreePolicy::Recompute(now);
  // The QOS's priority is above every fair-share priority: its lane first.
  lane_order_.insert(lane_order_.begin(), uint32_t(qos_lane()));
}

JobShape FairTreeQosPolicy::PendingShape(uint32_t job) const {
  JobShape s = BaseShape(job);
  if (!InDebugQos(job)) {
    s.min_runtime = 0;  // preempt/qos: normal-QOS jobs preempt nothing
    return s;
  }
  // Preempts as a quick start job of an allocation no running job has:
  // every normal-QOS run past its exempt time is eligible (preempt.h rules
  // 1, 3, 3b), whatever the teams' ranks.
  s.allocation = qos_allocation();
  s.min_runtime = 1;
  s.quick = true;
  return s;
}

RunningJob FairTreeQosPolicy::RunningRecord(uint32_t job) const {
  RunningJob r = BaseRecord(job);
  if (InDebugQos(job)) {
    r.min_runtime = kMaxDuration;  // the debug QOS preempts no debug job
  } else {
    // Exempt while now < start + PreemptExemptTime; the core protects
    // through start + min_runtime (fairtree_policy.h protection()).
    r.min_runtime = (*ctx_.jobs)[job].node == kNoNode ? 0 : std::max<Seconds>(1, exempt() - 1);
  }
  return r;
}

void FairTreeQosPolicy::AddCommitments(const std::vector<RunningJob>&, TimePoint,
                                       std::vector<Standing>* standings) const {
  // The pseudo-allocation of the debug QOS, first in rank.
  if (standings->size() <= size_t(qos_allocation())) standings->resize(size_t(qos_allocation()) + 1);
}

TimePoint FairTreeQosPolicy::PreemptibleFrom(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  if (InDebugQos(job)) return j.run_start + kMaxDuration;
  return j.node == kNoNode ? j.run_start : j.run_start + exempt();
}

}  // namespace sim
}  // namespace budget
