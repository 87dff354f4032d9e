// Presenters answered by another program (`retrace check|replay
// --presenters-cmd CMD`), so that a tool author in any language checks their
// own presenters with retrace's checker. The program speaks JSON-RPC 2.0 on
// its stdin and stdout, one message per line (docs/REPLAY-STABILITY.md,
// "External presenters"):
//   initialize {protocol: 1}  → {tools: [{name, parameters, revision?,
//                                          presentCall?, presentResult?, revisions?}]}
//   presentCall {tool, args}  → {view: object | null}
//   presentResult {tool, args, result: {content, isError, meta?}} → {view}
//   upcast {tool, from, kind: "arguments" | "meta", value} → {value}
// A tool whose arguments changed lists `revisions` {current, parameters:
// {"1": raw schema, ...}, metaSteps: [from, ...]}: its older revisions'
// schemas, and which steps upcast meta too. Each step of its chain (from
// revision `from` to the next) is an `upcast` question; an error answer is
// the step throwing (presenters/revisions.h).
// `parameters` is the tool's raw JSON Schema (what dsh registers). Soft
// validation stays on this side (presenters::PresentCall): the program is
// asked only about arguments that fit, as dsh's host adapter does (§6.3).
//
// The program is treated as a hostile peer. An answer that comes late (past
// `timeout`), is not one line of JSON-RPC for the id asked, or carries a view
// that is not an object makes that one presentation throw, which replay turns
// into the generic card and check into a `threw` finding naming the call; an
// error answer is the presenter throwing. After a failure the program is
// killed (its whole process group) and started again for the next question,
// and must then list the same tools. After `max_failures` failures in a row
// it is given up: every later presentation throws at once, so a broken
// program costs a bounded time, never a hung check.
//
// Thread-safe: questions from several replay threads are asked one at a time.
#ifndef RETRACE_CHECK_EXTERNAL_PRESENTERS_H_
#define RETRACE_CHECK_EXTERNAL_PRESENTERS_H_

#include <chrono>
#include <memory>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/presenters/presenter.h>

namespace retrace::check {

struct ExternalPresentersOptions {
  std::string command;                       // run as `/bin/sh -c COMMAND`, in its own process group
  std::chrono::milliseconds timeout{10000};  // for each answer, the tool list included
  int max_failures = 3;                      // failures in a row before the program is given up
};

class PresenterProcess;

class ExternalPresenters {
 public:
  // Starts the program and asks for its tools. Fails, naming the command,
  // when it cannot start, does not answer in time, or lists its tools
  // malformed (a name twice, a schema outside dsh's raw subset, …).
  static Result<std::unique_ptr<ExternalPresenters>> Start(ExternalPresentersOptions options);
  ~ExternalPresenters();
  ExternalPresenters(const ExternalPresenters&) = delete;
  ExternalPresenters& operator=(const ExternalPresenters&) = delete;

  // One presenter per listed tool; valid while this object lives.
  const presenters::PresenterSet& presenters() const { return set_; }

  // How many presentations have thrown so far (failures and error answers),
  // and what the last one said: a replay has no findings to show them in.
  int failures() const;
  std::string last_failure() const;

 private:
  ExternalPresenters(std::shared_ptr<PresenterProcess> process, presenters::PresenterSet set);

  std::shared_ptr<PresenterProcess> process_;
  presenters::PresenterSet set_;
};

}  // namespace retrace::check

#endif  // RETRACE_CHECK_EXTERNAL_PRESENTERS_H_
