// The built-in reference presenters served over the --presenters-cmd protocol
// (check/presenter_server.h): the program of the protocol's round-trip test.
#include "check/presenter_server.h"
#include "presenters/reference_tools.h"

int main() { return retrace::check::ServePresenters(retrace::presenters::ReferencePresenters()); }
