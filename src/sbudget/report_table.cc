// The default sbudget report (report_table.h).
#include "sbudget/report_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>

#include <json-c/json.h>

#include "libbudget/time_string.h"

namespace sbudget {

using budget::ReportSnapshot;
using budget::SnapshotNode;

namespace {

constexpr double kSecondsPerHour = 3600.0;

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Parent of each node (by index), from depths in pre-order; -1 for roots.
std::vector<long> Parents(const ReportSnapshot& s) {
  std::vector<long> parent(s.nodes.size(), -1);
  std::vector<long> last_at_depth;
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    size_t depth = static_cast<size_t>(std::max(0, s.nodes[i].depth));
    if (depth > 0 && depth - 1 < last_at_depth.size()) parent[i] = last_at_depth[depth - 1];
    last_at_depth.resize(depth + 1);
    last_at_depth[depth] = static_cast<long>(i);
  }
  return parent;
}

std::string Printf(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Ratio(double v) { return std::isfinite(v) ? Printf("%.3f", v) : "inf"; }
std::string GpuHours(double gpu_seconds) { return FormatGpuHours(gpu_seconds); }

struct Column {
  const char* name;
  bool left_aligned;
  std::function<std::string(const SnapshotNode&)> value;
};

std::vector<Column> Columns(bool long_format) {
  std::vector<Column> c;
  c.push_back({"Owners", true, [](const SnapshotNode& n) {
                 std::string s;
                 for (const std::string& o : n.owners) s += (s.empty() ? "" : ",") + o;
                 return s;
               }});
  if (long_format) {
    c.push_back({"Account", true, [](const SnapshotNode& n) { return n.account; }});
    c.push_back({"User", true, [](const SnapshotNode& n) { return n.user; }});
  }
  c.push_back({"Share", false, [](const SnapshotNode& n) {
                 return n.depth == 0 ? std::string() : Printf("%g", n.share);
               }});
  c.push_back({"NormShare", false,
               [](const SnapshotNode& n) { return Printf("%.4f", n.normalized_share); }});
  c.push_back({"Entitled%", false,
               [](const SnapshotNode& n) { return Printf("%.2f", 100 * n.entitlement); }});
  c.push_back({"UsageGPUh", false, [](const SnapshotNode& n) { return GpuHours(n.window_usage); }});
  c.push_back({"OwedGPUh", false, [](const SnapshotNode& n) { return GpuHours(n.owed); }});
  c.push_back({"DelivGPUh", false, [](const SnapshotNode& n) { return GpuHours(n.delivered); }});
  c.push_back({"Deliv/Owed", false,
               [](const SnapshotNode& n) { return Ratio(n.DeliveredOverOwed()); }});
  c.push_back({"UnallocGPUh", false, [](const SnapshotNode& n) { return GpuHours(n.unallocated); }});
  c.push_back({"RunGPUs", false, [](const SnapshotNode& n) { return Printf("%g", n.running_gpus); }});
  c.push_back({"PendGPUs", false, [](const SnapshotNode& n) { return Printf("%g", n.pending_gpus); }});
  c.push_back({"Rank", false, [](const SnapshotNode& n) {
                 return n.has_rank() ? std::to_string(n.rank) : std::string();
               }});
  if (long_format) {
    c.push_back({"UsageRatio", false, [](const SnapshotNode& n) { return Ratio(n.usage_ratio); }});
    c.push_back({"SiblingRatio", false, [](const SnapshotNode& n) {
                   return n.depth == 0 ? std::string() : Ratio(n.sibling_ratio);
                 }});
  }
  return c;
}

// The first column: the indented name, or the full path when parsable.
std::string PathCell(const SnapshotNode& n, bool parsable) {
  if (parsable) return n.path.empty() ? n.name : n.path;
  return std::string(2 * static_cast<size_t>(std::max(0, n.depth)), ' ') + n.name;
}

json_object* NumberOrNull(double v) { return std::isfinite(v) ? json_object_new_double(v) : nullptr; }

}  // namespace

std::vector<size_t> SelectNodes(const ReportSnapshot& s, const ReportFilter& f) {
  const size_t n = s.nodes.size();
  std::vector<long> parent = Parents(s);
  // Effective account (the node's, or its nearest bound ancestor's) and
  // whether a selected user owns the node or one of its ancestors.
  std::vector<std::string> account(n);
  std::vector<bool> owned(n, false);
  for (size_t i = 0; i < n; ++i) {
    const SnapshotNode& node = s.nodes[i];
    long p = parent[i];
    account[i] = !node.account.empty() ? node.account : (p >= 0 ? account[p] : std::string());
    bool owns = false;
    for (const std::string& u : f.users) owns = owns || Contains(node.owners, u);
    owned[i] = owns || (p >= 0 && owned[p]);
  }
  std::vector<bool> keep(n, false);
  for (size_t i = 0; i < n; ++i) {
    const SnapshotNode& node = s.nodes[i];
    bool shown;
    if (!node.user.empty()) {
      shown = f.all_users || Contains(f.users, node.user) || owned[i] ||
              (f.users.empty() && node.user == f.current_user);
    } else {
      shown = f.users.empty() || f.all_users || owned[i];
    }
    if (!f.accounts.empty() && !Contains(f.accounts, account[i])) shown = false;
    if (!shown) continue;
    for (long j = static_cast<long>(i); j >= 0 && !keep[j]; j = parent[j]) keep[j] = true;
  }
  std::vector<size_t> rows;
  for (size_t i = 0; i < n; ++i) {
    if (keep[i]) rows.push_back(i);
  }
  return rows;
}

std::vector<std::string> ColumnNames(bool long_format) {
  std::vector<std::string> names = {"Path"};
  for (const Column& c : Columns(long_format)) names.push_back(c.name);
  return names;
}

std::string FormatTable(const ReportSnapshot& s, const std::vector<size_t>& rows,
                        const TableOptions& options) {
  const bool parsable = options.style != TableStyle::kColumns;
  const std::vector<Column> columns = Columns(options.long_format);
  // cells[r][c], row 0 the header when shown.
  std::vector<std::vector<std::string>> cells;
  if (options.header) cells.push_back(ColumnNames(options.long_format));
  for (size_t index : rows) {
    const SnapshotNode& n = s.nodes[index];
    std::vector<std::string> row = {PathCell(n, parsable)};
    for (const Column& c : columns) row.push_back(c.value(n));
    cells.push_back(std::move(row));
  }
  std::string out;
  if (parsable) {
    for (const auto& row : cells) {
      for (size_t c = 0; c < row.size(); ++c) {
        out += row[c];
        if (c + 1 < row.size() || options.style == TableStyle::kParsable) out += '|';
      }
      out += '\n';
    }
    return out;
  }
  std::vector<size_t> width(columns.size() + 1, 0);
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (size_t r = 0; r < cells.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < cells[r].size(); ++c) {
      const std::string& cell = cells[r][c];
      std::string pad(width[c] - cell.size(), ' ');
      bool left = c == 0 || columns[c - 1].left_aligned;
      line += c == 0 ? "" : " ";
      line += left ? cell + pad : pad + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
    if (r == 0 && options.header) {
      std::string rule;
      for (size_t c = 0; c < width.size(); ++c) rule += (c ? " " : "") + std::string(width[c], '-');
      out += rule + '\n';
    }
  }
  return out;
}

std::string FormatJson(const ReportSnapshot& s, const std::vector<size_t>& rows,
                       budget::TimePoint now) {
  json_object* root = json_object_new_object();
  json_object_object_add(root, "generated_at", json_object_new_int64(s.generated_at));
  json_object_object_add(root, "age", json_object_new_int64(s.Age(now)));
  json_object_object_add(root, "stale", json_object_new_boolean(s.IsStale(now)));
  json_object_object_add(root, "tree_source", json_object_new_string(s.tree_source.c_str()));
  json_object_object_add(root, "capacity_gpus", json_object_new_double(s.capacity_gpus));
  json_object_object_add(root, "window", json_object_new_int64(s.window));
  json_object_object_add(root, "fragmentation",
                         s.has_fragmentation ? json_object_new_double(s.fragmentation) : nullptr);
  json_object* nodes = json_object_new_array();
  for (size_t index : rows) {
    const SnapshotNode& n = s.nodes[index];
    json_object* o = json_object_new_object();
    auto add = [o](const char* key, json_object* v) { json_object_object_add(o, key, v); };
    add("path", json_object_new_string(n.path.c_str()));
    add("name", json_object_new_string(n.name.c_str()));
    add("depth", json_object_new_int(n.depth));
    json_object* owners = json_object_new_array();
    for (const std::string& w : n.owners) json_object_array_add(owners, json_object_new_string(w.c_str()));
    add("owners", owners);
    add("account", json_object_new_string(n.account.c_str()));
    add("user", json_object_new_string(n.user.c_str()));
    add("share", json_object_new_double(n.share));
    add("normalized_share", json_object_new_double(n.normalized_share));
    add("entitlement", json_object_new_double(n.entitlement));
    add("usage_gpu_hours", json_object_new_double(n.window_usage / kSecondsPerHour));
    add("owed_gpu_hours", json_object_new_double(n.owed / kSecondsPerHour));
    add("delivered_gpu_hours", json_object_new_double(n.delivered / kSecondsPerHour));
    add("delivered_over_owed", NumberOrNull(n.DeliveredOverOwed()));
    add("unallocated_gpu_hours", json_object_new_double(n.unallocated / kSecondsPerHour));
    add("running_gpus", json_object_new_double(n.running_gpus));
    add("pending_gpus", json_object_new_double(n.pending_gpus));
    add("rank", n.has_rank() ? json_object_new_int64(n.rank) : nullptr);
    add("usage_ratio", NumberOrNull(n.usage_ratio));
    add("sibling_ratio", NumberOrNull(n.sibling_ratio));
    json_object_array_add(nodes, o);
  }
  json_object_object_add(root, "nodes", nodes);
  std::string text = json_object_to_json_string_ext(
      root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
  json_object_put(root);
  return text + "\n";
}

// Small amounts are seconds of GPU time, as on a time-compressed test
// cluster: two significant digits say more than "0.00".
std::string FormatGpuHours(double gpu_seconds) {
  double h = gpu_seconds / kSecondsPerHour;
  return Printf(h > 0 && h < 0.005 ? "%.2g" : "%.2f", h);
}

std::string FormatTimestamp(budget::TimePoint t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  if (localtime_r(&tt, &tm) == nullptr) return std::to_string(t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string FormatSnapshotSummary(const ReportSnapshot& s, budget::TimePoint now) {
  std::string line = "Budget snapshot of " + FormatTimestamp(s.generated_at) + " (" +
                     std::to_string(s.Age(now)) + " s old), capacity " +
                     Printf("%g", s.capacity_gpus) + " GPUs, window " +
                     budget::FormatDuration(s.window);
  if (s.has_fragmentation) line += ", fragmentation " + Printf("%.1f%%", 100 * s.fragmentation);
  return line + "\n";
}

}  // namespace sbudget
