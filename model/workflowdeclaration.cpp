// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflowdeclaration.h"

#include "project.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace gml {

namespace {

// A string or a list of strings under `key`; false (with *error) when it is something else.
bool readNames(const QJsonObject &o, const QString &key, const QString &where, QStringList &out, QString *error)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return true;
    if (v.isString() && !v.toString().isEmpty()) {
        out << v.toString();
        return true;
    }
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i) {
            if (!a[i].isString() || a[i].toString().isEmpty()) {
                *error = QStringLiteral("%1.%2[%3]: expected a non-empty string").arg(where, key).arg(i);
                return false;
            }
            out << a[i].toString();
        }
        return true;
    }
    *error = QStringLiteral("%1.%2: expected a non-empty string or a list of strings").arg(where, key);
    return false;
}

} // namespace

std::optional<WorkflowDeclaration> WorkflowDeclaration::parse(const QJsonObject &workflow, const QString &path,
                                                              QString *error)
{
    QString problem;
    QString *err = error ? error : &problem;
    WorkflowDeclaration d;
    d.path = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    const QDir base = QFileInfo(d.path).absoluteDir();
    const QJsonValue name = workflow.value(QStringLiteral("name"));
    if (!name.isUndefined() && !name.isString()) {
        *err = QStringLiteral("workflow.name: expected a string");
        return std::nullopt;
    }
    d.name = name.toString(QStringLiteral("workflow"));
    const QJsonValue steps = workflow.value(QStringLiteral("steps"));
    if (!steps.isArray() || steps.toArray().isEmpty()) {
        *err = QStringLiteral("workflow.steps: expected a list of steps such as "
                              "[{\"name\": \"train\", \"folder\": \"train\"}]");
        return std::nullopt;
    }
    QSet<QString> names;
    const QJsonArray stepList = steps.toArray();
    for (qsizetype i = 0; i < stepList.size(); ++i) {
        const QString where = QStringLiteral("workflow.steps[%1]").arg(i);
        if (!stepList[i].isObject()) {
            *err = where + QStringLiteral(": expected an object with a name and a run or folder");
            return std::nullopt;
        }
        const QJsonObject o = stepList[i].toObject();
        Step step;
        step.name = o.value(QStringLiteral("name")).toString();
        if (step.name.isEmpty()) {
            *err = where + QStringLiteral(".name: expected a non-empty string");
            return std::nullopt;
        }
        if (names.contains(step.name)) {
            *err = where + QStringLiteral(".name: '%1' names an earlier step too; step names must differ").arg(step.name);
            return std::nullopt;
        }
        names.insert(step.name);
        QStringList folders;
        if (!readNames(o, QStringLiteral("run"), where, step.runs, err) ||
            !readNames(o, QStringLiteral("runs"), where, step.runs, err) ||
            !readNames(o, QStringLiteral("folder"), where, folders, err) ||
            !readNames(o, QStringLiteral("folders"), where, folders, err))
            return std::nullopt;
        for (const QString &f : std::as_const(folders))
            step.folders << QDir::cleanPath(base.absoluteFilePath(f));
        if (step.runs.isEmpty() && step.folders.isEmpty()) {
            *err = where + QStringLiteral(": expected \"run\", \"runs\", \"folder\" or \"folders\" "
                                          "saying which runs the step is");
            return std::nullopt;
        }
        d.steps.push_back(std::move(step));
    }
    const QJsonValue edges = workflow.value(QStringLiteral("edges"));
    if (!edges.isUndefined() && !edges.isArray()) {
        *err = QStringLiteral("workflow.edges: expected a list of [from, to] step names");
        return std::nullopt;
    }
    const QJsonArray edgeList = edges.toArray();
    for (qsizetype i = 0; i < edgeList.size(); ++i) {
        const QJsonValue e = edgeList[i];
        QString from, to;
        if (e.isArray() && e.toArray().size() == 2) {
            from = e.toArray()[0].toString();
            to = e.toArray()[1].toString();
        } else if (e.isObject()) {
            from = e.toObject().value(QStringLiteral("from")).toString();
            to = e.toObject().value(QStringLiteral("to")).toString();
        }
        if (from.isEmpty() || to.isEmpty()) {
            *err = QStringLiteral("workflow.edges[%1]: expected [\"from step\", \"to step\"] or "
                                  "{\"from\": …, \"to\": …}")
                       .arg(i);
            return std::nullopt;
        }
        d.edges.emplace_back(from, to);
    }
    return d;
}

QJsonObject WorkflowDeclaration::toJson() const
{
    QJsonArray steps;
    for (const Step &s : this->steps) {
        QJsonObject o;
        o.insert(QStringLiteral("name"), s.name);
        if (!s.runs.isEmpty())
            o.insert(QStringLiteral("runs"), QJsonArray::fromStringList(s.runs));
        if (!s.folders.isEmpty())
            o.insert(QStringLiteral("folders"), QJsonArray::fromStringList(s.folders));
        steps.append(o);
    }
    QJsonArray edges;
    for (const auto &[from, to] : this->edges)
        edges.append(QJsonArray{from, to});
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("steps"), steps},
                       {QStringLiteral("edges"), edges}};
}

bool storeWorkflowDeclaration(Project &project, const WorkflowDeclaration &declaration, QString *error)
{
    auto st = project.db().prepare(
        "INSERT INTO workflow(path, name, definition) VALUES(?1, ?2, ?3) ON CONFLICT(path) DO UPDATE "
        "SET name = excluded.name, definition = excluded.definition, imported_at = datetime('now')");
    st.bind(1, declaration.path);
    st.bind(2, declaration.name);
    st.bind(3, QString::fromUtf8(QJsonDocument(declaration.toJson()).toJson(QJsonDocument::Compact)));
    if (st.exec())
        return true;
    if (error)
        *error = st.errorString();
    return false;
}

std::vector<WorkflowDeclaration> workflowDeclarations(Project &project, QString *error)
{
    std::vector<WorkflowDeclaration> out;
    if (project.db().scalar("SELECT count(*) FROM sqlite_master WHERE name = 'workflow'") == 0)
        return out;
    auto st = project.db().prepare("SELECT path, definition FROM workflow ORDER BY id");
    while (st.step()) {
        // Stored folders are absolute already: parse against the root so they stay as they are.
        const QJsonObject o = QJsonDocument::fromJson(st.text(1).toUtf8()).object();
        QString e;
        auto d = WorkflowDeclaration::parse(o, st.text(0), &e);
        if (d) {
            out.push_back(std::move(*d));
        } else if (error) {
            *error = QStringLiteral("%1: the stored workflow cannot be read: %2").arg(st.text(0), e);
        }
    }
    return out;
}

} // namespace gml
