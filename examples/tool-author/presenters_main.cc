// forecast-presenters: the tool's presenters as a program that retrace asks
// (`--presenters-cmd`), so the command line checks and replays forecast logs
// with them:
//
//   retrace check corpus/ --golden golden/ --presenters-cmd build/forecast-presenters
//   retrace replay corpus/forecast-paris-oslo.jsonl --format html -o s.html \
//     --presenters-cmd build/forecast-presenters
#include <retrace/check/presenter_server.h>

#include "forecast_tool.h"

int main() { return retrace::check::ServePresenters(forecast::ForecastPresenters()); }
