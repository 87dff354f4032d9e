// The card kinds, and one lenient typed reading of a stored card (a view a
// presenter made: views.h). Every reader of cards — the text and HTML
// transcripts, ACP's session updates — switches on ReadCard() instead of
// decoding the JSON field by field.
//
// Lenient as engine/json/lenient.h: a card from an old or damaged log still
// reads. A missing field, or one of another JSON kind, reads as absent: ""
// for text, nullptr for a number, false for a flag, no element for an array
// (and an element that is not an object reads with all its fields absent).
// An unknown card kind reads as generic.
//
// The reading borrows from the card's JSON: the card must outlive it.
#ifndef RETRACE_PRESENTERS_CARD_READER_H_
#define RETRACE_PRESENTERS_CARD_READER_H_

#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include <retrace/engine/json/value.h>

namespace retrace::presenters {

// The "card" member of a view. Written to disk (logs' views, card snapshots);
// never rename.
inline constexpr std::string_view kGenericCard = "generic";
inline constexpr std::string_view kTerminalCard = "terminal";
inline constexpr std::string_view kDiffCard = "diff";
inline constexpr std::string_view kReadCard = "read";
inline constexpr std::string_view kSearchCard = "search";
inline constexpr std::string_view kWebCard = "web";

// Numbers stay JSON values (nullptr when absent or not a number): each reader
// writes them its own way.
using Number = const json::Value*;

// {path, line?}
struct CardLocation {
  std::string_view path;
  Number line = nullptr;
};

// generic {title?, kind?, rawInput?, content?, locations?}
struct GenericCard {
  std::string_view kind;               // an ACP tool kind: "read", "fetch", …
  const json::Value* content = nullptr;  // MCP content blocks: an array, or nullptr
};

// terminal {title?, description?, cwd?} pending; {title?, output?, exitCode? | signal?} result
struct TerminalCard {
  std::string_view cwd;
  std::string_view output;
  Number exit_code = nullptr;
  std::optional<std::string_view> signal;
};

// diff {title?, diffs, locations?}: diffs are {path, oldText: string|null, newText}
struct FileDiffView {
  std::string_view path;
  std::optional<std::string_view> old_text;  // nullopt: a new file
  std::optional<std::string_view> new_text;
};
struct DiffCard {
  std::vector<FileDiffView> diffs;
};

// read {path, offset, lines: [{number, text}], totalLines, lang?, content?}
struct ReadLine {
  Number number = nullptr;
  std::string_view text;
};
struct ReadCardView {
  std::string_view path;
  Number offset = nullptr;
  std::vector<ReadLine> lines;
  Number total_lines = nullptr;
  const json::Value* content = nullptr;  // an array, or nullptr
};

// search {shape: matches, files: [{path, matches: [{lineNumber, line}]}] | shape: paths, paths, truncated, total}
struct SearchMatch {
  Number line_number = nullptr;
  std::string_view line;
};
struct SearchFile {
  std::string_view path;
  std::vector<SearchMatch> matches;
};
struct SearchCard {
  bool by_file = false;  // `files` is an array: matches by file; else `paths`
  std::vector<SearchFile> files;
  std::vector<std::string_view> paths;
  bool truncated = false;
  Number total = nullptr;
};

// web {kind: fetch, url, statusCode, …} | {kind: search, answer?, sources: [{title, url, snippet?}], …}
struct WebSource {
  std::string_view title;
  std::string_view url;
  std::optional<std::string_view> snippet;
};
struct WebCard {
  bool fetch = false;  // kind "fetch"; anything else is a search
  std::string_view url;
  Number status_code = nullptr;
  std::optional<std::string_view> answer;
  bool has_sources = false;  // `sources` is an array
  std::vector<WebSource> sources;
  bool truncated = false;
};

using CardBody = std::variant<GenericCard, TerminalCard, DiffCard, ReadCardView, SearchCard, WebCard>;

// What every card may carry, and its kind's own fields.
struct CardView {
  std::string_view kind;  // the stored "card" member, as written
  std::string_view title;
  std::optional<std::string_view> description;
  std::vector<CardLocation> locations;
  CardBody body;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&body);
  }
};

// Reads `card` (any JSON: not an object reads as an empty generic card).
CardView ReadCard(const json::Value& card);
// The same; nullptr (no card) reads as an empty generic card.
CardView ReadCard(const json::Value* card);

}  // namespace retrace::presenters

#endif  // RETRACE_PRESENTERS_CARD_READER_H_
