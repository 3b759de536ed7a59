// The item schema: each kind of item a file lists, field by field (its key, what it holds, its
// unit, whether it is required, a label and a help line), as data. The generic item dialog builds
// its form from it, the file's JSON Schema for the kind is generated from it
// (io/schema_json.h, checked against resources/mechanism.schema.json in a test), and the file's
// decoder and encoder read and write the kind field by field through it: a field added here is
// read, written, validated and edited everywhere, with only its text binding (textsOf / ...From)
// to write. A kind with a "type" field has per-type fields (Field::types): the form shows, the
// file allows and the JSON Schema lists for each type only its own.
#pragma once

#include <algorithm>
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
  PointPair, // two points, one on each body ("ground.A, crank.A"; the file: an array of two)
  VectorPair,// two vectors, one on each body (a joint's axes)
  Item,      // the name of an item of list `of` (a joint, a body, a force, a driver)
  Items,     // names of items of list `of`, comma-separated (the file: an array of names)
  Numbers,   // numbers or expressions, comma-separated (the file: an array, or one number when
             // `single` and there is one)
  Formula,   // an expression of outputs' components, parameters and t (a cost's): its text
  Targets,   // target points "t: x, y; t: x, y" (the file: [{"t": t, "at": [x, y]}, ...])
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
  /// The values of the kind's "type" field this field belongs to (empty: every type).
  std::vector<std::string> types;
  std::string of;                      // Item, Items: the list the names come from ("joints")
  std::vector<std::string> planar;     // Choice: the values a planar mechanism offers (empty: all)
  bool single = false;                 // Numbers: one entry is written as a plain number
  bool timeAllowed = false;            // Number, Numbers: a function of time t
  /// The type field only: the file does not say the type, which key is there does (an initial
  /// velocity names a "joint", a "point" or a "body").
  bool implied = false;
};

struct Kind {
  std::string list;       // the file's list: "parameters"
  std::string singular;   // "parameter"
  std::vector<Field> fields;
  /// The field that says which of the kind's types an item is (a Choice keyed "type"), or null:
  /// the other fields' `types` say which belong to it.
  const Field* typeField() const;
  /// Whether `f` belongs to an item of type `type` (every field of an untyped kind does).
  static bool applies(const Field& f, const std::string& type) {
    return f.types.empty() || std::find(f.types.begin(), f.types.end(), type) != f.types.end();
  }
};

/// The field texts of an item, by key ("" for an absent optional field).
using Texts = std::map<std::string, std::string>;

/// A design parameter: name, value (number or expression of other parameters), unit, min, max,
/// description.
const Kind& parameterKind();
/// A contact: a point of a moving body (with a radius) against a plane (a point and a normal),
/// its impact law and restitution.
const Kind& contactKind();
/// An output: a point's position, velocity or acceleration, a joint's coordinate or rate, a
/// spring's length, an energy, the constraint residual, a joint's reaction, a driver's effort.
const Kind& outputKind();
/// A driver: a joint's coordinate, a point's coordinate or a distance as a function of time.
const Kind& driverKind();
/// End stops on a joint's coordinate.
const Kind& limitKind();
/// A switch of the forces when a point's coordinate or a joint's crosses a value.
const Kind& switchKind();
/// A force element: spring, torsion spring, point force, torque, tyre.
const Kind& forceKind();
/// A joint between two bodies' points (and axes).
const Kind& jointKind();
/// An initial velocity: a joint's rate, a point's velocity component or a free body's velocity.
const Kind& initialVelocityKind();
/// A cost: an expression's integral, end value, least or greatest value, or the distances of a
/// point output from target points.
const Kind& costKind();
/// Every kind the schema describes.
std::span<const Kind* const> kinds();

/// The shortest text that reads back as exactly `v` ("0.1", "2.2360679774997898").
std::string numberText(double v);
/// A number field's text: its literal (as above) or its expression as written.
std::string numberText(const Number& n);

Texts textsOf(const Parameter& p);
/// The parameter the texts describe; false with the reason naming the field ("Minimum: 'abc' is
/// not a number"). Whether it fits the mechanism (its name free, its value in range) is
/// edit::parameterProblem's to say.
bool parameterFrom(const Texts& texts, Parameter& out, std::string& why);

Texts textsOf(const Contact& c);
/// The contact the texts describe (its name as given, "" for a fresh one); false with the reason
/// naming the field ("the restitution '0.5 *' is not valid: ...").
bool contactFrom(const Texts& texts, Contact& out, std::string& why);

Texts textsOf(const Output& o);
bool outputFrom(const Texts& texts, Output& out, std::string& why);
Texts textsOf(const Driver& d);
bool driverFrom(const Texts& texts, Driver& out, std::string& why);
Texts textsOf(const JointLimit& l);
bool limitFrom(const Texts& texts, JointLimit& out, std::string& why);
Texts textsOf(const Switch& s);
bool switchFrom(const Texts& texts, Switch& out, std::string& why);
Texts textsOf(const Force& f);
bool forceFrom(const Texts& texts, Force& out, std::string& why);
Texts textsOf(const InitialVelocity& v);
bool initialVelocityFrom(const Texts& texts, InitialVelocity& out, std::string& why);
/// The type of an item whose type is implied (Field::implied): the first type with a key of its
/// own among `keys` ("" when none).
std::string impliedType(const Kind& kind, const std::vector<std::string>& keys);
Texts textsOf(const Cost& c);
bool costFrom(const Texts& texts, Cost& out, std::string& why);
/// A cost's targets as one text ("0.2: 1.5, 0.25; 0.4: 1.2, 0.5") and back; false with the reason.
std::string targetsText(const std::vector<Cost::Target>& targets);
bool readTargets(const std::string& text, std::vector<Cost::Target>& out, std::string& why);
Texts textsOf(const Joint& j);
bool jointFrom(const Texts& texts, Joint& out, std::string& why);

/// Comma-separated parts of a list text, each trimmed; commas inside parentheses belong to their
/// part ("atan2(y, x), 2" is two parts). An empty text is no part.
std::vector<std::string> splitList(const std::string& text);
/// The parts joined by ", ".
std::string joinList(const std::vector<std::string>& parts);

}  // namespace lw::schema
