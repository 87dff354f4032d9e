// Replay to tool cards, file in → cards out, side by side with the upstream
// stack (dsh's JSONL load + the dsh tool packages' presenters in Node 22),
// in one run, on a generated session whose read results carry real read
// cards. Also from the store (imported beforehand), the whole HTML page from
// the file, the frames of an ACP session/load from the store, and a byte
// comparison of retrace's cards with upstream's.
//
//   replay_bench [--events N] [--reps R] [--dir DIR] [--node NODE --upstream DIR]
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>

#include "bench/bench_options.h"
#include "bench/log_generator.h"
#include "frontends/acp/session_updates.h"
#include "bench/measure.h"
#include "engine/json/writer.h"
#include "engine/replay/cards.h"
#include "engine/replay/transcript.h"
#include "presenters/reference_tools.h"
#include "frontends/rpc/json_rpc.h"
#include "service/replay.h"
#include "store/event_source.h"
#include "store/importer.h"

namespace retrace::bench {
namespace {

constexpr char kSession[] = "replay-bench";

// Cards from a file or a stored session, serialized; optionally written to `out`.
double Cards(const std::function<Status(const store::EventSink&)>& read, size_t size_hint, const std::string& out) {
  const double start = NowSeconds();
  replay::CardBuilder builder(kSession, presenters::ReferencePresenters(), replay::CardBuilder::Keep::kText);
  builder.ReserveText(size_hint);
  Status st = read([&](log::Event&& e) {
    builder.Add(std::move(e));
    return Status::Ok();
  });
  if (!st.ok()) {
    std::fprintf(stderr, "replay failed: %s\n", st.message().c_str());
    return -1;
  }
  std::string text = builder.FinishText();
  text += '\n';
  const double seconds = NowSeconds() - start;
  if (!out.empty()) WriteFileText(out, text);
  return seconds;
}

// The cards of `source` in pieces, one per thread, as `retrace replay` makes
// them (service/replay.h): cut at turn starts, joined in order.
std::optional<std::string> PiecedCards(const store::EventSource& source, unsigned threads) {
  std::optional<replay::CardBuilder> builder = service::PiecedCards(source, {.threads = threads});
  if (!builder) {
    std::fprintf(stderr, "replay in %u pieces failed\n", threads);
    return std::nullopt;
  }
  return builder->FinishText() + "\n";  // one text, like the other rows: the pieces' cards are joined
}

double CardsInPieces(const std::string& file, unsigned threads, const std::string& out) {
  const double start = NowSeconds();
  auto source = store::EventSource::File(file);
  if (!source.ok()) return -1;
  const std::optional<std::string> text = PiecedCards(*source, threads);
  if (!text) return -1;
  const double seconds = NowSeconds() - start;
  if (!out.empty()) WriteFileText(out, *text);
  return seconds;
}

// Cards from the stored session in pieces, one per thread, as `retrace replay <session>` makes them.
double StoredCardsInPieces(const std::string& db, unsigned threads) {
  const double start = NowSeconds();
  auto store = store::EventStore::Open(db);
  if (!store.ok()) return -1;
  auto source = store::EventSource::Stored(std::move(store).value(), kSession);
  if (!source.ok() || !PiecedCards(*source, threads)) return -1;
  return NowSeconds() - start;
}

// The frames `retrace acp` writes for a session/load (frontends/acp/session_updates.h
// over service::StreamConversation), from the stored session: retrace's side
// of a load without a client to read it (bench/acp/acp_bench.mjs has one).
double AcpLoadFrames(const std::string& db) {
  const double start = NowSeconds();
  auto store = store::EventStore::Open(db);
  if (!store.ok()) return -1;
  auto source = store::EventSource::Stored(std::move(store).value(), kSession);
  if (!source.ok()) return -1;
  size_t bytes = 0;
  const acp::UpdateOptions options{"/home/dev/bench", true};
  Status st = service::StreamConversation(*source, [&](json::Value row) {
    acp::RowUpdates(row, options, [&](json::Value update) {
      bytes += rpc::NotificationFrame("session/update",
                                      json::Value::MakeObject({{"sessionId", kSession}, {"update", std::move(update)}}))
                   .size();
    });
    return true;
  });
  return st.ok() && bytes > 0 ? NowSeconds() - start : -1;
}

// The transcript rendered as the HTML page, from the file.
double Html(const std::string& file) {
  const double start = NowSeconds();
  auto source = store::EventSource::File(file);
  if (!source.ok()) return -1;
  std::string html;
  const Status st = service::WriteReplay(*source, service::ReplayFormat::kHtml, {}, [&](std::string_view text) {
    html += text;
    return Status::Ok();
  });
  return st.ok() && !html.empty() ? NowSeconds() - start : -1;
}

void Row(const char* name, const Sample& s, const GeneratedLog& log) {
  if (!s.ok) {
    std::printf("%-46s %s\n", name, "failed/skipped");
    return;
  }
  std::printf("%-46s %9.1f ms %11.0f events/s %9.0f calls/s %7.1f MB peak\n", name, s.seconds * 1e3,
              static_cast<double>(log.events) / s.seconds, static_cast<double>(log.tool_calls) / s.seconds,
              s.peak_rss_mb);
}

}  // namespace

int Main(int argc, char** argv) {
  int64_t events = 100000;
  BenchOptions o;
  cli::CommandLine line("retrace replay benchmark");
  cli::Options app = line.options();
  app.Add("--events", events, "Events in the generated session");
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  std::filesystem::create_directories(o.dir);
  const std::string file = o.dir + "/replay-bench.jsonl", db = o.dir + "/replay-bench.db";
  const std::string ours_out = o.dir + "/replay-bench.cards.json", theirs_out = o.dir + "/replay-bench.upstream.json";
  const std::string pieces_out = o.dir + "/replay-bench.pieces.cards.json";
  const std::optional<GeneratedLog> made = WriteGeneratedLogInChild(file, kSession, events, 42, /*read_cards=*/true, [&] {
    RemoveDatabase(db);
    auto store = store::EventStore::Open(db);
    return store.ok() && store::ImportJsonl(**store, file).ok();
  });
  if (!made) return std::fprintf(stderr, "generating or importing the session failed\n"), 1;
  const GeneratedLog& log = *made;
  std::printf("session: %lld events, %lld tool calls, %.1f MB\n", static_cast<long long>(log.events),
              static_cast<long long>(log.tool_calls), static_cast<double>(log.bytes) / 1e6);

  // The two-thread rows measure two pieces, or nothing.
  {
    auto from_file = store::EventSource::File(file);
    auto opened = store::EventStore::Open(db);
    if (!from_file.ok() || !opened.ok()) return std::fprintf(stderr, "cannot open the session\n"), 1;
    auto from_store = store::EventSource::Stored(std::move(opened).value(), kSession);
    if (from_file->PlanPieces(2).size() != 2 || !from_store.ok() || from_store->PlanPieces(2).size() != 2) {
      return std::fprintf(stderr, "the session does not cut into two pieces\n"), 1;
    }
  }

  // The cases run in rounds (BestInRounds), so that a slow spell of this
  // machine cannot fall on one case only.
  std::vector<std::function<Sample()>> cases = {
      [&] {
        return RunInChild([&] {
          return Cards(
              [&](const store::EventSink& sink) {
                return store::ReadFileEvents(file, {replay::CardsNeed, /*write_again=*/true}, sink).status();
              },
              replay::CardsSizeHint(log.bytes), ours_out);
        });
      },
      [&] { return RunInChild([&] { return CardsInPieces(file, 2, pieces_out); }); },
      [&] {
        return RunInChild([&] {
          auto store = store::EventStore::Open(db);
          if (!store.ok()) return -1.0;
          auto source = store::EventSource::Stored(std::move(store).value(), kSession);
          if (!source.ok()) return -1.0;
          // Reserved as `retrace replay` reserves for a stored session (service/replay.cc).
          return Cards(
              [&](const store::EventSink& sink) {
                return source->Read({replay::CardsNeed, /*write_again=*/true}, sink);
              },
              replay::CardsSizeHint(source->LogBytes()), "");
        });
      },
      [&] { return RunInChild([&] { return StoredCardsInPieces(db, 2); }); },
      [&] { return RunInChild([&] { return Html(file); }); },
      [&] { return RunInChild([&] { return AcpLoadFrames(db); }); },
  };
  if (!o.node.empty()) {
    cases.push_back([&] {
      return RunCommand({o.node, RETRACE_SOURCE_DIR "/bench/upstream/replay.mjs", o.upstream, file, kSession,
                         "/home/dev/bench", theirs_out});
    });
  }
  const std::vector<Sample> best = BestInRounds(o.reps, cases);
  const Sample &from_file = best[0], &in_pieces = best[1], &from_store = best[2], &store_pieces = best[3], &html = best[4];
  const Sample& acp_frames = best[5];
  const Sample upstream = o.node.empty() ? Sample{} : best[6];
  Row("retrace cards, from the JSONL file", from_file, log);
  Row("retrace cards, from the file, 2 threads", in_pieces, log);
  Row("retrace cards, from the store", from_store, log);
  Row("retrace cards, from the store, 2 threads", store_pieces, log);
  Row("retrace HTML page, from the JSONL file", html, log);
  Row("retrace acp session/load frames, from store", acp_frames, log);
  Row("upstream load() + presenters (Node 22)", upstream, log);
  if (from_file.ok && upstream.ok) {
    std::printf("file in → cards out, retrace / upstream: %.1fx on 1 thread", upstream.seconds / from_file.seconds);
    if (in_pieces.ok) std::printf(", %.1fx on 2 threads", upstream.seconds / in_pieces.seconds);
    std::printf(" (target >= 10)\n");
    if (html.ok) std::printf("file in → HTML out, retrace / upstream cards: %.1fx\n", upstream.seconds / html.seconds);
    const std::string theirs = ReadFileText(theirs_out);
    std::printf("cards identical to upstream's: %s on 1 thread, %s on 2 threads\n",
                ReadFileText(ours_out) == theirs ? "yes" : "NO", ReadFileText(pieces_out) == theirs ? "yes" : "NO");
  }
  RemoveDatabase(db);
  return 0;
}

}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
