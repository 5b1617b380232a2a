// TreeReloader: see tree_reloader.h.
#include "priority_budget/tree_reloader.h"

#include <utility>

#include "priority_budget/state_files.h"

namespace budget_prio {

TreeReloader::TreeReloader(TreeSource source, std::string last_good_file, budget::Seconds refresh)
    : source_(std::move(source)), last_good_file_(std::move(last_good_file)), refresh_(refresh) {}

void TreeReloader::set_source(TreeSource source) {
  source_ = std::move(source);
  fetched_ = false;  // a new source is fetched at once
}

budget::Status TreeReloader::LoadLastGood() {
  std::string text;
  budget::Status st = ReadWholeFile(last_good_file_, &text);
  if (!st.ok()) return st;
  budget::AllocationTree tree;
  st = budget::AllocationTree::Parse(text, last_good_file_, &tree, nullptr);
  if (!st.ok()) return st;
  tree_ = std::make_shared<const budget::AllocationTree>(std::move(tree));
  ++generation_;
  tree_text_ = std::move(text);
  tree_origin_ = last_good_file_;
  return budget::Status::Ok();
}

bool TreeReloader::ReloadDue(budget::TimePoint now) const {
  if (!fetched_) return true;
  // slurmctld may not hold the associations yet (slurmdbd down at start):
  // without a tree, slurmdbd's is read again at every pass, as cheap as a
  // copy of the association list.
  if (source_.is_slurmdbd() && !has_tree()) return true;
  if (now - last_fetch_ >= refresh_) return true;
  return source_.is_file() && source_.ModificationTime() != last_mtime_;
}

ReloadOutcome TreeReloader::Reload(budget::TimePoint now) {
  TreeSource source = BeginReload(now);
  std::string text;
  budget::Status st = source.Fetch(&text);
  return FinishReload(source, st, std::move(text));
}

TreeSource TreeReloader::BeginReload(budget::TimePoint now) {
  fetched_ = true;
  last_fetch_ = now;
  // The mtime is taken before reading: a write racing the read makes the
  // next check see a change and read again.
  last_mtime_ = source_.ModificationTime();
  return source_;
}

ReloadOutcome TreeReloader::FinishReload(const TreeSource& source, const budget::Status& fetched, std::string text) {
  ReloadOutcome outcome;
  if (source.description() != source_.description()) {
    outcome.kind = ReloadOutcome::Kind::kStale;
    outcome.message = source.description();
    return outcome;
  }
  budget::Status st = fetched;
  if (!st.ok()) {
    outcome.kind = ReloadOutcome::Kind::kRefused;
    outcome.message = st.message();
    return outcome;
  }
  if (text == tree_text_ && tree_origin_ == source_.description()) return outcome;
  budget::AllocationTree tree;
  st = budget::AllocationTree::Parse(text, source_.description(), &tree, &outcome.warnings);
  if (!st.ok()) {
    outcome.kind = ReloadOutcome::Kind::kRefused;
    outcome.message = st.message();
    return outcome;
  }
  bool text_changed = text != tree_text_;
  tree_ = std::make_shared<const budget::AllocationTree>(std::move(tree));
  ++generation_;
  tree_text_ = std::move(text);
  tree_origin_ = source_.description();
  outcome.kind = ReloadOutcome::Kind::kLoaded;
  outcome.message = tree_origin_;
  if (text_changed) outcome.save_status = WriteFileAtomically(last_good_file_, tree_text_);
  return outcome;
}

}  // namespace budget_prio
