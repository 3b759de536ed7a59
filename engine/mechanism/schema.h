// The item schema: each kind of item a file lists, field by field (its key, what it holds, its
// unit, whether it is required, a label and a help line), as data. The generic item dialog builds
// its form from it, the file's JSON Schema for the kind is generated from it
// (io/schema_json.h, checked against resources/mechanism.schema.json in a test), and the file's
// decoder and encoder read and write the kind field by field through it: a field added here is
// read, written, validated and edited everywhere, with only its text binding (textsOf / ...From)
// to write. Kinds move here one by one from the hand-written dialogs; the parameter is the first.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "mechanism/fields.h"
#include "mechanism/mechanism.h"

namespace lw::schema {

enum class FieldType {
  Name,      // an identifier (the item's name)
  Number,    // a number or an expression of the parameters (lw::Number)
  Bound,     // an optional plain number (one end of a range)
  Text,      // free text (a unit, a description)
  Constant,  // a fixed text the file carries ("type": "point_plane"); not edited
  Choice,    // one of `choices` (an enum: "newton", "kinematic")
  Point,     // a point of a body or of the ground, "body.item"
  Vector,    // a vector of a body or of the ground, "body.item"
};

struct Field {
  std::string key;        // as in the file: "min"
  FieldType type = FieldType::Text;
  bool required = false;
  std::string label;      // as a form shows it: "Minimum"
  std::string help;       // one line: what it means, what is allowed
  Quantity quantity = Quantity::None;  // Number, Bound: the unit ("" for a unit chosen per item)
  std::vector<std::string> choices;    // Choice: the values; Constant: its one value
  std::vector<std::string> labels;     // Choice: as a form shows them (empty: the values)
  std::string byDefault;               // an optional field's value when absent ("" : none)
  bool written = false;                // written even at its default (the file shows it)
  bool moving = false;                 // Point: of a moving body only (what touches, not the plane)
};

struct Kind {
  std::string list;       // the file's list: "parameters"
  std::string singular;   // "parameter"
  std::vector<Field> fields;
};

/// The field texts of an item, by key ("" for an absent optional field).
using Texts = std::map<std::string, std::string>;

/// A design parameter: name, value (number or expression of other parameters), unit, min, max,
/// description.
const Kind& parameterKind();
/// A contact: a point of a moving body (with a radius) against a plane (a point and a normal),
/// its impact law and restitution.
const Kind& contactKind();
/// Every kind the schema describes.
std::span<const Kind* const> kinds();

/// The shortest text that reads back as exactly `v` ("0.1", "2.2360679774997898").
std::string numberText(double v);

Texts textsOf(const Parameter& p);
/// The parameter the texts describe; false with the reason naming the field ("Minimum: 'abc' is
/// not a number"). Whether it fits the mechanism (its name free, its value in range) is
/// edit::parameterProblem's to say.
bool parameterFrom(const Texts& texts, Parameter& out, std::string& why);

Texts textsOf(const Contact& c);
/// The contact the texts describe (its name as given, "" for a fresh one); false with the reason
/// naming the field ("the restitution '0.5 *' is not valid: ...").
bool contactFrom(const Texts& texts, Contact& out, std::string& why);

}  // namespace lw::schema
