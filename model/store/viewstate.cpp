// SPDX-License-Identifier: GPL-3.0-or-later
#include "viewstate.h"

#include "project.h"
#include "sqlitedb.h"

#include <QJsonDocument>

namespace gml {

std::optional<QJsonObject> readViewState(Project &project, const QString &key)
{
    if (project.schemaVersion() < 9)
        return std::nullopt;
    auto q = project.db().prepare("SELECT value FROM view_state WHERE key = ?");
    q.bind(1, key);
    if (!q.step())
        return std::nullopt;
    const QJsonDocument doc = QJsonDocument::fromJson(q.text(0).toUtf8());
    if (!doc.isObject())
        return std::nullopt;
    return doc.object();
}

bool writeViewState(const QString &projectPath, const QString &key, const QJsonObject &value,
                    QString *error)
{
    auto project = Project::open(projectPath, Project::Mode::ReadWrite, error);
    if (!project || !project->begin(error))
        return false;
    auto q = project->db().prepare("INSERT INTO view_state(key, value) VALUES (?, ?) "
                                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    q.bind(1, key);
    q.bind(2, QString::fromUtf8(QJsonDocument(value).toJson(QJsonDocument::Compact)));
    if (!q.exec()) {
        if (error)
            *error =
                QStringLiteral("%1: cannot remember %2: %3").arg(projectPath, key, q.errorString());
        project->rollback();
        return false;
    }
    return project->commit(error);
}

} // namespace gml
