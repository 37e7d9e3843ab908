// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace gml {

class Project;

// What the studio remembers of a project across sessions (table view_state, schema v9), one
// JSON object per key: "timeline.focus" holds {"runs": [names], "project_clock": bool}.
// Reading never fails loudly: a project of an older schema (opened read-only) or a value that
// is not an object reads as nothing.
std::optional<QJsonObject> readViewState(Project &project, const QString &key);
// Opens the project at `path` for writing and stores `value` under `key`, in one transaction.
// False with *error set when the project cannot be written (read-only media: the state is
// then simply not remembered).
[[nodiscard]] bool writeViewState(const QString &projectPath, const QString &key,
                                  const QJsonObject &value, QString *error);

} // namespace gml
