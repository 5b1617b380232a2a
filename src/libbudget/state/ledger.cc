#include "libbudget/state/ledger.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace budget {

namespace {

// Floor division and modulo that are correct for negative numerators
// (times before the epoch); b > 0.
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

bool TimeInRange(TimePoint t) {
  return t >= -Ledger::kTimeLimit && t <= Ledger::kTimeLimit;
}

std::string Sec(Seconds s) { return std::to_string(s) + " s"; }

}  // namespace


// The operations on one Ring (ledger.h), which does not store its own size.
// Invariants, for a ring whose head != kNoHead:
//   - slot FloorMod(k, n) holds bucket k for every k in (head - n, head];
//   - sum is the sum of all slots up to double rounding, and exactly 0
//     when nonzero == 0;
//   - nonzero counts the slots that are != 0.
class Ledger::RingOps {
 public:
  RingOps(Ring* ring, int64_t n) : r_(*ring), n_(n) {}

  // Gives the ring its buckets (all 0) if it has none yet.
  void Allocate() {
    if (!r_.slots) r_.slots.reset(new float[n_]());
  }

  // Moves the head forward to bucket k (no-op if k <= head), expiring the
  // buckets that leave the ring. O(min(n, k - head)).
  void Advance(int64_t k) {
    if (r_.head != Ledger::kNoHead && k <= r_.head) return;
    if (r_.head == Ledger::kNoHead || k - r_.head >= n_) {
      std::fill(r_.slots.get(), r_.slots.get() + n_, 0.0f);
      r_.nonzero = 0;
      r_.sum = 0.0;
    } else {
      for (int64_t j = r_.head + 1; j <= k; ++j) Store(j, 0.0f);
    }
    r_.head = k;
  }

  // Adds v to bucket k, advancing the head if k is newer; buckets older
  // than the ring are dropped.
  void Add(int64_t k, double v) {
    if (r_.head != Ledger::kNoHead && k <= r_.head - n_) return;
    Advance(k);
    const float old = r_.slots[Slot(k)];
    Store(k, static_cast<float>(static_cast<double>(old) + v));
  }

  // Sum of buckets (kn - n, kn]: the window ending in bucket kn.
  double WindowSum(int64_t kn) {
    if (r_.head == Ledger::kNoHead) return 0.0;
    if (kn >= r_.head) {
      Advance(kn);
      return std::max(0.0, r_.sum);
    }
    // A query in the past: only retained buckets can answer it.
    double total = 0.0;
    for (int64_t k = std::max(kn - n_ + 1, r_.head - n_ + 1); k <= kn; ++k) {
      total += r_.slots[Slot(k)];
    }
    return total;
  }

  // Adds every retained bucket of `other` (a ring of the same size), the
  // head moving to the newer of the two; buckets that then fall out of the
  // ring are dropped, as in Add.
  void AddRing(const Ring& other) {
    if (other.head == Ledger::kNoHead || !other.slots) return;
    Allocate();
    Advance(other.head);
    for (int64_t k = other.head - n_ + 1; k <= other.head; ++k) {
      const float v = other.slots[Slot(k)];
      if (v != 0.0f) Add(k, v);
    }
  }

  // Replaces the contents: values[i] is bucket head - (n-1) + i.
  void Assign(int64_t head, const std::vector<float>& values) {
    Allocate();
    r_.head = head;
    r_.sum = 0.0;
    r_.nonzero = 0;
    size_t slot = Slot(head - (n_ - 1));  // the oldest bucket's slot
    for (int64_t i = 0; i < n_; ++i) {
      r_.slots[slot] = values[i];
      r_.sum += values[i];
      if (values[i] != 0.0f) ++r_.nonzero;
      if (++slot == static_cast<size_t>(n_)) slot = 0;
    }
    if (r_.nonzero == 0) r_.sum = 0.0;
  }

 private:
  size_t Slot(int64_t k) const { return static_cast<size_t>(FloorMod(k, n_)); }

  // Sets bucket k to v, keeping sum equal to the sum of what is stored
  // (the float deltas, not the double charges, so expiry subtracts exactly
  // what was added).
  void Store(int64_t k, float v) {
    float& slot = r_.slots[Slot(k)];
    if (slot != 0.0f) --r_.nonzero;
    if (v != 0.0f) ++r_.nonzero;
    r_.sum += static_cast<double>(v) - static_cast<double>(slot);
    slot = v;
    if (r_.nonzero == 0) r_.sum = 0.0;
  }

  Ring& r_;
  int64_t n_;
};

// Read-only access to one Ring.
class Ledger::ConstRingOps {
 public:
  ConstRingOps(const Ring* ring, int64_t n) : r_(*ring), n_(n) {}
  int64_t head() const { return r_.head; }
  int64_t n() const { return n_; }
  // Bucket k, or 0 if not retained.
  float Bucket(int64_t k) const {
    if (r_.head == Ledger::kNoHead || k > r_.head || k <= r_.head - n_) return 0.0f;
    return r_.slots[static_cast<size_t>(FloorMod(k, n_))];
  }

 private:
  const Ring& r_;
  int64_t n_;
};


Status Ledger::CheckOptions(const Options& o) {
  if (o.bucket_width <= 0) {
    return Status::InvalidArgument("ledger options: bucket_width (" +
                                   Sec(o.bucket_width) + ") must be > 0");
  }
  if (o.report_bucket_width <= 0) {
    return Status::InvalidArgument("ledger options: report_bucket_width (" +
                                   Sec(o.report_bucket_width) + ") must be > 0");
  }
  if (o.window <= 0) {
    return Status::InvalidArgument("ledger options: window (" + Sec(o.window) +
                                   ") must be > 0");
  }
  if (o.report_bucket_width % o.bucket_width != 0) {
    return Status::InvalidArgument(
        "ledger options: report_bucket_width (" + Sec(o.report_bucket_width) +
        ") is not a multiple of bucket_width (" + Sec(o.bucket_width) + ")");
  }
  if (o.window % o.report_bucket_width != 0) {
    return Status::InvalidArgument(
        "ledger options: window (" + Sec(o.window) +
        ") is not a multiple of report_bucket_width (" +
        Sec(o.report_bucket_width) + ")");
  }
  if (o.window / o.bucket_width > kMaxBucketsPerSeries) {
    return Status::InvalidArgument(
        "ledger options: window / bucket_width = " +
        std::to_string(o.window / o.bucket_width) + " buckets, more than " +
        std::to_string(kMaxBucketsPerSeries));
  }
  return Status::Ok();
}

namespace {

Ledger::Options NormalizeOptions(Ledger::Options o) {
  const Ledger::Options defaults;
  if (o.bucket_width <= 0) o.bucket_width = defaults.bucket_width;
  if (o.report_bucket_width <= 0 ||
      o.report_bucket_width % o.bucket_width != 0) {
    o.report_bucket_width = o.bucket_width;
  }
  if (o.window <= 0) o.window = defaults.window;
  if (o.window % o.bucket_width != 0) {
    // Round up; the window only grows, so no usage that should count is lost.
    o.window += o.bucket_width - o.window % o.bucket_width;
  }
  if (o.window % o.report_bucket_width != 0) {
    o.report_bucket_width = o.bucket_width;
  }
  if (!Ledger::CheckOptions(o).ok()) return defaults;
  return o;
}

}  // namespace

Ledger::Ledger(Options options) : options_(NormalizeOptions(options)) {}
Ledger::Ledger(Ledger&&) noexcept = default;
Ledger& Ledger::operator=(Ledger&&) noexcept = default;
Ledger::~Ledger() = default;

Seconds Ledger::BucketWidth(Series series) const {
  return series == Series::kAllocated ? options_.bucket_width
                                      : options_.report_bucket_width;
}

int64_t Ledger::BucketCount(Series series) const {
  return options_.window / BucketWidth(series);
}

const Ledger::Ring* Ledger::FindRing(const std::string& path, Series series) const {
  auto it = paths_.find(path);
  if (it == paths_.end()) return nullptr;
  const Ring& ring = it->second.rings[static_cast<int>(series)];
  return ring.slots ? &ring : nullptr;
}

Ledger::Ring* Ledger::FindMutableRing(const std::string& path, Series series) {
  return const_cast<Ring*>(FindRing(path, series));
}

Ledger::Ring* Ledger::MutableRing(const std::string& path, Series series) {
  auto [entry, added] = paths_.try_emplace(path);
  if (added) ++paths_generation_;
  Ring* ring = &entry->second.rings[static_cast<int>(series)];
  RingOps(ring, BucketCount(series)).Allocate();
  return ring;
}

void Ledger::Charge(const std::string& path, Series series, TimePoint from,
                    TimePoint to, double gpus) {
  if (!(gpus > 0.0) || !std::isfinite(gpus)) return;
  if (from >= to || !TimeInRange(from) || !TimeInRange(to)) return;
  const Seconds w = BucketWidth(series);
  const int64_t n = BucketCount(series);
  const int64_t last = FloorDiv(to - 1, w);
  Ring* ring = MutableRing(path, series);
  RingOps ops(ring, n);
  ops.Advance(last);
  // Only buckets still in the ring can take the charge; starting there also
  // bounds the loop by the ring size however long [from, to) is.
  const int64_t first = std::max(FloorDiv(from, w), ring->head - n + 1);
  if (first <= last) earliest_change_ = std::min(earliest_change_, first * w);
  for (int64_t k = first; k <= last; ++k) {
    const TimePoint begin = std::max(from, k * w);
    const TimePoint end = std::min(to, (k + 1) * w);
    ops.Add(k, gpus * static_cast<double>(end - begin));
  }
}

void Ledger::ChargeRunningJob(uint32_t job_id, const std::string& path,
                              Series occupancy, TimePoint start, TimePoint now,
                              double gpus) {
  const TimePoint cursor = ChargedUntil(job_id);
  const TimePoint begin = std::max(start, cursor);
  if (now <= begin) return;
  Charge(path, occupancy, begin, now, gpus);
  if (occupancy == Series::kAllocated) Charge(path, Series::kDemand, begin, now, gpus);
  SetChargedUntil(job_id, now);
}

double Ledger::WindowUsage(const std::string& path, Series series,
                           TimePoint now) {
  if (!TimeInRange(now)) return 0.0;
  Ring* ring = FindMutableRing(path, series);
  if (ring == nullptr) return 0.0;
  return RingOps(ring, BucketCount(series)).WindowSum(FloorDiv(now, BucketWidth(series)));
}

Ledger::History Ledger::SeriesHistory(const std::string& path, Series series,
                                      TimePoint from, TimePoint to,
                                      Seconds resolution) const {
  const Seconds w = BucketWidth(series);
  History history;
  history.width = resolution <= 0 ? w : (resolution + w - 1) / w * w;
  if (!TimeInRange(from) || !TimeInRange(to) || history.width > kTimeLimit) {
    return history;
  }
  const Seconds res = history.width;
  history.start = FloorDiv(from, res) * res;
  if (from >= to) return history;
  const TimePoint end = (FloorDiv(to - 1, res) + 1) * res;
  const int64_t points = std::min<int64_t>((end - history.start) / res,
                                           kMaxHistoryPoints);
  history.gpu_seconds.assign(points, 0.0);
  const Ring* ring = FindRing(path, series);
  if (ring == nullptr) return history;
  ConstRingOps ops(ring, BucketCount(series));
  // Walk the retained buckets (at most n) rather than the points, so a long
  // span costs no more than the window.
  for (int64_t k = std::max(ops.head() - ops.n() + 1, FloorDiv(history.start, w)); k <= ops.head(); ++k) {
    const TimePoint t = k * w;
    if (t < history.start) continue;
    const int64_t point = (t - history.start) / res;
    if (point >= points) break;
    history.gpu_seconds[point] += ops.Bucket(k);
  }
  return history;
}

Ledger::SeriesReader Ledger::Reader(const std::string& path, Series series) const {
  SeriesReader reader;
  reader.ring_ = FindRing(path, series);
  reader.n_ = BucketCount(series);
  reader.width_ = BucketWidth(series);
  return reader;
}

double Ledger::SeriesReader::Sum(TimePoint from, TimePoint to) const {
  double sum = 0.0;
  if (ring_ == nullptr || ring_->head == kNoHead) return sum;
  // The retained buckets only (a bucket not retained reads 0, and adding
  // +0.0 changes no sum that starts at +0.0).
  ConstRingOps ops(ring_, n_);
  const int64_t last = std::min(FloorDiv(to, width_) - 1, ops.head());
  for (int64_t k = std::max(FloorDiv(from, width_), ops.head() - n_ + 1); k <= last; ++k) sum += ops.Bucket(k);
  return sum;
}

TimePoint Ledger::ChargedUntil(uint32_t job_id) const {
  auto it = cursors_.find(job_id);
  return it == cursors_.end() ? 0 : it->second;
}

void Ledger::SetChargedUntil(uint32_t job_id, TimePoint t) {
  cursors_[job_id] = t;
}

void Ledger::ForgetJob(uint32_t job_id) { cursors_.erase(job_id); }

std::vector<std::pair<uint32_t, TimePoint>> Ledger::JobCursors() const {
  return {cursors_.begin(), cursors_.end()};
}

std::vector<std::string> Ledger::Paths() const {
  std::vector<std::string> paths;
  paths.reserve(paths_.size());
  for (const auto& entry : paths_) paths.push_back(entry.first);
  std::sort(paths.begin(), paths.end());
  return paths;
}

bool Ledger::HasPath(const std::string& path) const {
  return paths_.count(path) != 0;
}

bool Ledger::ForgetPath(const std::string& path) {
  if (paths_.erase(path) == 0) return false;
  ++paths_generation_;
  earliest_change_ = kAllChanged;
  return true;
}

size_t Ledger::MovePaths(const std::vector<PathMove>& moves) {
  std::vector<std::pair<const std::string*, PathUsage>> taken;
  for (const PathMove& move : moves) {
    if (move.from == move.to) continue;
    auto it = paths_.find(move.from);
    if (it == paths_.end()) continue;
    taken.emplace_back(&move.to, std::move(it->second));
    paths_.erase(it);
  }
  for (auto& [to, usage] : taken) {
    auto entry = paths_.try_emplace(*to).first;
    for (int s = 0; s < kSeriesCount; ++s) {
      Ring& from_ring = usage.rings[s];
      Ring& to_ring = entry->second.rings[s];
      if (!to_ring.slots) {
        to_ring = std::move(from_ring);
      } else {
        RingOps(&to_ring, BucketCount(static_cast<Series>(s))).AddRing(from_ring);
      }
    }
  }
  if (!taken.empty()) {
    ++paths_generation_;
    earliest_change_ = kAllChanged;
  }
  return taken.size();
}

TimePoint Ledger::TakeEarliestChange() {
  TimePoint earliest = earliest_change_;
  earliest_change_ = kNoneChanged;
  return earliest;
}

size_t Ledger::BucketBytes() const {
  size_t bytes = 0;
  for (const auto& entry : paths_) {
    for (int s = 0; s < kSeriesCount; ++s) {
      if (entry.second.rings[s].slots) {
        bytes += BucketCount(static_cast<Series>(s)) * sizeof(float);
      }
    }
  }
  return bytes;
}

Ledger::RawSeries Ledger::ExportSeries(const std::string& path,
                                       Series series) const {
  RawSeries raw;
  const SeriesView view = ViewRing(FindRing(path, series), BucketCount(series));
  raw.head = view.head;
  raw.values.reserve(view.size());
  raw.values.insert(raw.values.end(), view.older, view.older + view.older_size);
  raw.values.insert(raw.values.end(), view.newer, view.newer + view.newer_size);
  return raw;
}

void Ledger::ExportAllSeries(
    const std::function<void(const std::string& path, const SeriesView (&series)[kSeriesCount])>& visit) const {
  if (sorted_generation_ != paths_generation_) {
    sorted_.clear();
    sorted_.reserve(paths_.size());
    for (const auto& entry : paths_) sorted_.push_back(&entry);
    std::sort(sorted_.begin(), sorted_.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    sorted_generation_ = paths_generation_;
  }
  SeriesView views[kSeriesCount];
  for (const auto* entry : sorted_) {
    for (int s = 0; s < kSeriesCount; ++s) {
      const Ring& ring = entry->second.rings[s];
      views[s] = ViewRing(ring.slots ? &ring : nullptr, BucketCount(static_cast<Series>(s)));
    }
    visit(entry->first, views);
  }
}

Ledger::SeriesView Ledger::ViewRing(const Ring* ring, int64_t n) {
  SeriesView view;
  if (ring == nullptr) return view;
  view.head = ring->head;
  // From the oldest retained bucket on: the slots from its slot to the end,
  // then those before it.
  const int64_t oldest_slot = FloorMod(ring->head - (n - 1), n);
  view.older = ring->slots.get() + oldest_slot;
  view.older_size = static_cast<size_t>(n - oldest_slot);
  view.newer = ring->slots.get();
  view.newer_size = static_cast<size_t>(oldest_slot);
  return view;
}

Status Ledger::ImportSeries(const std::string& path, Series series,
                            const RawSeries& raw) {
  const int64_t n = BucketCount(series);
  if (raw.head == kNoHead) {
    return Status::InvalidArgument("ledger: series of '" + path +
                                   "' imported without a head bucket");
  }
  if (static_cast<int64_t>(raw.values.size()) != n) {
    return Status::InvalidArgument(
        "ledger: series of '" + path + "' has " +
        std::to_string(raw.values.size()) + " buckets, expected " +
        std::to_string(n));
  }
  const Seconds w = BucketWidth(series);
  if (raw.head > kTimeLimit / w || raw.head < -kTimeLimit / w) {
    return Status::InvalidArgument("ledger: series of '" + path +
                                   "' has its head bucket out of range");
  }
  for (float v : raw.values) {
    if (!std::isfinite(v) || v < 0.0f) {
      return Status::InvalidArgument("ledger: series of '" + path +
                                     "' has a negative or non-finite bucket");
    }
  }
  RingOps(MutableRing(path, series), n).Assign(raw.head, raw.values);
  earliest_change_ = kAllChanged;
  return Status::Ok();
}

}  // namespace budget
