#include "sim/generator.h"

#include <json-c/json.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/rng.h"

namespace budget {
namespace sim {

namespace {

double Draw(const DurationDist& d, Rng* rng) {
  double v = d.a;
  switch (d.kind) {
    case DurationDist::Kind::kFixed: return d.a;
    case DurationDist::Kind::kUniform: return d.a + (d.b - d.a) * rng->Uniform();
    case DurationDist::Kind::kExponential: v = -d.a * std::log(rng->Uniform()); break;
    case DurationDist::Kind::kLognormal: v = d.a * std::exp(d.b * rng->Normal()); break;
  }
  return std::min(d.max, std::max(d.min, v));
}

// --- JSON parsing ---------------------------------------------------------

class SpecParser {
 public:
  explicit SpecParser(std::string source) : source_(std::move(source)) {}

  Status Error(const std::string& path, const std::string& why) {
    return Status::InvalidArgument(source_ + ": " + path + ": " + why);
  }

  Status Number(json_object* obj, const std::string& path, const char* key, double min,
                bool required, double* out) {
    json_object* v = nullptr;
    if (!json_object_object_get_ex(obj, key, &v)) {
      return required ? Error(path + "." + key, "required") : Status::Ok();
    }
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
      return Error(path + "." + key, "must be a number");
    double d = json_object_get_double(v);
    if (!std::isfinite(d) || d < min)
      return Error(path + "." + key, "must be a number >= " + Format(min));
    *out = d;
    return Status::Ok();
  }

  Status Parse(json_object* root, ScenarioSpec* spec) {
    if (!json_object_is_type(root, json_type_object)) return Error("$", "must be an object");
    double seed = double(spec->seed), start = 0;
    Status st;
    if (!(st = Number(root, "$", "seed", 0, false, &seed)).ok()) return st;
    if (!(st = Number(root, "$", "start", 0, false, &start)).ok()) return st;
    if (!(st = Number(root, "$", "days", 0, false, &spec->days)).ok()) return st;
    spec->seed = static_cast<uint64_t>(seed);
    spec->start = static_cast<TimePoint>(start);
    json_object* teams = nullptr;
    if (!json_object_object_get_ex(root, "teams", &teams) ||
        !json_object_is_type(teams, json_type_array))
      return Error("$.teams", "required, an array");
    for (size_t i = 0; i < json_object_array_length(teams); ++i) {
      std::string path = "$.teams[" + std::to_string(i) + "]";
      TeamSpec team;
      st = ParseTeam(json_object_array_get_idx(teams, i), path, &team);
      if (!st.ok()) return st;
      spec->teams.push_back(std::move(team));
    }
    return Status::Ok();
  }

 private:
  static std::string Format(double d) {
    std::ostringstream s;
    s << d;
    return s.str();
  }

  Status ParseTeam(json_object* obj, const std::string& path, TeamSpec* team) {
    if (!json_object_is_type(obj, json_type_object)) return Error(path, "must be an object");
    json_object* v = nullptr;
    if (!json_object_object_get_ex(obj, "account", &v) || !json_object_is_type(v, json_type_string) ||
        json_object_get_string_len(v) == 0)
      return Error(path + ".account", "required, a non-empty string");
    team->account = json_object_get_string(v);
    double users = 1;
    Status st = Number(obj, path, "users", 1, false, &users);
    if (!st.ok()) return st;
    team->users = static_cast<uint32_t>(users);
    json_object* streams = nullptr;
    if (!json_object_object_get_ex(obj, "streams", &streams) ||
        !json_object_is_type(streams, json_type_array))
      return Error(path + ".streams", "required, an array");
    for (size_t i = 0; i < json_object_array_length(streams); ++i) {
      StreamSpec s;
      st = ParseStream(json_object_array_get_idx(streams, i),
                       path + ".streams[" + std::to_string(i) + "]", &s);
      if (!st.ok()) return st;
      team->streams.push_back(std::move(s));
    }
    return Status::Ok();
  }

  Status ParseStream(json_object* obj, const std::string& path, StreamSpec* s) {
    if (!json_object_is_type(obj, json_type_object)) return Error(path, "must be an object");
    json_object* v = nullptr;
    if (json_object_object_get_ex(obj, "name", &v)) {
      if (!json_object_is_type(v, json_type_string)) return Error(path + ".name", "must be a string");
      s->name = json_object_get_string(v);
    }
    Status st = Number(obj, path, "per_hour", 0, true, &s->per_hour);
    if (!st.ok()) return st;
    if (!json_object_object_get_ex(obj, "gpus", &v) || !json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) == 0)
      return Error(path + ".gpus", "required, a non-empty array of GPU counts");
    s->gpus.clear();
    for (size_t i = 0; i < json_object_array_length(v); ++i) {
      json_object* g = json_object_array_get_idx(v, i);
      if (!json_object_is_type(g, json_type_int) || json_object_get_int64(g) < 1 ||
          json_object_get_int64(g) > (1 << 20))
        return Error(path + ".gpus[" + std::to_string(i) + "]", "must be an integer >= 1");
      s->gpus.push_back(static_cast<uint32_t>(json_object_get_int64(g)));
    }
    if (json_object_object_get_ex(obj, "gpus_weights", &v)) {
      if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != s->gpus.size())
        return Error(path + ".gpus_weights", "must be an array as long as gpus");
      for (size_t i = 0; i < json_object_array_length(v); ++i) {
        json_object* w = json_object_array_get_idx(v, i);
        double d = json_object_get_double(w);
        if ((!json_object_is_type(w, json_type_int) && !json_object_is_type(w, json_type_double)) ||
            !(d >= 0))
          return Error(path + ".gpus_weights[" + std::to_string(i) + "]", "must be a number >= 0");
        s->gpus_weights.push_back(d);
      }
    }
    if (!json_object_object_get_ex(obj, "duration", &v)) return Error(path + ".duration", "required");
    if (!(st = ParseDuration(v, path + ".duration", &s->duration)).ok()) return st;
    double d = 0;
    if (!(st = Number(obj, path, "min_runtime", 0, false, &d)).ok()) return st;
    s->min_runtime = static_cast<Seconds>(d);
    d = 0;
    if (!(st = Number(obj, path, "priority", 0, false, &d)).ok()) return st;
    s->priority = static_cast<uint32_t>(d);
    if (!(st = Number(obj, path, "unallocated_share", 0, false, &s->unallocated_share)).ok()) return st;
    if (s->unallocated_share > 1) return Error(path + ".unallocated_share", "must be in [0, 1]");
    if (json_object_object_get_ex(obj, "gpu_type", &v)) {
      if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0)
        return Error(path + ".gpu_type", "must be a non-empty string (a GPU type, e.g. \"b200\")");
      s->gpu_type = json_object_get_string(v);
    }
    if (json_object_object_get_ex(obj, "time_limit_factor", &v)) {
      // >= 1: a factor is headroom over the work; a limit shorter than the
      // work is for a trace to state per job, not for a stream to draw.
      if (!(st = Number(obj, path, "time_limit_factor", 1, true, &d)).ok()) return st;
      s->time_limit_factor = d;
    }
    if (!(st = Number(obj, path, "from_hour", 0, false, &s->from_hour)).ok()) return st;
    if (json_object_object_get_ex(obj, "hours", &v)) {
      if (!(st = Number(obj, path, "hours", 0, true, &d)).ok()) return st;
      s->hours = d;
    }
    if (json_object_object_get_ex(obj, "resumable", &v)) {
      if (!json_object_is_type(v, json_type_boolean)) return Error(path + ".resumable", "must be a boolean");
      s->resumable = json_object_get_boolean(v);
    }
    return Status::Ok();
  }

  Status ParseDuration(json_object* obj, const std::string& path, DurationDist* d) {
    if (!json_object_is_type(obj, json_type_object)) return Error(path, "must be an object");
    json_object* v = nullptr;
    std::string dist = "fixed";
    if (json_object_object_get_ex(obj, "dist", &v)) {
      if (!json_object_is_type(v, json_type_string)) return Error(path + ".dist", "must be a string");
      dist = json_object_get_string(v);
    }
    Status st;
    if (!(st = Number(obj, path, "min", 1, false, &d->min)).ok()) return st;
    if (!(st = Number(obj, path, "max", 1, false, &d->max)).ok()) return st;
    if (dist == "fixed") {
      d->kind = DurationDist::Kind::kFixed;
      st = Number(obj, path, "value", 1, true, &d->a);
    } else if (dist == "uniform") {
      d->kind = DurationDist::Kind::kUniform;
      d->a = d->min;
      d->b = d->max;
      if (!json_object_object_get_ex(obj, "min", &v) || !json_object_object_get_ex(obj, "max", &v))
        return Error(path, "uniform needs min and max");
      if (d->b < d->a) return Error(path + ".max", "must be >= min");
    } else if (dist == "exponential") {
      d->kind = DurationDist::Kind::kExponential;
      st = Number(obj, path, "mean", 1, true, &d->a);
    } else if (dist == "lognormal") {
      d->kind = DurationDist::Kind::kLognormal;
      st = Number(obj, path, "median", 1, true, &d->a);
      if (st.ok()) st = Number(obj, path, "sigma", 0, true, &d->b);
    } else {
      return Error(path + ".dist", "expected fixed, uniform, exponential or lognormal, got '" +
                                       dist + "'");
    }
    if (st.ok() && d->max < d->min) return Error(path + ".max", "must be >= min");
    return st;
  }

  std::string source_;
};

}  // namespace

Status ParseScenarioSpec(std::string_view json, const std::string& source, ScenarioSpec* out) {
  json_tokener* tok = json_tokener_new();
  json_object* root = json_tokener_parse_ex(tok, json.data(), static_cast<int>(json.size()));
  json_tokener_error err = json_tokener_get_error(tok);
  json_tokener_free(tok);
  if (root == nullptr || err != json_tokener_success) {
    if (root != nullptr) json_object_put(root);
    // An incomplete document leaves the tokener waiting for more.
    std::string why = err == json_tokener_continue || err == json_tokener_success
                          ? "unexpected end of data"
                          : json_tokener_error_desc(err);
    return Status::InvalidArgument(source + ": not valid JSON: " + why);
  }
  ScenarioSpec spec;
  Status st = SpecParser(source).Parse(root, &spec);
  json_object_put(root);
  if (st.ok()) *out = std::move(spec);
  return st;
}

Status ParseScenarioFile(const std::string& file, ScenarioSpec* out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::IOError(file + ": cannot open for reading");
  std::ostringstream buf;
  buf << in.rdbuf();
  return ParseScenarioSpec(buf.str(), file, out);
}

Status GenerateWorkload(const ScenarioSpec& spec, Workload* out, double time_limit_factor) {
  *out = Workload();
  if (spec.teams.empty()) return Status::InvalidArgument("scenario: no teams");
  if (!std::isfinite(time_limit_factor) || time_limit_factor < 1)
    return Status::InvalidArgument("scenario: time limit factor must be a finite number >= 1");
  const double end = static_cast<double>(spec.start) + spec.days * 86400.0;
  for (size_t t = 0; t < spec.teams.size(); ++t) {
    const TeamSpec& team = spec.teams[t];
    int32_t account = out->InternAccount(team.account);
    std::vector<int32_t> users;
    for (uint32_t u = 0; u < std::max<uint32_t>(1, team.users); ++u)
      users.push_back(out->InternUser(team.account + "-u" + std::to_string(u)));
    for (size_t k = 0; k < team.streams.size(); ++k) {
      const StreamSpec& s = team.streams[k];
      if (s.gpus.empty())
        return Status::InvalidArgument("scenario: team " + team.account + " stream " +
                                       std::to_string(k) + ": empty gpus list");
      if (!s.gpus_weights.empty() && s.gpus_weights.size() != s.gpus.size())
        return Status::InvalidArgument("scenario: team " + team.account + " stream " +
                                       std::to_string(k) + ": gpus_weights length");
      double weight_sum = 0;
      for (double w : s.gpus_weights) weight_sum += w;
      const double factor = s.time_limit_factor.value_or(time_limit_factor);
      if (!std::isfinite(factor) || factor < 1)
        return Status::InvalidArgument("scenario: team " + team.account + " stream " +
                                       std::to_string(k) + ": time_limit_factor must be a finite number >= 1");
      if (s.per_hour <= 0) continue;
      Rng rng(spec.seed * 0x100000001B3ULL + (t + 1) * 1000003ULL + (k + 1) * 7919ULL);
      double now = static_cast<double>(spec.start) + s.from_hour * 3600.0;
      const double stream_end = s.hours ? std::min(end, now + *s.hours * 3600.0) : end;
      for (;;) {
        now += -std::log(rng.Uniform()) * 3600.0 / s.per_hour;
        if (now >= stream_end) break;
        TraceJob job;
        job.submit = static_cast<TimePoint>(now);
        job.account = account;
        job.user = users[rng.Next() % users.size()];
        size_t pick = rng.Next() % s.gpus.size();
        if (weight_sum > 0) {
          double r = rng.Uniform() * weight_sum;
          for (pick = 0; pick + 1 < s.gpus.size() && r >= s.gpus_weights[pick]; ++pick)
            r -= s.gpus_weights[pick];
        }
        job.gpus = s.gpus[pick];
        job.duration = std::max<Seconds>(1, static_cast<Seconds>(std::llround(Draw(s.duration, &rng))));
        job.time_limit = DeriveTimeLimit(job.duration, factor);
        bool unallocated = s.unallocated_share > 0 && rng.Uniform() < s.unallocated_share;
        job.min_runtime = unallocated ? 0 : s.min_runtime;
        job.resumable = s.resumable;
        job.priority = s.priority;
        job.gpu_type = out->InternGpuType(s.gpu_type);
        out->jobs.push_back(job);
      }
    }
  }
  out->SortAndNumber();
  return out->Validate();
}

namespace {

json_object* DurationJson(const DurationDist& d) {
  json_object* o = json_object_new_object();
  switch (d.kind) {
    case DurationDist::Kind::kFixed:
      json_object_object_add(o, "dist", json_object_new_string("fixed"));
      json_object_object_add(o, "value", json_object_new_double(d.a));
      return o;
    case DurationDist::Kind::kUniform:
      json_object_object_add(o, "dist", json_object_new_string("uniform"));
      json_object_object_add(o, "min", json_object_new_double(d.a));
      json_object_object_add(o, "max", json_object_new_double(d.b));
      return o;
    case DurationDist::Kind::kExponential:
      json_object_object_add(o, "dist", json_object_new_string("exponential"));
      json_object_object_add(o, "mean", json_object_new_double(d.a));
      break;
    case DurationDist::Kind::kLognormal:
      json_object_object_add(o, "dist", json_object_new_string("lognormal"));
      json_object_object_add(o, "median", json_object_new_double(d.a));
      json_object_object_add(o, "sigma", json_object_new_double(d.b));
      break;
  }
  json_object_object_add(o, "min", json_object_new_double(d.min));
  json_object_object_add(o, "max", json_object_new_double(d.max));
  return o;
}

}  // namespace

std::string FormatScenarioSpec(const ScenarioSpec& spec) {
  json_object* root = json_object_new_object();
  json_object_object_add(root, "seed", json_object_new_int64(int64_t(spec.seed)));
  json_object_object_add(root, "start", json_object_new_int64(spec.start));
  json_object_object_add(root, "days", json_object_new_double(spec.days));
  json_object* teams = json_object_new_array();
  for (const TeamSpec& t : spec.teams) {
    json_object* team = json_object_new_object();
    json_object_object_add(team, "account", json_object_new_string(t.account.c_str()));
    json_object_object_add(team, "users", json_object_new_int64(t.users));
    json_object* streams = json_object_new_array();
    for (const StreamSpec& s : t.streams) {
      json_object* o = json_object_new_object();
      json_object_object_add(o, "name", json_object_new_string(s.name.c_str()));
      json_object_object_add(o, "per_hour", json_object_new_double(s.per_hour));
      json_object* gpus = json_object_new_array();
      for (uint32_t g : s.gpus) json_object_array_add(gpus, json_object_new_int64(g));
      json_object_object_add(o, "gpus", gpus);
      if (!s.gpus_weights.empty()) {
        json_object* w = json_object_new_array();
        for (double x : s.gpus_weights) json_object_array_add(w, json_object_new_double(x));
        json_object_object_add(o, "gpus_weights", w);
      }
      json_object_object_add(o, "duration", DurationJson(s.duration));
      json_object_object_add(o, "min_runtime", json_object_new_int64(s.min_runtime));
      json_object_object_add(o, "resumable", json_object_new_boolean(s.resumable));
      json_object_object_add(o, "priority", json_object_new_int64(s.priority));
      json_object_object_add(o, "unallocated_share", json_object_new_double(s.unallocated_share));
      if (s.time_limit_factor) json_object_object_add(o, "time_limit_factor", json_object_new_double(*s.time_limit_factor));
      if (s.from_hour > 0) json_object_object_add(o, "from_hour", json_object_new_double(s.from_hour));
      if (s.hours) json_object_object_add(o, "hours", json_object_new_double(*s.hours));
      json_object_array_add(streams, o);
    }
    json_object_object_add(team, "streams", streams);
    json_object_array_add(teams, team);
  }
  json_object_object_add(root, "teams", teams);
  std::string text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
  json_object_put(root);
  return text + "\n";
}

}  // namespace sim
}  // namespace budget
