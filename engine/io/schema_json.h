// The file's JSON Schema for the kinds the item schema describes (mechanism/schema.h): what
// resources/mechanism.schema.json says of their lists is generated here, and a test checks that
// the shipped file says the same.
#pragma once

#include "io/json_document.h"
#include "mechanism/schema.h"

namespace lw::io {

/// The JSON Schema of the kind's list ("parameters": an array of objects with these fields).
Json jsonSchemaOfList(const schema::Kind& kind);

}  // namespace lw::io
