#include "presenters/revisions.h"

#include <set>

#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/validator.h"

namespace retrace::presenters {
namespace {

std::string StepName(size_t index, const UpcastStep& step) {
  return "step " + std::to_string(index + 1) + " (revision " + std::to_string(step.from) + " → " +
         std::to_string(step.to) + ")";
}

// The chain's shape: steps[i] reads revision i + 1 and gives i + 2, the last
// gives `current`. Each refusal names the first step that breaks it.
Status CheckChain(const std::string& who, int current, const std::vector<UpcastStep>& steps) {
  if (current < 1) {
    return Status::InvalidArgument(who + ": the current revision must be 1 or more, not " + std::to_string(current));
  }
  std::set<int> read;
  for (size_t i = 0; i < steps.size(); ++i) {
    const UpcastStep& s = steps[i];
    const std::string step = who + ": " + StepName(i, s);
    if (!s.arguments) return Status::InvalidArgument(step + " has no arguments upcaster");
    if (s.to == s.from) return Status::InvalidArgument(step + " does not advance");
    if (s.to < s.from) return Status::InvalidArgument(step + " goes back (a cycle)");
    if (!read.insert(s.from).second) {
      return Status::InvalidArgument(step + " duplicates an earlier step from revision " + std::to_string(s.from));
    }
    const int expected = i == 0 ? 1 : steps[i - 1].to;
    if (s.from != expected || s.to != s.from + 1) {
      const int missing = s.from != expected ? expected : s.from + 1;
      return Status::InvalidArgument(step + " leaves a gap: no step reads revision " + std::to_string(missing));
    }
  }
  const int reached = steps.empty() ? 1 : steps.back().to;
  if (reached != current) {
    return Status::InvalidArgument(who + ": the chain ends at revision " + std::to_string(reached) +
                                   ", not at the current revision " + std::to_string(current));
  }
  return Status::Ok();
}

bool Accepts(const Revisions& r, int revision, const json::Value& args) {
  return schema::ValidateArguments(r.schemas.at(revision), args).empty();
}

// The newest revision whose schema accepts `args`; 0 when none does.
int Infer(const Revisions& r, const json::Value& args) {
  for (int rev = r.current; rev >= 1; --rev) {
    if (Accepts(r, rev, args)) return rev;
  }
  return 0;
}

std::string Joined(const std::vector<std::string>& errors) {
  std::string out;
  for (const std::string& e : errors) out += (out.empty() ? "" : "; ") + e;
  return out;
}

}  // namespace

std::string SchemaFingerprint(const json::Value& compiled_schema) {
  return Fingerprint(json::Serialize(compiled_schema));
}

std::string Fingerprint(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  std::string hex(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) hex[static_cast<size_t>(i)] = "0123456789abcdef"[h & 15];
  return hex;
}

Result<RevisionsPtr> CompileRevisions(std::string_view tool, RevisionSpec spec, const json::Value& current_schema,
                                      bool dsl) {
  const std::string who = "tool \"" + std::string(tool) + "\"";
  RETURN_IF_ERROR(CheckChain(who, spec.current, spec.steps));
  auto out = std::make_shared<Revisions>();
  out->current = spec.current;
  for (auto& [rev, parameters] : spec.parameters) {
    if (rev < 1 || rev >= spec.current) {
      return Status::InvalidArgument(who + ": a schema for revision " + std::to_string(rev) +
                                     ", which is not older than the current revision " + std::to_string(spec.current));
    }
    if (dsl) {
      Result<json::Value> compiled = schema::CompileParameters(parameters);
      if (!compiled.ok()) {
        return Status::InvalidArgument(who + ": the schema of revision " + std::to_string(rev) + ": " +
                                       compiled.status().message());
      }
      out->schemas[rev] = std::move(compiled).value();
    } else {
      out->schemas[rev] = std::move(parameters);
    }
  }
  for (int rev = 1; rev < spec.current; ++rev) {
    if (!out->schemas.contains(rev)) {
      return Status::InvalidArgument(who + ": revision " + std::to_string(rev) + " has no parameter schema");
    }
  }
  out->schemas[spec.current] = current_schema;
  for (const auto& [rev, schema] : out->schemas) out->fingerprints[rev] = SchemaFingerprint(schema);
  out->steps = std::move(spec.steps);
  return RevisionsPtr(std::move(out));
}

const char* UpcastHowName(UpcastHow how) {
  switch (how) {
    case UpcastHow::kCurrent:
      return "current";
    case UpcastHow::kUpcast:
      return "upcast";
    case UpcastHow::kNoRevision:
      return "no revision accepts the arguments";
    case UpcastHow::kThrew:
      return "a step threw";
    case UpcastHow::kInvalidStep:
      return "a step's output fails the next revision's schema";
  }
  return "?";
}

Upcasted Upcast(const Revisions& r, const json::Value& arguments, const json::Value* meta,
                const RecordedRevision* recorded) {
  Upcasted out;
  if (recorded) {
    auto fp = r.fingerprints.find(recorded->revision);
    if (fp != r.fingerprints.end() && fp->second == recorded->fingerprint) {
      out.from = recorded->revision;
      out.recorded = true;
    } else {
      out.detail = "recorded at revision " + std::to_string(recorded->revision) + " with schema " +
                   recorded->fingerprint + ", which this tool does not declare: revision inferred";
    }
  }
  if (!out.recorded) out.from = Infer(r, arguments);
  if (out.from == 0) {
    out.how = UpcastHow::kNoRevision;
    out.detail = "no revision's schema accepts the arguments (current: " +
                 Joined(schema::ValidateArguments(r.schemas.at(r.current), arguments)) + ")";
    return out;
  }
  if (out.from == r.current) return out;  // kCurrent: the presenters validate it
  if (out.recorded && !Accepts(r, out.from, arguments)) {
    out.how = UpcastHow::kNoRevision;
    out.detail =
        "the arguments fail the schema of revision " + std::to_string(out.from) + ", which the session recorded";
    return out;
  }

  json::Value args = arguments;
  std::optional<json::Value> upcast_meta;
  if (meta) upcast_meta = *meta;
  for (int rev = out.from; rev < r.current; ++rev) {
    const UpcastStep& step = r.steps[static_cast<size_t>(rev - 1)];
    const std::string name = StepName(static_cast<size_t>(rev - 1), step);
    try {
      args = step.arguments(args);
      if (upcast_meta && step.meta) upcast_meta = step.meta(*upcast_meta);
    } catch (const std::exception& e) {
      out.how = UpcastHow::kThrew;
      out.detail = name + " threw: " + e.what();
      return out;
    } catch (...) {
      out.how = UpcastHow::kThrew;
      out.detail = name + " threw a non-standard exception";
      return out;
    }
    std::vector<std::string> errors = schema::ValidateArguments(r.schemas.at(step.to), args);
    if (!errors.empty()) {
      out.how = UpcastHow::kInvalidStep;
      out.detail =
          name + " gave arguments that fail revision " + std::to_string(step.to) + "'s schema: " + Joined(errors);
      return out;
    }
  }
  out.how = UpcastHow::kUpcast;
  out.arguments = std::move(args);
  out.meta = std::move(upcast_meta);
  return out;
}

}  // namespace retrace::presenters
