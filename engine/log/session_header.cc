#include "engine/log/session_header.h"

#include "engine/json/parser.h"
#include "engine/json/value.h"
#include "engine/json/writer.h"

namespace retrace::log {
namespace {

using json::Value;

Status NotAHeader(const std::string& why) {
  return Status::Corruption("corrupt session log: first line is not a session header (" + why + ")");
}

std::optional<int64_t> NonNegativeInt(const Value* v) {
  if (v == nullptr || !v->is_safe_integer() || v->as_number() < 0) return std::nullopt;
  return static_cast<int64_t>(v->as_number());
}

Status ReadOptionalString(const Value& h, std::string_view key, std::optional<std::string>& out) {
  const Value* v = h.Find(key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_string()) return NotAHeader(std::string(key) + " must be a string");
  out = v->as_string();
  return Status::Ok();
}

}  // namespace

std::string UnsupportedVersionMessage(std::string_view id, double version) {
  const std::string v = json::FormatNumber(version);
  const std::string head = "session \"" + std::string(id) + "\" uses log format v" + v;
  if (version > kSessionFormatVersion) {
    return head + ", but this harness reads only v0: the log was written by a newer harness — "
                  "upgrade the harness to open it";
  }
  return head + ", older than the supported v0, and this build ships no upgrade path for it";
}

Result<SessionHeader> ParseHeaderLine(std::string_view text) {
  auto parsed = json::Parse(text);
  if (!parsed.ok()) return Status::Corruption("corrupt session log: header line is not valid JSON");
  const Value& h = *parsed;
  if (!h.is_object()) return NotAHeader("not an object");

  const Value* id = h.Find("id");
  const Value* version = h.Find("version");
  if (version != nullptr && version->is_number() && version->as_number() != kSessionFormatVersion) {
    return Status::Unsupported(UnsupportedVersionMessage(
        id != nullptr && id->is_string() ? id->as_string() : "?", version->as_number()));
  }
  if (h.Find("sandboxMode") != nullptr || h.Find("approvalPolicy") != nullptr) {
    return Status::Corruption("session header uses retired policy baseline fields");
  }

  const Value* type = h.Find("type");
  if (type == nullptr || !type->is_string() || type->as_string() != "session") {
    return NotAHeader("type must be \"session\"");
  }
  if (version == nullptr) return NotAHeader("version is missing");
  if (id == nullptr || !id->is_string() || id->as_string().empty()) {
    return NotAHeader("id must be a non-empty string");
  }

  SessionHeader out;
  out.id = id->as_string();
  const auto created = NonNegativeInt(h.Find("createdAt"));
  if (!created) return NotAHeader("createdAt must be a non-negative integer");
  out.created_at = *created;
  const auto depth = NonNegativeInt(h.Find("delegationDepth"));
  if (!depth) return NotAHeader("delegationDepth must be a non-negative integer");
  out.delegation_depth = *depth;
  if (const Value* seed = h.Find("seedLength")) {
    out.seed_length = NonNegativeInt(seed);
    if (!out.seed_length) return NotAHeader("seedLength must be a non-negative integer");
  }
  RETURN_IF_ERROR(ReadOptionalString(h, "cwd", out.cwd));
  if (out.cwd && (out.cwd->empty() || (*out.cwd)[0] != '/')) return NotAHeader("cwd must be an absolute path");
  RETURN_IF_ERROR(ReadOptionalString(h, "parentSession", out.parent_session));
  RETURN_IF_ERROR(ReadOptionalString(h, "origin", out.origin));
  if (out.origin && *out.origin != "subagent") return NotAHeader("origin must be \"subagent\"");
  RETURN_IF_ERROR(ReadOptionalString(h, "agentPreset", out.agent_preset));
  return out;
}

std::string SerializeHeaderLine(const SessionHeader& h) {
  Value v = Value::MakeObject({{"type", "session"}, {"version", kSessionFormatVersion}, {"id", h.id},
                               {"createdAt", h.created_at}});
  auto& o = v.as_object();
  if (h.cwd) o.emplace_back("cwd", *h.cwd);
  if (h.parent_session) o.emplace_back("parentSession", *h.parent_session);
  if (h.seed_length) o.emplace_back("seedLength", *h.seed_length);
  if (h.origin) o.emplace_back("origin", *h.origin);
  o.emplace_back("delegationDepth", h.delegation_depth);
  if (h.agent_preset) o.emplace_back("agentPreset", *h.agent_preset);
  return json::Serialize(v);
}

}  // namespace retrace::log
