// Turns a resolved mechanism into the plain-data scene the 3D view draws.
#pragma once

#include "mechanism/resolved.h"
#include "scene/scene.h"

namespace lw::scene {

/// Shapes of every body (in body frames), joint glyph kinds and springs; built once per model.
SceneModel buildSceneModel(const ResolvedMechanism& m);

/// Body poses, joint and spring positions in the stored configuration.
SceneFrame storedConfigurationFrame(const ResolvedMechanism& m);

/// The frame of a moving configuration: `poses` holds 12 numbers per body (row-major rotation,
/// then position), bodies in ResolvedMechanism order (the ground included).
SceneFrame frameFromPoses(const ResolvedMechanism& m, const double* poses, double time);

}  // namespace lw::scene
