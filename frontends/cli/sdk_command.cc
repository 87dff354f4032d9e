// retrace sdk --language typescript|python [--schemas FILE] [-o FILE]
#include <unistd.h>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "format/atomic_file.h"
#include "service/sdk.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string language = "typescript";
  std::string schemas;
  std::string output;
};

Status Write(const Context& ctx, const Args& a, const std::string& text) {
  if (a.output.empty()) {
    // The text ends at its closing fence, as dsh's does; a terminal gets a
    // newline after it so that the prompt starts on a line of its own.
    const bool tty = isatty(fileno(ctx.out)) != 0;
    const bool ok = std::fwrite(text.data(), 1, text.size(), ctx.out) == text.size() && (!tty || std::fputc('\n', ctx.out) != EOF);
    return ok ? Status::Ok() : Status::IoError("cannot write to stdout");
  }
  ASSIGN_OR_RETURN(format::AtomicFile file, format::AtomicFile::Create(a.output));
  RETURN_IF_ERROR(file.Append(text));
  return file.Commit(/*overwrite=*/true);
}

int Run(const Context& ctx, const Args& a) {
  service::SdkOptions o{.language = *schema::ParseSdkLanguage(a.language), .schemas_file = a.schemas};
  auto text = service::ToolsSdk(o);
  if (!text.ok()) return ctx.Fail(text.status());
  const Status st = Write(ctx, a, *text);
  return st.ok() ? kExitOk : ctx.Fail(st);
}

}  // namespace

Command SdkCommand() {
  return {"sdk", "Print the Code Mode SDK a model programs against: TypeScript or Python declarations of the tools",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("--language", a->language, "typescript (default) or python: the code runtime's language")
                .OneOf({"typescript", "python"});
            sub.Add("--schemas", a->schemas,
                    "A JSON array of {name, description, parameters, output} to declare instead of the "
                    "built-in tools (the input of dsh's renderToolsSdk)")
                .ExistingFile();
            sub.AddOutput(a->output);
            sub.Footer(
                "The text is the `tools:sdk` section of a Code Mode prompt, byte for byte as dsh writes it:\n"
                "usage instructions, then `declare const tools` (TypeScript) or a `Tools` protocol with a\n"
                "TypedDict per object shape (Python), tools sorted by name. Without --schemas it declares\n"
                "the built-in tools as `retrace run` registers them. A schema outside the supported subset\n"
                "is declared as `unknown` (TypeScript) or `Any` (Python). Examples:\n"
                "  retrace sdk --language python\n"
                "  retrace sdk --schemas my-tools.json -o sdk.ts.md");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
