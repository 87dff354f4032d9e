// Status and Result<T>: errors as values at module boundaries.
//
// A Status is either OK or carries a code and a precise, user-facing message
// ("what, which file, which line or seq"). Result<T> holds a T or a non-OK
// Status. Both are [[nodiscard]]: dropping an error is a compile warning.
#ifndef RETRACE_ENGINE_BASE_STATUS_H_
#define RETRACE_ENGINE_BASE_STATUS_H_

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace retrace {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,   // malformed input given by the caller
    kCorruption,        // stored or imported data violates the format
    kNotFound,
    kAlreadyExists,
    kConflict,          // optimistic-concurrency conflict (a different batch at a taken seq)
    kUnsupported,       // e.g. a log or database from a newer/older format
    kIoError,
    kBusy,              // another writer holds the session
    kFailedPrecondition,
    kDeadlineExceeded,  // a time limit interrupted the operation
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status Corruption(std::string m) { return {Code::kCorruption, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {Code::kAlreadyExists, std::move(m)}; }
  static Status Conflict(std::string m) { return {Code::kConflict, std::move(m)}; }
  static Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
  static Status IoError(std::string m) { return {Code::kIoError, std::move(m)}; }
  static Status Busy(std::string m) { return {Code::kBusy, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {Code::kFailedPrecondition, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) { return {Code::kDeadlineExceeded, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace retrace

// Early-return helpers for functions returning Status or Result<T>.
#define RETRACE_CONCAT_INNER(a, b) a##b
#define RETRACE_CONCAT(a, b) RETRACE_CONCAT_INNER(a, b)
#define RETURN_IF_ERROR(expr)                    \
  do {                                           \
    ::retrace::Status _st = (expr);              \
    if (!_st.ok()) return _st;                   \
  } while (0)
// `tmp` is a name and `lhs` a declaration or an lvalue: neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(RETRACE_CONCAT(_res_, __LINE__), lhs, expr)

#endif  // RETRACE_ENGINE_BASE_STATUS_H_
