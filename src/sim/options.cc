#include "sim/options.h"

#include <cctype>
#include <cstdlib>

#include <cstring>

#include "libbudget/config/time_string.h"
#include "sim/csv_row.h"
#include "sim/policy.h"

namespace budget {
namespace sim {

namespace {

Status Count(const std::string& opt, const std::string& v, int64_t min, int64_t max, int64_t* out) {
  if (!ParseInt64(v, out) || *out < min || *out > max)
    return Status::InvalidArgument(opt + ": expected an integer in [" + std::to_string(min) +
                                   ", " + std::to_string(max) + "], got '" + v + "'");
  return Status::Ok();
}

Status Duration(const std::string& opt, const std::string& v, Seconds* out) {
  Status st = ParseDuration(v, out);
  if (!st.ok()) return Status::InvalidArgument(opt + ": " + st.message());
  return Status::Ok();
}

// "n3@1:00:00": node n3 (index 2) at 1 h after the first submission.
Status NodeEvent(const std::string& opt, const std::string& v, std::vector<NodeEventOption>* out) {
  size_t at = v.find('@');
  int64_t number = 0;
  if (at == std::string::npos || at < 2 || v[0] != 'n' || !ParseInt64(v.substr(1, at - 1), &number) ||
      number < 1 || number > (1 << 20))
    return Status::InvalidArgument(opt + ": expected NODE@TIME with NODE n1, n2, ..., got '" + v + "'");
  NodeEventOption e;
  e.drain = opt == "--drain";
  e.node = int32_t(number - 1);
  Status st = Duration(opt, v.substr(at + 1), &e.after_first_submit);
  if (!st.ok()) return st;
  out->push_back(e);
  return Status::Ok();
}

// finite (ParseDouble refuses inf and nan) and >= 1: a limit below the
// work a job needs would kill every job that does not give its own.
Status TimeLimitFactor(const std::string& opt, const std::string& v, double* out) {
  double d = 0;
  if (!ParseDouble(v, &d) || d < 1)
    return Status::InvalidArgument(opt + ": expected a finite number >= 1, got '" + v + "'");
  *out = d;
  return Status::Ok();
}

}  // namespace

Status NodeDrainsOf(const SimOptions& o, TimePoint first_submit, std::vector<NodeDrain>* out) {
  std::vector<NodeDrain> drains;
  for (const NodeEventOption& e : o.node_events) {
    std::string name = "n" + std::to_string(e.node + 1);
    if (uint32_t(e.node) >= o.engine.nodes)
      return Status::InvalidArgument((e.drain ? "--drain " : "--resume ") + name + ": the cluster has nodes n1-n" +
                                     std::to_string(o.engine.nodes));
    TimePoint t = first_submit + e.after_first_submit;
    if (e.drain) {
      drains.push_back(NodeDrain{e.node, t, -1});
      continue;
    }
    NodeDrain* open = nullptr;
    for (NodeDrain& d : drains) {
      if (d.node == e.node && d.at <= t && d.resume_at < 0) open = &d;
    }
    if (!open) return Status::InvalidArgument("--resume " + name + ": no --drain of " + name + " before it");
    open->resume_at = t;
  }
  *out = std::move(drains);
  return Status::Ok();
}

std::string UsageText() {
  return
      "usage: budget-sim [options]\n"
      "Replays a workload under several scheduling policies and compares them.\n"
      "\n"
      "Workload (one of):\n"
      "  --trace FILE --format native|philly|swf|sacct   read a trace (sacct: the\n"
      "                           output of sacct -a -X -P --format=JobID,Account,User,\n"
      "                           Submit,Start,Elapsed,Timelimit,AllocTRES,State)\n"
      "  --generate SPEC.json                      draw a seeded scenario\n"
      "  --generate-family SPEC.json               run every policy on a family of mixes\n"
      "  --count N                family: mixes (default 50)\n"
      "  --seed S                 family: seed of the draw (default 1)\n"
      "  --dump-mix K             family: write mix K's scenario and tree, print its replay\n"
      "  --dump-dir DIR           where --dump-mix writes (default mix)\n"
      "  --threads N              family: mixes run at once (default 1)\n"
      "  --write-trace FILE       also write the workload as native CSV\n"
      "  --skip-bad-rows          drop malformed rows (counted) instead of failing\n"
      "  --default-min-runtime T  contract of jobs the trace gives none (default 0)\n"
      "  --default-resumable      those jobs are resumable\n"
      "  --swf-procs-per-gpu N    SWF processors per GPU (default 1)\n"
      "  --time-limit-factor F    time limit = duration x F, in whole minutes, where\n"
      "                           the workload gives none (default 2, >= 1)\n"
      "Cluster and rules:\n"
      "  --nodes N                nodes (default 128)\n"
      "  --gpus-per-node G        GPUs per node (default 8)\n"
      "  --topology-group-size K  nodes per topology group (default: none)\n"
      "  --gpu-types T:N,...      a mixed fleet: N nodes of GPU type T each, in order\n"
      "                           (sets --nodes; jobs of a type run on its nodes only)\n"
      "  --tree FILE              allocation tree JSON (default: flat, equal shares)\n"
      "  --config FILE            budget.conf (default: built-in defaults)\n"
      "  --packing on|off         core best-fit packing or first fit (default on)\n"
      "Run:\n"
      "  --policy LIST            of budget,fairtree,fairtree+qos,priority,fifo\n"
      "                           (default budget,fairtree,priority,fifo)\n"
      "  --horizon T              stop T after the first submission (default: drain)\n"
      "  --max-preempt-attempts N fairtree/priority: preemptions per main pass (8)\n"
      "  --fairtree-half-life T   usage half-life of fairtree (7-0)\n"
      "  --preempt-exempt-time T  fairtree's global protection (1:00:00)\n"
      "  --fairtree-no-preempt    fairtree never preempts\n"
      "  --debug-qos-max-wall T   fairtree+qos: the debug QOS's MaxWall (30:00)\n"
      "  --debug-qos-max-jobs-per-user N  its running jobs per user (2)\n"
      "  --debug-qos-max-gpus-per-user N  its GPUs per user (8)\n"
      "  --qos-preempt-exempt-time T  fairtree+qos: PreemptExemptTime (30:00)\n"
      "  --high-priority-threshold N  priority: declared priority >= N is HIGH (1)\n"
      "  --debug-max-min-runtime T  debug jobs: min-runtime <= T (15)\n"
      "  --debug-max-gpus N       debug jobs: <= N GPUs (8)\n"
      "  --hero-min-gpus N        hero jobs: >= N GPUs (64)\n"
      "Slurm's schedulers, as the production controller runs them:\n"
      "  --scheduler-parameters S slurm.conf's SchedulerParameters (bf_interval, ...)\n"
      "  --requeue-delay N        seconds before a requeued job may start (121)\n"
      "  --drain NODE@T           drain node NODE (n1, n2, ...) T after the first submission\n"
      "  --resume NODE@T          return it to service\n"
      "  --what-if builtin        what-if: no backfill (SchedulerType=sched/builtin)\n"
      "  --what-if exact-runtimes what-if: backfill knows every run's true length\n"
      "Output:\n"
      "  --json FILE              figures per policy\n"
      "  --events-json FILE       every run of every job, per policy\n"
      "  --svg FILE               per-GPU timeline, one panel per policy\n"
      "  --svg-start T --svg-length T   window of the timeline (default: whole run)\n"
      "  --svg-usage FILE         delivered vs entitlement per team over time\n"
      "  --no-progress            no progress bar on stderr\n"
      "  --help, --version\n";
}

namespace {

// --gpu-types "b200:16,h100:16": node types in order; sets the node count.
Status GpuTypes(const std::string& opt, const std::string& v, EngineOptions* engine) {
  std::vector<std::string> types;
  size_t pos = 0;
  while (pos <= v.size()) {
    size_t end = v.find(',', pos);
    if (end == std::string::npos) end = v.size();
    std::string entry = v.substr(pos, end - pos);
    size_t colon = entry.find(':');
    std::string type = entry.substr(0, colon);
    bool type_ok = !type.empty() && type.size() <= 64;
    for (char c : type) type_ok = type_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
    char* rest = nullptr;
    std::string count = colon == std::string::npos ? "" : entry.substr(colon + 1);
    long n = count.empty() ? 0 : std::strtol(count.c_str(), &rest, 10);
    if (!type_ok || count.empty() || *rest != '\0' || n < 1 || n > (1 << 20) ||
        types.size() + size_t(n) > (size_t(1) << 20))
      return Status::InvalidArgument(opt + ": expected TYPE:NODES[,TYPE:NODES...] (e.g. b200:16,h100:16), got '" +
                                     entry + "'");
    types.insert(types.end(), size_t(n), type);
    pos = end + 1;
  }
  engine->gpu_types = std::move(types);
  engine->nodes = uint32_t(engine->gpu_types.size());
  return Status::Ok();
}

}  // namespace

Status ParseOptions(int argc, char** argv, SimOptions* o) {
  for (int i = 1; i < argc; ++i) {
    std::string opt = argv[i];
    std::string value;
    size_t eq = opt.find('=');
    bool inline_value = opt.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = opt.substr(eq + 1);
      opt = opt.substr(0, eq);
    }
    auto need = [&](std::string* v) -> Status {
      if (inline_value) {
        *v = value;
        return Status::Ok();
      }
      if (i + 1 >= argc) return Status::InvalidArgument(opt + ": needs a value");
      *v = argv[++i];
      return Status::Ok();
    };
    auto flag = [&]() -> Status {
      if (inline_value) return Status::InvalidArgument(opt + ": takes no value");
      return Status::Ok();
    };
    Status st;
    std::string v;
    int64_t n = 0;
    if (opt == "--help" || opt == "-h") {
      o->help = true;
    } else if (opt == "--version") {
      o->version = true;
    } else if (opt == "--trace") {
      st = need(&o->trace_file);
    } else if (opt == "--format") {
      if ((st = need(&v)).ok()) st = ParseTraceFormat(v, &o->format);
    } else if (opt == "--generate") {
      st = need(&o->scenario_file);
    } else if (opt == "--generate-family") {
      st = need(&o->family_file);
    } else if (opt == "--count") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 1, 100000, &n)).ok()) o->family_count = uint32_t(n);
    } else if (opt == "--seed") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, INT64_MAX, &n)).ok()) o->family_seed = uint64_t(n);
    } else if (opt == "--dump-mix") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, 100000, &n)).ok()) o->dump_mix = n;
    } else if (opt == "--dump-dir") {
      st = need(&o->dump_dir);
    } else if (opt == "--threads") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 1, 64, &n)).ok()) o->threads = uint32_t(n);
    } else if (opt == "--write-trace") {
      st = need(&o->write_trace);
    } else if (opt == "--skip-bad-rows") {
      st = flag();
      o->trace.skip_bad_rows = true;
    } else if (opt == "--default-min-runtime") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->trace.default_min_runtime);
    } else if (opt == "--default-resumable") {
      st = flag();
      o->trace.default_resumable = true;
    } else if (opt == "--swf-procs-per-gpu") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 1, 1 << 20, &n)).ok())
        o->trace.procs_per_gpu = uint32_t(n);
    } else if (opt == "--time-limit-factor") {
      if ((st = need(&v)).ok()) st = TimeLimitFactor(opt, v, &o->trace.time_limit_factor);
    } else if (opt == "--nodes") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 1, 1 << 20, &n)).ok())
        o->engine.nodes = uint32_t(n);
    } else if (opt == "--gpus-per-node") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 1, 64, &n)).ok())
        o->engine.gpus_per_node = uint32_t(n);
    } else if (opt == "--gpu-types") {
      if ((st = need(&v)).ok()) st = GpuTypes(opt, v, &o->engine);
    } else if (opt == "--topology-group-size") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 1, 1 << 20, &n)).ok())
        o->group_size = uint32_t(n);
    } else if (opt == "--tree") {
      st = need(&o->tree_file);
    } else if (opt == "--config") {
      st = need(&o->config_file);
    } else if (opt == "--packing") {
      if ((st = need(&v)).ok()) {
        if (v == "on") {
          o->engine.packing = true;
        } else if (v == "off") {
          o->engine.packing = false;
        } else {
          st = Status::InvalidArgument("--packing: expected on or off, got '" + v + "'");
        }
      }
    } else if (opt == "--policy") {
      if ((st = need(&v)).ok()) {
        o->policies_given = true;
        o->policies.clear();
        size_t pos = 0;
        while (st.ok() && pos <= v.size()) {
          size_t comma = v.find(',', pos);
          if (comma == std::string::npos) comma = v.size();
          std::string name = v.substr(pos, comma - pos);
          if (!MakePolicy(name))
            st = Status::InvalidArgument("--policy: unknown policy '" + name + "' (known: " +
                                         PolicyNames() + ")");
          o->policies.push_back(name);
          pos = comma + 1;
        }
      }
    } else if (opt == "--horizon") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->horizon);
    } else if (opt == "--what-if") {
      if ((st = need(&v)).ok()) {
        if (v == "builtin") {
          o->engine.builtin_scheduler = true;
        } else if (v == "exact-runtimes") {
          o->engine.exact_runtimes = true;
        } else {
          st = Status::InvalidArgument("--what-if: expected builtin or exact-runtimes, got '" + v + "'");
        }
      }
    } else if (opt == "--max-preempt-attempts") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, 1 << 24, &n)).ok())
        o->engine.max_preempt_attempts = uint32_t(n);
    } else if (opt == "--fairtree-half-life") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->engine.policy.fairtree_half_life);
      if (st.ok() && o->engine.policy.fairtree_half_life <= 0)
        st = Status::InvalidArgument("--fairtree-half-life: must be > 0");
    } else if (opt == "--preempt-exempt-time") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->engine.policy.preempt_exempt_time);
    } else if (opt == "--fairtree-no-preempt") {
      st = flag();
      o->engine.policy.fairtree_preempts = false;
    } else if (opt == "--debug-qos-max-wall") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->engine.policy.debug_qos_max_wall);
    } else if (opt == "--debug-qos-max-jobs-per-user") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, 1 << 20, &n)).ok())
        o->engine.policy.debug_qos_max_jobs_per_user = uint32_t(n);
    } else if (opt == "--debug-qos-max-gpus-per-user") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, 1 << 20, &n)).ok())
        o->engine.policy.debug_qos_max_gpus_per_user = uint32_t(n);
    } else if (opt == "--qos-preempt-exempt-time") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->engine.policy.qos_preempt_exempt_time);
    } else if (opt == "--high-priority-threshold") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, UINT32_MAX, &n)).ok())
        o->engine.policy.high_priority_threshold = uint32_t(n);
    } else if (opt == "--debug-max-min-runtime") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->engine.thresholds.debug_max_min_runtime);
    } else if (opt == "--debug-max-gpus") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, 1 << 20, &n)).ok())
        o->engine.thresholds.debug_max_gpus = uint32_t(n);
    } else if (opt == "--hero-min-gpus") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 1, 1 << 20, &n)).ok())
        o->engine.thresholds.hero_min_gpus = uint32_t(n);
    } else if (opt == "--scheduler-parameters") {
      if ((st = need(&v)).ok()) st = ParseSchedulerParameters(v, &o->engine.scheduler);
      if (!st.ok()) st = Status::InvalidArgument("--scheduler-parameters: " + st.message());
    } else if (opt == "--requeue-delay") {
      if ((st = need(&v)).ok() && (st = Count(opt, v, 0, 86400, &n)).ok()) o->engine.requeue_delay = n;
    } else if (opt == "--drain" || opt == "--resume") {
      if ((st = need(&v)).ok()) st = NodeEvent(opt, v, &o->node_events);
    } else if (opt == "--json") {
      st = need(&o->json_file);
    } else if (opt == "--events-json") {
      st = need(&o->events_json_file);
    } else if (opt == "--svg") {
      st = need(&o->svg_file);
    } else if (opt == "--svg-usage") {
      st = need(&o->svg_usage_file);
    } else if (opt == "--svg-start") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->svg_start);
    } else if (opt == "--svg-length") {
      if ((st = need(&v)).ok()) st = Duration(opt, v, &o->svg_length);
      if (st.ok() && o->svg_length <= 0) st = Status::InvalidArgument("--svg-length: must be > 0");
    } else if (opt == "--no-progress") {
      st = flag();
      o->progress = false;
    } else {
      st = Status::InvalidArgument(opt + ": unknown option (see --help)");
    }
    if (!st.ok()) return st;
  }
  if (o->help || o->version) return Status::Ok();
  if (int(!o->trace_file.empty()) + int(!o->scenario_file.empty()) + int(!o->family_file.empty()) != 1)
    return Status::InvalidArgument("give exactly one of --trace FILE, --generate SPEC and --generate-family SPEC");
  return Status::Ok();
}

}  // namespace sim
}  // namespace budget
