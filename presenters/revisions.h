// Revisions of a tool's arguments, and the upcasters that carry old calls to
// the current revision (tool-author upcasters).
//
// A tool whose parameters change (a field renamed, a string that becomes an
// object) declares its current revision, the parameter schema of every
// older revision, and an ordered chain of pure steps, one per older
// revision, each taking that revision's arguments (and, separately, a
// result's presentationMeta) to the next revision's:
//
//   RevisionSpec{.current = 3,
//                .parameters = {{1, v1_dsl}, {2, v2_dsl}},
//                .steps = {{.from = 1, .to = 2, .arguments = RenameTownToCity},
//                          {.from = 2, .to = 3, .arguments = CityBecomesAnObject}}}
//
// CompileRevisions refuses a chain with a gap, a duplicate, a step that does
// not advance (or goes back: a cycle), or one that does not reach the
// current revision, naming the tool and the step. Steps are presenters in
// all but name: they may read nothing but their input
// (tests/presenters/purity_check.cmake holds them to it).
//
// Upcast() is the one place old calls are carried forward: the card fold
// (engine/replay/card_fold.h) calls it for every call it presents, so replay
// in every format, `retrace check`, ACP's session/load and the renderers all
// see the same arguments. The stored text is never changed on read.
//
// A call's revision is what the session recorded for its tool
// (`retrace/tool-revision`, engine/log/event_types.h) when the recorded
// schema fingerprint is still that revision's; otherwise it is inferred: the
// newest revision whose schema the arguments validate against.
#ifndef RETRACE_PRESENTERS_REVISIONS_H_
#define RETRACE_PRESENTERS_REVISIONS_H_

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace retrace::presenters {

// A pure function from one revision's value to the next revision's. It may
// throw: the call then shows the generic card, and `retrace check` reports it.
using UpcastFn = std::function<json::Value(const json::Value&)>;

struct UpcastStep {
  int from = 0;          // the revision this step reads
  int to = 0;            // the revision it gives
  UpcastFn arguments{};  // required
  UpcastFn meta{};       // a result's presentationMeta; absent: the meta is unchanged
};

// What a tool author declares.
struct RevisionSpec {
  int current = 1;
  // The parameter schema (ParameterSchemaSpec DSL) of every older revision.
  std::map<int, json::Value> parameters{};
  std::vector<UpcastStep> steps{};  // oldest first
};

// A checked declaration, with every revision's compiled schema (the current
// one included) and its fingerprint.
struct Revisions {
  int current = 1;
  std::map<int, json::Value> schemas{};
  std::map<int, std::string> fingerprints{};
  std::vector<UpcastStep> steps{};  // steps[i] reads revision i + 1
};
using RevisionsPtr = std::shared_ptr<const Revisions>;

// FNV-1a 64 of `text`, 16 hex digits.
std::string Fingerprint(std::string_view text);
// A schema's fingerprint: that of its compact JSON.
std::string SchemaFingerprint(const json::Value& compiled_schema);

// Checks `spec` for the tool `tool`, whose current revision's compiled schema
// is `current_schema`, and compiles the older schemas (DSL when `dsl`, else
// already compiled). The errors name the tool and the step:
//   tool "forecast": step 2 (revision 3 → 2) goes back (a cycle)
Result<RevisionsPtr> CompileRevisions(std::string_view tool, RevisionSpec spec, const json::Value& current_schema,
                                      bool dsl = true);

// What a session recorded for a tool: the revision its calls were made at,
// and the fingerprint of that revision's schema then.
struct RecordedRevision {
  int revision = 0;
  std::string fingerprint{};
};

enum class UpcastHow {
  kCurrent,      // already at the current revision
  kUpcast,       // carried from an older revision
  kNoRevision,   // no revision's schema accepts the arguments (inference failed)
  kThrew,        // a step threw
  kInvalidStep,  // a step's output fails the next revision's schema
};
const char* UpcastHowName(UpcastHow how);

struct Upcasted {
  int from = 0;           // the call's revision; 0 when none could be told
  bool recorded = false;  // `from` came from the session's record, not inference
  UpcastHow how = UpcastHow::kCurrent;
  // kUpcast: the arguments and meta at the current revision. Otherwise unset:
  // the logged ones stand.
  std::optional<json::Value> arguments{};
  std::optional<json::Value> meta{};
  std::string detail{};  // why it failed, naming the step; or why a record was not used
  bool ok() const { return how == UpcastHow::kCurrent || how == UpcastHow::kUpcast; }
  // The arguments valid at the current revision (the logged ones when kCurrent); null when !ok().
  const json::Value* Arguments(const json::Value& logged) const {
    return arguments ? &*arguments : how == UpcastHow::kCurrent ? &logged : nullptr;
  }
};

// Carries a call of a tool with `revisions` to the current revision. `meta`
// is its result's presentationMeta (null: none); `recorded` what the session
// recorded for the tool (null: none). Never throws.
Upcasted Upcast(const Revisions& revisions, const json::Value& arguments, const json::Value* meta,
                const RecordedRevision* recorded);

}  // namespace retrace::presenters

#endif  // RETRACE_PRESENTERS_REVISIONS_H_
