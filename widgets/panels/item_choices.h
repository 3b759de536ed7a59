// What the item dialogs (joint, driver, force) offer and read back: the mechanism's points,
// vectors, joints and bodies as "body.item" choices, and a typed field as a Number.
#pragma once

#include <QString>
#include <QStringList>

#include "mechanism/mechanism.h"

class QComboBox;
class QDialog;
class QDialogButtonBox;
class QFormLayout;
class QLabel;

namespace lw::widgets {

/// Every point, "ground.A" first, then the bodies' in file order.
QStringList pointChoices(const Mechanism& m);
/// The points of the moving bodies (not the ground's, which do not move), in file order.
QStringList movingPointChoices(const Mechanism& m);
/// The vectors of one body (or the ground), or of every body when `body` is empty.
QStringList vectorChoices(const Mechanism& m, const std::string& body = {});
QStringList jointChoices(const Mechanism& m);
QStringList bodyChoices(const Mechanism& m);
/// "body.item" back into a reference.
Ref parseRef(const QString& s);
/// Selects `text` in the box when it is offered; false otherwise (the box is unchanged).
bool selectText(QComboBox* box, const QString& text);
/// A typed field: a literal number or an expression of the parameters (and of t where allowed).
/// False with the parser's reason when it is neither.
bool parseNumber(const QString& text, Number& out, QString& why);
/// The text a Number was written as.
QString numberText(const Number& n);
/// The foot of an item dialog: a hint line (returned in `hint`) and OK / Cancel.
QDialogButtonBox* addHintAndButtons(QDialog* dialog, QFormLayout* form, QLabel*& hint);

}  // namespace lw::widgets
