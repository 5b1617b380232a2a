// Status: the outcome of a core operation, in the manner of leveldb::Status.
//
// The core never throws across its public API: every fallible call returns a
// Status. An ok Status carries no message; an error carries one human-readable
// line that names what was wrong and where (file, line, key or JSON path), so
// that callers can log it as is.
//
// Thread safety: a Status is a value; distinct objects may be used from
// different threads without synchronisation.
#ifndef SLURM_BUDGET_LIBBUDGET_STATUS_H_
#define SLURM_BUDGET_LIBBUDGET_STATUS_H_

#include <string>
#include <utility>

namespace budget {

class Status {
 public:
  enum class Code { kOk = 0, kInvalidArgument, kNotFound, kCorruption, kIOError };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  // The message alone (empty when ok).
  const std::string& message() const { return message_; }
  // "OK" or the message; for logs.
  std::string ToString() const { return ok() ? std::string("OK") : message_; }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_STATUS_H_
