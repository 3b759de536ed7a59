// Reading an item's field texts back (internal to the schema's kinds): numbers, references, lists,
// choices, each failing with the reason naming the field.
#pragma once

#include <string>
#include <vector>

#include "mechanism/schema.h"

namespace lw::schema::detail {

// a field, built up: field("joint", FieldType::Item, "Joint").required().of("joints").types({...})
struct F {
  Field f;
  F(std::string key, FieldType type, std::string label, std::string help) {
    f.key = std::move(key), f.type = type, f.label = std::move(label), f.help = std::move(help);
  }
  F& required() { return f.required = true, *this; }
  F& of(std::string list) { return f.of = std::move(list), *this; }
  F& types(std::vector<std::string> t) { return f.types = std::move(t), *this; }
  F& quantity(Quantity q) { return f.quantity = q, *this; }
  F& choices(std::vector<std::string> c, std::vector<std::string> labels = {}) {
    f.choices = std::move(c), f.labels = std::move(labels);
    return *this;
  }
  F& planar(std::vector<std::string> p) { return f.planar = std::move(p), *this; }
  F& byDefault(std::string d, bool written = false) { return f.byDefault = std::move(d), f.written = written, *this; }
  F& single() { return f.single = true, *this; }
  F& timed() { return f.timeAllowed = true, *this; }
  F& moving() { return f.moving = true, *this; }
  F& implied() { return f.implied = true, *this; }
  operator Field() const { return f; }
};


std::string trimmed(const std::string& s);
/// A plain finite number and nothing else.
bool readNumber(const std::string& text, double& out);
/// The text of field `key` trimmed ("" when absent).
std::string get(const Texts& texts, const std::string& key);
/// A number or an expression; false with "the <label> '<text>' is not valid: ...".
bool readField(const std::string& text, const std::string& label, Number& out, std::string& why);
/// "body.item"; false with the reason.
bool readRef(const std::string& text, const std::string& label, Ref& out, std::string& why);
/// "body.item, body.item".
bool readPair(const std::string& text, const std::string& label, Ref out[2], std::string& why);
/// Comma-separated numbers or expressions.
bool readNumbers(const std::string& text, const std::string& label, NumberVector& out, std::string& why);
/// The texts of the numbers, comma-separated.
std::string numbersText(const NumberVector& v);
/// The first field of `kind` that belongs to `type`, is required and has no text: false with
/// "<Label> is required". The name is not asked for (a new item's is made by the edit).
bool requiredPresent(const Kind& kind, const Texts& texts, const std::string& type, std::string& why);
/// `text` as one of `values` (toString of each); false with the values listed.
template <class E>
bool readChoice(const std::string& text, const std::string& label, std::initializer_list<E> values, E& out, std::string& why) {
  std::string all;
  for (E e : values) {
    if (text == toString(e)) {
      out = e;
      return true;
    }
    all += (all.empty() ? "" : ", ") + std::string(toString(e));
  }
  why = "the " + label + " '" + text + "' is not one of: " + all;
  return false;
}

}  // namespace lw::schema::detail
