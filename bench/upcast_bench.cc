// Replay file → cards, one thread, of the generated 100k-event session whose
// every tool call is a `read`, side by side in one run:
//   - the reference presenters, the arguments current (what replay_bench measures);
//   - `read` declaring four argument revisions (presenters/revisions.h), the
//     arguments current: each call's revision is inferred, nothing is upcast;
//   - the same, every call's arguments at revision 1: a 3-step chain on each.
// The last two must give byte-identical cards (the card's args are the upcast
// ones); the first differs from them only where it shows those args.
//
//   upcast_bench [--events N] [--reps R] [--dir DIR]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "bench/bench_options.h"
#include "bench/log_generator.h"
#include "bench/measure.h"
#include "engine/json/value.h"
#include "engine/replay/cards.h"
#include "engine/schema/schema_spec.h"
#include "presenters/reference_tools.h"
#include "store/event_source.h"

namespace retrace::bench {
namespace {

using json::Value;
constexpr char kSession[] = "upcast-bench";

// `args` with the member `from` renamed `to`, in place: its order kept.
Value Renamed(const Value& args, std::string_view from, std::string_view to) {
  Value out = Value::MakeObject({});
  for (const auto& [key, value] : args.as_object()) out.Set(key == from ? std::string(to) : key, value);
  return out;
}

// `read` as if it had had three older revisions: {path} (1), {filePath} (2),
// {file_path, start} (3), and today's {file_path, offset} (4).
presenters::PresenterSet ChainedPresenters() {
  presenters::PresenterSet set = presenters::ReferencePresenters();
  const presenters::ToolPresenter& read = *set.Find("read");
  const schema::Spec number = schema::Integer();
  presenters::RevisionSpec spec{
      .current = 4,
      .parameters =
          {{1, schema::Parameters({{"path", schema::String().Required()}, {"offset", number}, {"limit", number}})},
           {2, schema::Parameters({{"filePath", schema::String().Required()}, {"offset", number}, {"limit", number}})},
           {3, schema::Parameters({{"file_path", schema::String().Required()}, {"start", number}, {"limit", number}})}},
      .steps = {
          {.from = 1, .to = 2, .arguments = [](const Value& a) { return Renamed(a, "path", "filePath"); }},
          {.from = 2,
           .to = 3,
           .arguments = [](const Value& a) { return Renamed(Renamed(a, "filePath", "file_path"), "offset", "start"); }},
          {.from = 3, .to = 4, .arguments = [](const Value& a) { return Renamed(a, "start", "offset"); }}}};
  auto revisions = presenters::CompileRevisions("read", std::move(spec), read.parameters);
  if (!revisions.ok()) {
    std::fprintf(stderr, "%s\n", revisions.status().message().c_str());
    std::exit(1);
  }
  set.Add(presenters::MakeToolPresenter("read", read.parameters, read.present_call, read.present_result, "1",
                                        std::move(revisions).value()));
  return set;
}

// The log with every tool/call's arguments at revision 1 (`file_path` was `path`).
bool WriteRevisionOneLog(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  const std::string key = "\\\"file_path\\\":", old = "\\\"path\\\":";
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(R"({"type":"tool/call")")) {
      if (size_t at = line.find(key); at != std::string::npos) line.replace(at, key.size(), old);
    }
    out << line << '\n';
  }
  return static_cast<bool>(out);
}

double Cards(const std::string& file, const presenters::PresenterSet& set, size_t hint, const std::string& out) {
  const double start = NowSeconds();
  replay::CardBuilder builder(kSession, set, replay::CardBuilder::Keep::kText);
  builder.ReserveText(hint);
  Status st = store::ReadFileEvents(file, {replay::CardsNeed, /*write_again=*/true}, [&](log::Event&& e) {
                builder.Add(std::move(e));
                return Status::Ok();
              }).status();
  if (!st.ok()) return -1;
  const std::string text = builder.FinishText();
  const double seconds = NowSeconds() - start;
  WriteFileText(out, text);
  return seconds;
}

}  // namespace

int Main(int argc, char** argv) {
  int64_t events = 100000;
  BenchOptions o;
  cli::CommandLine line("retrace upcast benchmark: replay with a 3-step upcaster chain on every call");
  cli::Options app = line.options();
  app.Add("--events", events, "Events in the generated session");
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  std::filesystem::create_directories(o.dir);
  const std::string current = o.dir + "/upcast-bench.jsonl", old = o.dir + "/upcast-bench.rev1.jsonl";
  const std::optional<GeneratedLog> made = WriteGeneratedLogInChild(current, kSession, events, 42, /*read_cards=*/true,
                                                                    [&] { return WriteRevisionOneLog(current, old); });
  if (!made) return std::fprintf(stderr, "generating the session failed\n"), 1;
  std::printf("session: %lld events, %lld read calls, %.1f MB\n", static_cast<long long>(made->events),
              static_cast<long long>(made->tool_calls), static_cast<double>(made->bytes) / 1e6);
  const presenters::PresenterSet chained = ChainedPresenters();
  const size_t hint = replay::CardsSizeHint(made->bytes);
  const std::vector<Sample> best = BestInRounds(
      o.reps,
      {[&] {
         return RunInChild([&] { return Cards(current, presenters::ReferencePresenters(), hint, o.dir + "/a.json"); });
       },
       [&] { return RunInChild([&] { return Cards(current, chained, hint, o.dir + "/b.json"); }); },
       [&] { return RunInChild([&] { return Cards(old, chained, hint, o.dir + "/c.json"); }); }});
  const char* names[] = {"reference presenters, arguments current", "read with 4 revisions, arguments current",
                         "read with 4 revisions, arguments at revision 1"};
  for (size_t i = 0; i < best.size(); ++i) {
    if (!best[i].ok) return std::fprintf(stderr, "%s: failed\n", names[i]), 1;
    std::printf("%-48s %8.1f ms %9.0f calls/s\n", names[i], best[i].seconds * 1e3,
                static_cast<double>(made->tool_calls) / best[i].seconds);
  }
  std::printf(
      "3-step chain on every call / arguments already current: %.2fx (reference presenters), "
      "%.2fx (the same revisions declared) (target <= 1.2)\n",
      best[2].seconds / best[0].seconds, best[2].seconds / best[1].seconds);
  const bool same = ReadFileText(o.dir + "/b.json") == ReadFileText(o.dir + "/c.json") && !ReadFileText(o.dir + "/c.json").empty();
  std::printf("cards of the revision-1 log identical to the current log's: %s\n", same ? "yes" : "NO");
  return same ? 0 : 1;
}

}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
