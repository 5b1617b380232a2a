#include "sim/report_json.h"

#include <json-c/json.h>

namespace budget {
namespace sim {

namespace {

json_object* Waits(const WaitStats& w) {
  json_object* o = json_object_new_object();
  json_object_object_add(o, "p50", json_object_new_double(w.p50));
  json_object_object_add(o, "p90", json_object_new_double(w.p90));
  json_object_object_add(o, "p99", json_object_new_double(w.p99));
  return o;
}

}  // namespace

std::string FormatJson(const std::vector<PolicyResult>& results) {
  json_object* root = json_object_new_object();
  json_object* policies = json_object_new_object();
  for (const PolicyResult& r : results) {
    json_object* p = json_object_new_object();
    json_object_object_add(p, "what_if", r.what_if.empty() ? nullptr : json_object_new_string(r.what_if.c_str()));
    json_object_object_add(p, "occupancy", json_object_new_double(r.occupancy));
    json_object_object_add(p, "unallocated_share", json_object_new_double(r.unallocated_share));
    json_object_object_add(p, "preemptions", json_object_new_int64(int64_t(r.preemptions)));
    json_object_object_add(p, "fragmentation", json_object_new_double(r.fragmentation));
    json_object_object_add(p, "stranded_of_all", json_object_new_double(r.stranded_of_all));
    json_object_object_add(p, "wall_seconds", json_object_new_double(r.wall_seconds));
    json_object* wait = json_object_new_object();
    json_object_object_add(wait, "all", Waits(r.wait_all));
    json_object_object_add(wait, "debug", Waits(r.wait_debug));
    json_object_object_add(wait, "hero", Waits(r.wait_hero));
    json_object_object_add(p, "wait", wait);
    json_object* rejected = json_object_new_object();
    json_object_object_add(rejected, "total", json_object_new_int64(int64_t(r.rejected)));
    json_object* reasons = json_object_new_array();
    for (const RejectionReason& reason : r.rejections) {
      json_object* o = json_object_new_object();
      json_object_object_add(o, "reason", json_object_new_string(reason.reason.c_str()));
      json_object_object_add(o, "jobs", json_object_new_int64(int64_t(reason.jobs)));
      json_object* ids = json_object_new_array();
      for (uint32_t id : reason.first_job_ids) json_object_array_add(ids, json_object_new_int64(id));
      json_object_object_add(o, "first_job_ids", ids);
      json_object_array_add(reasons, o);
    }
    json_object_object_add(rejected, "by_reason", reasons);
    json_object_object_add(p, "rejected", rejected);
    json_object* teams = json_object_new_object();
    for (const TeamResult& t : r.teams) {
      json_object* team = json_object_new_object();
      json_object_object_add(team, "entitlement", json_object_new_double(t.entitlement));
      json_object_object_add(team, "owed_gpu_hours", json_object_new_double(t.owed_gpu_hours));
      json_object_object_add(team, "delivered_gpu_hours",
                             json_object_new_double(t.delivered_gpu_hours));
      json_object_object_add(team, "delivered_over_owed",
                             json_object_new_double(t.delivered_over_owed));
      json_object_object_add(team, "free_gpu_hours", json_object_new_double(t.free_gpu_hours));
      json_object_object_add(team, "debug_jobs", json_object_new_int64(int64_t(t.debug_wait.count)));
      json_object_object_add(team, "debug_wait", Waits(t.debug_wait));
      json_object_object_add(teams, t.account.c_str(), team);
    }
    json_object_object_add(p, "teams", teams);
    json_object_object_add(policies, r.policy.c_str(), p);
  }
  json_object_object_add(root, "policies", policies);
  std::string text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                              JSON_C_TO_STRING_SPACED);
  json_object_put(root);
  return text + "\n";
}

}  // namespace sim
}  // namespace budget
