// Reading a report snapshot (report_reader.h).
#include "libbudget/report/report_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include <json-c/json.h>

#include "libbudget/report/report_format.h"
#include "libbudget/config/time_string.h"

namespace budget {

namespace {

using JsonPtr = std::unique_ptr<json_object, decltype(&json_object_put)>;

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

// "gpu_weights": { "type": weight, .. }; absent in files written before
// weights (none then).
void ParseGpuWeights(const json_object* obj, GpuTypeWeights* out, std::string* error) {
  json_object* weights = nullptr;
  if (!json_object_object_get_ex(obj, "gpu_weights", &weights) || weights == nullptr) return;
  if (!json_object_is_type(weights, json_type_object)) {
    *error = "$.gpu_weights: must be an object";
    return;
  }
  GpuTypeWeights table;
  json_object_object_foreach(weights, type, value) {
    const bool number = json_object_is_type(value, json_type_double) || json_object_is_type(value, json_type_int);
    const double w = number ? json_object_get_double(value) : 0;
    if (!number || !(w > 0) || w > kMaxGpuTypeWeight || *type == '\0') {
      *error = std::string("$.gpu_weights.") + type + ": must be a weight in (0, 1000]";
      return;
    }
    table.Set(type, w);
  }
  *out = std::move(table);
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
  json_object* notice = nullptr;
  if (!r.failed() && json_object_object_get_ex(obj, "preempt_notice", &notice))
    r.IntAs("preempt_notice", &s->preempt_notice, 0, kMaxDuration);
  r.Number("capacity_gpus", &s->capacity_gpus, false);
  json_object* frag = nullptr;
  if (!r.failed() && json_object_object_get_ex(obj, "fragmentation", &frag) && frag != nullptr) {
    r.Number("fragmentation", &s->fragmentation, false);
    s->has_fragmentation = true;
  }
  s->tree_loaded = true;
  if (!r.failed() && json_object_object_get_ex(obj, "tree_loaded", nullptr)) r.Bool("tree_loaded", &s->tree_loaded);
  if (!r.failed()) ParseGpuWeights(obj, &s->gpu_type_weights, error);
  s->pass_seconds = -1.0;
  if (!r.failed() && json_object_object_get_ex(obj, "pass_seconds", nullptr)) {
    r.Number("pass_seconds", &s->pass_seconds, false);
    if (!r.failed() && s->pass_seconds < 0) return r.Fail("pass_seconds", "must not be negative");
  }
  ParseArray(&r, "nodes", ParseNode, &s->nodes, error);
  if (s->version == 1) {
    ParseArray(&r, "jobs", ParseJobObject, &s->jobs, error);
  } else if (!r.failed()) {
    ParseJobRows(&r, &s->jobs, error);
  }
  ParseArray(&r, "history", ParseHistory, &s->history, error);
}

}  // namespace

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

Status ReadReportSnapshot(const std::string& file, ReportSnapshot* out) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound(file + ": no such file");
    return Status::IOError(file + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) return Status::IOError(file + ": not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::IOError(file + ": cannot open: " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::IOError(file + ": read failed");
  std::string text = buf.str();
  if (text.empty()) return Status::Corruption(file + ": empty file");
  return ParseReportSnapshot(text, file, out);
}

}  // namespace budget
