// The default sbudget report (report_table.h).
#include "sbudget/report_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>

#include <json-c/json.h>

#include "libbudget/config/time_string.h"

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
std::string RankCell(uint32_t rank) {
  return rank == budget::FairShareOrder::kNoRank ? std::string() : std::to_string(rank);
}

// Work (running or pending) somewhere in the node's subtree: the order's
// first key among siblings (order.h, "demand").
bool HasWork(const SnapshotNode& n) { return n.running_gpus > 0 || n.pending_gpus > 0; }

// A row as a column sees it: the node and its rank among the rows shown.
struct Row {
  const SnapshotNode* node;
  uint32_t shown_rank;
};

struct Column {
  const char* name;
  bool left_aligned;
  const char* help;
  // GPU-hour columns: the GPU-seconds, formatted with the column's decimals.
  double (*gpu_seconds)(const SnapshotNode&);
  // Other columns: the cell's text.
  std::function<std::string(const Row&)> text;
};

Column Gpuh(const char* name, const char* help, double (*gpu_seconds)(const SnapshotNode&)) {
  return Column{name, false, help, gpu_seconds, nullptr};
}

Column Text(const char* name, bool left, const char* help, std::function<std::string(const Row&)> text) {
  return Column{name, left, help, nullptr, std::move(text)};
}

// Columns after Path. The default form is what fits 80 columns; -l adds
// the tree's inputs and the other figures.
std::vector<Column> Columns(bool long_format) {
  std::vector<Column> c;
  if (long_format) {
    c.push_back(Text("Owners", true, "managers who may change the shares below the node", [](const Row& r) {
      std::string s;
      for (const std::string& o : r.node->owners) s += (s.empty() ? "" : ",") + o;
      return s;
    }));
    c.push_back(Text("Account", true, "the Slurm account bound to the node",
                     [](const Row& r) { return r.node->account; }));
    c.push_back(Text("User", true, "the user bound to the node", [](const Row& r) { return r.node->user; }));
    c.push_back(Text("Share", false, "the share as written, relative to its siblings", [](const Row& r) {
      return r.node->depth == 0 ? std::string() : Printf("%g", r.node->share);
    }));
    c.push_back(Text("NormShare", false, "the share over the sum of its siblings' shares",
                     [](const Row& r) { return Printf("%.4f", r.node->normalized_share); }));
  }
  c.push_back(Text("Entitled%", false, "entitlement: the product of normalized shares along its path",
                   [](const Row& r) { return Printf("%.2f", 100 * r.node->entitlement); }));
  if (long_format) {
    c.push_back(Text("UsageRatio", false,
                     "usage / entitled GPU time over the window (not what ranks)",
                     [](const Row& r) { return Ratio(r.node->usage_ratio); }));
  }
  c.push_back(Gpuh("OwedGPUh", "GPU-h owed: entitlement x capacity per hour, at most its demand",
                   [](const SnapshotNode& n) { return n.owed; }));
  c.push_back(Gpuh("DelivGPUh", "allocated GPU-h delivered to (used by) the subtree",
                   [](const SnapshotNode& n) { return n.delivered; }));
  c.push_back(Text("Deliv/Owed", false, "delivered over owed (1 when nothing was owed)",
                   [](const Row& r) { return Ratio(r.node->DeliveredOverOwed()); }));
  if (long_format) {
    c.push_back(Gpuh("UnallocGPUh", "GPU-h of unallocated work (free, preemptible, not charged)",
                     [](const SnapshotNode& n) { return n.unallocated; }));
  }
  c.push_back(Text("Run", false, "GPUs held by the subtree's running jobs",
                   [](const Row& r) { return Printf("%.0f", r.node->running_gpus); }));
  c.push_back(Text("Pend", false, "GPUs asked for by the subtree's pending jobs",
                   [](const Row& r) { return Printf("%.0f", r.node->pending_gpus); }));
  c.push_back(Text("Rank", false, "fair-share order among the rows shown (0 is served first)",
                   [](const Row& r) { return RankCell(r.shown_rank); }));
  if (long_format) {
    c.push_back(Text("TreeRank", false, "rank among all the tree's nodes (explain, job priorities)",
                     [](const Row& r) { return RankCell(r.node->rank); }));
  }
  c.push_back(Text("Standing", false,
                   "ranks siblings: usage share / entitled share; idle: no work",
                   [](const Row& r) { return StandingText(*r.node); }));
  return c;
}

// The first column: the indented name, or the full path when parsable.
std::string PathCell(const SnapshotNode& n, bool parsable) {
  if (parsable) return n.path.empty() ? n.name : n.path;
  return std::string(2 * static_cast<size_t>(std::max(0, n.depth)), ' ') + n.name;
}

json_object* NumberOrNull(double v) { return std::isfinite(v) ? json_object_new_double(v) : nullptr; }

// A name cut to `width` characters with a trailing '+', as sshare does.
std::string Cut(const std::string& text, size_t width) {
  if (text.size() <= width || width == 0) return text;
  return text.substr(0, width - 1) + "+";
}

}  // namespace

std::vector<size_t> SelectNodes(const ReportSnapshot& s, const ReportFilter& f) {
  const size_t n = s.nodes.size();
  std::vector<long> parent = Parents(s);
  // Effective account (the node's, or its nearest bound ancestor's), whether
  // a selected user owns the node or one of its ancestors, and whether the
  // node is inside a subtree -A names (by account or by path).
  std::vector<std::string> account(n);
  std::vector<bool> owned(n, false);
  std::vector<bool> in_scope(n, f.accounts.empty());
  for (size_t i = 0; i < n; ++i) {
    const SnapshotNode& node = s.nodes[i];
    long p = parent[i];
    account[i] = !node.account.empty() ? node.account : (p >= 0 ? account[p] : std::string());
    bool owns = false;
    for (const std::string& u : f.users) owns = owns || Contains(node.owners, u);
    owned[i] = owns || (p >= 0 && owned[p]);
    if (!f.accounts.empty()) {
      in_scope[i] = Contains(f.accounts, account[i]) || Contains(f.accounts, node.path) ||
                    (p >= 0 && in_scope[p]);
    }
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
    if (!in_scope[i]) shown = false;
    if (!shown) continue;
    for (long j = static_cast<long>(i); j >= 0 && !keep[j]; j = parent[j]) keep[j] = true;
  }
  std::vector<size_t> rows;
  for (size_t i = 0; i < n; ++i) {
    if (keep[i]) rows.push_back(i);
  }
  return rows;
}

std::vector<std::string> Unmatched(const ReportSnapshot& s, const ReportFilter& f) {
  std::vector<std::string> out;
  for (const std::string& a : f.accounts) {
    bool found = false;
    for (const SnapshotNode& node : s.nodes) found = found || node.account == a || node.path == a;
    if (!found) out.push_back("-A " + a);
  }
  for (const std::string& u : f.users) {
    bool found = false;
    for (const SnapshotNode& node : s.nodes) found = found || node.user == u || Contains(node.owners, u);
    if (!found) out.push_back("-u " + u);
  }
  return out;
}

std::vector<uint32_t> RanksAmongRows(const ReportSnapshot& s, const std::vector<size_t>& rows) {
  std::vector<size_t> ranked;  // positions in rows
  for (size_t r = 0; r < rows.size(); ++r) {
    if (s.nodes[rows[r]].has_rank()) ranked.push_back(r);
  }
  std::sort(ranked.begin(), ranked.end(),
            [&](size_t a, size_t b) { return s.nodes[rows[a]].rank < s.nodes[rows[b]].rank; });
  std::vector<uint32_t> out(rows.size(), budget::FairShareOrder::kNoRank);
  for (size_t k = 0; k < ranked.size(); ++k) out[ranked[k]] = static_cast<uint32_t>(k);
  return out;
}

std::string StandingText(const SnapshotNode& n) {
  if (n.depth == 0) return "";
  if (!HasWork(n)) return "idle";
  return Ratio(n.sibling_ratio);
}

std::vector<std::string> ColumnNames(bool long_format) {
  std::vector<std::string> names = {"Path"};
  for (const Column& c : Columns(long_format)) names.push_back(c.name);
  return names;
}

std::string ColumnHelp(bool long_format) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-11s %s\n", "Path", "the node's name, indented by depth (-p/-P: its path)");
  std::string out = buf;
  for (const Column& c : Columns(long_format)) {
    std::snprintf(buf, sizeof buf, "  %-11s %s\n", c.name, c.help);
    out += buf;
  }
  return out;
}

std::string FormatTable(const ReportSnapshot& s, const std::vector<size_t>& rows,
                        const TableOptions& options) {
  const bool parsable = options.style != TableStyle::kColumns;
  const std::vector<Column> columns = Columns(options.long_format);
  const std::vector<uint32_t> shown_ranks = RanksAmongRows(s, rows);
  // One precision per GPU-hour column, for all its rows.
  std::vector<int> decimals(columns.size(), 2);
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].gpu_seconds == nullptr) continue;
    std::vector<double> values;
    for (size_t index : rows) values.push_back(columns[c].gpu_seconds(s.nodes[index]));
    decimals[c] = GpuHoursDecimals(values);
  }
  // cells[r][c], row 0 the header when shown.
  std::vector<std::vector<std::string>> cells;
  if (options.header) cells.push_back(ColumnNames(options.long_format));
  for (size_t r = 0; r < rows.size(); ++r) {
    const SnapshotNode& n = s.nodes[rows[r]];
    std::vector<std::string> row = {PathCell(n, parsable)};
    for (size_t c = 0; c < columns.size(); ++c) {
      row.push_back(columns[c].gpu_seconds != nullptr ? FormatGpuHours(columns[c].gpu_seconds(n), decimals[c])
                                                      : columns[c].text(Row{&n, shown_ranks[r]}));
    }
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
  // The default form fits options.width: the names give way (never below
  // 8 characters); -l is the wide form.
  if (!options.long_format) {
    size_t others = 0;
    for (size_t c = 1; c < width.size(); ++c) others += 1 + width[c];
    const size_t room = options.width > others + 8 ? options.width - others : 8;
    if (width[0] > room) {
      width[0] = room;
      for (auto& row : cells) row[0] = Cut(row[0], room);
    }
  }
  for (size_t r = 0; r < cells.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < cells[r].size(); ++c) {
      const std::string& cell = cells[r][c];
      std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
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
  // Say when the ranks shown skip nodes the table hides.
  size_t ranked_in_tree = 0, ranked_shown = 0;
  for (const SnapshotNode& n : s.nodes) ranked_in_tree += n.has_rank() ? 1 : 0;
  for (uint32_t rank : shown_ranks) ranked_shown += rank != budget::FairShareOrder::kNoRank ? 1 : 0;
  if (options.header && ranked_shown < ranked_in_tree) {
    out += "Rank: among the " + std::to_string(ranked_shown) + " ranked rows shown; " +
           std::to_string(ranked_in_tree - ranked_shown) + " ranked node(s) hidden (-a shows them)\n";
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
  // The unit of capacity_gpus and of every *_gpu_hours value.
  json_object_object_add(root, "unit", json_object_new_string(GpuTimeUnit(s).c_str()));
  json_object* weights = json_object_new_object();
  for (const auto& [type, weight] : s.gpu_type_weights.entries())
    json_object_object_add(weights, type.c_str(), json_object_new_double(weight));
  json_object_object_add(root, "gpu_weights", weights);
  json_object_object_add(root, "window", json_object_new_int64(s.window));
  json_object_object_add(root, "fragmentation",
                         s.has_fragmentation ? json_object_new_double(s.fragmentation) : nullptr);
  const std::vector<uint32_t> shown_ranks = RanksAmongRows(s, rows);
  json_object* nodes = json_object_new_array();
  for (size_t r = 0; r < rows.size(); ++r) {
    const SnapshotNode& n = s.nodes[rows[r]];
    const bool root_node = n.depth == 0;
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
    add("share", root_node ? nullptr : json_object_new_double(n.share));
    add("normalized_share", json_object_new_double(n.normalized_share));
    add("entitlement", json_object_new_double(n.entitlement));
    add("usage_gpu_hours", json_object_new_double(n.window_usage / kSecondsPerHour));
    add("owed_gpu_hours", json_object_new_double(n.owed / kSecondsPerHour));
    add("delivered_gpu_hours", json_object_new_double(n.delivered / kSecondsPerHour));
    add("delivered_over_owed", NumberOrNull(n.DeliveredOverOwed()));
    add("unallocated_gpu_hours", json_object_new_double(n.unallocated / kSecondsPerHour));
    add("running_gpus", json_object_new_double(n.running_gpus));
    add("pending_gpus", json_object_new_double(n.pending_gpus));
    add("rank", shown_ranks[r] != budget::FairShareOrder::kNoRank ? json_object_new_int64(shown_ranks[r]) : nullptr);
    add("tree_rank", n.has_rank() ? json_object_new_int64(n.rank) : nullptr);
    add("has_work", json_object_new_boolean(HasWork(n)));
    add("usage_ratio", NumberOrNull(n.usage_ratio));
    add("sibling_ratio", root_node ? nullptr : NumberOrNull(n.sibling_ratio));
    json_object_array_add(nodes, o);
  }
  json_object_object_add(root, "nodes", nodes);
  std::string text = json_object_to_json_string_ext(
      root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
  json_object_put(root);
  return text + "\n";
}

int GpuHoursDecimals(const std::vector<double>& gpu_seconds) {
  double smallest = 0;
  for (double v : gpu_seconds) {
    double h = std::fabs(v) / kSecondsPerHour;
    if (h > 0 && (smallest == 0 || h < smallest)) smallest = h;
  }
  // Below 0.005 two decimals would read 0.00: two significant digits of
  // the smallest instead (0.0025 needs 4 decimals).
  if (smallest == 0 || smallest >= 0.005) return 2;
  return std::min(6, std::max(2, static_cast<int>(std::ceil(-std::log10(smallest))) + 1));
}

std::string FormatGpuHours(double gpu_seconds, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, gpu_seconds / kSecondsPerHour);
  return buf;
}

std::string FormatGpuHours(double gpu_seconds) { return FormatGpuHours(gpu_seconds, GpuHoursDecimals({gpu_seconds})); }

std::string FormatTimestamp(budget::TimePoint t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  if (localtime_r(&tt, &tm) == nullptr) return std::to_string(t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string GpuTimeUnit(const ReportSnapshot& s) {
  return s.gpu_type_weights.empty() ? "GPU-hours" : "weighted GPU-hours";
}

std::string FormatSnapshotSummary(const ReportSnapshot& s, budget::TimePoint now, size_t width) {
  std::string when = "Budget snapshot of " + FormatTimestamp(s.generated_at) + " (" + std::to_string(s.Age(now)) +
                     " s old),";
  const bool weighted = !s.gpu_type_weights.empty();
  std::string what = "capacity " + Printf("%g", s.capacity_gpus) + (weighted ? " weighted GPUs" : " GPUs") +
                     ", window " + budget::FormatDuration(s.window);
  if (s.has_fragmentation) what += ", fragmentation " + Printf("%.1f%%", 100 * s.fragmentation);
  // The unit of every GPU-h column (owed, delivered, unallocated), and of
  // the capacity they are figured from.
  std::string unit = "GPU time in " + GpuTimeUnit(s);
  if (weighted) {
    const std::string weights = "(GpuTypeWeights=" + s.gpu_type_weights.ToString() + "; other types 1)";
    unit += unit.size() + 1 + weights.size() <= width ? " " + weights : "\n  " + weights;
  }
  std::string out = when.size() + 1 + what.size() <= width ? when + " " + what + "\n" : when + "\n  " + what + "\n";
  return out + unit + "\n";
}

}  // namespace sbudget
