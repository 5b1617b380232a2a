// ReportSnapshot: JSON form, atomic file, and builders (report_snapshot.h).
#include "libbudget/report_snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include <json-c/json.h>

#include "libbudget/history_cache.h"
#include "libbudget/json_writer.h"
#include "libbudget/metrics.h"
#include "libbudget/time_string.h"

namespace budget {

namespace {

// ---------------------------------------------------------------- writing --

using JsonPtr = std::unique_ptr<json_object, decltype(&json_object_put)>;

// Written straight to text (json_writer.h): a json-c document of a
// 20,000-job snapshot cost ~0.6 s of the controller's CPU per write.
// Non-finite numbers are written as null (read back as +inf, the only
// non-finite value a snapshot holds).

void WriteTime(JsonWriter& w, TimePoint t) {
  if (t == SnapshotJob::kNoTime) {
    w.Null();
  } else {
    w.Int(t);
  }
}

void WriteRank(JsonWriter& w, uint32_t rank) {
  if (rank == FairShareOrder::kNoRank) {
    w.Null();
  } else {
    w.Int(rank);
  }
}

// A node's fields that only the tree sets, first in its object (the file
// writer keeps their text while the tree stays the same).
void WriteNodeTreeFields(JsonWriter& w, const SnapshotNode& n) {
  w.Key("path").String(n.path);
  w.Key("name").String(n.name);
  w.Key("depth").Int(n.depth);
  w.Key("owners").BeginArray();
  for (const std::string& owner : n.owners) w.String(owner);
  w.EndArray();
  w.Key("account").String(n.account);
  w.Key("user").String(n.user);
  w.Key("share").Double(n.share);
  w.Key("normalized_share").Double(n.normalized_share);
  w.Key("entitlement").Double(n.entitlement);
}

// Bit for bit: 0 and -0 are written differently.
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool SameTreeFields(const SnapshotNode& a, const SnapshotNode& b) {
  return a.path == b.path && a.name == b.name && a.depth == b.depth && a.owners == b.owners &&
         a.account == b.account && a.user == b.user && SameBits(a.share, b.share) &&
         SameBits(a.normalized_share, b.normalized_share) && SameBits(a.entitlement, b.entitlement);
}

// The fields each pass computes.
void WriteNodePassFields(JsonWriter& w, const SnapshotNode& n) {
  w.Key("window_usage").Double(n.window_usage);
  w.Key("usage_ratio").Double(n.usage_ratio);
  w.Key("unallocated").Double(n.unallocated);
  w.Key("owed").Double(n.owed);
  w.Key("delivered").Double(n.delivered);
  w.Key("running_gpus").Double(n.running_gpus);
  w.Key("pending_gpus").Double(n.pending_gpus);
  w.Key("sibling_ratio").Double(n.sibling_ratio);
  WriteRank(w.Key("rank"), n.rank);
}

void WriteNode(JsonWriter& w, const SnapshotNode& n) {
  w.BeginObject();
  WriteNodeTreeFields(w, n);
  WriteNodePassFields(w, n);
  w.EndObject();
}

// The columns of a job row (versions 2 and 3), in the order WriteJobRow writes
// them. Readers map columns by name (ColumnMap), so this order is the
// writer's choice, not part of the format.
constexpr const char* kJobFields[] = {
    "job_id",        "state",          "user",          "account",      "node_path",
    "gpus",          "contract_known", "min_runtime",   "resumable",    "user_priority",
    "priority",      "fairshare",      "rank",          "allocated",    "queue_position",
    "submit_time",   "start_time",     "protection_end", "preemption"};
// Whose absence from job_fields means "no job was preempted", as the key's
// absence did in version 1; every other column is required.
constexpr char kOptionalJobField[] = "preemption";

void WriteJobRow(JsonWriter& w, const SnapshotJob& j) {
  w.BeginArray();
  w.Int(j.job_id);
  w.String(SnapshotJobStateName(j.state));
  w.String(j.user);
  w.String(j.account);
  if (j.has_node) {
    w.String(j.node_path);
  } else {
    w.Null();
  }
  w.Int(j.gpus);
  w.Bool(j.contract_known);
  w.Int(j.min_runtime);
  w.Bool(j.resumable);
  w.Int(j.user_priority);
  w.Int(j.priority);
  w.Double(j.fairshare);
  WriteRank(w, j.rank);
  w.Bool(j.allocated);
  if (j.queue_position == SnapshotJob::kNoPosition) {
    w.Null();
  } else {
    w.Int(j.queue_position);
  }
  w.Int(j.submit_time);
  WriteTime(w, j.start_time);
  WriteTime(w, j.protection_end);
  if (j.has_preemption) {
    w.BeginObject();
    w.Key("preempted_by").Int(j.preemption.preempted_by);
    w.Key("rule").String(j.preemption.rule);
    w.Key("action").String(j.preemption.action);
    w.Key("at").Int(j.preemption.at);
    w.EndObject();
  } else {
    w.Null();
  }
  w.EndArray();
}

// History values, to 0.001 GPU-s (see the header: "History values").
double MilliRounded(double v) { return std::isfinite(v) ? std::round(v * 1000.0) / 1000.0 : v; }

void WriteMilliRounded(JsonWriter& w, const std::vector<double>& values) {
  w.BeginArray();
  for (double v : values) w.Double(MilliRounded(v));
  w.EndArray();
}

void WriteHistory(JsonWriter& w, const SnapshotHistory& h) {
  w.BeginObject();
  w.Key("path").String(h.path);
  w.Key("start").Int(h.start);
  w.Key("width").Int(h.width);
  WriteMilliRounded(w.Key("delivered"), h.delivered);
  WriteMilliRounded(w.Key("owed"), h.owed);
  w.EndObject();
}

// The document's head: every key before "nodes".
void WriteHead(JsonWriter& w, const ReportSnapshot& s) {
  w.BeginObject();
  w.Key("format").String(kReportSnapshotFormat);
  w.Key("version").Int(kReportSnapshotVersion);
  w.Key("generated_at").Int(s.generated_at);
  w.Key("tree_source").String(s.tree_source);
  w.Key("window").Int(s.window);
  w.Key("bucket_width").Int(s.bucket_width);
  w.Key("history_width").Int(s.history_width);
  w.Key("recalc_interval").Int(s.recalc_interval);
  w.Key("capacity_gpus").Double(s.capacity_gpus);
  if (s.has_fragmentation) {
    w.Key("fragmentation").Double(s.fragmentation);
  } else {
    w.Key("fragmentation").Null();
  }
  w.Key("tree_loaded").Bool(s.tree_loaded);
}

void WriteNodes(JsonWriter& w, const ReportSnapshot& s) {
  w.BeginArray();
  for (const SnapshotNode& n : s.nodes) WriteNode(w, n);
  w.EndArray();
}

// "job_fields" and "jobs" (empty without `rows`).
void WriteJobs(JsonWriter& w, const ReportSnapshot& s, bool rows) {
  w.Key("job_fields").BeginArray();
  for (const char* field : kJobFields) w.String(field);
  w.EndArray();
  w.Key("jobs").BeginArray();
  if (rows) {
    for (const SnapshotJob& j : s.jobs) WriteJobRow(w, j);
  }
  w.EndArray();
}

// kWhole: the report; kStandings: the same document with no job rows and
// no history (WriteStandingsSnapshot).
enum class SnapshotPart { kWhole, kStandings };

void WriteSnapshot(JsonWriter& w, const ReportSnapshot& s, SnapshotPart part = SnapshotPart::kWhole) {
  const bool whole = part == SnapshotPart::kWhole;
  WriteHead(w, s);
  WriteNodes(w.Key("nodes"), s);
  WriteJobs(w, s, whole);
  w.Key("history").BeginArray();
  if (whole) {
    for (const SnapshotHistory& h : s.history) WriteHistory(w, h);
  }
  w.EndArray();
  w.EndObject();
}

// ---------------------------------------------------------------- reading --

// The columns of the job rows (versions 2 and 3): which column holds each field this
// reader knows (job_fields' other columns are ignored).
class ColumnMap {
 public:
  // Reads the array of column names `fields` found at `path`; on error
  // (not an array of strings, a name twice, a required column missing)
  // sets *error, naming the place, and returns false.
  bool Read(const json_object* fields, const std::string& path, std::string* error) {
    if (!json_object_is_type(fields, json_type_array)) {
      *error = path + ": must be an array";
      return false;
    }
    width_ = json_object_array_length(fields);
    for (size_t i = 0; i < width_; ++i) {
      json_object* e = json_object_array_get_idx(fields, i);
      if (!json_object_is_type(e, json_type_string)) {
        *error = path + "[" + std::to_string(i) + "]: must be a string";
        return false;
      }
      const char* name = json_object_get_string(e);
      const char* known = KnownName(name);
      if (known == nullptr) continue;
      if (Find(known) >= 0) {
        *error = path + "[" + std::to_string(i) + "]: column \"" + name + "\" appears twice";
        return false;
      }
      columns_.emplace_back(known, static_cast<int>(i));
    }
    for (const char* field : kJobFields) {
      if (Find(field) < 0 && std::strcmp(field, kOptionalJobField) != 0) {
        *error = path + ": missing column \"" + field + "\"";
        return false;
      }
    }
    return true;
  }
  // The column of `field` (a kJobFields entry), or -1.
  int Find(const char* field) const {
    for (const auto& c : columns_) {
      if (c.first == field || std::strcmp(c.first, field) == 0) return c.second;
    }
    return -1;
  }
  size_t width() const { return width_; }

 private:
  static const char* KnownName(const char* name) {
    for (const char* field : kJobFields) {
      if (std::strcmp(field, name) == 0) return field;
    }
    return nullptr;
  }

  std::vector<std::pair<const char*, int>> columns_;  // (kJobFields entry, column)
  size_t width_ = 0;
};

// Reads typed fields of one JSON object, or of one job row through its
// ColumnMap, remembering the first error with its JSON path, so that a
// parse function reads as a list of fields whatever the layout.
class FieldReader {
 public:
  FieldReader(const json_object* obj, std::string path, std::string* error)
      : obj_(obj), path_(std::move(path)), error_(error) {}
  // REQUIRES: row is an array of columns->width() values.
  FieldReader(const json_object* row, const ColumnMap* columns, std::string path,
              std::string* error)
      : obj_(row), columns_(columns), path_(std::move(path)), error_(error) {}

  // Required fields: a missing key or a wrong type is an error.
  void Int(const char* key, int64_t* out, int64_t min, int64_t max) {
    json_object* v = Get(key, true);
    if (v == nullptr) return;
    if (!json_object_is_type(v, json_type_int)) return Fail(key, "must be an integer");
    int64_t x = json_object_get_int64(v);
    if (x < min || x > max) {
      return Fail(key, "must lie in [" + std::to_string(min) + ", " + std::to_string(max) +
                           "], got " + std::to_string(x));
    }
    *out = x;
  }
  template <typename T>
  void IntAs(const char* key, T* out, int64_t min, int64_t max) {
    int64_t x = 0;
    Int(key, &x, min, max);
    if (error_->empty()) *out = static_cast<T>(x);
  }
  // An integer or null (null gives `if_null`).
  template <typename T>
  void NullableInt(const char* key, T* out, int64_t min, int64_t max, T if_null) {
    json_object* v = nullptr;
    if (!Has(key, &v)) return;
    if (v == nullptr) {
      *out = if_null;
      return;
    }
    IntAs(key, out, min, max);
  }
  // A number; null reads as +inf (see the header).
  void Number(const char* key, double* out, bool nullable_inf = true) {
    json_object* v = nullptr;
    if (!Has(key, &v)) return;
    if (v == nullptr) {
      if (!nullable_inf) return Fail(key, "must be a number, got null");
      *out = std::numeric_limits<double>::infinity();
      return;
    }
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
      return Fail(key, "must be a number");
    }
    // What the writer writes: a finite number (JsonWriter::Double writes
    // any other as null). json-c reads 1e400 as inf.
    const double x = json_object_get_double(v);
    if (!std::isfinite(x)) return Fail(key, "must be a finite number");
    *out = x;
  }
  void Bool(const char* key, bool* out) {
    json_object* v = Get(key, true);
    if (v == nullptr) return;
    if (!json_object_is_type(v, json_type_boolean)) return Fail(key, "must be true or false");
    *out = json_object_get_boolean(v);
  }
  void String(const char* key, std::string* out) {
    json_object* v = Get(key, true);
    if (v == nullptr) return;
    if (!json_object_is_type(v, json_type_string)) return Fail(key, "must be a string");
    *out = json_object_get_string(v);
  }
  // A string, or null (then *present = false).
  void NullableString(const char* key, std::string* out, bool* present) {
    json_object* v = nullptr;
    if (!Has(key, &v)) return;
    *present = v != nullptr;
    if (v != nullptr) String(key, out);
  }
  void StringArray(const char* key, std::vector<std::string>* out) {
    json_object* v = Array(key);
    if (v == nullptr) return;
    for (size_t i = 0; i < json_object_array_length(v); ++i) {
      json_object* e = json_object_array_get_idx(v, i);
      if (!json_object_is_type(e, json_type_string)) {
        return FailAt(PathOf(key) + "[" + std::to_string(i) + "]", "must be a string");
      }
      out->push_back(json_object_get_string(e));
    }
  }
  void NumberArray(const char* key, std::vector<double>* out) {
    json_object* v = Array(key);
    if (v == nullptr) return;
    for (size_t i = 0; i < json_object_array_length(v); ++i) {
      json_object* e = json_object_array_get_idx(v, i);
      if (!json_object_is_type(e, json_type_double) && !json_object_is_type(e, json_type_int)) {
        return FailAt(PathOf(key) + "[" + std::to_string(i) + "]", "must be a number");
      }
      const double x = json_object_get_double(e);
      if (!std::isfinite(x)) return FailAt(PathOf(key) + "[" + std::to_string(i) + "]", "must be a finite number");
      out->push_back(x);
    }
  }
  // The array at `key` (required), or nullptr after an error.
  json_object* Array(const char* key) {
    json_object* v = Get(key, true);
    if (v == nullptr) return nullptr;
    if (!json_object_is_type(v, json_type_array)) {
      Fail(key, "must be an array");
      return nullptr;
    }
    return v;
  }
  // An optional object: nullptr when absent or null (not an error).
  json_object* OptionalObject(const char* key) {
    json_object* v = nullptr;
    if (failed() || !Lookup(key, &v) || v == nullptr) return nullptr;
    if (!json_object_is_type(v, json_type_object)) {
      Fail(key, "must be an object");
      return nullptr;
    }
    return v;
  }
  // The JSON path of `key`'s value: `$.jobs[3].state` in an object,
  // `$.jobs[3][1]` in a row.
  std::string PathOf(const std::string& key) const {
    if (columns_ == nullptr) return path_ + "." + key;
    const int column = columns_->Find(key.c_str());
    return column < 0 ? path_ : path_ + "[" + std::to_string(column) + "]";
  }
  // "<path>: <why>"; a row's cell also gets its column's name, as
  // `$.jobs[3][1] (state): ...`.
  void Fail(const std::string& key, const std::string& why) {
    if (columns_ == nullptr) return FailAt(PathOf(key), why);
    FailAt(PathOf(key) + " (" + key + ")", why);
  }
  bool failed() const { return !error_->empty(); }

 private:
  void FailAt(const std::string& where, const std::string& why) {
    if (error_->empty()) *error_ = where + ": " + why;
  }
  // Whether `key` is present (its value, maybe null, in *v).
  bool Lookup(const char* key, json_object** v) const {
    if (columns_ == nullptr) return json_object_object_get_ex(obj_, key, v);
    const int column = columns_->Find(key);
    if (column < 0) return false;
    *v = json_object_array_get_idx(obj_, static_cast<size_t>(column));
    return true;
  }
  // The value at `key` if present and non-null; an error if required.
  json_object* Get(const char* key, bool required) {
    if (failed()) return nullptr;
    json_object* v = nullptr;
    if (!Lookup(key, &v)) {
      if (required) Fail(key, "missing");
      return nullptr;
    }
    if (v == nullptr) {
      if (required) Fail(key, "must not be null");
      return nullptr;
    }
    return v;
  }
  // Whether the key is present (null included); an error if it is not.
  bool Has(const char* key, json_object** v) {
    if (failed()) return false;
    if (!Lookup(key, v)) {
      Fail(key, "missing");
      return false;
    }
    return true;
  }

  const json_object* obj_;
  const ColumnMap* columns_ = nullptr;  // null: obj_ is an object
  std::string path_;
  std::string* error_;
};

constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
constexpr int64_t kTimeMin = -Ledger::kTimeLimit;
constexpr int64_t kTimeMax = Ledger::kTimeLimit;

bool ParseJobState(const std::string& text, SnapshotJobState* out) {
  for (SnapshotJobState s :
       {SnapshotJobState::kPending, SnapshotJobState::kRunning, SnapshotJobState::kPreempted}) {
    if (text == SnapshotJobStateName(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

void ParseNode(const json_object* obj, const std::string& path, SnapshotNode* n,
               std::string* error) {
  FieldReader r(obj, path, error);
  r.String("path", &n->path);
  r.String("name", &n->name);
  r.IntAs("depth", &n->depth, 0, AllocationTree::kMaxDepth);
  r.StringArray("owners", &n->owners);
  r.String("account", &n->account);
  r.String("user", &n->user);
  r.Number("share", &n->share, false);
  r.Number("normalized_share", &n->normalized_share, false);
  r.Number("entitlement", &n->entitlement, false);
  r.Number("window_usage", &n->window_usage, false);
  r.Number("usage_ratio", &n->usage_ratio, false);
  r.Number("unallocated", &n->unallocated, false);
  r.Number("owed", &n->owed, false);
  r.Number("delivered", &n->delivered, false);
  r.Number("running_gpus", &n->running_gpus, false);
  r.Number("pending_gpus", &n->pending_gpus, false);
  r.Number("sibling_ratio", &n->sibling_ratio);
  r.NullableInt("rank", &n->rank, 0, kMaxU32 - 1, FairShareOrder::kNoRank);
}

// One job, from an object (version 1) or a row (versions 2, 3): the same
// fields either way.
void ParseJobFields(FieldReader& r, SnapshotJob* j, std::string* error) {
  r.IntAs("job_id", &j->job_id, 0, kMaxU32);
  std::string state;
  r.String("state", &state);
  if (!r.failed() && !ParseJobState(state, &j->state)) {
    r.Fail("state", "must be pending, running or preempted, got '" + state + "'");
  }
  r.String("user", &j->user);
  r.String("account", &j->account);
  r.NullableString("node_path", &j->node_path, &j->has_node);
  r.IntAs("gpus", &j->gpus, 0, kMaxU32);
  r.Bool("contract_known", &j->contract_known);
  r.IntAs("min_runtime", &j->min_runtime, 0, kMaxDuration);
  r.Bool("resumable", &j->resumable);
  r.IntAs("user_priority", &j->user_priority, 0, kMaxU32);
  r.IntAs("priority", &j->priority, 0, kMaxU32);
  r.Number("fairshare", &j->fairshare, false);
  r.NullableInt("rank", &j->rank, 0, kMaxU32 - 1, FairShareOrder::kNoRank);
  r.Bool("allocated", &j->allocated);
  r.NullableInt("queue_position", &j->queue_position, 0, kMaxU32 - 1, SnapshotJob::kNoPosition);
  r.IntAs("submit_time", &j->submit_time, kTimeMin, kTimeMax);
  r.NullableInt("start_time", &j->start_time, kTimeMin, kTimeMax, SnapshotJob::kNoTime);
  r.NullableInt("protection_end", &j->protection_end, kTimeMin, kTimeMax, SnapshotJob::kNoTime);
  json_object* p = r.OptionalObject("preemption");
  if (p != nullptr && !r.failed()) {
    j->has_preemption = true;
    FieldReader pr(p, r.PathOf("preemption"), error);
    pr.IntAs("preempted_by", &j->preemption.preempted_by, 0, kMaxU32);
    pr.String("rule", &j->preemption.rule);
    pr.String("action", &j->preemption.action);
    pr.IntAs("at", &j->preemption.at, kTimeMin, kTimeMax);
  }
}

void ParseJobObject(const json_object* obj, const std::string& path, SnapshotJob* j,
                    std::string* error) {
  FieldReader r(obj, path, error);
  ParseJobFields(r, j, error);
}

// Version 2: the rows of `jobs`, their columns named by `job_fields`.
void ParseJobRows(FieldReader* r, std::vector<SnapshotJob>* out, std::string* error) {
  json_object* fields = r->Array("job_fields");
  if (fields == nullptr) return;
  ColumnMap columns;
  if (!columns.Read(fields, r->PathOf("job_fields"), error)) return;
  json_object* rows = r->Array("jobs");
  if (rows == nullptr) return;
  const size_t n = json_object_array_length(rows);
  out->resize(n);
  for (size_t i = 0; i < n && error->empty(); ++i) {
    json_object* row = json_object_array_get_idx(rows, i);
    std::string where = r->PathOf("jobs") + "[" + std::to_string(i) + "]";
    if (!json_object_is_type(row, json_type_array)) {
      *error = where + ": must be an array (a job row)";
      return;
    }
    const size_t width = json_object_array_length(row);
    if (width != columns.width()) {
      *error = where + ": has " + std::to_string(width) + " values, job_fields names " +
               std::to_string(columns.width()) + " columns";
      return;
    }
    FieldReader cells(row, &columns, std::move(where), error);
    ParseJobFields(cells, &(*out)[i], error);
  }
}

void ParseHistory(const json_object* obj, const std::string& path, SnapshotHistory* h,
                  std::string* error) {
  FieldReader r(obj, path, error);
  r.String("path", &h->path);
  r.IntAs("start", &h->start, kTimeMin, kTimeMax);
  r.IntAs("width", &h->width, 1, kMaxDuration);
  r.NumberArray("delivered", &h->delivered);
  r.NumberArray("owed", &h->owed);
  if (!r.failed() && h->delivered.size() != h->owed.size()) {
    r.Fail("owed", "must have as many values as delivered (" +
                       std::to_string(h->delivered.size()) + "), got " +
                       std::to_string(h->owed.size()));
  }
}

// Parses every element of the array `key` of `obj` with `parse`.
template <typename T, typename ParseFn>
void ParseArray(FieldReader* r, const char* key, ParseFn parse, std::vector<T>* out,
                std::string* error) {
  json_object* arr = r->Array(key);
  if (arr == nullptr) return;
  size_t n = json_object_array_length(arr);
  out->resize(n);
  for (size_t i = 0; i < n && error->empty(); ++i) {
    json_object* e = json_object_array_get_idx(arr, i);
    std::string where = r->PathOf(key) + "[" + std::to_string(i) + "]";
    if (!json_object_is_type(e, json_type_object)) {
      *error = where + ": must be an object";
      return;
    }
    parse(e, where, &(*out)[i], error);
  }
}

// Version and format first, so that a newer file is refused by its version
// rather than by whatever field it changed.
void ParseSnapshotObject(const json_object* obj, ReportSnapshot* s, std::string* error) {
  FieldReader r(obj, "$", error);
  std::string format;
  r.String("format", &format);
  if (!r.failed() && format != kReportSnapshotFormat) {
    return r.Fail("format", std::string("must be \"") + kReportSnapshotFormat + "\", got \"" +
                                format + "\"");
  }
  int64_t version = 0;
  r.Int("version", &version, 1, std::numeric_limits<int32_t>::max());
  if (!r.failed() && version > kReportSnapshotVersion) {
    return r.Fail("version", "is " + std::to_string(version) +
                                 ", written by a newer slurm-budget; this sbudget reads up to " +
                                 std::to_string(kReportSnapshotVersion) + ": upgrade it");
  }
  s->version = static_cast<int>(version);
  r.IntAs("generated_at", &s->generated_at, kTimeMin, kTimeMax);
  r.String("tree_source", &s->tree_source);
  r.IntAs("window", &s->window, 1, kMaxDuration);
  r.IntAs("bucket_width", &s->bucket_width, 1, kMaxDuration);
  r.IntAs("history_width", &s->history_width, 1, kMaxDuration);
  r.IntAs("recalc_interval", &s->recalc_interval, 1, kMaxDuration);
  r.Number("capacity_gpus", &s->capacity_gpus, false);
  json_object* frag = nullptr;
  if (!r.failed() && json_object_object_get_ex(obj, "fragmentation", &frag) && frag != nullptr) {
    r.Number("fragmentation", &s->fragmentation, false);
    s->has_fragmentation = true;
  }
  s->tree_loaded = true;
  if (!r.failed() && json_object_object_get_ex(obj, "tree_loaded", nullptr)) r.Bool("tree_loaded", &s->tree_loaded);
  ParseArray(&r, "nodes", ParseNode, &s->nodes, error);
  if (s->version == 1) {
    ParseArray(&r, "jobs", ParseJobObject, &s->jobs, error);
  } else if (!r.failed()) {
    ParseJobRows(&r, &s->jobs, error);
  }
  ParseArray(&r, "history", ParseHistory, &s->history, error);
}

// --------------------------------------------------------------- file I/O --

std::string ErrnoText(int err) { return std::strerror(err); }

// Writes `pieces` in order, a batch of them per writev.
Status WritePieces(int fd, const std::vector<iovec>& pieces, const std::string& tmp) {
  constexpr size_t kBatch = 512;  // at most IOV_MAX (1024 on Linux)
  iovec batch[kBatch];
  size_t next = 0;    // the first piece not wholly written
  size_t written = 0;  // of which this many bytes were
  for (;;) {
    // Empty pieces are skipped: a batch of them alone would write 0 bytes.
    while (next < pieces.size() && pieces[next].iov_len == 0) ++next;
    if (next == pieces.size()) break;
    size_t count = 0;
    for (size_t i = next; i < pieces.size() && count < kBatch; ++i) batch[count++] = pieces[i];
    batch[0].iov_base = static_cast<char*>(batch[0].iov_base) + written;
    batch[0].iov_len -= written;
    ssize_t n = ::writev(fd, batch, static_cast<int>(count));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::IOError(tmp + ": write failed: " + ErrnoText(errno));
    size_t left = static_cast<size_t>(n);
    while (left > 0) {
      const size_t rest = pieces[next].iov_len - written;
      if (left < rest) {
        written += left;
        break;
      }
      left -= rest;
      ++next;
      written = 0;
    }
  }
  return Status::Ok();
}

Status WriteAllAndSync(const std::string& tmp, const std::vector<iovec>& pieces, bool sync) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(tmp + ": cannot create: " + ErrnoText(errno));
  Status s;
  // The umask may have narrowed the mode; users must be able to read it.
  if (::fchmod(fd, 0644) != 0) s = Status::IOError(tmp + ": chmod 0644 failed: " + ErrnoText(errno));
  if (s.ok()) s = WritePieces(fd, pieces, tmp);
  if (s.ok() && sync && ::fsync(fd) != 0) s = Status::IOError(tmp + ": fsync failed: " + ErrnoText(errno));
  if (::close(fd) != 0 && s.ok()) s = Status::IOError(tmp + ": close failed: " + ErrnoText(errno));
  return s;
}

Status SyncDirectoryOf(const std::string& file) {
  size_t slash = file.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : file.substr(0, slash));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(dir + ": cannot open directory to fsync: " + ErrnoText(errno));
  Status s;
  if (::fsync(fd) != 0) s = Status::IOError(dir + ": fsync of directory failed: " + ErrnoText(errno));
  ::close(fd);
  return s;
}

// ---------------------------------------------------------------- builders --

// Slot k of the window ending at now starts at first + k*width, where the
// last slot holds now; window / width slots (at least one).

}  // namespace

const char* SnapshotJobStateName(SnapshotJobState state) {
  switch (state) {
    case SnapshotJobState::kPending: return "pending";
    case SnapshotJobState::kRunning: return "running";
    case SnapshotJobState::kPreempted: return "preempted";
  }
  return "pending";
}

const SnapshotNode* ReportSnapshot::FindNode(std::string_view path) const {
  for (const SnapshotNode& n : nodes) {
    if (n.path == path) return &n;
  }
  return nullptr;
}

const SnapshotJob* ReportSnapshot::FindJob(uint32_t job_id) const {
  for (const SnapshotJob& j : jobs) {
    if (j.job_id == job_id) return &j;
  }
  return nullptr;
}

Seconds ReportSnapshot::StaleAfter() const {
  return std::max<Seconds>(kStaleIntervals * recalc_interval, kMinStaleAge);
}

void FormatReportSnapshotInto(const ReportSnapshot& snapshot, std::string* out) {
  out->clear();
  // Measured on the benchmark's snapshot: ~140 bytes per job row, ~380 per
  // node, ~9 per history value. A little over, so that a first write does
  // not regrow (and copy) the buffer at 90%; a kept buffer has the room.
  size_t history_values = 0;
  for (const SnapshotHistory& h : snapshot.history) {
    history_values += h.delivered.size() + h.owed.size();
  }
  const size_t estimate = 4096 + 150 * snapshot.jobs.size() + 400 * snapshot.nodes.size() +
                          100 * snapshot.history.size() + 10 * history_values;
  if (out->capacity() < estimate) out->reserve(estimate);
  JsonWriter w(out);
  WriteSnapshot(w, snapshot);
  out->push_back('\n');
}

std::string FormatReportSnapshot(const ReportSnapshot& snapshot) {
  std::string text;
  FormatReportSnapshotInto(snapshot, &text);
  return text;
}

Status ParseReportSnapshot(std::string_view json, const std::string& source,
                           ReportSnapshot* out) {
  if (json.size() > kMaxReportSnapshotBytes) {
    return Status::Corruption(source + ": " + std::to_string(json.size()) +
                              " bytes, more than the " +
                              std::to_string(kMaxReportSnapshotBytes) + " a snapshot may hold");
  }
  std::unique_ptr<json_tokener, decltype(&json_tokener_free)> tok(json_tokener_new(),
                                                                    json_tokener_free);
  if (!tok) return Status::IOError(source + ": out of memory");
  JsonPtr root(json_tokener_parse_ex(tok.get(), json.data(), static_cast<int>(json.size())),
               json_object_put);
  json_tokener_error jerr = json_tokener_get_error(tok.get());
  if (jerr == json_tokener_continue) {
    return Status::Corruption(source + ": not a complete JSON document (truncated?)");
  }
  if (jerr != json_tokener_success || !root) {
    return Status::Corruption(source + ": not JSON at byte " +
                              std::to_string(json_tokener_get_parse_end(tok.get())) + ": " +
                              json_tokener_error_desc(jerr));
  }
  size_t end = json_tokener_get_parse_end(tok.get());
  if (json.find_first_not_of(" \t\r\n", end) != std::string_view::npos) {
    return Status::Corruption(source + ": trailing data after the JSON document at byte " +
                              std::to_string(end));
  }
  if (!json_object_is_type(root.get(), json_type_object)) {
    return Status::Corruption(source + ": $: must be an object");
  }
  ReportSnapshot parsed;
  std::string error;
  ParseSnapshotObject(root.get(), &parsed, &error);
  if (!error.empty()) return Status::Corruption(source + ": " + error);
  *out = std::move(parsed);
  return Status::Ok();
}

Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file) {
  std::string text;
  return WriteReportSnapshot(snapshot, file, &text);
}

namespace {

// `pieces`, one after the other, to `file` atomically (tmp, fsync, rename,
// directory fsync). `sync` false: replaced atomically, but not forced to
// disk (see ReportFileWriter).
Status ReplaceFileWith(const std::string& file, const std::vector<iovec>& pieces, bool sync) {
  std::string tmp = file + ".tmp";
  Status s = WriteAllAndSync(tmp, pieces, sync);
  if (s.ok() && ::rename(tmp.c_str(), file.c_str()) != 0) {
    s = Status::IOError(file + ": rename from " + tmp + " failed: " + ErrnoText(errno));
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return sync ? SyncDirectoryOf(file) : Status::Ok();
}

Status ReplaceFileWith(const std::string& file, const std::string& text) {
  return ReplaceFileWith(file, {iovec{const_cast<char*>(text.data()), text.size()}}, /*sync=*/true);
}

}  // namespace

Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file,
                           std::string* scratch) {
  FormatReportSnapshotInto(snapshot, scratch);
  return ReplaceFileWith(file, *scratch);
}

Status WriteStandingsSnapshot(const ReportSnapshot& report, const std::string& file,
                              std::string* scratch) {
  scratch->clear();
  JsonWriter w(scratch);
  WriteSnapshot(w, report, SnapshotPart::kStandings);
  scratch->push_back('\n');
  return ReplaceFileWith(file, *scratch);
}

void ReportFileWriter::AppendValue(double value, std::string* out) {
  value_text_.clear();
  JsonWriter(&value_text_).Double(MilliRounded(value));
  *out += value_text_;
  ++history_values_formatted_;
}

void ReportFileWriter::FormatClosedHistory(const SubtreeHistoryCache& cache, int max_depth) {
  closed_text_.clear();
  closed_ends_.clear();
  closed_nodes_.clear();
  const size_t slots = cache.slots();
  // As WriteHistory writes a SnapshotHistory, up to each last value.
  for (size_t id = 0; id < cache.node_count(); ++id) {
    if (cache.depth(id) > max_depth) continue;
    closed_nodes_.push_back(id);
    closed_text_ += "{\"path\":";
    value_text_.clear();
    JsonWriter(&value_text_).String(slots > 0 ? cache.path(id) : std::string());
    closed_text_ += value_text_;
    closed_text_ += ",\"start\":" + std::to_string(slots > 0 ? cache.start() : 0);
    closed_text_ += ",\"width\":" + std::to_string(slots > 0 ? cache.width() : 0);
    closed_text_ += ",\"delivered\":[";
    for (size_t k = 0; k + 1 < slots; ++k) {
      AppendValue(cache.delivered(id, k), &closed_text_);
      closed_text_.push_back(',');
    }
    closed_ends_.push_back(static_cast<uint32_t>(closed_text_.size()));
    closed_text_ += "],\"owed\":[";
    for (size_t k = 0; k + 1 < slots; ++k) {
      AppendValue(cache.owed(id, k), &closed_text_);
      closed_text_.push_back(',');
    }
    closed_ends_.push_back(static_cast<uint32_t>(closed_text_.size()));
  }
  closed_generation_ = cache.closed_generation();
  closed_depth_ = max_depth;
}

void ReportFileWriter::AddPiece(const char* data, size_t size) {
  if (size > 0) pieces_.push_back(iovec{const_cast<char*>(data), size});
}

void ReportFileWriter::AddHistoryPieces(const SubtreeHistoryCache& cache) {
  const size_t slots = cache.slots();
  // First every last value, so that last_text_ no longer moves.
  last_text_.clear();
  last_ends_.clear();
  for (size_t id : closed_nodes_) {
    if (slots == 0) break;
    AppendValue(cache.delivered(id, slots - 1), &last_text_);
    last_ends_.push_back(static_cast<uint32_t>(last_text_.size()));
    AppendValue(cache.owed(id, slots - 1), &last_text_);
    last_ends_.push_back(static_cast<uint32_t>(last_text_.size()));
  }
  AddPiece("[", 1);
  uint32_t begin = 0, last_begin = 0;
  for (size_t e = 0; e < closed_nodes_.size(); ++e) {
    if (e > 0) AddPiece(",", 1);
    const uint32_t delivered_end = closed_ends_[2 * e], owed_end = closed_ends_[2 * e + 1];
    AddPiece(closed_text_.data() + begin, delivered_end - begin);
    if (slots > 0) {
      AddPiece(last_text_.data() + last_begin, last_ends_[2 * e] - last_begin);
      last_begin = last_ends_[2 * e];
    }
    AddPiece(closed_text_.data() + delivered_end, owed_end - delivered_end);
    if (slots > 0) {
      AddPiece(last_text_.data() + last_begin, last_ends_[2 * e + 1] - last_begin);
      last_begin = last_ends_[2 * e + 1];
    }
    AddPiece("]}", 2);
    begin = owed_end;
  }
  AddPiece("]", 1);
}

void ReportFileWriter::FormatTreeFields(const std::vector<SnapshotNode>& nodes) {
  tree_text_.clear();
  tree_ends_.clear();
  tree_nodes_.clear();
  for (const SnapshotNode& n : nodes) {
    JsonWriter w(&tree_text_);
    w.BeginObject();
    WriteNodeTreeFields(w, n);
    tree_ends_.push_back(static_cast<uint32_t>(tree_text_.size()));
    tree_nodes_.push_back(n);  // only its tree fields are compared
  }
  ++tree_formats_;
}

void ReportFileWriter::FormatNodes(const std::vector<SnapshotNode>& nodes) {
  bool same_tree = nodes.size() == tree_nodes_.size();
  for (size_t i = 0; same_tree && i < nodes.size(); ++i) same_tree = SameTreeFields(nodes[i], tree_nodes_[i]);
  if (!same_tree) FormatTreeFields(nodes);
  nodes_text_.assign(1, '[');
  uint32_t begin = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) nodes_text_.push_back(',');
    nodes_text_.append(tree_text_, begin, tree_ends_[i] - begin);
    begin = tree_ends_[i];
    // The pass's fields as an object of their own, whose '{' becomes the
    // ',' after the tree's fields.
    value_text_.clear();
    JsonWriter w(&value_text_);
    w.BeginObject();
    WriteNodePassFields(w, nodes[i]);
    w.EndObject();
    nodes_text_.push_back(',');
    nodes_text_.append(value_text_, 1, std::string::npos);
  }
  nodes_text_.push_back(']');
}

Status ReportFileWriter::Write(const ReportSnapshot& report, const std::string& report_file,
                               const std::string& standings_file, const SubtreeHistoryCache* history,
                               int history_max_depth, const std::string& report_copy) {
  FormatNodes(report.nodes);

  history_values_formatted_ = 0;
  if (history == nullptr) {
    history_text_.clear();
    JsonWriter hw(&history_text_);
    hw.BeginArray();
    for (const SnapshotHistory& h : report.history) {
      WriteHistory(hw, h);
      history_values_formatted_ += h.delivered.size() + h.owed.size();
    }
    hw.EndArray();
  } else if (closed_generation_ == 0 || closed_generation_ != history->closed_generation() ||
             closed_depth_ != history_max_depth) {
    FormatClosedHistory(*history, history_max_depth);
  }

  // The file is written from the pieces where they lie (writev): the text
  // around the nodes and the history, the nodes' text, and the history's
  // closed text with each series' last value. Copied into one buffer, those
  // megabytes were touched twice more per pass.
  text_.clear();
  JsonWriter w(&text_);
  WriteHead(w, report);
  w.Key("nodes").Raw("[]");
  const size_t nodes_at = text_.size() - 2;
  WriteJobs(w, report, /*rows=*/true);
  w.Key("history").Raw("[]");
  const size_t history_at = text_.size() - 2;
  w.EndObject();
  text_.push_back('\n');
  // Raw("[]") left a place for each: the text resumes 2 bytes after it.
  pieces_.clear();
  AddPiece(text_.data(), nodes_at);
  AddPiece(nodes_text_.data(), nodes_text_.size());
  AddPiece(text_.data() + nodes_at + 2, history_at - (nodes_at + 2));
  if (history == nullptr) {
    AddPiece(history_text_.data(), history_text_.size());
  } else {
    AddHistoryPieces(*history);
  }
  AddPiece(text_.data() + history_at + 2, text_.size() - (history_at + 2));
  Status s = ReplaceFileWith(report_file, pieces_, /*sync=*/false);
  if (!report_copy.empty()) {
    Status copied = ReplaceFileWith(report_copy, pieces_, /*sync=*/false);
    if (s.ok()) s = copied;
  }
  if (standings_file.empty()) return s;

  text_.clear();
  JsonWriter sw(&text_);
  WriteHead(sw, report);
  sw.Key("nodes").Raw("[]");
  const size_t standings_nodes_at = text_.size() - 2;
  WriteJobs(sw, report, /*rows=*/false);
  sw.Key("history").BeginArray().EndArray();
  sw.EndObject();
  text_.push_back('\n');
  pieces_.clear();
  AddPiece(text_.data(), standings_nodes_at);
  AddPiece(nodes_text_.data(), nodes_text_.size());
  AddPiece(text_.data() + standings_nodes_at + 2, text_.size() - (standings_nodes_at + 2));
  Status standings = ReplaceFileWith(standings_file, pieces_, /*sync=*/false);
  return s.ok() ? standings : s;
}

Status ReadReportSnapshot(const std::string& file, ReportSnapshot* out) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound(file + ": no such file");
    return Status::IOError(file + ": cannot stat: " + ErrnoText(errno));
  }
  if (!S_ISREG(st.st_mode)) return Status::IOError(file + ": not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::IOError(file + ": cannot open: " + ErrnoText(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::IOError(file + ": read failed");
  std::string text = buf.str();
  if (text.empty()) return Status::Corruption(file + ": empty file");
  return ParseReportSnapshot(text, file, out);
}

TimePoint HistoryFirstSlot(TimePoint now, Seconds window, Seconds width) {
  int64_t slots = std::max<int64_t>(1, window / width);
  int64_t last = now >= 0 ? now / width : -((-now + width - 1) / width);
  return (last - slots + 1) * width;
}

namespace {

// The two steps of SubtreeDeliveredAndOwed, over every slot of the grid of
// `width`-wide slots that starts at `first` (SubtreeHistoryCache
// computes the same in its own layout; its tests compare the two bitwise):
//   - AddOwnSlots adds `path`'s own demand and allocated GPU-s per slot
//     (one ledger read each) into demand[k] and delivered[k], which hold
//     the grid's slot count;
//   - SumSubtreesAndCapOwed adds each node's series into its parent's,
//     children before parents (a child's id is above its parent's:
//     tree.h), then caps each owed value at the node's entitlement
//     (metrics.h OwedInHour).
void AddOwnSlots(const Ledger& ledger, const std::string& path, TimePoint first, Seconds width,
                 std::vector<double>* demand, std::vector<double>* delivered) {
  const size_t slots = demand->size();
  const TimePoint end = first + static_cast<TimePoint>(slots) * width;
  const struct {
    Ledger::Series series;
    std::vector<double>* into;
  } wanted[] = {{Ledger::Series::kDemand, demand}, {Ledger::Series::kAllocated, delivered}};
  for (const auto& w : wanted) {
    Ledger::History read = ledger.SeriesHistory(path, w.series, first, end, width);
    for (size_t i = 0; i < read.gpu_seconds.size(); ++i) {
      int64_t slot = (read.start - first) / width + static_cast<int64_t>(i);
      if (slot >= 0 && static_cast<size_t>(slot) < slots) (*w.into)[slot] += read.gpu_seconds[i];
    }
  }
}

void SumSubtreesAndCapOwed(const AllocationTree& tree, double capacity_gpus, Seconds width,
                           std::vector<SnapshotHistory>* series) {
  for (size_t id = tree.size(); id-- > 1;) {
    SnapshotHistory& child = (*series)[id];
    SnapshotHistory& parent = (*series)[static_cast<size_t>(tree.node(static_cast<NodeId>(id)).parent)];
    for (size_t k = 0; k < child.owed.size(); ++k) {
      parent.owed[k] += child.owed[k];
      parent.delivered[k] += child.delivered[k];
    }
  }
  for (size_t id = 0; id < tree.size(); ++id) {
    const double entitlement = tree.node(static_cast<NodeId>(id)).entitlement;
    for (double& owed : (*series)[id].owed) owed = OwedInHour(owed, entitlement, capacity_gpus, width);
  }
}

}  // namespace

void SubtreeDeliveredAndOwedInto(const AllocationTree& tree, double capacity_gpus, Seconds window,
                                 TimePoint now, const Ledger& ledger,
                                 std::vector<SnapshotHistory>* out) {
  out->resize(tree.size());
  const Seconds width = ledger.options().report_bucket_width;
  if (width <= 0 || window <= 0) {
    for (SnapshotHistory& h : *out) h = SnapshotHistory();
    return;
  }
  const size_t slots = static_cast<size_t>(std::max<int64_t>(1, window / width));
  const TimePoint first = HistoryFirstSlot(now, window, width);
  // Each node's own hourly demand and delivery (one ledger read per charged
  // path), then subtrees summed in one reverse scan, then each node's summed
  // demand capped at its entitlement (history_cache.h: the steps are shared
  // with SubtreeHistoryCache). O(nodes x hours), not O(nodes x depth x
  // buckets). `owed` holds the demand until the cap; assign() keeps the
  // vectors' memory, so a caller that keeps *out allocates nothing.
  for (size_t id = 0; id < tree.size(); ++id) {
    SnapshotHistory& h = (*out)[id];
    h.path = tree.node(static_cast<NodeId>(id)).path;
    h.start = first;
    h.width = width;
    h.delivered.assign(slots, 0.0);
    h.owed.assign(slots, 0.0);
    if (ledger.HasPath(h.path)) AddOwnSlots(ledger, h.path, first, width, &h.owed, &h.delivered);
  }
  SumSubtreesAndCapOwed(tree, capacity_gpus, width, out);
}

std::vector<SnapshotHistory> SubtreeDeliveredAndOwed(const AllocationTree& tree,
                                                     double capacity_gpus, Seconds window,
                                                     TimePoint now, const Ledger& ledger) {
  std::vector<SnapshotHistory> out;
  SubtreeDeliveredAndOwedInto(tree, capacity_gpus, window, now, ledger, &out);
  return out;
}


Status BuildSnapshotNodes(const AllocationTree& tree, const FairShareOrder& order,
                          const std::vector<NodeActivity>& activity, TimePoint now,
                          Ledger* ledger, ReportSnapshot* snapshot, int history_max_depth,
                          SubtreeHistoryCache* history_cache) {
  if (order.size() != tree.size()) {
    return Status::InvalidArgument("BuildSnapshotNodes: the order covers " +
                                   std::to_string(order.size()) + " nodes, the tree " +
                                   std::to_string(tree.size()));
  }
  if (!activity.empty() && activity.size() != tree.size()) {
    return Status::InvalidArgument("BuildSnapshotNodes: activity has " +
                                   std::to_string(activity.size()) + " entries, the tree " +
                                   std::to_string(tree.size()) + " nodes");
  }
  // With a history wanted and no cache, the series of every node are built
  // in snapshot->history itself (its memory is reused from the previous
  // report), then trimmed to the wanted depth.
  std::vector<SnapshotHistory> local_metrics;
  std::vector<SnapshotHistory>& built =
      history_max_depth >= 0 && history_cache == nullptr ? snapshot->history : local_metrics;
  if (history_cache != nullptr) {
    history_cache->Update(tree, snapshot->capacity_gpus, snapshot->window, now, ledger);
  } else {
    SubtreeDeliveredAndOwedInto(tree, snapshot->capacity_gpus, snapshot->window, now, *ledger, &built);
  }
  snapshot->history_width = ledger->options().report_bucket_width;
  // In place: a snapshot kept from one report to the next keeps its nodes'
  // memory (freed, the 1,000-node vector went back to the kernel and
  // faulted back in at every report).
  std::vector<SnapshotNode>& nodes = snapshot->nodes;
  nodes.resize(tree.size());
  for (size_t i = 0; i < tree.size(); ++i) {
    const NodeId id = static_cast<NodeId>(i);
    const TreeNode& t = tree.node(id);
    SnapshotNode& n = nodes[i];
    n.path = t.path;
    n.name = t.name;
    n.depth = t.depth;
    n.owners = t.owners;
    n.account = t.account;
    n.user = t.user;
    n.share = t.share;
    n.normalized_share = t.normalized_share;
    n.entitlement = t.entitlement;
    n.window_usage = order.standing(id).window_usage;
    n.usage_ratio = order.standing(id).usage_ratio;
    n.rank = order.standing(id).rank;
    n.sibling_ratio = order.sibling_ratio(id);
    n.unallocated = ledger->WindowUsage(t.path, Ledger::Series::kUnallocated, now);
    n.running_gpus = activity.empty() ? 0.0 : activity[i].running_gpus;
    n.pending_gpus = activity.empty() ? 0.0 : activity[i].pending_gpus;
    if (history_cache != nullptr) {
      n.delivered = history_cache->delivered_total(i);
      n.owed = history_cache->owed_total(i);
    } else {
      n.delivered = 0.0;
      n.owed = 0.0;
      for (double v : built[i].delivered) n.delivered += v;
      for (double v : built[i].owed) n.owed += v;
    }
  }
  // Subtree sums of the direct figures, children before parents.
  for (size_t i = tree.size(); i-- > 1;) {
    SnapshotNode& parent = nodes[tree.node(static_cast<NodeId>(i)).parent];
    parent.unallocated += nodes[i].unallocated;
    parent.running_gpus += nodes[i].running_gpus;
    parent.pending_gpus += nodes[i].pending_gpus;
  }
  if (history_max_depth >= 0 && history_cache != nullptr) {
    size_t kept = 0;  // pre-order kept
    for (size_t i = 0; i < tree.size(); ++i) {
      if (tree.node(static_cast<NodeId>(i)).depth > history_max_depth) continue;
      if (kept == snapshot->history.size()) snapshot->history.emplace_back();
      history_cache->CopySeries(i, &snapshot->history[kept++]);
    }
    snapshot->history.resize(kept);
  } else if (history_max_depth >= 0) {
    size_t kept = 0;  // pre-order kept: a stable partition by depth
    for (size_t i = 0; i < built.size(); ++i) {
      if (tree.node(static_cast<NodeId>(i)).depth > history_max_depth) continue;
      if (kept != i) std::swap(built[kept], built[i]);
      ++kept;
    }
    built.resize(kept);
  }
  return Status::Ok();
}

void BuildSnapshotHistory(const AllocationTree& tree, int max_depth, TimePoint now,
                          const Ledger& ledger, ReportSnapshot* snapshot) {
  std::vector<SnapshotHistory> metrics =
      SubtreeDeliveredAndOwed(tree, snapshot->capacity_gpus, snapshot->window, now, ledger);
  snapshot->history_width = ledger.options().report_bucket_width;
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (tree.node(static_cast<NodeId>(i)).depth <= max_depth) {
      snapshot->history.push_back(std::move(metrics[i]));
    }
  }
}

void RankSnapshotJobs(const AllocationTree& tree, const FairShareOrder& order,
                      std::vector<SnapshotJob>* jobs) {
  std::vector<PendingJob> pending;
  for (SnapshotJob& j : *jobs) {
    PendingJob p;
    p.job_id = j.job_id;
    p.node = j.has_node ? tree.Find(j.node_path) : kNoNode;
    // Work that maps to no node is unallocated whatever its contract says:
    // the priority plugin orders it so (priority_pass.h ToPendingJob).
    p.allocated = p.node != kNoNode && j.min_runtime > 0;
    p.user_priority = j.user_priority;
    p.submit_time = j.submit_time;
    PriorityFactors f;
    j.priority = order.Priority(p, &f);
    j.fairshare = f.fairshare;
    j.rank = f.rank;
    j.allocated = f.allocated;
    j.queue_position = SnapshotJob::kNoPosition;
    if (j.state == SnapshotJobState::kPending) pending.push_back(p);
  }
  order.SortJobs(&pending);
  // Job ids are unique among pending jobs; index them to assign positions.
  std::vector<std::pair<uint32_t, uint32_t>> position;  // (job id, position)
  position.reserve(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    position.emplace_back(pending[i].job_id, static_cast<uint32_t>(i));
  }
  std::sort(position.begin(), position.end());
  for (SnapshotJob& j : *jobs) {
    if (j.state != SnapshotJobState::kPending) continue;
    auto it = std::lower_bound(position.begin(), position.end(),
                               std::make_pair(j.job_id, uint32_t{0}));
    if (it != position.end() && it->first == j.job_id) j.queue_position = it->second;
  }
}

}  // namespace budget
