// The program side of `--presenters-cmd` (external_presenters.h has the
// protocol): answers retrace's presenter questions from a PresenterSet, so
// that a C++ tool author's presenters serve `retrace check` and `retrace
// replay`, --update-golden included:
//
//   int main() { return retrace::check::ServePresenters(forecast::Presenters()); }
//
//   retrace check corpus/ --golden golden/ --presenters-cmd ./forecast-presenters
#ifndef RETRACE_CHECK_PRESENTER_SERVER_H_
#define RETRACE_CHECK_PRESENTER_SERVER_H_

#include <iostream>
#include <string>

#include <retrace/engine/json/value.h>
#include <retrace/presenters/presenter.h>

namespace retrace::check {

// The answer line (without its newline) to one request line.
std::string AnswerPresenterRequest(const presenters::PresenterSet& set, const std::string& request);

// Answers each line of `in` on `out` until end of input; returns 0 (an exit code).
int ServePresenters(const presenters::PresenterSet& set, std::istream& in = std::cin, std::ostream& out = std::cout);

}  // namespace retrace::check

#endif  // RETRACE_CHECK_PRESENTER_SERVER_H_
