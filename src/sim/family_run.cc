#include "sim/family_run.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace budget {
namespace sim {

Status PrepareMix(const Mix& mix, const EngineOptions& base, EngineOptions* engine, AllocationTree* tree,
                  Workload* workload) {
  Status st = AllocationTree::Parse(mix.tree_json, "mix " + std::to_string(mix.index) + " tree", tree, nullptr);
  if (!st.ok()) return st;
  st = GenerateWorkload(mix.scenario, workload);
  if (!st.ok()) return st;
  *engine = base;
  engine->nodes = mix.nodes;
  engine->gpus_per_node = mix.gpus_per_node;
  engine->thresholds = mix.thresholds;
  // budget-sim's --horizon, counted from the first submission, so that
  // a dumped mix replays alike.
  const TimePoint first = workload->jobs.empty() ? mix.scenario.start : workload->jobs.front().submit;
  engine->until = first + TimePoint(std::llround(mix.scenario.days * 86400));
  engine->record_timeline = engine->record_decisions = false;
  engine->progress = nullptr;
  return Status::Ok();
}

MixPolicyOutcome OutcomeOf(const PolicyResult& r) {
  MixPolicyOutcome o;
  o.occupancy = r.occupancy;
  o.hero_p90 = r.wait_hero.p90;
  o.heroes = r.wait_hero.count;
  double sum = 0;
  size_t owed = 0;
  for (const TeamResult& t : r.teams) {
    if (t.debug_wait.count > 0 && (o.debug_p90_team.empty() || t.debug_wait.p90 > o.debug_p90)) {
      o.debug_p90 = t.debug_wait.p90;
      o.debug_p90_team = t.account;
    }
    if (t.owed_gpu_hours <= 0) continue;
    ++owed;
    sum += t.delivered_over_owed;
    if (o.worst_team_name.empty() || t.delivered_over_owed < o.worst_team) {
      o.worst_team = t.delivered_over_owed;
      o.worst_team_name = t.account;
    }
  }
  o.mean_team = owed ? sum / double(owed) : 1;
  for (const TeamResult& t : r.top_teams) {
    if (t.owed_gpu_hours <= 0) continue;
    if (o.worst_top_team_name.empty() || t.delivered_over_owed < o.worst_top_team) {
      o.worst_top_team = t.delivered_over_owed;
      o.worst_top_team_name = t.account;
    }
  }
  o.result = r;
  return o;
}

Status RunMix(const Mix& mix, const FamilyOptions& options, MixOutcome* out) {
  out->mix = mix;
  out->policies.clear();
  EngineOptions engine;
  AllocationTree tree;
  Workload workload;
  Status st = PrepareMix(mix, options.engine, &engine, &tree, &workload);
  if (!st.ok()) return st;
  out->jobs = workload.jobs.size();
  for (const std::string& name : options.policies) {
    std::unique_ptr<Policy> policy = MakePolicy(name);
    if (!policy) return Status::InvalidArgument("unknown policy '" + name + "'");
    RunOutput run;
    st = RunSimulation(workload, tree, options.config, engine, policy.get(), &run);
    if (!st.ok()) return Status::InvalidArgument("mix " + std::to_string(mix.index) + ", " + name + ": " + st.message());
    run.result.teams.shrink_to_fit();
    for (TeamResult& t : run.result.teams) t.hours.clear();  // the usage picture's, not the family's
    out->policies.push_back(OutcomeOf(run.result));
  }
  return Status::Ok();
}

Status RunFamily(const FamilySpec& spec, const FamilyOptions& options, std::vector<MixOutcome>* out) {
  out->assign(options.count, MixOutcome());
  std::vector<Status> status(options.count, Status::Ok());
  std::atomic<uint32_t> next{0};
  auto work = [&]() {
    for (uint32_t k = next++; k < options.count; k = next++)
      status[k] = RunMix(DrawMix(spec, options.seed, k), options, &(*out)[k]);
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 1; t < std::max<uint32_t>(1, options.threads); ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  for (const Status& st : status)
    if (!st.ok()) return st;
  return Status::Ok();
}

namespace {

struct Value {
  double v;
  uint32_t mix;
  uint64_t seed;
};

// higher_is_worse: the worst decile is the nearest-rank 90th percentile and
// the worst the largest; otherwise the 10th and the smallest.
Distribution Distribute(std::vector<Value> values, bool higher_is_worse) {
  Distribution d;
  d.mixes = uint32_t(values.size());
  if (values.empty()) return d;
  std::sort(values.begin(), values.end(), [](const Value& a, const Value& b) {
    return a.v != b.v ? a.v < b.v : a.mix < b.mix;
  });
  auto rank = [&](double p) {
    size_t r = size_t(std::ceil(p / 100.0 * double(values.size())));
    return values[std::min(values.size(), std::max<size_t>(1, r)) - 1];
  };
  d.median = rank(50).v;
  d.worst_decile = rank(higher_is_worse ? 90 : 10).v;
  const Value& worst = higher_is_worse ? values.back() : values.front();
  d.worst = worst.v;
  d.worst_mix = worst.mix;
  d.worst_seed = worst.seed;
  return d;
}

}  // namespace

std::vector<PolicySummary> Summarize(const std::vector<MixOutcome>& outcomes,
                                     const std::vector<std::string>& policies) {
  std::vector<PolicySummary> out;
  size_t baseline = policies.size();
  for (size_t p = 0; p < policies.size(); ++p)
    if (policies[p] == "fairtree+qos") baseline = p;
  for (size_t p = 0; p < policies.size(); ++p) {
    PolicySummary s;
    s.policy = policies[p];
    std::vector<Value> debug, worst, mean, worst_top, occupancy, hero;
    uint32_t wins = 0;
    for (const MixOutcome& m : outcomes) {
      if (p >= m.policies.size()) continue;
      const MixPolicyOutcome& o = m.policies[p];
      const uint32_t k = m.mix.index;
      const uint64_t seed = m.mix.seed;
      if (!o.debug_p90_team.empty()) debug.push_back(Value{o.debug_p90, k, seed});
      if (!o.worst_team_name.empty()) {
        worst.push_back(Value{o.worst_team, k, seed});
        mean.push_back(Value{o.mean_team, k, seed});
      }
      if (!o.worst_top_team_name.empty()) worst_top.push_back(Value{o.worst_top_team, k, seed});
      occupancy.push_back(Value{o.occupancy, k, seed});
      if (o.heroes > 0) hero.push_back(Value{o.hero_p90, k, seed});
      if (baseline < m.policies.size() && baseline != p) {
        const MixPolicyOutcome& b = m.policies[baseline];
        const bool no_worse = o.debug_p90 <= b.debug_p90 && o.worst_team >= b.worst_team;
        const bool better = o.debug_p90 < b.debug_p90 || o.worst_team > b.worst_team;
        if (no_worse && better) ++wins;
      }
    }
    s.debug_p90 = Distribute(debug, true);
    s.worst_team = Distribute(worst, false);
    s.mean_team = Distribute(mean, false);
    s.worst_top_team = Distribute(worst_top, false);
    s.occupancy = Distribute(occupancy, false);
    s.hero_p90 = Distribute(hero, true);
    if (baseline < policies.size() && baseline != p && !outcomes.empty())
      s.wins_vs_fairtree_qos = double(wins) / double(outcomes.size());
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace sim
}  // namespace budget
