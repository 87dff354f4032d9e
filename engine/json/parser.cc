#include "engine/json/parser.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "engine/json/utf8.h"

namespace retrace::json {
namespace {

class Parser {
 public:
  Parser(std::string_view s, ParseOptions options) : s_(s), options_(options) {}

  Result<Value> Run() {
    SkipWs();
    Value result;
    if (!ParseValueTree(result)) return Failure();
    SkipWs();
    if (i_ != s_.size()) return Error("unexpected trailing characters"), Failure();
    return result;
  }

 private:
  // An open container. An object's members are collected in order and made
  // into a Value when it closes (Value::MakeObject applies JS key order and
  // duplicate rules in one pass), so no member is looked up while parsing.
  struct Frame {
    bool is_object = false;
    Value::Array items;      // arrays
    Value::Object members;   // objects
    std::string key;         // pending member key for objects
  };

  // Parses one value (and everything nested in it) into `out`, iteratively.
  bool ParseValueTree(Value& out) {
    std::vector<Frame> stack;
    Value v;
    while (true) {
      // 1. Read a value start; containers push a frame and loop for their first element.
      if (i_ >= s_.size()) return Error("unexpected end of input");
      const char c = s_[i_];
      if (c == '{' || c == '[') {
        ++i_;
        SkipWs();
        Frame f;
        f.is_object = c == '{';
        const char close = c == '{' ? '}' : ']';
        if (i_ < s_.size() && s_[i_] == close) {
          ++i_;
          v = f.is_object ? Value::MakeObject() : Value(Value::Array());
        } else {
          if (c == '{' && !ReadKey(f.key)) return false;
          stack.push_back(std::move(f));
          continue;
        }
      } else if (!ParseScalar(v)) {
        return false;
      }
      // 2. Attach the completed value to its parents, closing containers as they end.
      while (true) {
        if (stack.empty()) {
          out = std::move(v);
          return true;
        }
        Frame& top = stack.back();
        SkipWs();
        if (!top.is_object) {
          top.items.push_back(std::move(v));
          if (Eat(',')) {
            SkipWs();
            break;
          }
          if (!Eat(']')) return Error("expected ',' or ']'");
        } else {
          top.members.emplace_back(std::move(top.key), std::move(v));
          top.key.clear();
          if (Eat(',')) {
            SkipWs();
            if (!ReadKey(top.key)) return false;
            break;
          }
          if (!Eat('}')) return Error("expected ',' or '}'");
        }
        v = top.is_object ? Value::MakeObject(std::move(top.members)) : Value(std::move(top.items));
        stack.pop_back();
      }
    }
  }

  // Reads `"key"` `:` and the whitespace after it.
  bool ReadKey(std::string& key) {
    if (i_ >= s_.size() || s_[i_] != '"') return Error("expected a string key");
    if (!ParseString(key)) return false;
    SkipWs();
    if (!Eat(':')) return Error("expected ':'");
    SkipWs();
    return true;
  }

  bool ParseScalar(Value& v) {
    const char c = s_[i_];
    if (c == '"') {
      std::string str;
      if (!ParseString(str)) return false;
      v = Value(std::move(str));
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(v);
    if (Literal("true")) return v = Value(true), true;
    if (Literal("false")) return v = Value(false), true;
    if (Literal("null")) return v = Value(), true;
    return Error(std::string("unexpected character ") + Describe(c));
  }

  bool Literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool ParseNumber(Value& v) {
    const size_t start = i_;
    if (s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || !IsDigit(s_[i_])) return Error("invalid number");
    if (s_[i_] == '0') {
      ++i_;
    } else {
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    bool integral = true;
    if (i_ < s_.size() && s_[i_] == '.') {
      integral = false;
      ++i_;
      if (i_ >= s_.size() || !IsDigit(s_[i_])) return Error("invalid number: digit expected after '.'");
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      integral = false;
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !IsDigit(s_[i_])) return Error("invalid number: digit expected in exponent");
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    const std::string_view tok = s_.substr(start, i_ - start);
    // Fast path: short integers are exact in a double.
    if (integral && tok.size() <= 16) {
      int64_t n = 0;
      const bool neg = tok[0] == '-';
      for (size_t k = neg ? 1 : 0; k < tok.size(); ++k) n = n * 10 + (tok[k] - '0');
      v = Value(neg ? (n == 0 ? -0.0 : static_cast<double>(-n)) : static_cast<double>(n));
      return true;
    }
    double d = 0;
    auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    if (ec == std::errc::result_out_of_range) {
      // Underflow rounds to zero in JS; overflow would be Infinity (not lossless).
      if (Underflows(tok)) {
        d = tok[0] == '-' ? -0.0 : 0.0;
      } else if (options_.overflow_to_infinity) {
        d = tok[0] == '-' ? -HUGE_VAL : HUGE_VAL;
      } else {
        return i_ = start, Error("number out of range");
      }
    } else if (ec != std::errc() || p != tok.data() + tok.size()) {
      return i_ = start, Error("invalid number");
    }
    v = Value(d);
    return true;
  }

  static bool Underflows(std::string_view tok) {
    const size_t e = tok.find_first_of("eE");
    return e != std::string_view::npos && e + 1 < tok.size() && tok[e + 1] == '-';
  }

  bool ParseString(std::string& out) {
    ++i_;  // opening quote
    while (true) {
      const size_t run = i_;
      while (i_ < s_.size()) {
        const auto b = static_cast<unsigned char>(s_[i_]);
        if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) break;
        ++i_;
      }
      out.append(s_.data() + run, i_ - run);
      if (i_ >= s_.size()) return Error("unterminated string");
      const auto b = static_cast<unsigned char>(s_[i_]);
      if (b == '"') {
        ++i_;
        return true;
      }
      if (b < 0x20) return Error("unescaped control character in string");
      if (b >= 0x80) {
        const size_t n = ValidUtf8SequenceLength(s_.substr(i_));
        if (n == 0) return Error("invalid UTF-8 in string");
        out.append(s_.data() + i_, n);
        i_ += n;
        continue;
      }
      if (!ParseEscape(out)) return false;
    }
  }

  bool ParseEscape(std::string& out) {
    ++i_;  // backslash
    if (i_ >= s_.size()) return Error("unterminated string");
    const char e = s_[i_++];
    switch (e) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return i_ -= 2, Error("invalid escape in string");
    }
    uint32_t unit = 0;
    if (!ReadHex4(unit)) return false;
    if (unit >= 0xD800 && unit <= 0xDBFF && s_.substr(i_, 2) == "\\u") {
      const size_t save = i_;
      i_ += 2;
      uint32_t low = 0;
      if (!ReadHex4(low)) return false;
      if (low >= 0xDC00 && low <= 0xDFFF) {
        AppendCodePoint(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
        return true;
      }
      i_ = save;  // not a pair: the high surrogate stays lone
    }
    AppendCodePoint(out, unit);  // a lone surrogate becomes WTF-8
    return true;
  }

  bool ReadHex4(uint32_t& unit) {
    if (i_ + 4 > s_.size()) return Error("truncated \\u escape");
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      unit <<= 4;
      if (h >= '0' && h <= '9') {
        unit |= h - '0';
      } else if (h >= 'a' && h <= 'f') {
        unit |= h - 'a' + 10;
      } else if (h >= 'A' && h <= 'F') {
        unit |= h - 'A' + 10;
      } else {
        return --i_, Error("invalid hex digit in \\u escape");
      }
    }
    return true;
  }

  void SkipWs() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool Eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static std::string Describe(char c) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f) return std::string("'") + c + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02X", b);
    return buf;
  }

  bool Error(const std::string& message) {
    if (error_.empty()) error_ = "invalid JSON at byte " + std::to_string(i_) + ": " + message;
    return false;
  }
  Status Failure() const { return Status::InvalidArgument(error_); }

  std::string_view s_;
  ParseOptions options_;
  size_t i_ = 0;
  std::string error_;
};

}  // namespace

Result<Value> Parse(std::string_view text, ParseOptions options) { return Parser(text, options).Run(); }

}  // namespace retrace::json
