#include "sim/events_json.h"

#include <algorithm>

#include "libbudget/report/json_writer.h"

namespace budget {
namespace sim {

namespace {

void WriteRun(const Segment& s, JsonWriter* w) {
  w->BeginObject().Key("start").Int(s.start).Key("end").Int(s.end).Key("nodes").BeginArray();
  for (const NodeGpus& n : s.allocation.nodes) w->String("n" + std::to_string(n.node + 1));
  w->EndArray().Key("ended").String(RunEndName(s.ended)).Key("preempted_by");
  if (s.ended == RunEnd::kPreempted && s.preempted_by != 0) {
    w->Int(s.preempted_by);
  } else {
    w->Null();
  }
  w->EndObject();
}

void WriteJob(const Workload& workload, const TraceJob& t, const std::vector<const Segment*>& runs,
              JsonWriter* w) {
  w->BeginObject()
      .Key("id").Int(t.id)
      .Key("account").String(workload.accounts[t.account])
      .Key("user").String(workload.UserName(t.user))
      .Key("gpus").Int(t.gpus)
      .Key("submit").Int(t.submit)
      .Key("min_runtime").Int(t.min_runtime)
      .Key("resumable").Bool(t.resumable)
      .Key("runs").BeginArray();
  for (const Segment* s : runs) WriteRun(*s, w);
  w->EndArray().EndObject();
}

void WritePolicy(const Workload& workload, const std::vector<Segment>& timeline, JsonWriter* w) {
  // The timeline is in start order over all jobs; group it by job, keeping
  // that order inside each job.
  std::vector<std::vector<const Segment*>> runs(workload.jobs.size());
  for (const Segment& s : timeline) runs[s.job].push_back(&s);
  for (std::vector<const Segment*>& r : runs)
    std::stable_sort(r.begin(), r.end(), [](const Segment* a, const Segment* b) { return a->start < b->start; });
  w->BeginObject().Key("jobs").BeginArray();
  for (size_t i = 0; i < workload.jobs.size(); ++i) WriteJob(workload, workload.jobs[i], runs[i], w);
  w->EndArray().EndObject();
}

}  // namespace

std::string FormatEventsJson(const Workload& workload, uint32_t nodes, uint32_t gpus_per_node,
                             const std::vector<EventsPolicy>& policies) {
  std::string text;
  JsonWriter w(&text);
  w.BeginObject()
      .Key("version").Int(1)
      .Key("capacity_gpus").Int(int64_t{nodes} * gpus_per_node)
      .Key("nodes").Int(nodes)
      .Key("gpus_per_node").Int(gpus_per_node)
      .Key("policies").BeginObject();
  for (const EventsPolicy& p : policies) {
    w.Key(p.name);
    static const std::vector<Segment> kNone;
    WritePolicy(workload, p.timeline ? *p.timeline : kNone, &w);
  }
  w.EndObject().EndObject();
  return text + "\n";
}

}  // namespace sim
}  // namespace budget
