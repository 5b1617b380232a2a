// Tests of sbudget without Slurm: row selection, the column, parsable and
// JSON reports parsed back, explain, history, validate and diff --as, and
// the command line's exit statuses and messages. Slurm is replaced by
// Environment functions; the snapshot is written by the core's writer.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <json-c/json.h>

#include "libbudget/testing/test_support.h"

#include "libbudget/policy/job_notes.h"
#include "libbudget/policy/packing_state.h"
#include "libbudget/policy/preemption_note.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_file.h"
#include "libbudget/accounting/ledger_seed.h"
#include "libbudget/state/ledger_file.h"
#include "libbudget/testing/test_trees.h"
#include "sbudget/cli.h"
#include "sbudget/explain.h"
#include "sbudget/history_chart.h"
#include "sbudget/report_table.h"
#include "sbudget/snapshot_locate.h"

namespace {

using budget::ReportSnapshot;
using budget::SnapshotJob;
using budget::SnapshotJobState;
using budget::SnapshotNode;
using budget::Status;

constexpr budget::TimePoint kGenerated = 1700000000;
constexpr budget::TimePoint kNow = kGenerated + 10;

SnapshotNode Node(const char* path, const char* name, int depth, double share, double norm,
                  double entitlement, uint32_t rank) {
  SnapshotNode n;
  n.path = path;
  n.name = name;
  n.depth = depth;
  n.share = share;
  n.normalized_share = norm;
  n.entitlement = entitlement;
  n.rank = rank;
  return n;
}

SnapshotJob Job(uint32_t id, SnapshotJobState state, const char* path, uint32_t rank,
                uint32_t position) {
  SnapshotJob j;
  j.job_id = id;
  j.state = state;
  j.user = "alice";
  j.account = "pretrain";
  j.node_path = path;
  j.has_node = true;
  j.gpus = 8;
  j.contract_known = true;
  j.min_runtime = 900;
  j.resumable = true;
  j.allocated = true;
  j.rank = rank;
  j.queue_position = position;
  j.submit_time = kGenerated - 1000;
  return j;
}

// The example tree of tree.h on 80 GPUs. Ranks: alice 0, bob 1, posttrain 2,
// pretrain 3, robotics 4, science 5.
ReportSnapshot Fixture() {
  const uint32_t kNo = budget::FairShareOrder::kNoRank;
  ReportSnapshot s;
  s.generated_at = kGenerated;
  s.tree_source = "/etc/slurm/budget-tree.json";
  s.window = 604800;
  s.bucket_width = 300;
  s.history_width = 3600;
  s.recalc_interval = 30;
  s.capacity_gpus = 80;
  s.nodes = {
      Node("", "cluster", 0, 0, 1, 1, kNo),
      Node("llm", "llm", 1, 50, 0.5, 0.5, kNo),
      Node("llm/pretrain", "pretrain", 2, 70, 0.7, 0.35, 3),
      Node("llm/posttrain", "posttrain", 2, 30, 0.3, 0.15, 2),
      Node("llm/posttrain/alice", "alice", 3, 2, 2.0 / 3, 0.1, 0),
      Node("llm/posttrain/bob", "bob", 3, 1, 1.0 / 3, 0.05, 1),
      Node("robotics", "robotics", 1, 30, 0.3, 0.3, 4),
      Node("science", "science", 1, 20, 0.2, 0.2, 5),
  };
  s.nodes[0].owners = {"director"};
  s.nodes[1].owners = {"pi-llm"};
  s.nodes[2].account = "pretrain";
  s.nodes[3].account = "posttrain";
  s.nodes[3].owners = {"lead-posttrain"};
  s.nodes[4].user = "alice";
  s.nodes[5].user = "bob";
  s.nodes[6].account = "robotics";
  s.nodes[6].owners = {"pi-robotics"};
  s.nodes[7].account = "science";
  // pretrain: 6 GPU-h used and delivered of 8 owed; 8 GPUs running, 16 pending.
  SnapshotNode& pretrain = s.nodes[2];
  pretrain.window_usage = 21600;
  pretrain.delivered = 21600;
  pretrain.owed = 28800;
  pretrain.usage_ratio = 0.25;
  pretrain.sibling_ratio = 1.5;
  pretrain.running_gpus = 8;
  pretrain.pending_gpus = 16;
  s.nodes[0].window_usage = 36000;
  s.nodes[7].sibling_ratio = std::numeric_limits<double>::infinity();

  SnapshotJob waiting = Job(201, SnapshotJobState::kPending, "llm/pretrain", 3, 2);
  waiting.priority = 2147450881;
  waiting.fairshare = 0.5;
  SnapshotJob favoured = Job(202, SnapshotJobState::kPending, "llm/pretrain", 3, 1);
  favoured.user_priority = 5;
  SnapshotJob first = Job(203, SnapshotJobState::kPending, "llm/posttrain/alice", 0, 0);
  SnapshotJob free_work = Job(204, SnapshotJobState::kPending, "robotics", 4, 3);
  free_work.min_runtime = 0;
  free_work.allocated = false;
  SnapshotJob running = Job(205, SnapshotJobState::kRunning, "llm/pretrain", 3,
                            SnapshotJob::kNoPosition);
  running.start_time = kNow - 600;
  running.protection_end = kNow + 300;
  SnapshotJob preempted = Job(206, SnapshotJobState::kPreempted, "robotics", 4,
                              SnapshotJob::kNoPosition);
  preempted.min_runtime = 0;
  preempted.allocated = false;
  preempted.has_preemption = true;
  preempted.preemption = {203, "unallocated", "requeue", kNow - 60};
  s.jobs = {waiting, favoured, first, free_work, running, preempted};

  budget::SnapshotHistory root;
  root.path = "";
  root.start = kGenerated - 2 * 3600;
  root.width = 3600;
  root.delivered = {3600, 7200, 0};
  root.owed = {7200, 7200, 3600};
  budget::SnapshotHistory robotics = root;
  robotics.path = "robotics";
  robotics.delivered = {0, 3600, 0};
  budget::SnapshotHistory bob = root;
  bob.path = "llm/posttrain/bob";
  s.history = {root, robotics, bob};
  return s;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> Split(const std::string& line, char sep) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    size_t at = line.find(sep, start);
    cells.push_back(line.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return cells;
}

std::string Paths(const ReportSnapshot& s, const std::vector<size_t>& rows) {
  std::string out;
  for (size_t r : rows) out += (out.empty() ? "" : " ") + (s.nodes[r].path.empty() ? "/" : s.nodes[r].path);
  return out;
}

void AssertContains(const std::string& text, const std::string& needle) {
  if (text.find(needle) == std::string::npos) {
    fail_msg("expected '%s' in:\n%s", needle.c_str(), text.c_str());
  }
}

struct TempFiles {
  std::string dir;
  TempFiles() {
    char tmpl[] = "/tmp/sbudget_test.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) fail_msg("mkdtemp");
    dir = tmpl;
  }
  ~TempFiles() { std::system(("rm -rf '" + dir + "'").c_str()); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

sbudget::Environment TestEnv(const std::string& slurm_conf) {
  sbudget::Environment env;
  env.now = kNow;
  env.current_user = "alice";
  env.slurm_conf = slurm_conf;
  env.load_job = [](uint32_t, sbudget::SlurmJob*) { return Status::IOError("no controller"); };
  env.load_state_save_location = [](std::string*) {
    return Status::IOError("cannot ask slurmctld: Unable to contact slurm controller");
  };
  return env;
}

int Run(const std::vector<std::string>& args, const sbudget::Environment& env, sbudget::Io* io) {
  *io = sbudget::Io();
  return sbudget::RunSbudget(args, env, io);
}

// --- selection ---------------------------------------------------------

void TestSelectionFollowsSshare(void**) {
  ReportSnapshot s = Fixture();
  struct Case {
    sbudget::ReportFilter filter;
    const char* expected;
  } cases[] = {
      // Default for alice: every node but other users' (bob hidden).
      {{{}, {}, false, "alice"},
       "/ llm llm/pretrain llm/posttrain llm/posttrain/alice robotics science"},
      // -a: bob too.
      {{{}, {}, true, "alice"},
       "/ llm llm/pretrain llm/posttrain llm/posttrain/alice llm/posttrain/bob robotics science"},
      // -u pi-llm: the subtree pi-llm owns (with bob and alice), and its ancestor.
      {{{}, {"pi-llm"}, false, "alice"},
       "/ llm llm/pretrain llm/posttrain llm/posttrain/alice llm/posttrain/bob"},
      // -u bob: bob's node and its ancestors only.
      {{{}, {"bob"}, false, "alice"}, "/ llm llm/posttrain llm/posttrain/bob"},
      // -A robotics,pretrain: those subtrees and their ancestors.
      {{{"robotics", "pretrain"}, {}, false, "alice"}, "/ llm llm/pretrain robotics"},
      // -A posttrain for carol: the account node, not alice's or bob's.
      {{{"posttrain"}, {}, false, "carol"}, "/ llm llm/posttrain"},
  };
  for (const Case& c : cases) {
    std::string got = Paths(s, sbudget::SelectNodes(s, c.filter));
    if (got != c.expected) fail_msg("expected '%s', got '%s'", c.expected, got.c_str());
  }
}

// --- parsable and columns ------------------------------------------------

void TestParsable2RowsParseBack(void**) {
  ReportSnapshot s = Fixture();
  std::vector<size_t> rows = {0, 2, 7};
  sbudget::TableOptions options;
  options.style = sbudget::TableStyle::kParsable2;
  std::vector<std::string> lines = Lines(sbudget::FormatTable(s, rows, options));
  // A header and three rows.
  assert_int_equal(lines.size(), 4);
  std::vector<std::string> header = Split(lines[0], '|');
  assert_true(header == sbudget::ColumnNames(false));
  auto cell = [&](size_t line, const char* column) {
    std::vector<std::string> cells = Split(lines[line], '|');
    assert_int_equal(cells.size(), header.size());
    for (size_t c = 0; c < header.size(); ++c) {
      if (header[c] == column) return cells[c];
    }
    fail_msg("no column %s", column);
    return std::string();
  };
  // Parsable rows carry the full path; the root its name.
  assert_string_equal(cell(0 + 1, "Path").c_str(), "cluster");
  assert_string_equal(cell(1 + 1, "Path").c_str(), "llm/pretrain");
  // pretrain: 0.5 x 0.7 = 35.00%; owed 28800 GPU-s = 8.00 GPU-h;
  // delivered/owed 6/8 = 0.750; 8 running, 16 pending GPUs; rank 0 among
  // the two ranked rows shown (3 in the tree).
  assert_string_equal(cell(2, "Entitled%").c_str(), "35.00");
  assert_string_equal(cell(2, "OwedGPUh").c_str(), "8.00");
  assert_string_equal(cell(2, "DelivGPUh").c_str(), "6.00");
  assert_string_equal(cell(2, "Deliv/Owed").c_str(), "0.750");
  assert_string_equal(cell(2, "Rank").c_str(), "0");
  assert_string_equal(cell(2, "Run").c_str(), "8");
  assert_string_equal(cell(2, "Pend").c_str(), "16");
  assert_string_equal(cell(2, "Standing").c_str(), "1.500");
  // The root: no rank, no standing.
  assert_string_equal(cell(1, "Rank").c_str(), "");
  assert_string_equal(cell(1, "Standing").c_str(), "");
  // science owed nothing: 1 (nothing missed); ranks after pretrain.
  assert_string_equal(cell(3, "Deliv/Owed").c_str(), "1.000");
  assert_string_equal(cell(3, "Rank").c_str(), "1");
  // One precision per column: 9 GPU-s = 0.0025 GPU-h needs 4 decimals, so
  // the whole column has 4 (6.0000, not 6.00 beside 0.0025).
  s.nodes[7].delivered = 9;
  lines = Lines(sbudget::FormatTable(s, rows, options));
  assert_string_equal(cell(3, "DelivGPUh").c_str(), "0.0025");
  assert_string_equal(cell(2, "DelivGPUh").c_str(), "6.0000");
  assert_string_equal(cell(1, "DelivGPUh").c_str(), "0.0000");
  assert_string_equal(cell(2, "OwedGPUh").c_str(), "8.00");
}

void TestParsableEndsEachLineWithBar(void**) {
  ReportSnapshot s = Fixture();
  sbudget::TableOptions options;
  options.style = sbudget::TableStyle::kParsable;
  options.header = false;  // -n
  options.long_format = true;
  s.nodes[7].running_gpus = 1;  // science has work: its +inf ratio shows
  std::vector<std::string> lines = Lines(sbudget::FormatTable(s, {6, 7}, options));
  assert_int_equal(lines.size(), 2);
  // Path + 8 columns by default; -l: Path + 16 columns, so 17 bars with the
  // trailing one.
  assert_int_equal(sbudget::ColumnNames(false).size(), 9);
  assert_int_equal(sbudget::ColumnNames(true).size(), 17);
  for (const std::string& line : lines) {
    assert_int_equal(std::count(line.begin(), line.end(), '|'), 17);
    assert_true(line.back() == '|');
  }
  assert_true(lines[0].rfind("robotics|pi-robotics|robotics||30|", 0) == 0);
  // science's infinite sibling ratio is written "inf".
  AssertContains(lines[1], "|inf|");
}

void TestColumnsIndentByDepthAndAlign(void**) {
  ReportSnapshot s = Fixture();
  std::vector<std::string> lines =
      Lines(sbudget::FormatTable(s, {0, 1, 2, 4}, sbudget::TableOptions{}));
  // Header, rule, 4 rows, and the note that ranked nodes are hidden.
  assert_int_equal(lines.size(), 7);
  assert_true(lines[0].rfind("Path", 0) == 0);
  assert_true(lines[1].find_first_not_of("- ") == std::string::npos);
  // Depth d is indented 2d spaces.
  assert_true(lines[2].rfind("cluster ", 0) == 0);
  assert_true(lines[3].rfind("  llm ", 0) == 0);
  assert_true(lines[4].rfind("    pretrain ", 0) == 0);
  assert_true(lines[5].rfind("      alice ", 0) == 0);
  // Right-aligned numbers end in the same column as their header.
  size_t entitled_end = lines[0].find("Entitled%") + 9;
  assert_true(lines[4].substr(entitled_end - 5, 5) == "35.00");
  assert_string_equal(lines[6].c_str(), "Rank: among the 2 ranked rows shown; 4 ranked node(s) hidden (-a shows them)");
}

// The table's headline figure matches its rank: robotics, under budget
// (usage ratio 0.572) but with no work, is "idle" and ranks after the
// teams with work; pretrain ranks ahead of posttrain's users although its
// standing is above 1, because siblings are compared with siblings; ranks
// count only the rows shown; UsageGPUh (the same figure as DelivGPUh) is
// not a column.
void TestStandingExplainsTheRank(void**) {
  ReportSnapshot s = Fixture();
  s.nodes[6].usage_ratio = 0.572;
  s.nodes[6].sibling_ratio = 0.4;
  s.nodes[1].running_gpus = 8;  // llm's subtree has work
  s.nodes[1].sibling_ratio = 0.8;
  sbudget::TableOptions options;
  options.style = sbudget::TableStyle::kParsable2;
  std::vector<size_t> rows = sbudget::SelectNodes(s, {{}, {}, false, "alice"});
  std::vector<std::string> lines = Lines(sbudget::FormatTable(s, rows, options));
  std::vector<std::string> header = Split(lines[0], '|');
  auto cell = [&](const std::string& path, const char* column) {
    for (const std::string& line : lines) {
      std::vector<std::string> cells = Split(line, '|');
      if (cells[0] != path) continue;
      for (size_t c = 0; c < header.size(); ++c) {
        if (header[c] == column) return cells[c];
      }
    }
    fail_msg("no cell %s of %s", column, path.c_str());
    return std::string();
  };
  assert_string_equal(cell("robotics", "Standing").c_str(), "idle");
  assert_string_equal(cell("llm", "Standing").c_str(), "0.800");
  assert_string_equal(cell("llm/pretrain", "Standing").c_str(), "1.500");
  // Shown: alice 0, posttrain 2, pretrain 3, robotics 4, science 5 (bob,
  // tree rank 1, is hidden): ranks 0..4 without a gap.
  assert_string_equal(cell("llm/posttrain/alice", "Rank").c_str(), "0");
  assert_string_equal(cell("llm/posttrain", "Rank").c_str(), "1");
  assert_string_equal(cell("llm/pretrain", "Rank").c_str(), "2");
  assert_string_equal(cell("robotics", "Rank").c_str(), "3");
  assert_string_equal(cell("science", "Rank").c_str(), "4");
  for (bool long_format : {false, true}) {
    std::vector<std::string> names = sbudget::ColumnNames(long_format);
    assert_true(std::find(names.begin(), names.end(), "UsageGPUh") == names.end());
  }
  // -l shows the tree's rank beside it.
  options.long_format = true;
  lines = Lines(sbudget::FormatTable(s, rows, options));
  header = Split(lines[0], '|');
  assert_string_equal(cell("llm/pretrain", "TreeRank").c_str(), "3");
  assert_string_equal(cell("robotics", "UsageRatio").c_str(), "0.572");
}

// -A takes tree paths as well as accounts; a name that matches nothing is
// said, and with nothing matched the command fails.
void TestSelectByPathAndSayWhenNothingMatched(void**) {
  ReportSnapshot s = Fixture();
  std::string got = Paths(s, sbudget::SelectNodes(s, {{"llm"}, {}, false, "alice"}));
  assert_string_equal(got.c_str(), "/ llm llm/pretrain llm/posttrain llm/posttrain/alice");
  got = Paths(s, sbudget::SelectNodes(s, {{"llm/posttrain"}, {}, true, "alice"}));
  assert_string_equal(got.c_str(), "/ llm llm/posttrain llm/posttrain/alice llm/posttrain/bob");
  std::vector<std::string> unmatched = sbudget::Unmatched(s, {{"llm", "nosuch"}, {"carol"}, false, "alice"});
  assert_true((unmatched == std::vector<std::string>{"-A nosuch", "-u carol"}));
  TempFiles tmp;
  std::string file = tmp.dir + "/snap.json";
  assert_true(budget::WriteReportSnapshot(s, file).ok());
  sbudget::Io io;
  sbudget::Environment env = TestEnv("/nonexistent");
  assert_int_equal(Run({"-A", "nosuch", "--snapshot", file}, env, &io), 1);
  AssertContains(io.err, "sbudget: -A nosuch: no account or tree path of that name in the tree");
  assert_string_equal(io.out.c_str(), "");
  assert_int_equal(Run({"-u", "nosuch", "--json", "--snapshot", file}, env, &io), 1);
  AssertContains(io.err, "-u nosuch: no user or owner of that name");
  // One of two matched: the report, and a warning for the other.
  assert_int_equal(Run({"-A", "llm,nosuch", "-P", "--snapshot", file}, env, &io), 0);
  AssertContains(io.err, "-A nosuch");
  AssertContains(io.out, "llm/pretrain|");
}

// The default form fits 80 columns (or $COLUMNS), cutting long names with
// '+' as sshare does; -l is the wide form. --help lists options and columns.
void TestDefaultFormFitsTheTerminal(void**) {
  ReportSnapshot s = Fixture();
  s.nodes[3].name = "posttraining-and-alignment-research";
  std::vector<size_t> rows = sbudget::SelectNodes(s, {{}, {}, true, "alice"});
  sbudget::TableOptions options;
  std::vector<std::string> lines = Lines(sbudget::FormatTable(s, rows, options));
  for (const std::string& line : lines) {
    if (line.size() > 80) fail_msg("%zu columns: %s", line.size(), line.c_str());
  }
  AssertContains(lines[5], "+");  // the long name, cut
  options.width = 120;
  lines = Lines(sbudget::FormatTable(s, rows, options));
  AssertContains(lines[5], "    posttraining-and-alignment-research ");
  TempFiles tmp;
  std::string file = tmp.dir + "/snap.json";
  assert_true(budget::WriteReportSnapshot(s, file).ok());
  sbudget::Io io;
  sbudget::Environment env = TestEnv("/nonexistent");
  env.columns = 120;
  assert_int_equal(Run({"-a", "--snapshot", file}, env, &io), 0);
  AssertContains(io.out, "posttraining-and-alignment-research");
  assert_int_equal(Run({"--help"}, env, &io), 0);
  for (const char* needle : {"--accounts=NAME", "--noheader", "--since=TIME", "Standing", "Deliv/Owed",
                             "TreeRank", "UnallocGPUh", "$COLUMNS"}) {
    AssertContains(io.out, needle);
  }
  for (const std::string& line : Lines(io.out)) {
    if (line.size() > 80) fail_msg("--help, %zu columns: %s", line.size(), line.c_str());
  }
}

// --- JSON ----------------------------------------------------------------

void TestJsonParsesBack(void**) {
  ReportSnapshot s = Fixture();
  std::string text = sbudget::FormatJson(s, {0, 2, 7}, kNow);
  json_object* root = json_tokener_parse(text.c_str());
  assert_non_null(root);
  json_object* v = nullptr;
  assert_true(json_object_object_get_ex(root, "age", &v));
  // kNow - kGenerated = 10 s, not stale (stale after max(3 x 30, 90) = 90 s).
  assert_int_equal(json_object_get_int64(v), 10);
  assert_true(json_object_object_get_ex(root, "stale", &v));
  assert_false(json_object_get_boolean(v));
  json_object* nodes = nullptr;
  assert_true(json_object_object_get_ex(root, "nodes", &nodes));
  assert_int_equal(json_object_array_length(nodes), 3);
  json_object* pretrain = json_object_array_get_idx(nodes, 1);
  assert_true(json_object_object_get_ex(pretrain, "path", &v));
  assert_string_equal(json_object_get_string(v), "llm/pretrain");
  assert_true(json_object_object_get_ex(pretrain, "entitlement", &v));
  assert_float_equal(json_object_get_double(v), 0.35, 1e-12);
  // 21600 / 3600 = 6 GPU-h; 28800 / 3600 = 8 owed; 6 / 8 = 0.75.
  assert_true(json_object_object_get_ex(pretrain, "usage_gpu_hours", &v));
  assert_float_equal(json_object_get_double(v), 6, 1e-12);
  assert_true(json_object_object_get_ex(pretrain, "owed_gpu_hours", &v));
  assert_float_equal(json_object_get_double(v), 8, 1e-12);
  assert_true(json_object_object_get_ex(pretrain, "delivered_over_owed", &v));
  assert_float_equal(json_object_get_double(v), 0.75, 1e-12);
  // Rank among the rows shown (0: pretrain before science); the tree's own.
  assert_true(json_object_object_get_ex(pretrain, "rank", &v));
  assert_int_equal(json_object_get_int(v), 0);
  assert_true(json_object_object_get_ex(pretrain, "tree_rank", &v));
  assert_int_equal(json_object_get_int(v), 3);
  assert_true(json_object_object_get_ex(pretrain, "has_work", &v));
  assert_true(json_object_get_boolean(v));
  // The root has no rank, share or sibling ratio: null, as sbudget(1) says.
  // science's +inf sibling ratio: null.
  json_object* root_node = json_object_array_get_idx(nodes, 0);
  for (const char* key : {"rank", "tree_rank", "share", "sibling_ratio"}) {
    assert_true(json_object_object_get_ex(root_node, key, &v));
    if (v != nullptr) fail_msg("the root's %s is not null", key);
  }
  assert_true(json_object_object_get_ex(json_object_array_get_idx(nodes, 2), "sibling_ratio", &v));
  assert_null(v);
  json_object_put(root);
}

// --- explain -------------------------------------------------------------

// The priority priority/budget gives a job under Fixture()'s 6 ranked nodes
// (order.h: R = 15 rank bits, U = 16 user bits).
uint32_t Prio(bool allocated, uint32_t rank, uint32_t user_priority) {
  return (allocated ? 1u << 31 : 0u) | ((32767u - rank) << 16) | (user_priority + 1);
}

sbudget::SlurmJob Pending(uint32_t id, uint32_t priority, const char* account, budget::TimePoint submit) {
  sbudget::SlurmJob j;
  j.job_id = id;
  j.state = "PENDING";
  j.reason = "Priority";
  j.user = "alice";
  j.account = account;
  j.priority = priority;
  j.submit_time = submit;
  j.gpus = 8;
  j.admin_comment = "contract:min_runtime=900,resumable=1,declared=1";
  return j;
}

// What Slurm lists as pending, the jobs of Fixture() and three more:
//   203 alice's, rank 0             0xffff0001 = 4294901761
//   202 pretrain, rank 3, user 5    0xfffc0006 = 4294705158
//   201 pretrain, rank 3, user 0    0xfffc0001 = 4294705153
//   209 an operator's 4000000000: rank field 0x6e6b = rank 4500, not one of 6
//   204 robotics, rank 4, unallocated 0x7ffb0001 = 2147155969
//   210 an account with no node: unallocated, no rank: 1
//   207 held: priority 0 (not queued)
std::vector<sbudget::SlurmJob> PendingInSlurm() {
  std::vector<sbudget::SlurmJob> jobs = {
      Pending(201, Prio(true, 3, 0), "pretrain", kGenerated - 1000),
      Pending(202, Prio(true, 3, 5), "pretrain", kGenerated - 1000),
      Pending(203, Prio(true, 0, 0), "posttrain", kGenerated - 1000),
      Pending(204, Prio(false, 4, 0), "robotics", kGenerated - 1000),
      Pending(207, 0, "science", kGenerated - 1000),
      Pending(209, 4000000000u, "science", kGenerated - 1000),
      Pending(210, 1, "nobody", kGenerated - 1000),
  };
  jobs[3].admin_comment = "contract:min_runtime=0,resumable=1,declared=1";
  return jobs;
}

void TestWhyAheadNamesTheFirstDifferingStep(void**) {
  ReportSnapshot s = Fixture();
  const SnapshotJob& waiting = *s.FindJob(201);
  const SnapshotJob& favoured = *s.FindJob(202);
  const SnapshotJob& first = *s.FindJob(203);
  const SnapshotJob& free_work = *s.FindJob(204);
  AssertContains(sbudget::WhyAhead(first, waiting), "ranks ahead (rank 0 < 3");
  AssertContains(sbudget::WhyAhead(favoured, waiting), "higher user priority (5 > 0)");
  AssertContains(sbudget::WhyAhead(waiting, free_work), "allocated work goes before unallocated");
  SnapshotJob earlier = waiting;
  earlier.submit_time -= 1;
  AssertContains(sbudget::WhyAhead(earlier, waiting), "submitted earlier");
  AssertContains(sbudget::WhyAhead(waiting, waiting), "lower job id");
}

void TestPendingJobsArePlacedByTheirPriority(void**) {
  ReportSnapshot s = Fixture();
  std::vector<sbudget::QueuedJob> queue = sbudget::PlacePendingJobs(PendingInSlurm(), s);
  // Held 207 is left out; the rest by priority.
  std::vector<uint32_t> ids;
  for (const sbudget::QueuedJob& q : queue) ids.push_back(q.job.job_id);
  assert_true((ids == std::vector<uint32_t>{203, 202, 201, 209, 204, 210}));
  for (size_t i = 0; i < queue.size(); ++i) assert_int_equal(queue[i].job.queue_position, i);
  // Read back: node of the rank, allocated, user priority, fair-share.
  const budget::SnapshotJob& favoured = queue[1].job;
  assert_true(queue[1].decoded);
  assert_string_equal(favoured.node_path.c_str(), "llm/pretrain");
  assert_true(favoured.allocated);
  assert_int_equal(favoured.rank, 3);
  assert_int_equal(favoured.user_priority, 5);
  assert_float_equal(favoured.fairshare, 0.5, 1e-12);  // 1 - 3/6
  assert_int_equal(favoured.min_runtime, 900);
  assert_false(queue[3].decoded);  // the operator's 4000000000
  assert_false(queue[3].job.has_node);
  assert_true(queue[5].decoded);  // no rank: no node
  assert_false(queue[5].job.has_node);
  assert_false(queue[5].job.allocated);
  // A priority that decodes to another account's node (the ranks moved
  // between the pass that set it and the snapshot) is not read as theirs:
  // rank 4 is robotics, not pretrain's.
  std::vector<sbudget::SlurmJob> moved = {Pending(40, Prio(true, 4, 0), "pretrain", 100)};
  queue = sbudget::PlacePendingJobs(moved, s);
  assert_false(queue[0].decoded);
  // A user node: only its user's jobs (rank 0 is alice's node in posttrain).
  std::vector<sbudget::SlurmJob> users = {Pending(41, Prio(true, 0, 0), "posttrain", 100),
                                          Pending(42, Prio(true, 0, 0), "posttrain", 100)};
  users[1].user = "bob";
  queue = sbudget::PlacePendingJobs(users, s);
  assert_true(queue[0].decoded);
  assert_string_equal(queue[0].job.node_path.c_str(), "llm/posttrain/alice");
  assert_false(queue[1].decoded);
  // Equal priorities: the earlier submission, then the lower id, first.
  std::vector<sbudget::SlurmJob> tied = {Pending(31, 5, "a", 100), Pending(30, 5, "a", 100),
                                          Pending(32, 5, "a", 99)};
  queue = sbudget::PlacePendingJobs(tied, s);
  assert_int_equal(queue[0].job.job_id, 32);
  assert_int_equal(queue[1].job.job_id, 30);
  assert_int_equal(queue[2].job.job_id, 31);
}

void TestExplainPendingJob(void**) {
  ReportSnapshot s = Fixture();
  std::vector<sbudget::SlurmJob> pending = PendingInSlurm();
  sbudget::SlurmJob slurm = pending[0];  // 201
  std::string out;
  assert_true(sbudget::ExplainJob(201, &slurm, &pending, &s, kNow, &out).ok());
  AssertContains(out, "Job 201: PENDING (Reason=Priority), user alice, account pretrain");
  // 900 s = 00:15:00.
  AssertContains(out, "min-runtime 00:15:00 (allocated work");
  AssertContains(out, "resumable: requeued if preempted");
  // 6 ranked nodes: alice, bob, posttrain, pretrain, robotics, science.
  AssertContains(out, "llm/pretrain: rank 3 of 6");
  // Its standing among its siblings (what ranked it), not a usage ratio
  // against the whole cluster that the rank does not follow.
  AssertContains(out, "ranked nodes (0 is served first; sbudget -a lists them all); standing 1.500 among its siblings; "
                      "entitled to 35.00%");
  // 6.00 of 8.00 GPU-h: 75%.
  AssertContains(out, "delivered 6.00 of 8.00 GPU-h owed over the window (75%)");
  // 12 GPU-s owed = 0.0033 GPU-h, not 0.00.
  assert_string_equal(sbudget::FormatGpuHours(12).c_str(), "0.0033");
  assert_string_equal(sbudget::FormatGpuHours(0).c_str(), "0.00");
  AssertContains(out, "4294705153 = allocated work (first), fair-share 0.500 (rank 3), user priority 0");
  // Third of the 6 queued jobs (held 207 is not queued).
  AssertContains(out, "position 3 of 6 pending jobs; ahead of it:");
  AssertContains(out, "job 203 (llm/posttrain/alice, 8 GPUs): its allocation ranks ahead");
  AssertContains(out, "job 202 (llm/pretrain, 8 GPUs): same allocation, higher user priority (5 > 0)");
  assert_true(out.find("job 203") < out.find("job 202"));

  // Behind the operator's priority: the numbers, and whose they are.
  slurm = pending[3];  // 204
  assert_true(sbudget::ExplainJob(204, &slurm, &pending, &s, kNow, &out).ok());
  AssertContains(out, "unallocated work (after all allocated), fair-share 0.333 (rank 4)");
  AssertContains(out, "position 5 of 6 pending jobs");
  AssertContains(out, "job 209 (account science, 8 GPUs): higher Slurm priority (4000000000 > 2147155969; "
                      "its priority was not set by priority/budget)");
  AssertContains(out, "job 201 (llm/pretrain, 8 GPUs): allocated work goes before unallocated work");
  // The operator's job itself.
  slurm = pending[5];  // 209
  assert_true(sbudget::ExplainJob(209, &slurm, &pending, &s, kNow, &out).ok());
  AssertContains(out, "priority    4000000000: not a priority priority/budget gives this job");
  AssertContains(out, "position 4 of 6");
  // An account with no node of the tree.
  slurm = pending[6];  // 210
  assert_true(sbudget::ExplainJob(210, &slurm, &pending, &s, kNow, &out).ok());
  AssertContains(out, "allocation  none: account 'nobody' maps to no node of the tree");
  AssertContains(out, "position 6 of 6");
  // An account is what the job's owner typed (-A): a newline or a terminal
  // escape in it reaches the reader's terminal escaped, on one line.
  std::vector<sbudget::SlurmJob> hostile = pending;
  hostile[6].account = "nobody\n\x1b[2Jforged";
  slurm = hostile[6];
  assert_true(sbudget::ExplainJob(210, &slurm, &hostile, &s, kNow, &out).ok());
  AssertContains(out, "account nobody\\x0a\\x1b[2Jforged\n");
  AssertContains(out, "allocation  none: account 'nobody\\x0a\\x1b[2Jforged' maps");
  assert_true(out.find('\x1b') == std::string::npos);
  // Held.
  slurm = pending[4];  // 207
  assert_true(sbudget::ExplainJob(207, &slurm, &pending, &s, kNow, &out).ok());
  AssertContains(out, "queue       held (priority 0): not considered until released (scontrol release 207)");
  // Slurm did not list the pending jobs: the job's own factors, no position.
  slurm = pending[0];
  assert_true(sbudget::ExplainJob(201, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "fair-share 0.500 (rank 3)");
  AssertContains(out, "Slurm did not list the pending jobs: its position is unknown");
  // Pending when asked for alone, gone from the list asked for next.
  std::vector<sbudget::SlurmJob> without_201(pending.begin() + 1, pending.end());
  assert_true(sbudget::ExplainJob(201, &slurm, &without_201, &s, kNow, &out).ok());
  AssertContains(out, "fair-share 0.500 (rank 3)");
  AssertContains(out, "no longer pending when Slurm listed the queue");
  // No snapshot: Slurm's facts, and why nothing more.
  assert_true(sbudget::ExplainJob(201, &slurm, &pending, nullptr, kNow, &out).ok());
  AssertContains(out, "min-runtime 00:15:00");
  AssertContains(out, "no budget snapshot to explain its place");
}

void TestExplainRunningAndPreemptedJobs(void**) {
  ReportSnapshot s = Fixture();
  std::string out;
  assert_true(sbudget::ExplainJob(205, nullptr, nullptr, &s, kNow, &out).ok());
  // Slurm did not answer: the snapshot's record is used, and said so.
  AssertContains(out, "running in the snapshot");
  // Protection ends kNow + 300: in 00:05:00.
  AssertContains(out, "protected until");
  AssertContains(out, "(in 00:05:00), then preemptible");
  assert_true(sbudget::ExplainJob(206, nullptr, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "by job 203, rule \"unallocated\"; requeued (resumable)");
  // Slurm knows the job, the snapshot does not (finished or newer).
  sbudget::SlurmJob slurm;
  slurm.state = "COMPLETED";
  slurm.restart_count = 2;
  assert_true(sbudget::ExplainJob(999, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "contract    none recorded");
  AssertContains(out, "not in the budget snapshot");
  AssertContains(out, "requeued    2 time(s); neither the snapshot nor the job records a preemption");
  // The note preempt/timeslice leaves in the job's SystemComment names the
  // preemptor and the rule even when the snapshot has no record of it.
  slurm.state = slurm.base_state = "PENDING";
  slurm.system_comment = "preempted by job 8 at 2023-11-14T10:02:16 (rule: over-served allocation)";
  assert_true(sbudget::ExplainJob(999, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "preempted   at 2023-11-14T10:02:16 by job 8, rule \"over-served allocation\"; "
                      "requeued (resumable), 2 restart(s) so far");
  // A note dated after now is refused: kNow is 2023-11-14T22:13:20 UTC, and
  // no zone puts 2023-11-16T10:00:00 before it.
  slurm.system_comment = "preempted by job 8 at 2023-11-16T10:00:00 (rule: over-served allocation)";
  assert_true(sbudget::ExplainJob(999, &slurm, nullptr, &s, kNow, &out).ok());
  assert_true(out.find("by job 8") == std::string::npos);
  AssertContains(out, "note        the job's note is dated after now and is ignored");
  AssertContains(out, "requeued    2 time(s); neither the snapshot nor the job records a preemption");
  // Text that is not exactly a note (a TAB-padded year) is no note at all.
  slurm.system_comment = "preempted by job 8 at \t999-11-14T10:02:16 (rule: over-served allocation)";
  assert_true(sbudget::ExplainJob(999, &slurm, nullptr, &s, kNow, &out).ok());
  assert_true(out.find("by job 8") == std::string::npos);
  assert_true(out.find("dated after now") == std::string::npos);
}

// A job told to leave (PreemptNotice) runs on until its notice ends, and
// explain says until when and what then; once gone, when it was told and
// until when its notice ran. The notes are written as the controller
// writes them, in the process's zone.
void TestExplainTellsOfANotice(void**) {
  ReportSnapshot s = Fixture();
  std::string out;
  sbudget::SlurmJob slurm;
  slurm.job_id = 992;
  slurm.state = slurm.base_state = "RUNNING";
  const std::string note = budget::FormatPreemptionNote(8, kNow - 20, "over-served allocation");
  slurm.system_comment = budget::WithDeparture("", note, kNow + 40);
  sbudget::JobFacts facts;
  assert_true(sbudget::ExplainPlacedJob(992, &slurm, nullptr, &s, kNow, &out, &facts).ok());
  AssertContains(out, "leaving     told at " + budget::FormatLocalTime(kNow - 20) +
                          " (preempted by job 8, rule \"over-served allocation\"); it keeps its GPUs until " +
                          sbudget::FormatTimestamp(kNow + 40) +
                          " (PreemptNotice), then it is cancelled (not resumable), unless it ends first");
  assert_int_equal(facts.told_at, kNow - 20);
  assert_int_equal(facts.notice_until, kNow + 40);
  assert_int_equal(facts.preempted_by, 8);
  // Requeued at its notice's end.
  slurm.state = slurm.base_state = "PENDING";
  slurm.restart_count = 1;
  assert_true(sbudget::ExplainPlacedJob(992, &slurm, nullptr, &s, kNow + 60, &out, &facts).ok());
  AssertContains(out, "preempted   at " + budget::FormatLocalTime(kNow - 20) +
                          " by job 8, rule \"over-served allocation\"; told then, gone by " +
                          sbudget::FormatTimestamp(kNow + 40) + "; requeued (resumable), 1 restart(s) so far");
  assert_true(out.find("leaving") == std::string::npos);
  assert_int_equal(facts.notice_until, kNow + 40);
  // A drain's departure with a notice.
  slurm.system_comment = budget::WithDeparture(
      "", budget::FormatDrainNote(budget::PreemptAction::kRequeue, kNow - 20, "n1"), kNow + 40);
  assert_true(sbudget::ExplainPlacedJob(992, &slurm, nullptr, &s, kNow + 60, &out, &facts).ok());
  AssertContains(out, "drained     told to leave node n1 at " + budget::FormatLocalTime(kNow - 20));
  AssertContains(out, "told then, gone by " + sbudget::FormatTimestamp(kNow + 40));
}

// job_submit/contract records why it refused a contract change (scontrol
// shows the requester only "Access/permission denied"); explain gives it,
// beside the preemption note the SystemComment may hold too.
void TestExplainGivesTheLastRefusedContractChange(void**) {
  ReportSnapshot s = Fixture();
  std::string out;
  sbudget::SlurmJob slurm;
  slurm.job_id = 991;
  slurm.state = slurm.base_state = "RUNNING";
  slurm.system_comment =
      "contract change refused at 2023-11-14T10:05:00: the contract of a running job is fixed; ask an operator";
  assert_true(sbudget::ExplainJob(991, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "refused     a contract change at 2023-11-14T10:05:00: the contract of a running job is "
                      "fixed; ask an operator");
  slurm.state = slurm.base_state = "PENDING";
  slurm.restart_count = 1;
  slurm.system_comment = "preempted by job 8 at 2023-11-14T10:02:16 (rule: unallocated); " + slurm.system_comment;
  assert_true(sbudget::ExplainJob(991, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "refused     a contract change at 2023-11-14T10:05:00");
  AssertContains(out, "preempted   at 2023-11-14T10:02:16 by job 8, rule \"unallocated\"");
  // --json gives the reason and its time (2023-11-14T10:05:00 read in the
  // process's zone, as the writer wrote it).
  sbudget::Explanation e;
  e.slurm = slurm;
  assert_true(sbudget::ExplainPlacedJob(991, &slurm, nullptr, &s, kNow, &e.text, &e.facts).ok());
  budget::TimePoint at = 0;
  assert_true(budget::ParseLocalTime("2023-11-14T10:05:00", &at));
  json_object* root = json_tokener_parse(sbudget::FormatExplanationsJson({e}).c_str());
  assert_non_null(root);
  json_object* job = json_object_array_get_idx(root, 0);
  json_object* v = nullptr;
  assert_true(json_object_object_get_ex(job, "refused_change", &v));
  assert_string_equal(json_object_get_string(v),
                      "the contract of a running job is fixed; ask an operator");
  assert_true(json_object_object_get_ex(job, "refused_change_at", &v));
  assert_int_equal(json_object_get_int64(v), at);
  json_object_put(root);
  // Without a refusal there is no such line, and null in JSON.
  slurm.system_comment = "preempted by job 8 at 2023-11-14T10:02:16 (rule: unallocated)";
  assert_true(sbudget::ExplainPlacedJob(991, &slurm, nullptr, &s, kNow, &e.text, &e.facts).ok());
  assert_true(e.text.find("refused     a contract change") == std::string::npos);
  e.slurm = slurm;
  root = json_tokener_parse(sbudget::FormatExplanationsJson({e}).c_str());
  assert_true(json_object_object_get_ex(json_object_array_get_idx(root, 0), "refused_change", &v));
  assert_null(v);
  json_object_put(root);
}

// A job preempt/timeslice ended rather than requeued is PREEMPTED in Slurm
// (COMPLETING while it ends), never CANCELLED; one that left a draining node
// carries the drain's note, not a preemption note.
void TestExplainSaysHowAPreemptionOrDrainEnded(void**) {
  ReportSnapshot s = Fixture();
  std::string out;
  sbudget::SlurmJob slurm;
  slurm.job_id = 990;
  slurm.state = "COMPLETING";
  slurm.base_state = "PREEMPTED";
  slurm.requeue = false;
  slurm.system_comment = "preempted by job 8 at 2023-11-14T10:02:16 (rule: unallocated)";
  assert_true(sbudget::ExplainJob(990, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "rule \"unallocated\"; not requeued: it ended (JobState=PREEMPTED; not resumable, "
                      "Requeue=0)");
  assert_true(out.find("requeued (resumable)") == std::string::npos);
  // Resumable, but Slurm would not requeue it (not a batch job, say).
  slurm.requeue = true;
  assert_true(sbudget::ExplainJob(990, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "not requeued: it ended (JobState=PREEMPTED; Requeue=1, but Slurm refused the requeue)");
  // Not resumable by its contract, though Slurm may requeue it (JobRequeue=1
  // gave it Requeue=1, so that an admin may): the contract decided.
  slurm.admin_comment = "contract:min_runtime=0,resumable=0,declared=0";
  assert_true(sbudget::ExplainJob(990, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "not requeued: it ended (JobState=PREEMPTED; not resumable, Requeue=1)");
  slurm.admin_comment.clear();
  // Requeued off a draining node at its contract end.
  slurm.state = slurm.base_state = "PENDING";
  slurm.restart_count = 1;
  slurm.system_comment = "requeued at 2023-11-14T10:05:00: node n1 is draining (rule: drain at contract end)";
  assert_true(sbudget::ExplainJob(990, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "drained     left node n1 at 2023-11-14T10:05:00: the node is draining and the job's "
                      "protection was over (rule \"drain at contract end\"); requeued (resumable), 1 restart(s)");
  assert_true(out.find("neither the snapshot nor the job records") == std::string::npos);
  // Not resumable: the drain ended it.
  slurm.state = "PREEMPTED";
  slurm.base_state = "PREEMPTED";
  slurm.requeue = false;
  slurm.restart_count = 0;
  slurm.system_comment = "cancelled at 2023-11-14T10:05:00: node n1 is draining (rule: drain at contract end)";
  assert_true(sbudget::ExplainJob(990, &slurm, nullptr, &s, kNow, &out).ok());
  AssertContains(out, "left node n1 at 2023-11-14T10:05:00");
  AssertContains(out, "not requeued: it ended (JobState=PREEMPTED; not resumable, Requeue=0)");
}

void TestExplainOfAJobNeitherKnows(void**) {
  ReportSnapshot s = Fixture();
  std::string out;
  // Neither knows it.
  Status st = sbudget::ExplainJob(998, nullptr, nullptr, &s, kNow, &out);
  assert_true(st.IsNotFound());
  AssertContains(st.message(), "job 998 is known neither to Slurm nor to the budget snapshot");
}

// --- history -------------------------------------------------------------

void TestHistoryCsvAndSvg(void**) {
  ReportSnapshot s = Fixture();
  // Default selection: depth <= 1, so the root and robotics, not bob.
  std::vector<budget::SnapshotHistory> series = sbudget::SelectHistory(s, {}, INT64_MIN);
  assert_int_equal(series.size(), 2);
  // The snapshot was taken a quarter of the way into the last slot.
  const budget::TimePoint generated = kGenerated + 900;
  std::vector<std::string> lines = Lines(sbudget::FormatHistoryCsv(series, "cluster", generated));
  // Header + 2 series x 3 slots.
  assert_int_equal(lines.size(), 7);
  assert_string_equal(lines[0].c_str(),
                      "path,slot_start,slot_seconds,delivered_gpu_hours,owed_gpu_hours,delivered_gpus,owed_gpus");
  // Root, second slot: 7200 GPU-s = 2 GPU-h delivered, 2 owed: 2 GPUs on
  // average over the hour.
  assert_string_equal(lines[2].c_str(), "cluster,1699996400,3600,2,2,2,2");
  // The last slot covers 900 s so far: 3600 GPU-s owed in it is 4 GPUs on
  // average, not 1 (the drop a partial slot drew).
  assert_string_equal(lines[3].c_str(), "cluster,1700000000,900,0,1,0,4");
  // --since drops the slots that start before it: only the last hour stays.
  series = sbudget::SelectHistory(s, {"robotics"}, kGenerated);
  assert_int_equal(series.size(), 1);
  assert_int_equal(series[0].delivered.size(), 1);
  assert_int_equal(series[0].start, kGenerated);
  std::string svg =
      sbudget::FormatHistorySvg(sbudget::SelectHistory(s, {}, INT64_MIN), "cluster", generated, s.capacity_gpus);
  AssertContains(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
  // Root: delivered 3 of 5 GPU-h owed = 60%.
  AssertContains(svg, "delivered 3.00 of 5.00 GPU-h owed (60%)");
  AssertContains(svg, "average GPUs per slot of 1 h, of 80 in the cluster; one scale for all");
  AssertContains(svg, ">robotics</text>");
  AssertContains(svg, "stroke-dasharray");
  // One scale: both panels top out at the largest average of any slot
  // (the root's 4 GPUs owed in its last quarter hour).
  size_t first = svg.find("text-anchor=\"end\">4</text>");
  assert_true(first != std::string::npos);
  assert_true(svg.find("text-anchor=\"end\">4</text>", first + 1) != std::string::npos);
  assert_true(svg.find("</svg>") != std::string::npos);
}

// The time axis is labelled at round local times, not at the series' ends.
void TestTimeTicksAreRound(void**) {
  const char* tz = std::getenv("TZ");
  std::string saved = tz != nullptr ? tz : "";
  setenv("TZ", "UTC", 1);
  tzset();
  // 1699992800 is 2023-11-14T20:13:20 UTC; 3 h 15 min later, 23:28:20.
  std::vector<budget::TimePoint> ticks = sbudget::RoundTimeTicks(1699992800, 1699992800 + 11700, 8);
  // Every 30 minutes from 20:30: 20:30 .. 23:00 (6 ticks).
  assert_int_equal(ticks.size(), 6);
  assert_int_equal(ticks[0], 1699993800);  // 20:30:00
  for (budget::TimePoint t : ticks) assert_int_equal(t % 1800, 0);
  // A week: one tick per day, at midnight.
  ticks = sbudget::RoundTimeTicks(1699992800, 1699992800 + 7 * 86400, 8);
  assert_int_equal(ticks.size(), 7);
  for (budget::TimePoint t : ticks) assert_int_equal(t % 86400, 0);
  ReportSnapshot s = Fixture();
  std::string svg = sbudget::FormatHistorySvg(sbudget::SelectHistory(s, {}, INT64_MIN), "cluster",
                                              kGenerated + 900, s.capacity_gpus);
  // 20:13:20 to 23:28:20: labels at round times, and not the ends.
  AssertContains(svg, ">21:00</text>");
  assert_true(svg.find("20:13:20") == std::string::npos);
  if (tz != nullptr) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
}

void TestParseSince(void**) {
  budget::TimePoint t = 0;
  assert_true(sbudget::ParseSince("now", 5000, &t).ok());
  assert_int_equal(t, 5000);
  // now minus 1:00:00 = 3600 s.
  assert_true(sbudget::ParseSince("now-1:00:00", 5000, &t).ok());
  assert_int_equal(t, 1400);
  assert_true(sbudget::ParseSince("@1234", 5000, &t).ok());
  assert_int_equal(t, 1234);
  assert_true(sbudget::ParseSince("2026-11-29T08:00", 5000, &t).ok());
  assert_false(sbudget::ParseSince("yesterday", 5000, &t).ok());
  assert_false(sbudget::ParseSince("now-x", 5000, &t).ok());
}

// --- the command line ----------------------------------------------------

void TestReportFindsSnapshotInStateSaveLocation(void**) {
  TempFiles tmp;
  ReportSnapshot s = Fixture();
  assert_true(budget::WriteReportSnapshot(s, sbudget::SnapshotFileIn(tmp.dir)).ok());
  std::string conf = tmp.Write("slurm.conf", "ClusterName=x\n StateSaveLocation = " + tmp.dir +
                                                 "/  # state\nSlurmctldPort=1\n");
  sbudget::Io io;
  assert_int_equal(Run({"-P"}, TestEnv(conf), &io), 0);
  std::vector<std::string> lines = Lines(io.out);
  // Header + 7 rows (bob hidden for alice).
  assert_int_equal(lines.size(), 8);
  assert_string_equal(io.err.c_str(), "");
  // -lan with grouped flags: all 8 nodes, no header.
  assert_int_equal(Run({"-lan", "-P"}, TestEnv(conf), &io), 0);
  assert_int_equal(Lines(io.out).size(), 8);
  // Columns: the summary line first.
  assert_int_equal(Run({"-A", "robotics"}, TestEnv(conf), &io), 0);
  AssertContains(io.out, "Budget snapshot of ");
  // Two lines at 80 columns.
  AssertContains(io.out, "(10 s old),\n  capacity 80 GPUs, window 7-00:00:00");
  for (const std::string& line : Lines(io.out)) assert_true(line.size() <= 80);
  // --json parses.
  assert_int_equal(Run({"--json", "--accounts=science"}, TestEnv(conf), &io), 0);
  json_object* root = json_tokener_parse(io.out.c_str());
  assert_non_null(root);
  json_object_put(root);
}

void TestMissingStaleAndCorruptSnapshotsSayWhy(void**) {
  TempFiles tmp;
  std::string conf = tmp.Write("slurm.conf", "StateSaveLocation=" + tmp.dir + "\n");
  sbudget::Io io;
  // Missing: exit 1, one line naming the file and the likely cause.
  assert_int_equal(Run({}, TestEnv(conf), &io), 1);
  AssertContains(io.err, "no budget report snapshot at " + tmp.dir + "/budget_report.json");
  AssertContains(io.err, "is PriorityType=priority/budget set");
  assert_string_equal(io.out.c_str(), "");
  // No StateSaveLocation in slurm.conf and no controller.
  std::string empty_conf = tmp.Write("empty.conf", "ClusterName=x\n");
  assert_int_equal(Run({}, TestEnv(empty_conf), &io), 1);
  AssertContains(io.err, "names no StateSaveLocation, and cannot ask slurmctld");
  AssertContains(io.err, "give --snapshot FILE");
  // No slurm.conf at all: said at once, without asking the controller.
  assert_int_equal(Run({}, TestEnv(tmp.dir + "/none.conf"), &io), 1);
  AssertContains(io.err, "cannot read " + tmp.dir + "/none.conf (set SLURM_CONF)");
  // Stale: 3 x 30 s < 90 s, so stale after 90 s; 10 + 1000 s old here.
  ReportSnapshot s = Fixture();
  s.generated_at = kGenerated - 1000;
  std::string file = tmp.dir + "/old.json";
  assert_true(budget::WriteReportSnapshot(s, file).ok());
  assert_int_equal(Run({"--snapshot", file, "-P"}, TestEnv(conf), &io), 0);
  // 1010 s = 16:50.
  AssertContains(io.err, "warning: the budget snapshot is 00:16:50 old (stale after 3 recompute");
  assert_true(!io.out.empty());
  // Corrupt: exit 1 with the JSON path.
  std::string bad = tmp.Write("bad.json", "{\"format\":\"slurm-budget-report\",\"version\":9}");
  assert_int_equal(Run({"--snapshot", bad}, TestEnv(conf), &io), 1);
  AssertContains(io.err, "unusable: ");
  AssertContains(io.err, "$.version: is 9, written by a newer slurm-budget");
}

// priority/budget runs but no tree ever loaded: it writes a snapshot that
// says so, and sbudget says that, not "is priority/budget configured?".
void TestNoTreeLoadedIsSaidPlainly(void**) {
  TempFiles tmp;
  ReportSnapshot s;
  s.generated_at = kGenerated;
  s.window = 600;
  s.bucket_width = 5;
  s.tree_loaded = false;
  s.tree_source = "/etc/slurm/budget-tree.json";
  assert_true(budget::WriteReportSnapshot(s, sbudget::SnapshotFileIn(tmp.dir)).ok());
  std::string conf = tmp.Write("slurm.conf", "StateSaveLocation=" + tmp.dir + "\n");
  sbudget::Io io;
  assert_int_equal(Run({}, TestEnv(conf), &io), 1);
  AssertContains(io.err, "sbudget: no allocation tree has loaded (from /etc/slurm/budget-tree.json");
  AssertContains(io.err, "priority/budget is running but computes no budgets");
  assert_true(io.err.find("is PriorityType") == std::string::npos);
  assert_string_equal(io.out.c_str(), "");
  assert_int_equal(Run({"--json"}, TestEnv(conf), &io), 1);
  AssertContains(io.err, "no allocation tree has loaded");
}

// ReportDir in the budget.conf beside slurm.conf: sbudget reads the copy
// there, as on a login node where StateSaveLocation is not readable; with
// nothing usable there it falls back to StateSaveLocation.
void TestReportDirServesAnyHost(void**) {
  TempFiles tmp;
  const std::string shared = tmp.dir + "/shared";
  assert_int_equal(mkdir(shared.c_str(), 0755), 0);
  ReportSnapshot s = Fixture();
  assert_true(budget::WriteReportSnapshot(s, sbudget::SnapshotFileIn(shared)).ok());
  std::string conf = tmp.Write("slurm.conf", "StateSaveLocation=" + tmp.dir + "/state-not-here\n");
  tmp.Write("budget.conf", "BudgetTree=tree.json\nReportDir=" + shared + "\n");
  sbudget::Io io;
  assert_int_equal(Run({"-P"}, TestEnv(conf), &io), 0);
  assert_int_equal(Lines(io.out).size(), 8);
  assert_string_equal(io.err.c_str(), "");
  // Not there (not mounted yet): StateSaveLocation, if it has one.
  unlink(sbudget::SnapshotFileIn(shared).c_str());
  assert_int_equal(Run({"-P"}, TestEnv(conf), &io), 1);
  AssertContains(io.err, "no budget report snapshot at " + shared + "/budget_report.json");
  std::string conf2 = tmp.Write("slurm.conf", "StateSaveLocation=" + tmp.dir + "\n");
  assert_true(budget::WriteReportSnapshot(s, sbudget::SnapshotFileIn(tmp.dir)).ok());
  assert_int_equal(Run({"-P"}, TestEnv(conf2), &io), 0);
  // A budget.conf that does not parse: said, and StateSaveLocation used.
  tmp.Write("budget.conf", "Colour=blue\n");
  assert_int_equal(Run({"-P"}, TestEnv(conf2), &io), 0);
  AssertContains(io.err, "ignoring " + tmp.dir + "/budget.conf");
}

// metrics: the snapshot and the state files beside it (their families are
// tested in libbudget/report/metrics_text_test.cc), on stdout or into a
// file replaced whole; a bad input fails and leaves that file as it was.
void TestMetricsWritesTheStateFilesAsText(void**) {
  TempFiles tmp;
  assert_true(budget::WriteReportSnapshot(Fixture(), sbudget::SnapshotFileIn(tmp.dir)).ok());
  std::string conf = tmp.Write("slurm.conf", "StateSaveLocation=" + tmp.dir + "\n");
  sbudget::Io io;
  // Only the snapshot: its families, the fragmentation its copy; no
  // packing or counter family; generated 10 s before now.
  assert_int_equal(Run({"metrics"}, TestEnv(conf), &io), 0);
  assert_string_equal(io.err.c_str(), "");
  AssertContains(io.out, "\nslurm_budget_report_age_seconds 10\n");
  AssertContains(io.out, "slurm_budget_allocation_rank{path=\"llm/posttrain/alice\"");
  assert_true(io.out.find("slurm_budget_hero_wait_seconds") == std::string::npos);
  assert_true(io.out.find("slurm_budget_preemptions_total") == std::string::npos);
  assert_true(io.out.size() >= 6 && io.out.compare(io.out.size() - 6, 6, "# EOF\n") == 0);
  // The plugins' files beside it: their families join.
  budget::PackingState packing;
  packing.time = kGenerated;
  packing.free_gpus = 3;
  assert_true(budget::SavePackingState(tmp.dir + "/select_topo_state.json", packing).ok());
  tmp.Write("timeslice_state.json", "{ \"preemptions\": 2, \"automated_drains\": 1, "
                                    "\"preemptions_by_rule\": { \"quick start\": 2 }, \"updated_at\": 1 }\n");
  assert_int_equal(Run({"metrics", "--openmetrics"}, TestEnv(conf), &io), 0);
  AssertContains(io.out, "\nslurm_budget_free_gpus 3\n");
  AssertContains(io.out, "# TYPE slurm_budget_preemptions counter\n"
                         "slurm_budget_preemptions_total{rule=\"quick start\"} 2\n");
  // -o: the same text in the file, nothing on stdout.
  const std::string prom = tmp.dir + "/slurm_budget.prom";
  assert_int_equal(Run({"metrics", "-o", prom}, TestEnv(conf), &io), 0);
  assert_string_equal(io.out.c_str(), "");
  std::ifstream in(prom);
  std::stringstream written;
  written << in.rdbuf();
  AssertContains(written.str(), "# TYPE slurm_budget_preemptions_total counter\n");
  // A corrupt counts file: exit 1 naming it, and the file stays as it was.
  tmp.Write("timeslice_state.json", "{ \"preemptions\": ");
  assert_int_equal(Run({"metrics", "-o", prom}, TestEnv(conf), &io), 1);
  AssertContains(io.err, tmp.dir + "/timeslice_state.json: not a JSON object");
  std::ifstream again(prom);
  std::stringstream kept;
  kept << again.rdbuf();
  assert_string_equal(kept.str().c_str(), written.str().c_str());
  // The snapshot read from ReportDir (budget.conf): the state files are
  // still StateSaveLocation's, where the plugins write them.
  const std::string shared = tmp.dir + "/shared";
  assert_int_equal(mkdir(shared.c_str(), 0755), 0);
  assert_true(budget::WriteReportSnapshot(Fixture(), sbudget::SnapshotFileIn(shared)).ok());
  tmp.Write("budget.conf", "BudgetTree=tree.json\nReportDir=" + shared + "\n");
  tmp.Write("timeslice_state.json", "{ \"preemptions\": 2, \"automated_drains\": 1 }\n");
  assert_int_equal(Run({"metrics"}, TestEnv(conf), &io), 0);
  AssertContains(io.out, "\nslurm_budget_free_gpus 3\n");
  AssertContains(io.out, "\nslurm_budget_automated_drains_total 1\n");
  // A host where StateSaveLocation is not there (a login node): the state
  // files beside the snapshot, in ReportDir, if any (here only the counts).
  std::string login_conf = tmp.Write("login.conf", "StateSaveLocation=" + tmp.dir + "/state-not-here\n");
  // (The budget.conf beside it is the one above: ReportDir=shared.)
  std::ofstream(shared + "/timeslice_state.json") << "{ \"preemptions\": 0, \"automated_drains\": 5 }\n";
  assert_int_equal(Run({"metrics"}, TestEnv(login_conf), &io), 0);
  AssertContains(io.out, "\nslurm_budget_automated_drains_total 5\n");
  assert_true(io.out.find("slurm_budget_free_gpus") == std::string::npos);
  // No snapshot: exit 1, as the report does.
  assert_int_equal(Run({"metrics", "--snapshot", tmp.dir + "/none.json"}, TestEnv(conf), &io), 1);
  AssertContains(io.err, "no budget report snapshot at " + tmp.dir + "/none.json");
  // An unwritable -o: exit 1 naming the file.
  tmp.Write("timeslice_state.json", "{}");
  assert_int_equal(Run({"metrics", "-o", tmp.dir + "/no-dir/x.prom"}, TestEnv(conf), &io), 1);
  AssertContains(io.err, tmp.dir + "/no-dir/x.prom.tmp: cannot create");
}

void TestUsageErrorsExitTwo(void**) {
  sbudget::Io io;
  sbudget::Environment env = TestEnv("/nonexistent");
  const std::vector<std::vector<std::string>> bad = {
      {"--bogus"}, {"-x"}, {"-P", "--json"}, {"frobnicate"}, {"explain"},
      {"explain", "12x"}, {"explain", "0"}, {"history", "x"}, {"history", "--csv", "--svg", "f"},
      {"history", "--csv", "--since", "yesterday"}, {"validate"}, {"diff", "a"}, {"-A"},
      {"--json=yes"}, {"metrics", "now"}, {"metrics", "-o"},
  };
  for (const auto& args : bad) {
    if (Run(args, env, &io) != 2) fail_msg("'%s' did not exit 2", args[0].c_str());
    AssertContains(io.err, "Usage: sbudget");
  }
  assert_int_equal(Run({"--help"}, env, &io), 0);
  AssertContains(io.out, "sbudget diff OLD NEW [--as USER]");
}

void TestExplainAndHistoryThroughTheCommandLine(void**) {
  TempFiles tmp;
  std::string file = tmp.dir + "/snap.json";
  assert_true(budget::WriteReportSnapshot(Fixture(), file).ok());
  sbudget::Environment env = TestEnv("/nonexistent");
  env.load_job = [](uint32_t id, sbudget::SlurmJob* out) {
    if (id != 201) return Status::NotFound("Slurm does not know job");
    *out = PendingInSlurm()[0];
    return Status::Ok();
  };
  env.load_pending_jobs = [](std::vector<sbudget::SlurmJob>* out) {
    *out = PendingInSlurm();
    return Status::Ok();
  };
  sbudget::Io io;
  assert_int_equal(Run({"explain", "201", "--snapshot", file}, env, &io), 0);
  AssertContains(io.out, "Job 201: PENDING (Reason=Priority)");
  AssertContains(io.out, "position 3 of 6");
  // The list fails: said on stderr, the rest still explained.
  env.load_pending_jobs = [](std::vector<sbudget::SlurmJob>*) {
    return Status::IOError("slurm_load_jobs: Unable to contact slurm controller");
  };
  io = sbudget::Io();
  assert_int_equal(Run({"explain", "201", "--snapshot", file}, env, &io), 0);
  AssertContains(io.err, "sbudget: slurm_load_jobs: Unable to contact slurm controller");
  AssertContains(io.out, "rank 3 of 6");
  AssertContains(io.out, "its position is unknown");
  // 80 columns by default: long lines continue under their text, not under
  // the labels.
  for (const std::string& line : Lines(io.out)) {
    if (line.size() > 80) fail_msg("%zu columns: %s", line.size(), line.c_str());
  }
  AssertContains(io.out, "\n  priority    ");
  AssertContains(io.out, "\n              ");
  env.columns = 400;
  assert_int_equal(Run({"explain", "201", "--snapshot", file}, env, &io), 0);
  AssertContains(io.out, "user priority 0 (orders jobs of its own allocation only)");
  assert_int_equal(Run({"explain", "4242", "--snapshot", file}, env, &io), 1);
  AssertContains(io.err, "job 4242 is known neither");
  std::string svg = tmp.dir + "/h.svg";
  assert_int_equal(Run({"history", "--svg", svg, "--snapshot=" + file}, env, &io), 0);
  AssertContains(io.out, "(2 allocations)");
  std::ifstream in(svg);
  std::stringstream text;
  text << in.rdbuf();
  AssertContains(text.str(), "</svg>");
  assert_int_equal(Run({"history", "--csv", "--paths", "robotics", "--snapshot", file}, env, &io), 0);
  // Header + 3 slots.
  assert_int_equal(Lines(io.out).size(), 4);
  // CSV is the default text form.
  std::string csv = io.out;
  assert_int_equal(Run({"history", "--paths", "robotics", "--snapshot", file}, env, &io), 0);
  assert_string_equal(io.out.c_str(), csv.c_str());
  assert_int_equal(Run({"history", "--svg", "/nonexistent/x.svg", "--snapshot", file}, env, &io), 1);
  AssertContains(io.err, "cannot write /nonexistent/x.svg");
}

// explain: when time slicing can start a pending job, beside Slurm's
// estimate. 16 GPUs: pretrain's 205 (rank 3, as 201) and robotics' 211
// (rank 4, behind it, protected through kNow + 120) hold all of them; 201
// is the only pending job. Only 211's GPUs can come to it, from kNow + 121.
void TestExplainTimeSlicedStart(void**) {
  TempFiles tmp;
  std::string file = tmp.dir + "/snap.json";
  ReportSnapshot s = Fixture();
  s.capacity_gpus = 16;
  SnapshotJob behind = Job(211, SnapshotJobState::kRunning, "robotics", 4, SnapshotJob::kNoPosition);
  behind.account = "robotics";
  behind.start_time = kNow - 780;
  behind.protection_end = kNow + 120;
  s.jobs.push_back(behind);
  assert_true(budget::WriteReportSnapshot(s, file).ok());
  sbudget::Environment env = TestEnv("/nonexistent");
  env.load_jobs = [](std::vector<sbudget::SlurmJob>* out) {
    *out = {PendingInSlurm()[0]};
    return Status::Ok();
  };
  sbudget::Io io;
  assert_int_equal(Run({"explain", "-A", "pretrain", "--snapshot", file}, env, &io), 0);
  AssertContains(io.out, "slicing     time slicing can start it from " + sbudget::FormatTimestamp(kNow + 121) +
                             " (in 00:02:01),");
  AssertContains(io.out, "8 GPUs (its own)");
  assert_int_equal(Run({"explain", "-A", "pretrain", "--json", "--snapshot", file}, env, &io), 0);
  json_object* root = json_tokener_parse(io.out.c_str());
  assert_non_null(root);
  json_object* v = nullptr;
  assert_true(json_object_object_get_ex(json_object_array_get_idx(root, 0), "timeslice_start", &v));
  assert_int_equal(json_object_get_int64(v), kNow + 121);
  json_object_put(root);
  // With 211 of pretrain's own rank instead, nothing can come to it.
  s.jobs.back().rank = 3;
  assert_true(budget::WriteReportSnapshot(s, file).ok());
  assert_int_equal(Run({"explain", "-A", "pretrain", "--snapshot", file}, env, &io), 0);
  AssertContains(io.out, "slicing     time slicing cannot start it before work of allocations ranked\n"
                         "              ahead of it ends: 8 GPUs (its own) needed, 0 free or held by work");
}

// explain -u/-A: every job of a user or account, the pending ones placed
// among all pending jobs, with Slurm's estimated start; --json for scripts.
void TestExplainEveryJobOfAnAccount(void**) {
  TempFiles tmp;
  std::string file = tmp.dir + "/snap.json";
  assert_true(budget::WriteReportSnapshot(Fixture(), file).ok());
  sbudget::Environment env = TestEnv("/nonexistent");
  env.load_jobs = [](std::vector<sbudget::SlurmJob>* out) {
    *out = PendingInSlurm();
    (*out)[0].estimated_start = kNow + 600;  // 201: backfill's estimate
    sbudget::SlurmJob running = Pending(205, 0, "pretrain", kGenerated - 1000);
    running.state = "RUNNING";
    running.reason = "None";
    running.start_time = kNow - 600;
    out->push_back(running);
    return Status::Ok();
  };
  sbudget::Io io;
  assert_int_equal(Run({"explain", "-A", "pretrain", "--snapshot", file}, env, &io), 0);
  // 201, 202 (pending) and 205 (running), by job id.
  size_t a = io.out.find("Job 201: PENDING"), b = io.out.find("Job 202: PENDING"), c = io.out.find("Job 205: RUNNING");
  assert_true(a != std::string::npos && b != std::string::npos && c != std::string::npos && a < b && b < c);
  AssertContains(io.out, "position 3 of 6 pending jobs");
  AssertContains(io.out, "start       Slurm expects it to start at " + sbudget::FormatTimestamp(kNow + 600) +
                             " (in 00:10:00)");
  AssertContains(io.out, "protected until");
  assert_true(io.out.find("Job 203") == std::string::npos);  // posttrain's
  // A start about a year away (364-23:59:35, seen after a requeue) is
  // Slurm's placeholder: said so, never printed as a date, null in JSON.
  sbudget::Environment far = env;
  far.load_jobs = [](std::vector<sbudget::SlurmJob>* out) {
    *out = PendingInSlurm();
    (*out)[0].estimated_start = kNow + 365 * 86400 - 25;
    return Status::Ok();
  };
  assert_int_equal(Run({"explain", "-A", "pretrain", "--snapshot", file}, far, &io), 0);
  AssertContains(io.out, "start       Slurm has no estimate (its start time, in 364-23:59:35, is a\n"
                         "              placeholder, not a plan)");
  assert_true(io.out.find(sbudget::FormatTimestamp(kNow + 365 * 86400 - 25)) == std::string::npos);
  assert_int_equal(Run({"explain", "-A", "pretrain", "--json", "--snapshot", file}, far, &io), 0);
  assert_true(io.out.find("\"estimated_start\": null") != std::string::npos ||
              io.out.find("\"estimated_start\":null") != std::string::npos);
  assert_int_equal(Run({"explain", "-u", "alice", "-A", "pretrain", "--json", "--snapshot", file}, env, &io), 0);
  json_object* root = json_tokener_parse(io.out.c_str());
  assert_non_null(root);
  assert_int_equal(json_object_array_length(root), 3);
  json_object* first = json_object_array_get_idx(root, 0);
  json_object* v = nullptr;
  auto get = [&](json_object* o, const char* key) {
    if (!json_object_object_get_ex(o, key, &v)) fail_msg("no key %s", key);
    return v;
  };
  assert_int_equal(json_object_get_int64(get(first, "job_id")), 201);
  assert_int_equal(json_object_get_int64(get(first, "queue_position")), 3);
  assert_int_equal(json_object_get_int64(get(first, "queue_length")), 6);
  assert_int_equal(json_object_get_int64(get(first, "estimated_start")), kNow + 600);
  assert_string_equal(json_object_get_string(get(first, "allocation")), "llm/pretrain");
  assert_int_equal(json_object_get_int64(get(first, "tree_rank")), 3);
  assert_null(get(first, "protection_end"));
  assert_true(json_object_is_type(get(first, "explanation"), json_type_array));
  json_object* running = json_object_array_get_idx(root, 2);
  assert_int_equal(json_object_get_int64(get(running, "protection_end")), kNow + 300);
  assert_null(get(running, "estimated_start"));
  assert_null(get(running, "queue_position"));
  json_object_put(root);
  // Nobody's jobs: said, exit 1. A job id and -u: bad usage.
  assert_int_equal(Run({"explain", "-u", "nobody", "--snapshot", file}, env, &io), 1);
  AssertContains(io.err, "Slurm has no jobs of user nobody");
  assert_int_equal(Run({"explain", "201", "-u", "alice"}, env, &io), 2);
  // One job as JSON too.
  env.load_job = [](uint32_t, sbudget::SlurmJob* out) {
    *out = PendingInSlurm()[0];
    return Status::Ok();
  };
  env.load_pending_jobs = [](std::vector<sbudget::SlurmJob>* out) {
    *out = PendingInSlurm();
    return Status::Ok();
  };
  assert_int_equal(Run({"explain", "201", "--json", "--snapshot", file}, env, &io), 0);
  root = json_tokener_parse(io.out.c_str());
  assert_non_null(root);
  assert_int_equal(json_object_get_int64(get(json_object_array_get_idx(root, 0), "queue_position")), 3);
  json_object_put(root);
}

// --- validate and diff --as ---------------------------------------------

const char kTree[] = R"({ "name": "cluster", "owners": ["director"], "children": [
    { "name": "llm", "share": 50, "owners": ["pi-llm"], "children": [
        { "name": "pretrain",  "share": 70, "account": "pretrain" },
        { "name": "posttrain", "share": 30, "account": "posttrain" } ] },
    { "name": "robotics", "share": 30, "account": "robotics" },
    { "name": "science",  "share": 20, "account": "science" } ] })";

std::string Edit(const std::string& from, const std::string& to) {
  std::string text = kTree;
  size_t at = text.find(from);
  if (at == std::string::npos) fail_msg("'%s' not in the tree", from.c_str());
  return text.replace(at, from.size(), to);
}

void TestValidate(void**) {
  TempFiles tmp;
  sbudget::Io io;
  sbudget::Environment env = TestEnv("/nonexistent");
  std::string good = tmp.Write("good.json", kTree);
  assert_int_equal(Run({"validate", good}, env, &io), 0);
  AssertContains(io.out, ": valid, 6 nodes, 4 accounts");
  // pretrain: 0.5 x 0.7 = 35%.
  AssertContains(io.out, " 35.000%      llm/pretrain account=pretrain");
  std::string bad = tmp.Write("bad.json", Edit("\"share\": 30, \"account\": \"robotics\"",
                                               "\"share\": -3, \"account\": \"robotics\""));
  assert_int_equal(Run({"validate", bad}, env, &io), 1);
  AssertContains(io.err, "$.children[1].share");
  AssertContains(io.err, "invalid; the plugin would refuse it");
  assert_int_equal(Run({"validate", tmp.dir + "/missing.json"}, env, &io), 1);
  AssertContains(io.err, "missing.json");
}

void TestDiffAsUser(void**) {
  TempFiles tmp;
  sbudget::Io io;
  sbudget::Environment env = TestEnv("/nonexistent");
  std::string old_tree = tmp.Write("old.json", kTree);
  // pi-llm moves 10 points from pretrain to posttrain: inside llm, allowed.
  std::string inside = tmp.Write(
      "inside.json", Edit("\"share\": 70, \"account\": \"pretrain\" },\n        { \"name\": \"posttrain\", \"share\": 30",
                          "\"share\": 60, \"account\": \"pretrain\" },\n        { \"name\": \"posttrain\", \"share\": 40"));
  assert_int_equal(Run({"diff", old_tree, inside, "--as", "pi-llm"}, env, &io), 0);
  // pretrain 0.5 x 0.6 = 0.3 (was 0.35); posttrain 0.5 x 0.4 = 0.2 (was 0.15).
  AssertContains(io.out, "llm/pretrain: share 70 -> 60");
  AssertContains(io.out, "llm/posttrain: share 30 -> 40");
  AssertContains(io.out, "2 nodes change");
  AssertContains(io.out, "allowed: pi-llm owns an ancestor of every edited node");
  assert_string_equal(io.err.c_str(), "");
  // pi-llm also raises robotics: outside llm, refused, named, exit 1.
  std::string outside = tmp.Write(
      "outside.json", Edit("\"share\": 30, \"account\": \"robotics\"", "\"share\": 45, \"account\": \"robotics\""));
  assert_int_equal(Run({"diff", old_tree, outside, "--as", "pi-llm"}, env, &io), 1);
  AssertContains(io.err, "not allowed: robotics: share 30 -> 45");
  AssertContains(io.err, "1 change(s) outside what pi-llm owns");
  // The entitlement of every sibling changes: llm 50/100 -> 50/115.
  AssertContains(io.out, "llm: entitlement");
  // The director owns the root: allowed.
  assert_int_equal(Run({"diff", old_tree, outside, "--as", "director"}, env, &io), 0);
  // Without --as: just the diff.
  assert_int_equal(Run({"diff", old_tree, outside}, env, &io), 0);
  // A broken new tree: exit 1 with the parser's error.
  std::string broken = tmp.Write("broken.json", "{\"name\": ");
  assert_int_equal(Run({"diff", old_tree, broken, "--as", "pi-llm"}, env, &io), 1);
  AssertContains(io.err, "broken.json");
}

void TestStateSaveLocationFromConf(void**) {
  // Case-insensitive key, comment, quotes, last assignment wins.
  assert_string_equal(
      sbudget::StateSaveLocationFromConf("# StateSaveLocation=/no\nstatesavelocation=/a\n"
                                         "StateSaveLocation=\"/var/spool/slurm\" # x\n")
          .c_str(),
      "/var/spool/slurm");
  assert_string_equal(sbudget::StateSaveLocationFromConf("ClusterName=c\n").c_str(), "");
  assert_string_equal(sbudget::SnapshotFileIn("/var/spool/slurm//").c_str(),
                      "/var/spool/slurm/budget_report.json");
}

}  // namespace

// The unit of the GPU times under the snapshot line: GPU-hours, or
// weighted GPU-hours with the weights in force (report_snapshot.h "Unit").
void TestSummaryNamesTheUnit(void**) {
  ReportSnapshot s = Fixture();
  std::string plain = sbudget::FormatSnapshotSummary(s, kGenerated + 10, SIZE_MAX);
  AssertContains(plain, "capacity 80 GPUs");
  AssertContains(plain, "\nGPU time in GPU-hours\n");
  assert_string_equal(sbudget::GpuTimeUnit(s).c_str(), "GPU-hours");

  s.gpu_type_weights.Set("b200", 2);
  s.gpu_type_weights.Set("h100", 1);
  s.capacity_gpus = 120;  // 40 B200 + 40 H100 GPUs: 40 x 2 + 40 x 1
  std::string weighted = sbudget::FormatSnapshotSummary(s, kGenerated + 10, SIZE_MAX);
  AssertContains(weighted, "capacity 120 weighted GPUs");
  AssertContains(weighted, "\nGPU time in weighted GPU-hours (GpuTypeWeights=b200:2,h100:1; other types 1)\n");
  // At 60 columns the weights go on a line of their own.
  std::string narrow = sbudget::FormatSnapshotSummary(s, kGenerated + 10, 60);
  AssertContains(narrow, "\nGPU time in weighted GPU-hours\n  (GpuTypeWeights=b200:2,h100:1; other types 1)\n");
  // --json: the unit and the weights.
  std::string json = sbudget::FormatJson(s, {0}, kGenerated + 10);
  AssertContains(json, "\"unit\": \"weighted GPU-hours\"");
  AssertContains(json, "\"b200\": 2");
}

// --- seed-ledger ---------------------------------------------------------

// A StateSaveLocation, a pid file, budget.conf (the example tree, allocated
// work by default) and a week of sacct output: llm/pretrain ran 4 GPUs for
// 2 h ending 1 h ago; marketing (in no node of the tree) ran too.
struct SeedFiles {
  TempFiles files;
  std::string conf, sacct, ledger;
  SeedFiles() {
    std::system(("mkdir -p '" + files.dir + "/state'").c_str());
    conf = files.Write("slurm.conf", "StateSaveLocation=" + files.dir + "/state\nSlurmctldPidFile=" + files.dir +
                                         "/ctld.pid\n");
    files.Write("tree.json", budget::testing::kExampleTree);
    files.Write("budget.conf", "BudgetTree=tree.json\nDefaultMinRuntime=15\n");
    const std::string start = budget::SacctTimeText(kNow - 3 * 3600);
    sacct = files.Write("week.sacct",
                        std::string("JobID|JobIDRaw|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State|"
                                    "AdminComment\n") +
                            "5|5|pretrain|carol|" + start + "|" + start + "|02:00:00|02:00:00|gres/gpu=4|COMPLETED|\n" +
                            "6|6|marketing|dave|" + start + "|" + start + "|02:00:00|02:00:00|gres/gpu=4|COMPLETED|\n");
    ledger = files.dir + "/state/budget_ledger.dat";
  }
};

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

void TestSeedLedgerWritesAndReports(void**) {
  SeedFiles f;
  sbudget::Environment env = TestEnv(f.conf);
  env.seed.controller_answers = [] { return false; };
  sbudget::Io io;
  // --dry-run: the report, nothing written.
  assert_int_equal(Run({"seed-ledger", "--since", "7-0", "--sacct-file", f.sacct, "--dry-run"}, env, &io), 0);
  AssertContains(io.out, "runs charged:  1 (of 1 jobs)");
  AssertContains(io.out, "1 runs whose account is in no node of the tree (never charged): marketing");
  // 4 GPUs x 2 h = 8.0 GPU-hours for llm.
  AssertContains(io.out, "  llm              8.0\n");
  AssertContains(io.out, "dry run: nothing written");
  assert_false(FileExists(f.ledger));
  assert_int_equal(Run({"seed-ledger", "--since", "7-0", "--sacct-file", f.sacct}, env, &io), 0);
  AssertContains(io.out, "wrote " + f.ledger);
  budget::Ledger ledger{budget::Ledger::Options()};
  assert_true(budget::LoadLedger(f.ledger, &ledger).ok());
  assert_float_equal(ledger.WindowUsage("llm/pretrain", budget::Ledger::Series::kAllocated, kNow), 28800, 1e-6);
  // The ledger now holds usage: a second seed is refused without --force.
  assert_int_equal(Run({"seed-ledger", "--sacct-file", f.sacct}, env, &io), 1);
  AssertContains(io.err, "already holds usage of 1 allocation(s): --force replaces it");
  assert_int_equal(Run({"seed-ledger", "--sacct-file", f.sacct, "--force"}, env, &io), 0);
  assert_true(FileExists(f.ledger + ".1"));
}

void TestSeedLedgerRefusesWhileSlurmctldRuns(void**) {
  SeedFiles f;
  sbudget::Environment env = TestEnv(f.conf);
  env.seed.controller_answers = [] { return true; };
  sbudget::Io io;
  assert_int_equal(Run({"seed-ledger", "--sacct-file", f.sacct}, env, &io), 1);
  AssertContains(io.err, "slurmctld is running (it answers a ping (scontrol ping: UP)): stop it first");
  assert_false(FileExists(f.ledger));
  // A dry run still reports, and says so.
  assert_int_equal(Run({"seed-ledger", "--sacct-file", f.sacct, "--dry-run"}, env, &io), 0);
  AssertContains(io.out, "note: slurmctld is running");
}

void TestSeedLedgerBadInputWritesNothing(void**) {
  SeedFiles f;
  sbudget::Environment env = TestEnv(f.conf);
  sbudget::Io io;
  // sacct not found.
  env.seed.run_sacct = [](const std::vector<std::string>&, std::string*) {
    return Status::NotFound("sacct not found in PATH: install Slurm's client commands (sacct), or give --sacct-file FILE");
  };
  assert_int_equal(Run({"seed-ledger"}, env, &io), 1);
  AssertContains(io.err, "sbudget: seed-ledger: sacct not found in PATH");
  // The command sacct is run with.
  std::vector<std::string> asked;
  env.seed.run_sacct = [&asked](const std::vector<std::string>& args, std::string* out) {
    asked = args;
    *out = "JobID|JobIDRaw|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State|AdminComment\n5|5|pre";
    return Status::Ok();
  };
  // Truncated output: an error, nothing written.
  assert_int_equal(Run({"seed-ledger", "--since", "1-0"}, env, &io), 1);
  AssertContains(io.err, "sacct:2: the last line has no newline: the output was cut short (truncated) (nothing written)");
  assert_int_equal(asked.size(), 9);
  assert_string_equal(asked[5].c_str(), budget::SacctTimeText(kNow - 86400).c_str());
  assert_false(FileExists(f.ledger));
  assert_int_equal(Run({"seed-ledger", "--since", "tomorrow"}, env, &io), 2);
}

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestSeedLedgerWritesAndReports),
      cmocka_unit_test(TestSeedLedgerRefusesWhileSlurmctldRuns),
      cmocka_unit_test(TestSeedLedgerBadInputWritesNothing),
      cmocka_unit_test(TestSelectionFollowsSshare),
      cmocka_unit_test(TestSummaryNamesTheUnit),
      cmocka_unit_test(TestParsable2RowsParseBack),
      cmocka_unit_test(TestParsableEndsEachLineWithBar),
      cmocka_unit_test(TestColumnsIndentByDepthAndAlign),
      cmocka_unit_test(TestStandingExplainsTheRank),
      cmocka_unit_test(TestSelectByPathAndSayWhenNothingMatched),
      cmocka_unit_test(TestDefaultFormFitsTheTerminal),
      cmocka_unit_test(TestJsonParsesBack),
      cmocka_unit_test(TestWhyAheadNamesTheFirstDifferingStep),
      cmocka_unit_test(TestPendingJobsArePlacedByTheirPriority),
      cmocka_unit_test(TestExplainPendingJob),
      cmocka_unit_test(TestExplainRunningAndPreemptedJobs),
      cmocka_unit_test(TestExplainTellsOfANotice),
      cmocka_unit_test(TestExplainSaysHowAPreemptionOrDrainEnded),
      cmocka_unit_test(TestExplainGivesTheLastRefusedContractChange),
      cmocka_unit_test(TestExplainOfAJobNeitherKnows),
      cmocka_unit_test(TestHistoryCsvAndSvg),
      cmocka_unit_test(TestTimeTicksAreRound),
      cmocka_unit_test(TestParseSince),
      cmocka_unit_test(TestReportFindsSnapshotInStateSaveLocation),
      cmocka_unit_test(TestMissingStaleAndCorruptSnapshotsSayWhy),
      cmocka_unit_test(TestNoTreeLoadedIsSaidPlainly),
      cmocka_unit_test(TestReportDirServesAnyHost),
      cmocka_unit_test(TestUsageErrorsExitTwo),
      cmocka_unit_test(TestExplainAndHistoryThroughTheCommandLine),
      cmocka_unit_test(TestExplainEveryJobOfAnAccount),
      cmocka_unit_test(TestExplainTimeSlicedStart),
      cmocka_unit_test(TestMetricsWritesTheStateFilesAsText),
      cmocka_unit_test(TestValidate),
      cmocka_unit_test(TestDiffAsUser),
      cmocka_unit_test(TestStateSaveLocationFromConf),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
