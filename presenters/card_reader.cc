#include "presenters/card_reader.h"

#include "engine/json/lenient.h"

namespace retrace::presenters {
namespace {

using json::Get;
using json::StrView;
using json::Value;

Number NumberAt(const Value& obj, std::string_view key) {
  const Value* v = Get(obj, key);
  return v != nullptr && v->is_number() ? v : nullptr;
}

std::optional<std::string_view> TextAt(const Value& obj, std::string_view key) {
  const Value* v = Get(obj, key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->as_string());
}

// The array member `key`, or nullptr.
const Value::Array* ArrayAt(const Value& obj, std::string_view key) {
  const Value* v = Get(obj, key);
  return v != nullptr && v->is_array() ? &v->as_array() : nullptr;
}

const Value* ContentAt(const Value& obj) {
  const Value* v = Get(obj, "content");
  return v != nullptr && v->is_array() ? v : nullptr;
}

// Reads each element of the array member `key` with `read`.
template <typename T, typename Read>
std::vector<T> Each(const Value& obj, std::string_view key, Read read) {
  std::vector<T> out;
  if (const Value::Array* items = ArrayAt(obj, key)) {
    out.reserve(items->size());
    for (const Value& item : *items) out.push_back(read(item));
  }
  return out;
}

TerminalCard Terminal(const Value& card) {
  return {StrView(Get(card, "cwd")), StrView(Get(card, "output")), NumberAt(card, "exitCode"), TextAt(card, "signal")};
}

DiffCard Diff(const Value& card) {
  return {Each<FileDiffView>(card, "diffs", [](const Value& d) {
    return FileDiffView{StrView(Get(d, "path")), TextAt(d, "oldText"), TextAt(d, "newText")};
  })};
}

ReadCardView Read(const Value& card) {
  return {StrView(Get(card, "path")), NumberAt(card, "offset"),
          Each<ReadLine>(card, "lines", [](const Value& l) { return ReadLine{NumberAt(l, "number"), StrView(Get(l, "text"))}; }),
          NumberAt(card, "totalLines"), ContentAt(card)};
}

SearchCard Search(const Value& card) {
  SearchCard out;
  out.by_file = ArrayAt(card, "files") != nullptr;
  if (out.by_file) {
    out.files = Each<SearchFile>(card, "files", [](const Value& f) {
      return SearchFile{StrView(Get(f, "path")), Each<SearchMatch>(f, "matches", [](const Value& m) {
                          return SearchMatch{NumberAt(m, "lineNumber"), StrView(Get(m, "line"))};
                        })};
    });
  } else {
    out.paths = Each<std::string_view>(card, "paths", [](const Value& p) { return StrView(&p); });
  }
  out.truncated = json::True(Get(card, "truncated"));
  out.total = NumberAt(card, "total");
  return out;
}

WebCard Web(const Value& card) {
  WebCard out;
  out.fetch = StrView(Get(card, "kind")) == "fetch";
  out.url = StrView(Get(card, "url"));
  out.status_code = NumberAt(card, "statusCode");
  out.answer = TextAt(card, "answer");
  out.has_sources = ArrayAt(card, "sources") != nullptr;
  out.sources = Each<WebSource>(card, "sources", [](const Value& s) {
    return WebSource{StrView(Get(s, "title")), StrView(Get(s, "url")), TextAt(s, "snippet")};
  });
  out.truncated = json::True(Get(card, "truncated"));
  return out;
}

CardBody Body(std::string_view kind, const Value& card) {
  if (kind == kTerminalCard) return Terminal(card);
  if (kind == kDiffCard) return Diff(card);
  if (kind == kReadCard) return Read(card);
  if (kind == kSearchCard) return Search(card);
  if (kind == kWebCard) return Web(card);
  return GenericCard{StrView(Get(card, "kind")), ContentAt(card)};
}

}  // namespace

CardView ReadCard(const Value& card) {
  const std::string_view kind = StrView(Get(card, "card"));
  return {kind, StrView(Get(card, "title")), TextAt(card, "description"),
          Each<CardLocation>(card, "locations",
                             [](const Value& loc) { return CardLocation{StrView(Get(loc, "path")), NumberAt(loc, "line")}; }),
          Body(kind, card)};
}

CardView ReadCard(const Value* card) {
  static const Value kNoCard;
  return ReadCard(card != nullptr ? *card : kNoCard);
}

}  // namespace retrace::presenters
