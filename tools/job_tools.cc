#include "tools/job_tools.h"

#include "engine/json/writer.h"
#include "engine/schema/schema_spec.h"
#include "engine/json/js_text.h"
#include "tools/tool_host.h"
#include "tools/reference_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using namespace schema;

// dsh-tool-jobs' defaults.
constexpr double kWaitTimeoutMs = 30000;
constexpr double kMaxWaitTimeoutMs = 600000;

const std::string& JobId(const Value& args) {
  const Value& id = *args.Find("job_id");
  if (id.as_string().empty()) {  // dsh checks emptiness, not blankness: " " is an unknown job
    throw std::runtime_error("invalid job_id: expected a non-empty string, got " + json::Serialize(id));
  }
  return id.as_string();
}

template <typename T>
T OrThrow(Result<T> r) {
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(*r);
}

Spec PublicJobSchema() {
  return Object(false, {{"id", String().Required()},
                        {"kind", String().Required()},
                        {"label", String().Required()},
                        {"status", String().Enum({"running", "stopping", "completed", "killed", "failed"}).Required()},
                        {"detail", String()},
                        {"startedAt", Integer().Required()},
                        {"finishedAt", Integer()}});
}

std::string StatusLine(const Value& job) {
  const Value* detail = job.Find("detail");
  return JobStatusLine(job.Find("status")->as_string(), detail ? std::optional(detail->as_string()) : std::nullopt);
}


}  // namespace

Result<runtime::ToolDefinitionPtr> JobOutputTool(const std::shared_ptr<JobRegistry>& jobs) {
  runtime::ToolDefinition spec{
      .name = "job_output",
      .description =
          "Read a background job. Stream jobs return only output since the previous read; final-output jobs return "
          "their result after settlement. Every response ends with `[status: ...]`. Reads are non-blocking unless "
          "`wait: true`, which waits up to the configured cap.",
      .output = {.schema = Object(false, {{"text", String().Required()}, {"job", PublicJobSchema().Required()}}),
                 .render =
                     [](const Value&, const Value& v) {
                       std::string body = v.Find("text")->as_string();
                       if (body.empty()) body = "(no new output)";
                       if (body.back() != '\n') body += '\n';
                       return runtime::TextContent(body + StatusLine(*v.Find("job")));
                     },
                 .presentation_meta = {}},
      .execute =
          [jobs](runtime::ToolRunContext& run) {
            const Value& args = run.arguments();
            const std::string& id = JobId(args);
            if (const Value* wait = args.Find("wait"); wait && wait->as_bool()) {
              const Value* t = args.Find("timeout_ms");
              const double timeout = std::min(t ? t->as_number() : kWaitTimeoutMs, kMaxWaitTimeoutMs);
              OrThrow(jobs->Wait(id, timeout, SessionId(run), run.signal()));
            }
            JobRead read = OrThrow(jobs->Read(id, SessionId(run)));
            return Value::MakeObject({{"text", std::move(read.text)}, {"job", read.job.Public()}});
          },
  };
  return DefineReferenceTool(std::move(spec));
}

Result<runtime::ToolDefinitionPtr> JobListTool(const std::shared_ptr<JobRegistry>& jobs) {
  runtime::ToolDefinition spec{
      .name = "job_list",
      .description = "List your background jobs (running and finished) with their ids, kinds, and statuses.",
      .output = {.schema = Array(PublicJobSchema()),
                 .render =
                     [](const Value&, const Value& v) {
                       std::string text;
                       for (const Value& job : v.as_array()) {
                         text += (text.empty() ? "" : "\n") + job.Find("id")->as_string() + " [" +
                                 job.Find("kind")->as_string() + "] " + job.Find("status")->as_string() + " — " +
                                 job.Find("label")->as_string();
                       }
                       return runtime::TextContent(text.empty() ? "(no background jobs)" : text);
                     },
                 .presentation_meta = {}},
      // A coroutine body: listing never blocks, so it skips the hop to the blocking pool.
      .execute_async =
          [jobs](runtime::ToolRunContext& run) -> runtime::asio::awaitable<Value> {
            Value::Array list;
            for (const JobSnapshot& job : jobs->List(SessionId(run))) list.push_back(job.Public());
            co_return Value(std::move(list));
          },
  };
  return DefineReferenceTool(std::move(spec));
}

Result<runtime::ToolDefinitionPtr> JobKillTool(const std::shared_ptr<JobRegistry>& jobs) {
  runtime::ToolDefinition spec{
      .name = "job_kill",
      .description = "Request cancellation of a running background job by job id. Returns immediately; the job settles "
                     "as killed once its work actually stops.",
      .output = {.schema = Object(false, {{"outcome", String().Enum({"cancellation-requested", "already-finished"}).Required()},
                                          {"job", PublicJobSchema().Required()}}),
                 .render =
                     [](const Value&, const Value& v) {
                       const Value& job = *v.Find("job");
                       const std::string& id = job.Find("id")->as_string();
                       return runtime::TextContent(v.Find("outcome")->as_string() == "already-finished"
                                                       ? "job " + id + " had already finished " + StatusLine(job)
                                                       : "requested cancellation of job " + id);
                     },
                 .presentation_meta = {}},
      .execute =
          [jobs](runtime::ToolRunContext& run) {
            const Value& args = run.arguments();
            const std::string& id = JobId(args);
            const Value* reason = args.Find("reason");
            const std::string outcome = OrThrow(jobs->Kill(id, SessionId(run), reason ? reason->as_string() : ""));
            JobSnapshot job = OrThrow(jobs->Get(id, SessionId(run)));
            return Value::MakeObject({{"outcome", outcome == "requested" ? "cancellation-requested" : "already-finished"},
                                      {"job", job.Public()}});
          },
  };
  return DefineReferenceTool(std::move(spec));
}


std::string CompletionNotice(const JobSnapshot& job) {
  return "background job " + job.id + " (" + job.kind + ": " + job.label + ") finished " + job.StatusLine() +
         ". Read its output with job_output.";
}

Value CompletionNoticeSource(const JobSnapshot& job) {
  // dsh-llm's boundContextSummary: at most 120 UTF-16 units, else 119 and an ellipsis.
  std::string summary = job.kind + " " + job.label + " " + job.StatusLine();
  if (json::Utf16Prefix(summary, 120) != summary) summary = json::Utf16Prefix(summary, 119) + "…";
  return Value::MakeObject({{"kind", "plugin"}, {"plugin", "tool-jobs"}, {"form", "notice"}, {"summary", summary}});
}

}  // namespace retrace::tools
