// The one error type: a kind, a message a user can act on, and the user's source position.
#pragma once
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "syntax/SrcPos.h"

namespace dmci {

enum class ErrorKind {
  Syntax,        // reader: malformed text
  Form,          // expander: malformed special form, set!, reserved names
  Unbound,       // unbound variable
  Arity,         // wrong number of arguments
  Type,          // wrong type of argument (car of non-pair, arithmetic on non-number)
  NotProcedure,  // applying a non-procedure
  Domain,        // argument outside a primitive's domain (e.g. list-ref past the end)
  User,          // (error "msg" ...)
  Budget,        // steps, heap cells or wall time exhausted
  Usage,         // command-line / API misuse (bad binding, unknown --wrt name)
  Io,            // file could not be read or written
  Graph,         // a ComputeGraph text that does not parse or validate
};

const char* errorKindName(ErrorKind k);  // e.g. "unbound-variable"

struct Error {
  ErrorKind kind = ErrorKind::User;
  std::string message;
  SrcPos pos;
  std::string str() const;  // "file:line:col: kind: message" ("kind: message" when it has no position)
};

// Thrown inside passes and engines; converted to Result at API boundaries.
class DmciError : public std::exception {
 public:
  explicit DmciError(Error e) : err_(std::move(e)), what_(err_.str()) {}
  DmciError(ErrorKind k, std::string msg, SrcPos pos = {}) : DmciError(Error{k, std::move(msg), pos}) {}
  const Error& error() const { return err_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Error err_;
  std::string what_;
};

// A value or an error: what every public entry point returns.
template <class T>
class Result {
 public:
  Result(T v) : v_(std::move(v)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Runs f(), converting a thrown DmciError into an error Result.
template <class F>
auto catchErrors(F&& f) -> Result<decltype(f())> {
  try {
    return f();
  } catch (const DmciError& e) {
    return e.error();
  }
}

}  // namespace dmci
