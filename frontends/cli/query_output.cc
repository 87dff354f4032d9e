#include "frontends/cli/query_output.h"

#include <cstdio>

#include "frontends/cli/format.h"
#include "engine/json/writer.h"

namespace retrace::cli {
namespace {

constexpr size_t kTableCellChars = 80;

bool IsTimeColumn(const std::string& name) {
  return name == "created_at" || name == "time" || (name.size() > 5 && name.compare(name.size() - 5, 5, "_time") == 0);
}

std::string Plain(const query::SqlCell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) {
    std::string out;
    json::AppendNumber(out, *d);
    return out;
  }
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  return "";
}

std::string TableCell(const std::string& column, const query::SqlCell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "-";
  if (const auto* i = std::get_if<int64_t>(&cell); i && IsTimeColumn(column)) return IsoTime(*i);
  std::string text = Plain(cell);
  bool cut = false;
  if (const size_t nl = text.find('\n'); nl != std::string::npos) {
    text.resize(nl);
    cut = true;
  }
  if (text.size() > kTableCellChars) {
    size_t end = kTableCellChars;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // whole UTF-8 characters
    text.resize(end);
    cut = true;
  }
  return cut ? text + "…" : text;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

json::Value JsonCell(const query::SqlCell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return json::Value(static_cast<double>(*i));
  if (const auto* d = std::get_if<double>(&cell)) return json::Value(*d);
  if (const auto* s = std::get_if<std::string>(&cell)) return json::Value(*s);
  return json::Value();
}

}  // namespace

void AddOutputFlags(Options sub, bool& json, bool& csv) {
  const Option as_json = sub.Flag("--json", json, "Print a JSON array of row objects");
  sub.Flag("--csv", csv, "Print CSV with a header row").Excludes(as_json);
}

OutputFormat ChosenFormat(bool json, bool csv) { return json ? OutputFormat::kJson : csv ? OutputFormat::kCsv : OutputFormat::kTable; }

std::string FormatTable(const query::QueryTable& t, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    json::Value::Array rows;
    for (const auto& row : t.rows) {
      json::Value obj = json::Value::MakeObject();
      for (size_t c = 0; c < row.size(); ++c) obj.as_object().emplace_back(t.columns[c], JsonCell(row[c]));
      rows.push_back(std::move(obj));
    }
    return json::Serialize(json::Value(std::move(rows))) + "\n";
  }
  std::string out;
  if (format == OutputFormat::kCsv) {
    for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + CsvField(t.columns[c]);
    out += "\r\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + CsvField(Plain(row[c]));
      out += "\r\n";
    }
    return out;
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  for (const std::string& c : t.columns) {
    std::string upper = c;
    for (char& ch : upper) ch = ch == '_' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    header.push_back(upper);
  }
  rows.push_back(std::move(header));
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (size_t c = 0; c < row.size(); ++c) cells.push_back(TableCell(t.columns[c], row[c]));
    rows.push_back(std::move(cells));
  }
  return AlignedTable(rows);
}

}  // namespace retrace::cli
