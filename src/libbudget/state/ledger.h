// Ledger: GPU-seconds charged to each allocation path over a sliding
// lookback window, in fixed-width time buckets.
//
// Three series are kept per path (a tree path such as "llm/pretrain"; the
// ledger is keyed by path, not by tree node, so it survives tree reloads;
// a reload that moves an allocation moves its usage with MovePaths,
// ledger_migration.h):
//   kAllocated    GPU-seconds occupied by allocated work (min-runtime > 0);
//                 this is what the fair-share order ranks on.
//   kUnallocated  GPU-seconds occupied by unallocated work (min-runtime 0).
//   kDemand       GPU-seconds asked for by running plus pending ALLOCATED
//                 work (metrics.h: free work is owed nothing).
// Usage is charged to the path it names only; subtree sums are the caller's
// job (the caller knows the tree).
//
// Window semantics (exact, tested). A series with bucket width w keeps
// bucket k = [k*w, (k+1)*w). A query at `now` with window W includes bucket
// k iff  k*w > now - W  and  k*w <= now,  i.e. the W/w buckets
// floor(now/w) - W/w + 1 .. floor(now/w). So usage charged at a bucket-
// aligned t counts for every now in [t, t + W) and is gone exactly at
// now = t + W.
//
// Resolution and memory. The allocated series, which ranks jobs, uses
// `bucket_width` (default 5 min). The report-only series (unallocated,
// demand) use the coarser `report_bucket_width` (default 1 h): reports and
// the owed/delivered metrics are hourly anyway, and this keeps memory inside
// the budget of the priority pass (10,000 paths x 7 days under ~100 MB):
//   allocated   2016 buckets x 4 B        = 8064 B per path
//   unalloc+dem 2 x 168 buckets x 4 B     = 1344 B per path
//   => ~9.4 KB per charged path, ~94 MB for 10,000 paths.
// A series's buckets are allocated on its first charge, so a path that is
// only ever charged demand costs 672 B. Buckets are stored as float (exact
// for whole GPU-seconds up to 2^24 = 16.7 M per bucket, i.e. 55,000 GPUs
// fully busy for 5 min); each series also keeps its window total as a
// double running sum, updated by exactly the float deltas stored, so it
// never drifts from the sum of its buckets by more than double rounding, and
// it is reset to exactly 0 whenever the series empties.
//
// Cost. Each series is a ring of W/w buckets plus a head (the newest bucket
// index it has seen). Time moves forward lazily: a charge or query that
// reaches a newer bucket first expires the buckets that left the window
// (subtracting them from the running sum). A run of queries at
// non-decreasing times therefore costs O(1) amortized per query; a path that
// has not been touched for a whole window costs O(W/w) once. Queries at a
// `now` older than the head are answered exactly from the retained buckets
// in O(W/w) (buckets older than head - W/w are gone and count 0).
//
// Times. TimePoints outside [-kTimeLimit, kTimeLimit] (about +-140 million
// years) are ignored by charges and queries, so that no bucket arithmetic
// can overflow.
//
// Charges. Charge() spreads gpus x |[from, to)| over the buckets [from, to)
// overlaps. The ledger never reads the clock: a charge is taken as the
// truth about [from, to) and moves the series head forward to the bucket
// holding to - 1; the parts of [from, to) older than the retained window
// (relative to that head) are dropped. Charging the future is a caller bug:
// it would expire real usage early.
//
// Job cursors. ChargedUntil(job) is the end of the last interval charged
// for a running job. It is saved and loaded with the buckets, so after a
// crash and a restart the ledger and the cursors agree: a job still running
// is charged from its cursor on, never twice and never with a gap larger
// than the time since the last save.
//
// Thread safety: none. A Ledger is a plain value; callers serialise all
// access (the priority plugin holds its own mutex). Even const queries must
// not run concurrently with mutations, nor ExportAllSeries with another
// (it keeps its sorted order in the object).
#ifndef SLURM_BUDGET_LIBBUDGET_LEDGER_H_
#define SLURM_BUDGET_LIBBUDGET_LEDGER_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

class Ledger {
 public:
  struct Options {
    // Lookback window W. Must be a positive multiple of both bucket widths.
    Seconds window = 7 * 86400;
    // Bucket width of the allocated series (the one that ranks jobs).
    Seconds bucket_width = 300;
    // Bucket width of the report-only series (unallocated, demand), and the
    // "hour" of the metrics. Must be a positive multiple of bucket_width
    // that divides window.
    Seconds report_bucket_width = 3600;
  };

  enum class Series { kAllocated = 0, kUnallocated = 1, kDemand = 2 };
  static constexpr int kSeriesCount = 3;
  static constexpr TimePoint kTimeLimit = int64_t{1} << 52;
  // Upper bound on window / bucket width, so that a bad option cannot ask
  // for gigabytes per path.
  static constexpr int64_t kMaxBucketsPerSeries = int64_t{1} << 22;

  // Values of one series over consecutive buckets of width `width`, the
  // first starting at `start`: gpu_seconds[i] covers
  // [start + i*width, start + (i+1)*width).
  struct History {
    TimePoint start = 0;
    Seconds width = 0;
    std::vector<double> gpu_seconds;
  };

  // Ok, or InvalidArgument naming the option and why it is unusable.
  static Status CheckOptions(const Options& options);

  // Options that fail CheckOptions are replaced by usable ones (a window or
  // bucket_width <= 0 becomes the default, the window is rounded up to a
  // multiple of bucket_width, a report width that does not fit becomes
  // bucket_width); options() returns what is in effect. Callers that take
  // options from a config file should call CheckOptions first and refuse
  // bad ones.
  explicit Ledger(Options options);
  Ledger(Ledger&&) noexcept;
  Ledger& operator=(Ledger&&) noexcept;
  ~Ledger();

  const Options& options() const { return options_; }
  // Bucket width of one series (bucket_width or report_bucket_width).
  Seconds BucketWidth(Series series) const;

  // Adds gpus x |[from,to) ∩ window| GPU-seconds to `path`'s series, split
  // across the buckets it overlaps. Empty or reversed intervals, gpus <= 0
  // and non-finite gpus are ignored. REQUIRES: `to` is not in the future.
  void Charge(const std::string& path, Series series, TimePoint from,
              TimePoint to, double gpus);

  // Charges a running job for [max(start, ChargedUntil(job_id)), now) and
  // moves its cursor to now: the way to charge a job at each pass without
  // ever charging an interval twice. A running job both occupies and
  // demands its GPUs, so the interval is charged to `occupancy`
  // (kAllocated or kUnallocated), and to kDemand for allocated work only
  // (free work is no demand on an allocation); with occupancy == kDemand
  // only demand is charged. (Pending jobs' demand has no cursor: the caller
  // charges it with Charge(path, kDemand, last_pass, now, gpus).)
  void ChargeRunningJob(uint32_t job_id, const std::string& path,
                        Series occupancy, TimePoint start, TimePoint now,
                        double gpus);

  // GPU-seconds charged directly to `path` (not descendants) in the window
  // ending at now (see "Window semantics"). 0 for an unknown path.
  double WindowUsage(const std::string& path, Series series, TimePoint now);

  // Per-bucket values of a series over the buckets overlapping [from, to),
  // at `resolution` seconds per point (0 = the series's bucket width;
  // otherwise rounded up to a multiple of it). Points start at a multiple
  // of the resolution. Buckets not retained count 0. At most
  // kMaxHistoryPoints points are returned (the earliest ones).
  History SeriesHistory(const std::string& path, Series series,
                        TimePoint from, TimePoint to,
                        Seconds resolution = 0) const;
  static constexpr size_t kMaxHistoryPoints = 1 << 20;

 private:
  struct Ring;  // defined below

 public:
  // One series of one path, looked up once and read many times (the
  // report's history reads a slot of every node at every pass). Valid until
  // the ledger is next changed; a path never charged reads 0.
  class SeriesReader {
   public:
    // The GPU-s of the buckets in [from, to), both multiples of the
    // series's bucket width, added in time order from 0: SeriesHistory's
    // point over the same span, bit for bit.
    double Sum(TimePoint from, TimePoint to) const;

   private:
    friend class Ledger;
    const Ring* ring_ = nullptr;
    int64_t n_ = 0;
    Seconds width_ = 0;
  };
  SeriesReader Reader(const std::string& path, Series series) const;

  // Per-job charge cursor, persisted with the ledger, so a restarted
  // controller charges a running job from where the last save left off and
  // never twice.
  TimePoint ChargedUntil(uint32_t job_id) const;  // 0 if unknown
  void SetChargedUntil(uint32_t job_id, TimePoint t);
  void ForgetJob(uint32_t job_id);
  // Every job with a cursor, in no particular order.
  std::vector<std::pair<uint32_t, TimePoint>> JobCursors() const;

  // Paths that have been charged, sorted.
  std::vector<std::string> Paths() const;
  bool HasPath(const std::string& path) const;
  // Drops a path and its buckets (e.g. a node removed from the tree whose
  // usage no longer matters). Returns whether it existed.
  bool ForgetPath(const std::string& path);
  // Moves the usage of each move's `from` path (every series, every
  // retained bucket) to its `to` path, adding it to what `to` already
  // holds, and forgets `from`: for a tree reload that moved or renamed an
  // allocation (ledger_migration.h). Every source is taken out before any
  // destination is written, so one call may swap paths or chain them (with
  // a -> b and b -> c, a's usage ends at b and b's at c). Adding follows
  // Charge's rules: a series's head becomes the newer of the two, and
  // buckets older than the window it then ends are dropped. A source
  // without usage, one listed again, or one moved to itself changes
  // nothing. Returns how many sources held usage. Job cursors are keyed
  // by job, not path, and stay as they are.
  struct PathMove {
    std::string from;
    std::string to;
  };
  size_t MovePaths(const std::vector<PathMove>& moves);
  size_t path_count() const { return paths_.size(); }
  size_t job_count() const { return cursors_.size(); }

  // Bytes held by bucket storage (for benchmarks and tests of the memory
  // bound).
  size_t BucketBytes() const;

  // --- Raw bucket access, for the file format (ledger_file.cc). ---
  // A series's retained buckets: head is the newest bucket index seen
  // (kNoHead if the series was never charged), values[i] is bucket
  // head - (n-1) + i, n = window / width.
  static constexpr int64_t kNoHead = INT64_MIN;
  struct RawSeries {
    int64_t head = kNoHead;
    std::vector<float> values;
  };
  RawSeries ExportSeries(const std::string& path, Series series) const;
  // A series's retained buckets as RawSeries orders them, read in place:
  // the ring's two contiguous runs, `older` then `newer` (a save reads
  // each bucket once and copies none). Valid until the ledger changes.
  struct SeriesView {
    int64_t head = kNoHead;
    const float* older = nullptr;
    size_t older_size = 0;
    const float* newer = nullptr;
    size_t newer_size = 0;
    size_t size() const { return older_size + newer_size; }
    float operator[](size_t i) const { return i < older_size ? older[i] : newer[i - older_size]; }
  };
  // Calls visit(path, series) for every path, in sorted order (the file
  // format's), series[s] the view of Series s: the saver's walk, without a
  // lookup per series; the sorted order is kept from one call to the next
  // while no path is added or dropped. `visit` must not change the ledger.
  void ExportAllSeries(
      const std::function<void(const std::string& path, const SeriesView (&series)[kSeriesCount])>& visit) const;
  // Replaces a series with `raw` (values.size() must equal the series's
  // bucket count); InvalidArgument otherwise.
  Status ImportSeries(const std::string& path, Series series,
                      const RawSeries& raw);

  // The earliest time whose buckets changed since the previous call (a
  // charge's `from`; kAllChanged after an import, a forgotten or moved
  // path, or for the first call), kNoneChanged if none; resets it. For one consumer
  // that keeps figures computed from the buckets (SubtreeHistoryCache):
  // buckets that leave the window are not changes.
  static constexpr TimePoint kNoneChanged = std::numeric_limits<TimePoint>::max();
  static constexpr TimePoint kAllChanged = std::numeric_limits<TimePoint>::min();
  TimePoint TakeEarliestChange();

 private:
  // One series of one path: a ring of n = window / width buckets ending at
  // bucket `head` (the operations and invariants are in ledger.cc). Held by
  // value in the path map so a query touches as few cache lines as
  // possible: the map node, the key, and this header; the buckets only
  // when the head moves.
  struct Ring {
    int64_t head = kNoHead;
    int64_t nonzero = 0;             // buckets != 0
    double sum = 0.0;                // window total
    std::unique_ptr<float[]> slots;  // n buckets; null until first charged
  };
  struct PathUsage {
    Ring rings[kSeriesCount];
  };

  class RingOps;
  class ConstRingOps;

  const Ring* FindRing(const std::string& path, Series series) const;
  Ring* FindMutableRing(const std::string& path, Series series);
  Ring* MutableRing(const std::string& path, Series series);
  int64_t BucketCount(Series series) const;

  static SeriesView ViewRing(const Ring* ring, int64_t n);

  Options options_;
  std::unordered_map<std::string, PathUsage> paths_;
  // ExportAllSeries' order: the map's entries (whose addresses a rehash
  // keeps) sorted by path, valid while sorted_generation_ is
  // paths_generation_, which moves when a path is added or dropped.
  uint64_t paths_generation_ = 0;
  mutable uint64_t sorted_generation_ = UINT64_MAX;
  mutable std::vector<const std::pair<const std::string, PathUsage>*> sorted_;
  std::unordered_map<uint32_t, TimePoint> cursors_;
  TimePoint earliest_change_ = kAllChanged;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_LEDGER_H_
