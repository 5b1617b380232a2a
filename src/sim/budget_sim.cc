// budget-sim: replays a workload under several policies, through the loop
// production runs (sim/engine.h), and compares them (doc/budget-sim.1,
// doc/simulator.md).
// This file only wires options to the library; every step lives elsewhere.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/events_json.h"
#include "sim/family_report.h"
#include "sim/family_run.h"
#include "sim/generator.h"
#include "sim/options.h"
#include "sim/output_file.h"
#include "sim/progress.h"
#include "sim/rejections.h"
#include "sim/report_json.h"
#include "sim/report_table.h"
#include "sim/sim_setup.h"
#include "sim/timeline_svg.h"
#include "sim/trace_reader.h"
#include "sim/usage_svg.h"

using namespace budget;
using namespace budget::sim;

namespace {

int Fail(const Status& st) {
  std::fprintf(stderr, "budget-sim: %s\n", st.message().c_str());
  return st.code() == Status::Code::kInvalidArgument ? 2 : 1;
}

// Reads or draws the workload; *note is the line for the head of the table
// (DefaultContractNote), if any.
Status LoadWorkload(const SimOptions& o, Workload* w, std::string* note) {
  if (!o.scenario_file.empty()) {
    ScenarioSpec spec;
    Status st = ParseScenarioFile(o.scenario_file, &spec);
    if (!st.ok()) return st;
    return GenerateWorkload(spec, w, o.trace.time_limit_factor);
  }
  ReadStats stats;
  Status st = ReadTraceFile(o.trace_file, o.format, o.trace, w, &stats);
  if (!st.ok()) return st;
  for (const std::string& line : ReadWarnings(o.trace_file, stats))
    std::fprintf(stderr, "budget-sim: %s\n", line.c_str());
  *note = DefaultContractNote(stats, o.trace);
  return Status::Ok();
}

// --generate-family: every policy on every mix, or one mix dumped.
int RunFamilyCommand(const SimOptions& o) {
  FamilySpec spec;
  Status st = ParseFamilyFile(o.family_file, &spec);
  if (!st.ok()) return Fail(st);
  if (o.dump_mix >= 0) {
    std::string command;
    st = DumpMix(DrawMix(spec, o.family_seed, uint32_t(o.dump_mix)), o.dump_dir, &command);
    if (!st.ok()) return Fail(st);
    std::printf("%s\n", command.c_str());
    return 0;
  }
  FamilyOptions f;
  f.count = o.family_count;
  f.seed = o.family_seed;
  if (o.policies_given) f.policies = o.policies;
  f.engine = o.engine;
  f.threads = o.threads;
  if (!(st = LoadSimConfig(o.config_file, &f.config)).ok()) return Fail(st);
  auto wall = std::chrono::steady_clock::now();
  std::vector<MixOutcome> outcomes;
  if (!(st = RunFamily(spec, f, &outcomes)).ok()) return Fail(st);
  std::vector<PolicySummary> summaries = Summarize(outcomes, f.policies);
  std::fputs(FormatFamilyTable(outcomes, summaries, f, spec.days).c_str(), stdout);
  std::printf("wall seconds %.1f\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count());
  if (!o.json_file.empty() &&
      !(st = WriteOutputFile(o.json_file, FormatFamilyJson(outcomes, summaries, f), "figures per mix, JSON", stderr))
           .ok())
    return Fail(st);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  SimOptions o;
  Status st = ParseOptions(argc, argv, &o);
  if (!st.ok()) return Fail(st);
  if (o.help) {
    std::fputs(UsageText().c_str(), stdout);
    return 0;
  }
  if (o.version) {
    std::puts("budget-sim " PACKAGE_VERSION);
    return 0;
  }
  if (!o.family_file.empty()) return RunFamilyCommand(o);
  Workload workload;
  std::string note;
  if (!(st = LoadWorkload(o, &workload, &note)).ok()) return Fail(st);
  if (!o.write_trace.empty() &&
      !(st = WriteOutputFile(o.write_trace, FormatNativeCsv(workload), "the workload, native CSV", stderr)).ok())
    return Fail(st);
  if (workload.jobs.empty()) return Fail(Status::InvalidArgument("the workload has no jobs"));
  BudgetConfig config;
  if (!(st = LoadSimConfig(o.config_file, &config)).ok()) return Fail(st);
  if (o.scenario_file.empty() && o.format != TraceFormat::kNative &&
      !(st = CheckDefaultMinRuntime(o.trace.default_min_runtime, config)).ok())
    return Fail(st);
  AllocationTree tree;
  std::vector<std::string> warnings;
  std::string tree_source;
  if (!(st = LoadSimTree(o.tree_file, o.config_file, config, workload, &tree, &warnings, &tree_source)).ok())
    return Fail(st);
  if (o.tree_file.empty() && !config.budget_tree.empty())
    std::fprintf(stderr, "budget-sim: tree: %s\n", tree_source.c_str());
  for (const std::string& w : warnings) std::fprintf(stderr, "budget-sim: warning: %s\n", w.c_str());

  EngineOptions engine = o.engine;
  engine.groups = ContiguousGroups(engine.nodes, o.group_size);
  engine.record_timeline = !o.svg_file.empty() || !o.events_json_file.empty();
  TimePoint first = workload.jobs.front().submit;
  if (o.horizon >= 0) engine.until = first + o.horizon;
  if (!(st = NodeDrainsOf(o, first, &engine.drains)).ok()) return Fail(st);
  if (!engine.scheduler.not_modelled.empty()) {
    std::string keys;
    for (const std::string& k : engine.scheduler.not_modelled) keys += (keys.empty() ? "" : ", ") + k;
    std::fprintf(stderr, "budget-sim: SchedulerParameters not modelled (ignored): %s\n", keys.c_str());
  }

  std::vector<PolicyResult> results;
  std::vector<RunOutput> outputs(o.policies.size());
  for (size_t p = 0; p < o.policies.size(); ++p) {
    std::unique_ptr<Policy> policy = MakePolicy(o.policies[p]);
    ProgressBar bar(o.policies[p], o.progress);
    engine.progress = [&bar](double f) { bar.Update(f); };
    st = RunSimulation(workload, tree, config, engine, policy.get(), &outputs[p]);
    bar.Done();
    if (!st.ok()) return Fail(Status::InvalidArgument(o.policies[p] + ": " + st.message()));
    results.push_back(outputs[p].result);
    if (!engine.record_timeline) outputs[p].timeline.clear();
  }
  if (!note.empty()) std::printf("%s\n", note.c_str());
  std::fputs(FormatTable(results).c_str(), stdout);
  if (!o.json_file.empty() &&
      !(st = WriteOutputFile(o.json_file, FormatJson(results), "figures per policy, JSON", stderr)).ok())
    return Fail(st);
  if (!o.events_json_file.empty()) {
    std::vector<EventsPolicy> policies;
    for (size_t p = 0; p < results.size(); ++p)
      policies.push_back(EventsPolicy{results[p].policy, &outputs[p].timeline});
    st = WriteOutputFile(o.events_json_file, FormatEventsJson(workload, engine.nodes, engine.gpus_per_node, policies),
                         "every run of every job, JSON", stderr);
    if (!st.ok()) return Fail(st);
  }
  if (!o.svg_file.empty()) {
    TimelineOptions to;
    to.nodes = engine.nodes;
    to.gpus_per_node = engine.gpus_per_node;
    to.origin = results[0].start;
    to.from = results[0].start + o.svg_start;
    to.to = o.svg_length > 0 ? to.from + o.svg_length : results[0].end;
    for (const PolicyResult& r : results) to.to = o.svg_length > 0 ? to.to : std::max(to.to, r.end);
    if (to.to <= to.from) to.to = to.from + 1;
    std::vector<TimelinePanel> panels;
    for (size_t p = 0; p < results.size(); ++p)
      panels.push_back(TimelinePanel{results[p].policy, &outputs[p].timeline});
    st = WriteOutputFile(o.svg_file, RenderTimelineSvg(panels, workload, tree, to), "per-GPU timeline, SVG", stderr);
    if (!st.ok()) return Fail(st);
  }
  if (!o.svg_usage_file.empty() &&
      !(st = WriteOutputFile(o.svg_usage_file, RenderUsageSvg(results, workload, tree),
                             "delivered vs entitlement per team, SVG", stderr)).ok())
    return Fail(st);
  // After the outputs, which show the reasons per policy: a run that
  // admitted nothing is not a result.
  if (!(st = CheckSomeJobAdmitted(results)).ok()) return Fail(st);
  return 0;
}
