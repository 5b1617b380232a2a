#include "sim/family_report.h"

#include <json-c/json.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "sim/output_file.h"
#include "sim/report_table.h"

namespace budget {
namespace sim {

namespace {

std::string Fixed(double v, const char* fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string MixName(uint32_t k, uint64_t seed) {
  return "mix " + std::to_string(k) + " (seed " + std::to_string(seed) + ")";
}

void Row(std::string* out, const std::string& label, const std::vector<std::string>& cells) {
  const size_t lw = 28, cw = 13;
  std::string line = label;
  line.resize(std::max(lw, line.size()), ' ');
  for (std::string c : cells) {
    if (c.size() < cw) c.insert(0, cw - c.size(), ' ');
    line += "  " + c;
  }
  *out += line + "\n";
}

struct Figure {
  const char* name;
  Distribution PolicySummary::*field;
  std::function<std::string(double)> show;
};

const std::vector<Figure>& Figures() {
  static const std::vector<Figure> figures = {
      {"debug p90", &PolicySummary::debug_p90, [](double v) { return HumanSeconds(v); }},
      {"worst team", &PolicySummary::worst_team, [](double v) { return Fixed(v, "%.2f"); }},
      {"mean team", &PolicySummary::mean_team, [](double v) { return Fixed(v, "%.2f"); }},
      {"worst top team", &PolicySummary::worst_top_team, [](double v) { return Fixed(v, "%.2f"); }},
      {"occupancy", &PolicySummary::occupancy, [](double v) { return Fixed(100 * v, "%.1f%%"); }},
      {"hero p90", &PolicySummary::hero_p90, [](double v) { return HumanSeconds(v); }},
  };
  return figures;
}

const MixOutcome* FindMix(const std::vector<MixOutcome>& outcomes, uint32_t k) {
  for (const MixOutcome& m : outcomes)
    if (m.mix.index == k) return &m;
  return nullptr;
}

json_object* DistributionJson(const Distribution& d) {
  json_object* o = json_object_new_object();
  json_object_object_add(o, "mixes", json_object_new_int64(d.mixes));
  json_object_object_add(o, "median", json_object_new_double(d.median));
  json_object_object_add(o, "worst_decile", json_object_new_double(d.worst_decile));
  json_object_object_add(o, "worst", json_object_new_double(d.worst));
  json_object_object_add(o, "worst_mix", json_object_new_int64(d.worst_mix));
  json_object_object_add(o, "worst_seed", json_object_new_int64(int64_t(d.worst_seed)));
  return o;
}

// What a team (an account, or a top-level team) was owed and delivered.
json_object* ServiceJson(const TeamResult& t) {
  json_object* o = json_object_new_object();
  json_object_object_add(o, "entitlement", json_object_new_double(t.entitlement));
  json_object_object_add(o, "owed_gpu_hours", json_object_new_double(t.owed_gpu_hours));
  json_object_object_add(o, "delivered_gpu_hours", json_object_new_double(t.delivered_gpu_hours));
  json_object_object_add(o, "delivered_over_owed", json_object_new_double(t.delivered_over_owed));
  return o;
}

}  // namespace

std::string FormatFamilyTable(const std::vector<MixOutcome>& outcomes, const std::vector<PolicySummary>& summaries,
                              const FamilyOptions& options, double days) {
  std::string out = "family: " + std::to_string(outcomes.size()) + " mixes of seed " + std::to_string(options.seed) +
                    ", " + Fixed(days, "%g") + " days each (median / worst decile / worst)\n";
  std::vector<std::string> cells;
  for (const PolicySummary& s : summaries) cells.push_back(s.policy);
  Row(&out, "policy", cells);
  for (const Figure& f : Figures()) {
    for (int which = 0; which < 3; ++which) {
      cells.clear();
      for (const PolicySummary& s : summaries) {
        const Distribution& d = s.*f.field;
        if (d.mixes == 0) {
          cells.push_back("-");
          continue;
        }
        cells.push_back(f.show(which == 0 ? d.median : which == 1 ? d.worst_decile : d.worst));
      }
      Row(&out, std::string(f.name) + (which == 0 ? " median" : which == 1 ? " worst decile" : " worst"), cells);
    }
  }
  cells.clear();
  for (const PolicySummary& s : summaries)
    cells.push_back(s.wins_vs_fairtree_qos < 0 ? "-" : Fixed(s.wins_vs_fairtree_qos, "%.2f"));
  Row(&out, "wins vs fairtree+qos", cells);
  out += "\nworst mixes (replay one: --dump-mix K)\n";
  for (size_t p = 0; p < summaries.size(); ++p) {
    const PolicySummary& s = summaries[p];
    for (const Figure& f : Figures()) {
      const Distribution& d = s.*f.field;
      if (d.mixes == 0) continue;
      const MixOutcome* m = FindMix(outcomes, d.worst_mix);
      std::string team;
      if (m && p < m->policies.size()) {
        const MixPolicyOutcome& o = m->policies[p];
        if (f.field == &PolicySummary::debug_p90) team = ", team " + o.debug_p90_team;
        if (f.field == &PolicySummary::worst_team) team = ", team " + o.worst_team_name;
        if (f.field == &PolicySummary::worst_top_team) team = ", team " + o.worst_top_team_name;
      }
      out += "  " + s.policy + " " + f.name + " " + f.show(d.worst) + ": " + MixName(d.worst_mix, d.worst_seed) +
             (m ? ", " + std::to_string(m->mix.nodes) + " nodes, " + std::to_string(m->mix.scenario.teams.size()) +
                      " accounts" : "") +
             team + "\n";
    }
  }
  return out;
}

std::string FormatFamilyJson(const std::vector<MixOutcome>& outcomes, const std::vector<PolicySummary>& summaries,
                             const FamilyOptions& options) {
  json_object* root = json_object_new_object();
  json_object* family = json_object_new_object();
  json_object_object_add(family, "seed", json_object_new_int64(int64_t(options.seed)));
  json_object_object_add(family, "mixes", json_object_new_int64(int64_t(outcomes.size())));
  json_object_object_add(root, "family", family);
  json_object* summary = json_object_new_object();
  for (const PolicySummary& s : summaries) {
    json_object* o = json_object_new_object();
    json_object_object_add(o, "debug_p90", DistributionJson(s.debug_p90));
    json_object_object_add(o, "worst_team", DistributionJson(s.worst_team));
    json_object_object_add(o, "mean_team", DistributionJson(s.mean_team));
    json_object_object_add(o, "worst_top_team", DistributionJson(s.worst_top_team));
    json_object_object_add(o, "occupancy", DistributionJson(s.occupancy));
    json_object_object_add(o, "hero_p90", DistributionJson(s.hero_p90));
    json_object_object_add(o, "wins_vs_fairtree_qos",
                           s.wins_vs_fairtree_qos < 0 ? nullptr : json_object_new_double(s.wins_vs_fairtree_qos));
    json_object_object_add(summary, s.policy.c_str(), o);
  }
  json_object_object_add(root, "summary", summary);
  json_object* mixes = json_object_new_array();
  for (const MixOutcome& m : outcomes) {
    json_object* mix = json_object_new_object();
    json_object_object_add(mix, "mix", json_object_new_int64(m.mix.index));
    json_object_object_add(mix, "seed", json_object_new_int64(int64_t(m.mix.seed)));
    json_object_object_add(mix, "nodes", json_object_new_int64(m.mix.nodes));
    json_object_object_add(mix, "accounts", json_object_new_int64(int64_t(m.mix.scenario.teams.size())));
    json_object_object_add(mix, "jobs", json_object_new_int64(int64_t(m.jobs)));
    json_object_object_add(mix, "demand", json_object_new_double(m.mix.demand));
    json_object_object_add(mix, "hero_gpus", json_object_new_int64(m.mix.hero_gpus));
    json_object* bursting = json_object_new_array();
    for (const std::string& a : m.mix.bursting) json_object_array_add(bursting, json_object_new_string(a.c_str()));
    json_object_object_add(mix, "bursting", bursting);
    json_object* policies = json_object_new_object();
    for (size_t p = 0; p < m.policies.size() && p < options.policies.size(); ++p) {
      const MixPolicyOutcome& o = m.policies[p];
      json_object* po = json_object_new_object();
      json_object_object_add(po, "debug_p90", json_object_new_double(o.debug_p90));
      json_object_object_add(po, "debug_p90_team", json_object_new_string(o.debug_p90_team.c_str()));
      json_object_object_add(po, "worst_team", json_object_new_double(o.worst_team));
      json_object_object_add(po, "worst_team_name", json_object_new_string(o.worst_team_name.c_str()));
      json_object_object_add(po, "mean_team", json_object_new_double(o.mean_team));
      json_object_object_add(po, "worst_top_team", json_object_new_double(o.worst_top_team));
      json_object_object_add(po, "worst_top_team_name", json_object_new_string(o.worst_top_team_name.c_str()));
      json_object_object_add(po, "occupancy", json_object_new_double(o.occupancy));
      json_object_object_add(po, "hero_jobs", json_object_new_int64(int64_t(o.heroes)));
      json_object_object_add(po, "hero_p90", json_object_new_double(o.hero_p90));
      json_object_object_add(po, "preemptions", json_object_new_int64(int64_t(o.result.preemptions)));
      json_object* teams = json_object_new_object();
      for (const TeamResult& t : o.result.teams) {
        json_object* team = ServiceJson(t);
        json_object_object_add(team, "debug_jobs", json_object_new_int64(int64_t(t.debug_wait.count)));
        json_object_object_add(team, "debug_p90", json_object_new_double(t.debug_wait.p90));
        json_object_object_add(team, "debug_p50", json_object_new_double(t.debug_wait.p50));
        json_object_object_add(teams, t.account.c_str(), team);
      }
      json_object_object_add(po, "teams", teams);
      json_object* top_teams = json_object_new_object();
      for (const TeamResult& t : o.result.top_teams) json_object_object_add(top_teams, t.account.c_str(), ServiceJson(t));
      json_object_object_add(po, "top_teams", top_teams);
      json_object_object_add(policies, options.policies[p].c_str(), po);
    }
    json_object_object_add(mix, "policies", policies);
    json_object_array_add(mixes, mix);
  }
  json_object_object_add(root, "mixes", mixes);
  std::string text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
  json_object_put(root);
  return text + "\n";
}

std::string FormatFamilyBench(const PolicySummary& s, uint32_t mixes) {
  std::string out;
  auto line = [&out](const char* name, const std::string& value) {
    out += std::string("bench ") + name + ": " + value + "\n";
  };
  line("family_mixes", std::to_string(mixes));
  line("family_debug_p90_median", Fixed(s.debug_p90.median, "%.0f s"));
  line("family_debug_p90_worst_decile", Fixed(s.debug_p90.worst_decile, "%.0f s"));
  line("family_worst_team_median", Fixed(s.worst_team.median, "%.3f"));
  line("family_worst_team_worst_decile", Fixed(s.worst_team.worst_decile, "%.3f"));
  line("family_mean_team_median", Fixed(s.mean_team.median, "%.3f"));
  line("family_worst_top_team_median", Fixed(s.worst_top_team.median, "%.3f"));
  line("family_worst_top_team_worst_decile", Fixed(s.worst_top_team.worst_decile, "%.3f"));
  line("family_occupancy_median", Fixed(s.occupancy.median, "%.3f"));
  line("family_hero_p90_median", Fixed(s.hero_p90.median, "%.0f s"));
  line("family_wins_vs_fairtree_qos", Fixed(std::max(0.0, s.wins_vs_fairtree_qos), "%.2f"));
  return out;
}

Status DumpMix(const Mix& mix, const std::string& dir, std::string* command) {
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    return Status::IOError(dir + ": cannot create: " + std::strerror(errno));
  Status st = WriteTextFile(dir + "/scenario.json", FormatScenarioSpec(mix.scenario));
  if (!st.ok()) return st;
  st = WriteTextFile(dir + "/tree.json", mix.tree_json + "\n");
  if (!st.ok()) return st;
  *command = "budget-sim --generate " + dir + "/scenario.json --tree " + dir + "/tree.json --nodes " +
             std::to_string(mix.nodes) + " --gpus-per-node " + std::to_string(mix.gpus_per_node) + " --horizon " +
             FormatDuration(TimePoint(mix.scenario.days * 86400)) + " --hero-min-gpus " +
             std::to_string(mix.thresholds.hero_min_gpus) +
             " --policy budget,fairtree,fairtree+qos,priority,fifo";
  return Status::Ok();
}

}  // namespace sim
}  // namespace budget
