// What the item dialogs offer and read back: the mechanism's points and vectors as "body.item"
// choices.
#pragma once

#include <QString>
#include <QStringList>

#include "mechanism/mechanism.h"

class QComboBox;

namespace lw::widgets {

/// Every point, "ground.A" first, then the bodies' in file order.
QStringList pointChoices(const Mechanism& m);
/// The points of the moving bodies (not the ground's, which do not move), in file order.
QStringList movingPointChoices(const Mechanism& m);
/// The vectors of one body (or the ground), or of every body when `body` is empty.
QStringList vectorChoices(const Mechanism& m, const std::string& body = {});
/// "body.item" back into a reference.
Ref parseRef(const QString& s);
/// Selects `text` in the box when it is offered; false otherwise (the box is unchanged).
bool selectText(QComboBox* box, const QString& text);

}  // namespace lw::widgets
