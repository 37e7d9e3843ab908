// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QString>

namespace gml {
class Project;
}

namespace gml::cli {

// The report's Collectives section (grademl report): the run's collectives by kind as
// `grademl collectives` tells them (skew share, transfer, busbw against the link), and the rank
// that arrived last most; empty when the run has no collective kernel or they cannot be read.
// Names from the trace are escaped (xmlEscaped, safetext.h).
QString collectivesHtml(Project &project, RunId run);

} // namespace gml::cli
