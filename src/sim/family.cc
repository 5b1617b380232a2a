#include "sim/family.h"

#include <json-c/json.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/rng.h"

namespace budget {
namespace sim {

namespace {

// --- the spec ---------------------------------------------------------------

class FamilyParser {
 public:
  explicit FamilyParser(std::string source) : source_(std::move(source)) {}

  Status Parse(json_object* root, FamilySpec* spec) {
    if (!json_object_is_type(root, json_type_object)) return Error("$", "must be an object");
    Status st;
    double gpn = spec->gpus_per_node;
    if (!(st = Number(root, "days", 1.0 / 24, &spec->days)).ok()) return st;
    if (!(st = Number(root, "gpus_per_node", 1, &gpn)).ok()) return st;
    spec->gpus_per_node = uint32_t(gpn);
    struct R { const char* key; Range* range; double min, max; };
    for (R r : {R{"nodes", &spec->nodes, 1, 1 << 16}, R{"teams", &spec->teams, 1, 1000},
                R{"sub_teams", &spec->sub_teams, 1, 100}, R{"entitlement", &spec->entitlement, 0, 1},
                R{"demand", &spec->demand, 0.01, 100}, R{"debug_per_hour", &spec->debug_per_hour, 0, 1e4},
                R{"interactive_min_runtime", &spec->interactive_min_runtime, 60, 366 * 86400.0},
                R{"training_gpus", &spec->training_gpus, 1, 1 << 20},
                R{"training_min_runtime", &spec->training_min_runtime, 60, 366 * 86400.0},
                R{"hero_share", &spec->hero_share, 0, 1}, R{"free_share", &spec->free_share, 0, 1},
                R{"burst_hours", &spec->burst_hours, 0.1, 1e5}}) {
      if (!(st = RangeOf(root, r.key, r.min, r.max, r.range)).ok()) return st;
    }
    for (auto [key, p] : {std::pair<const char*, double*>{"interactive_probability", &spec->interactive_probability},
                          {"hero_probability", &spec->hero_probability},
                          {"burst_probability", &spec->burst_probability}}) {
      if (!(st = Number(root, key, 0, p)).ok()) return st;
      if (*p > 1) return Error(std::string("$.") + key, "must be a probability in [0, 1]");
    }
    json_object* v = nullptr;
    if (json_object_object_get_ex(root, "debug_gpus", &v)) {
      if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) == 0)
        return Error("$.debug_gpus", "must be a non-empty array of GPU counts");
      spec->debug_gpus.clear();
      for (size_t i = 0; i < json_object_array_length(v); ++i) {
        json_object* g = json_object_array_get_idx(v, i);
        if (!json_object_is_type(g, json_type_int) || json_object_get_int64(g) < 1 ||
            json_object_get_int64(g) > spec->gpus_per_node)
          return Error("$.debug_gpus[" + std::to_string(i) + "]", "must be an integer in [1, gpus_per_node]");
        spec->debug_gpus.push_back(uint32_t(json_object_get_int64(g)));
      }
    }
    return Status::Ok();
  }

 private:
  Status Error(const std::string& path, const std::string& why) {
    return Status::InvalidArgument(source_ + ": " + path + ": " + why);
  }
  Status Number(json_object* obj, const char* key, double min, double* out) {
    json_object* v = nullptr;
    if (!json_object_object_get_ex(obj, key, &v)) return Status::Ok();
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
      return Error(std::string("$.") + key, "must be a number");
    double d = json_object_get_double(v);
    if (!std::isfinite(d) || d < min) return Error(std::string("$.") + key, "must be a number >= " + Show(min));
    *out = d;
    return Status::Ok();
  }
  Status RangeOf(json_object* obj, const char* key, double min, double max, Range* out) {
    json_object* v = nullptr;
    if (!json_object_object_get_ex(obj, key, &v)) return Status::Ok();
    const std::string why = "must be [min, max] with " + Show(min) + " <= min <= max <= " + Show(max);
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 2)
      return Error(std::string("$.") + key, why);
    double d[2];
    for (size_t i = 0; i < 2; ++i) {
      json_object* x = json_object_array_get_idx(v, i);
      if (!json_object_is_type(x, json_type_int) && !json_object_is_type(x, json_type_double))
        return Error(std::string("$.") + key, why);
      d[i] = json_object_get_double(x);
    }
    if (!(d[0] >= min && d[0] <= d[1] && d[1] <= max)) return Error(std::string("$.") + key, why);
    *out = Range{d[0], d[1]};
    return Status::Ok();
  }
  static std::string Show(double d) {
    std::ostringstream s;
    s << d;
    return s.str();
  }
  std::string source_;
};

// --- the draw ---------------------------------------------------------------

double In(const Range& r, Rng* rng) { return r.min + (r.max - r.min) * rng->Uniform(); }
uint32_t IntIn(const Range& r, Rng* rng) {
  const double lo = std::ceil(r.min), hi = std::floor(r.max);
  if (hi <= lo) return uint32_t(lo);
  return uint32_t(lo) + uint32_t(rng->Next() % uint64_t(hi - lo + 1));
}
Seconds Minutes(double seconds) { return std::max<Seconds>(60, Seconds(std::llround(seconds / 60)) * 60); }

// Shares skewed by a lognormal (w_i = exp(N(0, 1))), normalised to sum 1
// and held in [min, max]: a share out of range is set to the bound, and the
// rest is shared among the others in proportion to their weights, until
// none is out of range (n x min <= 1 <= n x max: the spec's ranges allow
// it for every team count they allow).
std::vector<double> SkewedShares(size_t n, const Range& range, Rng* rng) {
  std::vector<double> w(n), share(n);
  for (double& x : w) x = std::exp(rng->Normal());
  std::vector<uint8_t> fixed(n, 0);
  for (size_t round = 0; round <= n; ++round) {
    double left = 1, weight = 0;
    for (size_t i = 0; i < n; ++i) {
      if (fixed[i]) left -= share[i];
      else weight += w[i];
    }
    bool changed = false;
    for (size_t i = 0; i < n; ++i) {
      if (fixed[i]) continue;
      share[i] = weight > 0 ? left * w[i] / weight : 0;
      if (share[i] > range.max || share[i] < range.min) {
        share[i] = std::min(range.max, std::max(range.min, share[i]));
        fixed[i] = 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return share;
}

// E[lognormal(median, sigma)] = median x exp(sigma^2 / 2) (clamps left out).
double LognormalMean(double median, double sigma) { return median * std::exp(sigma * sigma / 2); }

}  // namespace

Status ParseFamilySpec(std::string_view json, const std::string& source, FamilySpec* out) {
  json_tokener* tok = json_tokener_new();
  json_object* root = json_tokener_parse_ex(tok, json.data(), static_cast<int>(json.size()));
  json_tokener_error err = json_tokener_get_error(tok);
  json_tokener_free(tok);
  if (root == nullptr || err != json_tokener_success) {
    if (root != nullptr) json_object_put(root);
    return Status::InvalidArgument(source + ": not valid JSON");
  }
  FamilySpec spec;
  Status st = FamilyParser(source).Parse(root, &spec);
  json_object_put(root);
  if (st.ok()) *out = std::move(spec);
  return st;
}

Status ParseFamilyFile(const std::string& file, FamilySpec* out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::IOError(file + ": cannot open for reading");
  std::ostringstream buf;
  buf << in.rdbuf();
  return ParseFamilySpec(buf.str(), file, out);
}

uint64_t MixSeed(uint64_t family_seed, uint32_t k) {
  // Below 2^31: a scenario's seed is read back from JSON as a number.
  Rng rng(family_seed * 0x9E3779B97F4A7C15ULL + k);
  return 1 + rng.Next() % 0x7FFFFFFEULL;
}

Mix DrawMix(const FamilySpec& spec, uint64_t family_seed, uint32_t k) {
  Mix mix;
  mix.index = k;
  mix.seed = MixSeed(family_seed, k);
  Rng rng(mix.seed);
  mix.gpus_per_node = spec.gpus_per_node;
  mix.nodes = std::max<uint32_t>(1, IntIn(spec.nodes, &rng));
  const double capacity = double(mix.nodes) * mix.gpus_per_node;
  const uint32_t teams = std::max<uint32_t>(1, IntIn(spec.teams, &rng));
  std::vector<double> entitlement = SkewedShares(teams, spec.entitlement, &rng);
  mix.demand = In(spec.demand, &rng);
  const double hours = spec.days * 24;
  // GPU-seconds per hour the mix submits, and each team's part: its
  // entitlement times a lognormal factor, so some ask for more than their
  // share and some for less.
  const double work_per_hour = mix.demand * capacity * 3600;
  std::vector<double> asks(teams);
  double ask_sum = 0;
  for (uint32_t t = 0; t < teams; ++t) ask_sum += asks[t] = entitlement[t] * std::exp(0.8 * rng.Normal());

  // The hero: one team's, 25-50% of the cluster in whole nodes.
  const bool hero = rng.Uniform() < spec.hero_probability;
  const uint32_t hero_team = uint32_t(rng.Next() % teams);
  if (hero) {
    uint32_t nodes = std::max<uint32_t>(2, uint32_t(std::lround(In(spec.hero_share, &rng) * mix.nodes)));
    mix.hero_gpus = std::min(nodes, mix.nodes) * mix.gpus_per_node;
  }
  mix.thresholds.hero_min_gpus = hero ? mix.hero_gpus : uint32_t(capacity) + 1;
  // Training sizes: powers of 2 in the range, below the hero and at most
  // a quarter of the cluster (at least one node).
  std::vector<uint32_t> sizes;
  for (uint32_t g = 1; g <= uint32_t(spec.training_gpus.max); g *= 2) {
    if (g < spec.training_gpus.min || g > capacity / 4 || (hero && g >= mix.hero_gpus)) continue;
    sizes.push_back(g);
  }
  if (sizes.empty()) sizes.push_back(mix.gpus_per_node);

  std::string tree = "{\"name\":\"cluster\",\"children\":[";
  mix.scenario.seed = mix.seed;
  mix.scenario.start = 0;
  mix.scenario.days = spec.days;
  for (uint32_t t = 0; t < teams; ++t) {
    const std::string team = "t" + std::to_string(t + 1);
    const uint32_t subs = std::max<uint32_t>(1, IntIn(spec.sub_teams, &rng));
    const bool burst = rng.Uniform() < spec.burst_probability;
    const double burst_hours = In(spec.burst_hours, &rng);
    // Idle for the first half of the run at least, and the burst done
    // a few hours before its end.
    const double burst_from = hours / 2 + std::max(0.0, hours / 2 - burst_hours - 6) * rng.Uniform();
    const bool interactive = rng.Uniform() < spec.interactive_probability;
    const double free_share = In(spec.free_share, &rng);
    const Seconds train_min_runtime = Minutes(In(spec.training_min_runtime, &rng));
    const double train_median = 3600 * (2 + 10 * rng.Uniform());
    const double debug_per_hour = In(spec.debug_per_hour, &rng);
    char share[32];
    std::snprintf(share, sizeof share, "%.6g", 1000 * entitlement[t]);
    tree += std::string(t ? "," : "") + "{\"name\":\"" + team + "\",\"share\":" + share + ",\"children\":[";
    std::vector<double> sub_share(subs);
    double sub_sum = 0;
    for (double& s : sub_share) sub_sum += s = 1 + 2 * rng.Uniform();
    for (uint32_t s = 0; s < subs; ++s) {
      const std::string account = team + "-" + char('a' + s);
      std::snprintf(share, sizeof share, "%.6g", 100 * sub_share[s]);
      tree += std::string(s ? "," : "") + "{\"name\":\"" + account + "\",\"share\":" + share + ",\"account\":\"" +
              account + "\"}";
      const double part = sub_share[s] / sub_sum;
      const double team_work = work_per_hour * asks[t] / ask_sum * part;  // GPU-seconds per hour
      TeamSpec ts;
      ts.account = account;
      ts.users = 2 + uint32_t(rng.Next() % 4);
      // Debug: one size per sub-team, 7.5-15 min of work, protected 15
      // min (the debug class), time limit 2x: 15-30 min, no shorter than
      // the protection and within a 30-minute MaxWall.
      StreamSpec debug;
      debug.name = "debug";
      debug.per_hour = debug_per_hour * part;
      debug.gpus = {spec.debug_gpus[rng.Next() % spec.debug_gpus.size()]};
      debug.duration.kind = DurationDist::Kind::kUniform;
      debug.duration.a = debug.duration.min = 450;
      debug.duration.b = debug.duration.max = 900;
      debug.min_runtime = 900;
      debug.resumable = false;
      debug.priority = 10;
      ts.streams.push_back(debug);
      double train_work = team_work;
      if (interactive) {
        // Sessions of 1-8 GPUs protected for most of their length, up to
        // MaxMinRuntime: a tenth of the team's work.
        StreamSpec session;
        session.name = "interactive";
        session.gpus = {1, 2, 4, 8};
        session.min_runtime = Minutes(In(spec.interactive_min_runtime, &rng));
        session.duration.kind = DurationDist::Kind::kUniform;
        session.duration.a = session.duration.min = double(session.min_runtime);
        session.duration.b = session.duration.max = 1.5 * double(session.min_runtime);
        session.priority = 5;
        session.per_hour = 0.1 * team_work / (3.75 * 1.25 * double(session.min_runtime));
        train_work -= 0.1 * team_work;
        ts.streams.push_back(session);
      }
      StreamSpec train;
      train.name = "training";
      train.gpus = sizes;
      train.min_runtime = train_min_runtime;
      train.duration.kind = DurationDist::Kind::kLognormal;
      train.duration.a = std::max(train_median, double(train_min_runtime));
      train.duration.b = 0.6;
      // A run needs at least its protection: a time limit (2x) below the
      // min-runtime would be a contract no controller admits.
      train.duration.min = double(train_min_runtime);
      train.duration.max = 3 * 86400;
      train.priority = 1;
      train.unallocated_share = free_share;
      double mean_gpus = 0;
      for (uint32_t g : sizes) mean_gpus += g;
      mean_gpus /= double(sizes.size());
      train.per_hour = train_work / (mean_gpus * LognormalMean(train.duration.a, train.duration.b));
      if (burst) {
        // A week of the team's training submitted within burst_hours.
        train.from_hour = burst_from;
        train.hours = burst_hours;
        train.per_hour *= 7 * 24 / burst_hours;
      }
      ts.streams.push_back(train);
      if (hero && t == hero_team && s == 0) {
        // About one hero a day, 4-12 h long, protected 4 h.
        StreamSpec h;
        h.name = "hero";
        h.gpus = {mix.hero_gpus};
        h.duration.kind = DurationDist::Kind::kUniform;
        h.duration.a = h.duration.min = 4 * 3600;
        h.duration.b = h.duration.max = 12 * 3600;
        h.min_runtime = 4 * 3600;
        h.priority = 1;
        h.per_hour = 1.0 / (12 + 24 * rng.Uniform());
        ts.streams.push_back(h);
      }
      if (burst) mix.bursting.push_back(account);
      mix.scenario.teams.push_back(std::move(ts));
    }
    tree += "]}";
  }
  tree += "]}";
  mix.tree_json = tree;
  return mix;
}

}  // namespace sim
}  // namespace budget
