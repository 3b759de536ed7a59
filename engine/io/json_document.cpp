#include "io/json_document.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <unordered_set>
#include <vector>

namespace lw::io {
namespace {

// Input iterator that records how many bytes the parser has consumed: the SAX callbacks read the
// counter to learn where each token ended.
struct CountingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* p = nullptr;
  const char* base = nullptr;
  std::size_t* consumed = nullptr;

  reference operator*() const { return *p; }
  CountingIterator& operator++() {
    ++p;
    *consumed = static_cast<std::size_t>(p - base);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator c = *this;
    ++*this;
    return c;
  }
  friend bool operator==(const CountingIterator& a, const CountingIterator& b) { return a.p == b.p; }
};

// Builds the DOM and the path -> offset map.
class Builder : public nlohmann::json_sax<Json> {
 public:
  // `record`: also the path -> offset maps (a second pass, only for a document with problems to
  // locate: building a path string per value cost most of the load of a 10⁵-body file)
  Builder(std::string_view text, JsonDocument& doc, Diagnostics& out, const std::size_t& consumed, bool record)
      : text_(text), doc_(doc), out_(out), consumed_(consumed), record_(record) {}

  bool null() override { return value(Json(nullptr)); }
  bool boolean(bool v) override { return value(Json(v)); }
  bool number_integer(number_integer_t v) override { return value(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(Json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return value(Json(v)); }
  bool string(string_t& v) override { return value(Json(v)); }
  bool binary(binary_t&) override { return value(Json()); }

  bool start_object(std::size_t) override {
    if (!checkDepth() || !value(Json::object())) return false;
    stack_.push_back(Frame{lastInserted_, false, 0, {}});
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    lastEnd_ = consumed_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (!checkDepth() || !value(Json::array())) return false;
    stack_.push_back(Frame{lastInserted_, true, 0, {}});
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    lastEnd_ = consumed_;
    return true;
  }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    if (!f.keys.insert(k).second) {
      Diagnostic d{Diagnostic::Severity::Error, childPath(k), "the key \"" + k + "\" appears twice"};
      lineColumn(text_, startOf(lastEnd_), d.line, d.column);
      out_.push_back(d);
      return false;
    }
    f.key = k;
    if (record_) doc_.keyOffsets[childPath(k)] = startOf(lastEnd_);
    lastEnd_ = consumed_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& lastToken,
                   const nlohmann::detail::exception& ex) override {
    Diagnostic d;
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error while
    //  parsing object - unexpected end of input; expected string literal" -> the part after ": "
    const auto colon = what.find(": ", what.find("column"));
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    // "...; expected end of input": the document was complete and more text follows it (not
    // "unexpected end of input; expected '}'", which contains the same words: a truncated file)
    const bool trailing = detail.find("; expected end of input") != std::string::npos;
    const bool atEnd = !trailing && (position >= text_.size() + 1 || lastToken.empty() ||
                                     detail.find("end of input") != std::string::npos);
    if (ex.id == 406)  // number overflow: 1e999 does not fit in a double
      d.message = "the number is not finite (too large for a double): " + detail;
    else if (trailing)
      d.message = "there is more text after the end of the mechanism (its closing '}'): remove it";
    else
      d.message = atEnd ? "the file ends too early (is it truncated?): " + detail
                        : "this is not valid JSON: " + detail;
    d.path = currentPath();
    // point at the start of the offending word or number ("NaN", "12x"), not at the character
    // where the lexer gave up
    std::size_t offset = std::min(position > 0 ? position - 1 : 0, text_.size());
    auto wordChar = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-' || c == '.';
    };
    while (offset > 0 && offset <= text_.size() && wordChar(text_[offset - 1]) &&
           (offset == text_.size() || wordChar(text_[offset])))
      --offset;
    lineColumn(text_, std::min(offset, text_.size()), d.line, d.column);
    out_.push_back(d);
    return false;
  }

 private:
  struct Frame {
    Json* container;
    bool isArray;
    std::size_t index;
    std::string key;
    std::unordered_set<std::string> keys = {};  // ordered_json looks keys up linearly
  };

  std::string childPath(const std::string& k) const { return join(pathOf(stack_.size()), k); }
  static std::string join(const std::string& parent, const std::string& k) {
    return parent.empty() ? k : parent + "." + k;
  }
  // path of the frame at depth n (the container itself)
  std::string pathOf(std::size_t depth) const {
    std::string p;
    for (std::size_t i = 1; i < depth; ++i) {  // the root container has no name
      const Frame& parent = stack_[i - 1];
      p = parent.isArray ? p + "[" + std::to_string(parent.index - 1) + "]" : join(p, parent.key);
    }
    return p;
  }
  std::string currentPath() const {
    if (stack_.empty()) return "";
    const Frame& f = stack_.back();
    const std::string base = pathOf(stack_.size());
    if (f.isArray) return base + "[" + std::to_string(f.index) + "]";
    return f.key.empty() ? base : join(base, f.key);
  }
  std::size_t startOf(std::size_t from) const {
    while (from < text_.size()) {
      const char c = text_[from];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') ++from;
      else break;
    }
    return from;
  }

  // a mechanism is a few levels deep; a bound keeps pathological input (a million '[') fast
  bool checkDepth() {
    static constexpr std::size_t kMaxDepth = 64;
    if (stack_.size() < kMaxDepth) return true;
    Diagnostic d{Diagnostic::Severity::Error, currentPath(),
                 "the file is nested too deeply (over " + std::to_string(kMaxDepth) +
                     " levels of arrays and objects) to be a mechanism"};
    lineColumn(text_, startOf(lastEnd_), d.line, d.column);
    out_.push_back(d);
    return false;
  }

  bool value(Json&& v) {
    std::string path;
    if (stack_.empty()) {
      doc_.root = std::move(v);
      lastInserted_ = &doc_.root;
    } else {
      Frame& f = stack_.back();
      if (record_) path = currentPath();
      if (f.isArray) {
        f.container->push_back(std::move(v));
        lastInserted_ = &f.container->back();
        ++f.index;
      } else {
        // append without ordered_map's linear search (keys are unique, checked in key())
        auto& members = static_cast<Json::object_t::Container&>(f.container->get_ref<Json::object_t&>());
        members.emplace_back(f.key, std::move(v));
        lastInserted_ = &members.back().second;
      }
    }
    if (record_) doc_.offsets[path] = startOf(lastEnd_);
    lastEnd_ = consumed_;
    return true;
  }

  std::string_view text_;
  JsonDocument& doc_;
  Diagnostics& out_;
  const std::size_t& consumed_;
  const bool record_;
  std::vector<Frame> stack_;
  Json* lastInserted_ = nullptr;
  std::size_t lastEnd_ = 0;
};

}  // namespace

void lineColumn(std::string_view text, std::size_t offset, int& line, int& column) {
  line = 1;
  column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // count characters, not UTF-8 continuation bytes
    }
  }
}

namespace {
// One SAX pass over `text` into `doc`: false with the syntax error in `out`
bool saxPass(std::string_view text, JsonDocument& doc, Diagnostics& out, bool record) {
  std::size_t consumed = 0;
  CountingIterator first{text.data(), text.data(), &consumed};
  CountingIterator last{text.data() + text.size(), text.data(), &consumed};
  Builder builder(text, doc, out, consumed, record);
  const std::size_t before = out.size();
  bool ok = false;
  try {
    ok = Json::sax_parse(first, last, &builder);
  } catch (const std::exception& e) {  // defensive: the SAX interface reports through parse_error
    out.push_back({Diagnostic::Severity::Error, "", std::string("this is not valid JSON: ") + e.what()});
  }
  if (!ok && out.size() == before)
    out.push_back({Diagnostic::Severity::Error, "", "this is not valid JSON"});
  return ok && out.size() == before;
}
}  // namespace

void JsonDocument::locate(Diagnostic& d) const {
  if (!located_) {
    // where every value starts, found once, the first time a problem is located
    JsonDocument again;
    Diagnostics ignored;
    saxPass(text, again, ignored, true);
    offsets = std::move(again.offsets);
    keyOffsets = std::move(again.keyOffsets);
    located_ = true;
  }
  if (d.atKey) {
    auto it = keyOffsets.find(d.path);
    if (it != keyOffsets.end()) {
      lineColumn(text, it->second, d.line, d.column);
      return;
    }
  }
  std::string p = d.path;
  for (;;) {
    auto it = offsets.find(p);
    if (it != offsets.end()) {
      lineColumn(text, it->second, d.line, d.column);
      return;
    }
    if (p.empty()) return;
    const auto cut = p.find_last_of(".[");
    p = cut == std::string::npos ? "" : p.substr(0, cut);
  }
}

bool parseJson(std::string_view text, JsonDocument& doc, Diagnostics& out) {
  doc = JsonDocument{};
  doc.text = text;
  return saxPass(text, doc, out, false);
}

// ---- canonical writer ----
namespace {

void writeNumber(const Json& j, std::string& s) {
  if (j.is_number_integer() || j.is_number_unsigned()) {
    s += j.dump();
    return;
  }
  const double v = j.get<double>();
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    s += std::to_string(static_cast<long long>(v));
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, res.ptr);
}

bool isFlat(const Json& j) {  // no object or array below the first level of arrays
  if (j.is_array()) {
    for (const auto& e : j)
      if (e.is_object() || (e.is_array() && !isFlat(e))) return false;
    return true;
  }
  if (j.is_object()) {
    for (const auto& [k, e] : j.items())
      if (e.is_object() || (e.is_array() && !isFlat(e))) return false;
    return true;
  }
  return true;
}

void writeCompact(const Json& j, std::string& s) {
  if (j.is_object()) {
    if (j.empty()) {
      s += "{}";
      return;
    }
    s += '{';
    bool first = true;
    for (const auto& [k, e] : j.items()) {
      if (!first) s += ", ";
      first = false;
      s += Json(k).dump() + ": ";
      writeCompact(e, s);
    }
    s += '}';
  } else if (j.is_array()) {
    s += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) s += ", ";
      writeCompact(j[i], s);
    }
    s += ']';
  } else if (j.is_number()) {
    writeNumber(j, s);
  } else {
    s += j.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

void writePretty(const Json& j, std::string& s, int indent, std::size_t column) {
  constexpr std::size_t kWidth = 100;
  if (j.is_object() || j.is_array()) {
    // flat arrays, flat objects, and arrays of flat arrays go on one line when they fit
    bool inlineOk = isFlat(j) || (j.is_array() && std::all_of(j.begin(), j.end(), [](const Json& e) {
                                   return e.is_array() && isFlat(e);
                                 }));
    if (inlineOk) {
      std::string one;
      writeCompact(j, one);
      if (column + one.size() <= kWidth || j.empty()) {
        s += one;
        return;
      }
    }
    const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
    s += j.is_object() ? "{\n" : "[\n";
    std::size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) {
      s += pad;
      std::size_t col = pad.size();
      if (j.is_object()) {
        const std::string key = Json(it.key()).dump() + ": ";
        s += key;
        col += key.size();
      }
      writePretty(*it, s, indent + 2, col);
      if (i + 1 < j.size()) s += ',';
      s += '\n';
    }
    s += std::string(static_cast<std::size_t>(indent), ' ');
    s += j.is_object() ? '}' : ']';
    return;
  }
  writeCompact(j, s);
}

}  // namespace

std::string formatJson(const Json& j) {
  std::string s;
  writePretty(j, s, 0, 0);
  s += '\n';
  return s;
}

void formatJsonInto(const Json& j, std::string& out, int indent, std::size_t column) { writePretty(j, out, indent, column); }

}  // namespace lw::io
