#include "bench/log_generator.h"

#include <cinttypes>
#include <cstdio>
#include <random>

#include "bench/measure.h"
#include "engine/json/writer.h"
#include "engine/log/session_header.h"
#include "format/chunk_rows.h"

namespace retrace::bench {
namespace {

using json::Value;

constexpr const char* kWords[] = {"the", "function", "returns", "value", "error", "test", "file", "module", "import",
                                  "const", "let", "async", "await", "result", "config", "parse", "string", "number",
                                  "object", "array", "index", "path", "read", "write", "check", "build", "run"};

class Generator {
 public:
  Generator(std::string id, uint64_t seed, const std::function<void(const std::vector<log::EventRecord>&)>& sink,
            bool read_cards)
      : id_(std::move(id)), rng_(seed), sink_(sink), read_cards_(read_cards) {}

  int64_t Turn(int turn) {
    Emit("agent/inbox/spliced", Value::MakeObject({{"target", "next-turn"}, {"start", 0},
                                                   {"inserted", Value::Array{UserMessage(Words(12), "user")}}}));
    Emit("turn/start", Value::MakeObject({{"turn", turn}}));
    Emit("agent/inbox/spliced", Value::MakeObject({{"target", "next-turn"}, {"start", 0}, {"removedCount", 1},
                                                   {"inserted", Value::Array{}}}));
    const int steps = 3 + static_cast<int>(rng_() % 3);
    for (int step = 1; step <= steps; ++step) Step(turn, step, step == steps);
    Emit("turn/end", Value::MakeObject({{"turn", turn}, {"reason", Value::MakeObject({{"kind", "completed"}})}}));
    Flush();
    return seq_;
  }

  int64_t seq() const { return seq_; }
  int64_t tool_calls() const { return tool_calls_; }

 private:
  void Step(int turn, int step, bool last) {
    Emit("step/start", Value::MakeObject({{"turn", turn}, {"step", step}}));
    if (step == 1) {
      EmitSurface("user/message", UserMessage(Words(20), "user"), std::nullopt);
      if (turn == 1) {
        Emit("request/header", Value::MakeObject({{"header", Value::MakeObject({{"config", Value::MakeObject(
            {{"provider", "deepseek"}, {"model", "deepseek-chat"}})}, {"system", Words(300)}})}, {"reason", "initial"}}));
      }
    }
    std::vector<int64_t> chunks;
    Value::Array content;
    Block(turn, step, 0, "reasoning", 15 + rng_() % 15, chunks, content);
    Block(turn, step, 1, "text", 20 + rng_() % 30, chunks, content);
    std::vector<std::string> calls;
    if (!last) {
      const int n = 1 + static_cast<int>(rng_() % 2);
      for (int i = 0; i < n; ++i) calls.push_back(ToolCallBlock(turn, step, 2 + i, chunks, content));
    }
    ChunkEvent(turn, step, Value::MakeObject({{"type", "usage"}, {"usage", Value::MakeObject(
        {{"inputTokens", 1000 + static_cast<int>(rng_() % 5000)}, {"outputTokens", 200}})}}), chunks);
    ChunkEvent(turn, step, Value::MakeObject({{"type", "finish"}, {"reason", Value::MakeObject({{"kind", last ? "stop" : "tool-calls"}})}}), chunks);
    Value message = Value::MakeObject({{"role", "assistant"}, {"content", std::move(content)},
                                       {"source", Value::MakeObject({{"kind", "model"}, {"provider", "deepseek"}, {"model", "deepseek-chat"}})},
                                       {"id", NextId()}});
    EmitSurface("assistant/message", Value::MakeObject({{"turn", turn}, {"step", step}, {"message", std::move(message)}}), chunks);
    for (const std::string& call : calls) ToolPair(turn, step, call);
    Emit("step/end", Value::MakeObject({{"turn", turn}, {"step", step}}));
    Flush();
  }

  void Block(int turn, int step, int index, const char* kind, uint64_t deltas, std::vector<int64_t>& chunks,
             Value::Array& content) {
    const std::string delta_type = std::string(kind) + "-delta";
    ChunkEvent(turn, step, Value::MakeObject({{"type", "block-start"}, {"index", index}, {"blockType", kind}}), chunks);
    std::string text;
    for (uint64_t i = 0; i < deltas; ++i) {
      const std::string piece = " " + Words(1 + rng_() % 3);
      text += piece;
      ChunkEvent(turn, step, Value::MakeObject({{"type", delta_type}, {"index", index}, {"text", piece}}), chunks);
    }
    Value block = Value::MakeObject({{"type", kind}, {"text", text}});
    ChunkEvent(turn, step, Value::MakeObject({{"type", "block-end"}, {"index", index}, {"block", block}}), chunks);
    content.push_back(std::move(block));
  }

  std::string ToolCallBlock(int turn, int step, int index, std::vector<int64_t>& chunks, Value::Array& content) {
    const std::string id = "call_" + std::to_string(seq_);
    // Drawn one statement each, so that every compiler draws them in the same order (the
    // operands of one `+` chain are unsequenced); this is the order g++ drew them in when
    // they were one expression, so the seeded logs, and the figures measured on them, stay.
    const uint64_t offset = 1 + rng_() % 100;
    const std::string file = Words(1);
    const std::string dir = Words(1);
    const std::string args =
        "{\"file_path\":\"src/" + dir + "/" + file + ".ts\",\"offset\":" + std::to_string(offset) + "}";
    ChunkEvent(turn, step, Value::MakeObject({{"type", "block-start"}, {"index", index}, {"blockType", "tool-call"}}), chunks);
    ChunkEvent(turn, step, Value::MakeObject({{"type", "tool-call-delta"}, {"index", index}, {"id", id}, {"name", "read"}, {"argumentsDelta", ""}}), chunks);
    for (size_t at = 0; at < args.size(); at += 8)
      ChunkEvent(turn, step, Value::MakeObject({{"type", "tool-call-delta"}, {"index", index}, {"id", id}, {"argumentsDelta", args.substr(at, 8)}}), chunks);
    Value block = Value::MakeObject({{"type", "tool-call"}, {"id", id}, {"name", "read"}, {"arguments", args}});
    ChunkEvent(turn, step, Value::MakeObject({{"type", "block-end"}, {"index", index}, {"block", block}}), chunks);
    content.push_back(std::move(block));
    pending_args_.push_back(args);
    return id;
  }

  void ToolPair(int turn, int step, const std::string& call_id) {
    const std::string args = pending_args_.front();
    pending_args_.erase(pending_args_.begin());
    const int64_t call_seq = seq_;
    Emit("tool/call", Value::MakeObject({{"turn", turn}, {"step", step}, {"callId", call_id}, {"name", "read"}, {"arguments", args}}));
    ++tool_calls_;
    std::string body;  // several KB of "file" text
    const uint64_t lines = 40 + rng_() % 120;
    Value::Array meta_lines;
    for (uint64_t l = 1; l <= lines; ++l) {
      const std::string text = Words(4 + rng_() % 8);
      if (read_cards_) {
        body += std::to_string(l) + ": " + text + "\n";
        meta_lines.push_back(Value::MakeObject({{"number", static_cast<int64_t>(l)}, {"text", text}}));
      } else {
        body += std::to_string(l) + "\t" + text + "\n";
      }
    }
    if (read_cards_) {  // dsh-tool-fs's read envelope, as its presenters expect
      body = "<path>/w/src/file.ts</path>\n<type>file</type>\n<content>\n" + body + "\n(End of file - total " +
             std::to_string(lines) + " lines)\n</content>";
    }
    const bool error = rng_() % 10 == 0;
    Value block = Value::MakeObject({{"type", "tool-result"}, {"toolCallId", call_id},
                                     {"content", Value::Array{Value::MakeObject({{"type", "text"}, {"text", error ? "Error: file not found" : body}})}}});
    if (error) block.Set("isError", true);
    Value message = Value::MakeObject({{"source", Value::MakeObject({{"kind", "tool"}, {"callId", call_id}})},
                                       {"content", Value::Array{std::move(block)}}, {"role", "user"}, {"id", NextId()}});
    Value data = Value::MakeObject({{"turn", turn}, {"step", step}, {"message", std::move(message)}});
    if (!error && read_cards_) {
      data.Set("meta", Value::MakeObject({{"path", "/w/src/file.ts"}, {"offset", 1}, {"lines", Value(std::move(meta_lines))},
                                          {"totalLines", static_cast<int64_t>(lines)}, {"lang", "ts"}}));
    } else if (!error) {
      data.Set("meta", Value::MakeObject({{"path", "/w/src/file.ts"}, {"offset", 1}, {"totalLines", static_cast<int64_t>(lines)}}));
    } else {  // a tool that throws: the failure's internal identity, as the agent loop records it
      data.Set("error", Value::MakeObject({{"name", "FsError"}, {"code", "FS_NOT_FOUND"}}));
    }
    EmitSurface("tool/result", std::move(data), std::vector<int64_t>{call_seq});
  }

  void ChunkEvent(int turn, int step, Value chunk, std::vector<int64_t>& chunks) {
    chunks.push_back(seq_);
    Emit("assistant/chunk", Value::MakeObject({{"turn", turn}, {"step", step}, {"chunk", std::move(chunk)}}));
  }

  Value UserMessage(const std::string& text, const char* kind) {
    return Value::MakeObject({{"content", Value::Array{Value::MakeObject({{"type", "text"}, {"text", text}})}},
                              {"source", Value::MakeObject({{"kind", kind}})}, {"role", "user"}, {"id", NextId()}});
  }

  void Emit(const char* type, Value data) {
    log::Event e;
    e.type = type;
    e.seq = seq_++;
    time_ += static_cast<int64_t>(rng_() % 7);
    e.time = time_;
    e.data = std::move(data);
    batch_.push_back(log::MakeRecord(std::move(e)));
  }

  void EmitSurface(const char* type, Value data, std::optional<std::vector<int64_t>> sources) {
    Emit(type, std::move(data));
    log::EventRecord& r = batch_.back();
    r.event.surface_op = log::SurfaceOp{};
    r.event.source_event_seqs = std::move(sources);
    r.text = log::SerializeEvent(r.event);
  }

  void Flush() {
    if (batch_.empty()) return;
    sink_(batch_);
    batch_.clear();
  }

  std::string Words(uint64_t n) {
    std::string s;
    for (uint64_t i = 0; i < n; ++i) {
      if (i) s += ' ';
      s += kWords[rng_() % (sizeof kWords / sizeof *kWords)];
    }
    return s;
  }

  std::string NextId() {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08llx-0000-4000-8000-%012llx", static_cast<unsigned long long>(rng_() & 0xffffffff),
                  static_cast<unsigned long long>(ids_++));
    return buf;
  }

  std::string id_;
  std::mt19937_64 rng_;
  const std::function<void(const std::vector<log::EventRecord>&)>& sink_;
  std::vector<log::EventRecord> batch_;
  std::vector<std::string> pending_args_;
  bool read_cards_;
  int64_t seq_ = 0;
  int64_t time_ = 1796000000000;
  int64_t tool_calls_ = 0;
  uint64_t ids_ = 0;
};

}  // namespace

log::SessionHeader GeneratedHeader(const std::string& session_id) {
  log::SessionHeader h;
  h.id = session_id;
  h.created_at = 1796000000000;
  h.cwd = "/home/dev/bench";
  return h;
}

GeneratedLog GenerateLog(const std::string& session_id, int64_t min_events, uint64_t seed,
                         const std::function<void(const std::vector<log::EventRecord>&)>& batch, bool read_cards) {
  GeneratedLog out;
  out.header_line = log::SerializeHeaderLine(GeneratedHeader(session_id));
  Generator g(session_id, seed, batch, read_cards);
  for (int turn = 1; g.seq() < min_events; ++turn) g.Turn(turn);
  out.events = g.seq();
  out.tool_calls = g.tool_calls();
  return out;
}

GeneratedLog WriteGeneratedLog(const std::string& path, const std::string& session_id, int64_t min_events, uint64_t seed,
                               bool read_cards) {
  FILE* f = std::fopen(path.c_str(), "wb");
  const std::string header = log::SerializeHeaderLine(GeneratedHeader(session_id)) + "\n";
  std::fwrite(header.data(), 1, header.size(), f);
  uint64_t bytes = header.size();
  GeneratedLog log = GenerateLog(session_id, min_events, seed, [&](const std::vector<log::EventRecord>& batch) {
    for (const std::string& line : format::PackChunkRuns(batch)) {
      std::fwrite(line.data(), 1, line.size(), f);
      std::fputc('\n', f);
      bytes += line.size() + 1;
    }
  }, read_cards);
  std::fclose(f);
  log.bytes = bytes;
  return log;
}

std::optional<GeneratedLog> WriteGeneratedLogInChild(const std::string& path, const std::string& session_id,
                                                     int64_t min_events, uint64_t seed, bool read_cards,
                                                     const std::function<bool()>& then) {
  const std::optional<std::string> made = OutputOfChild([&]() -> std::string {
    const GeneratedLog log = WriteGeneratedLog(path, session_id, min_events, seed, read_cards);
    if (then && !then()) return "";
    return std::to_string(log.events) + " " + std::to_string(log.tool_calls) + " " + std::to_string(log.bytes);
  });
  GeneratedLog log;
  if (!made || std::sscanf(made->c_str(), "%" SCNd64 " %" SCNd64 " %" SCNu64, &log.events, &log.tool_calls, &log.bytes) != 3) {
    return std::nullopt;
  }
  log.header_line = log::SerializeHeaderLine(GeneratedHeader(session_id));
  return log;
}

}  // namespace retrace::bench
