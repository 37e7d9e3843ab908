// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflowdeclaration.h"

#include "jsonfields.h"
#include "project.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace gml {

namespace {

// A string or a list of strings under `key`, each at most kMaxNameChars long; false (with
// *error) when it is something else.
bool readNames(const QJsonObject &o, const QString &key, const QString &where, QStringList &out,
               QString *error)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return true;
    auto add = [&](const QJsonValue &x, const QString &at) {
        if (!x.isString() || x.toString().isEmpty()) {
            *error = QStringLiteral("%1: expected a non-empty string, got %2")
                         .arg(at, JsonFields::show(x));
            return false;
        }
        if (x.toString().size() > WorkflowDeclaration::kMaxNameChars) {
            *error = QStringLiteral("%1: a name of %2 characters; at most %3")
                         .arg(at)
                         .arg(x.toString().size())
                         .arg(WorkflowDeclaration::kMaxNameChars);
            return false;
        }
        out << x.toString();
        return true;
    };
    const QString at = where + QLatin1Char('.') + key;
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        if (out.size() + a.size() > WorkflowDeclaration::kMaxRunsPerStep) {
            *error = QStringLiteral("%1: %2 names; a step names at most %3 runs or folders")
                         .arg(at)
                         .arg(a.size())
                         .arg(WorkflowDeclaration::kMaxRunsPerStep);
            return false;
        }
        for (qsizetype i = 0; i < a.size(); ++i)
            if (!add(a[i], QStringLiteral("%1[%2]").arg(at).arg(i)))
                return false;
        return true;
    }
    if (v.isString())
        return add(v, at);
    *error = QStringLiteral("%1: expected a non-empty string or a list of strings, got %2")
                 .arg(at, JsonFields::show(v));
    return false;
}

// The workflow's or a step's name: 1 to kMaxNameChars characters; false (with *error naming
// `at`) otherwise.
bool checkName(const QString &name, const QString &at, QString *error)
{
    if (!name.isEmpty() && name.size() <= WorkflowDeclaration::kMaxNameChars)
        return true;
    *error = QStringLiteral("%1: expected a name of 1 to %2 characters, got %3 characters")
                 .arg(at)
                 .arg(WorkflowDeclaration::kMaxNameChars)
                 .arg(name.size());
    return false;
}

// True when `folder` is `dir` or holds it.
bool holds(const QString &folder, const QString &dir)
{
    return folder == dir || folder == QLatin1String("/") ||
           dir.startsWith(folder + QLatin1Char('/'));
}

} // namespace

std::optional<WorkflowDeclaration> WorkflowDeclaration::parse(const QJsonObject &workflow,
                                                              const QString &path, QString *error,
                                                              bool stored)
{
    QString problem;
    QString *err = error ? error : &problem;
    WorkflowDeclaration d;
    d.path = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    const QDir base = QFileInfo(d.path).absoluteDir();
    const QString baseDir = QDir::cleanPath(base.absolutePath());
    JsonFields fields(workflow, QStringLiteral("workflow"));
    fields.onlyKnown({"name", "steps", "edges"});
    d.name = fields.string("name", QStringLiteral("workflow"));
    if (!fields.ok()) {
        *err = fields.error();
        return std::nullopt;
    }
    if (!checkName(d.name, QStringLiteral("workflow.name"), err))
        return std::nullopt;
    const QJsonValue steps = workflow.value(QStringLiteral("steps"));
    if (!steps.isArray() || steps.toArray().isEmpty()) {
        *err = QStringLiteral("workflow.steps: expected a list of steps such as "
                              "[{\"name\": \"train\", \"folder\": \"train\"}]");
        return std::nullopt;
    }
    const QJsonArray stepList = steps.toArray();
    if (stepList.size() > kMaxSteps) {
        *err = QStringLiteral("workflow.steps: %1 steps; a workflow declares at most %2")
                   .arg(stepList.size())
                   .arg(kMaxSteps);
        return std::nullopt;
    }
    QSet<QString> names;
    for (qsizetype i = 0; i < stepList.size(); ++i) {
        const QString where = QStringLiteral("workflow.steps[%1]").arg(i);
        if (!stepList[i].isObject()) {
            *err = where +
                   QStringLiteral(": expected an object with a name and a run or folder, got ") +
                   JsonFields::show(stepList[i]);
            return std::nullopt;
        }
        const QJsonObject o = stepList[i].toObject();
        JsonFields stepFields(o, where);
        stepFields.onlyKnown({"name", "run", "runs", "folder", "folders"});
        Step step;
        step.name = stepFields.string("name");
        if (!stepFields.ok()) {
            *err = stepFields.error();
            return std::nullopt;
        }
        if (!checkName(step.name, where + QStringLiteral(".name"), err))
            return std::nullopt;
        if (names.contains(step.name)) {
            *err = where +
                   QStringLiteral(".name: '%1' names an earlier step too; step names must differ")
                       .arg(step.name);
            return std::nullopt;
        }
        names.insert(step.name);
        QStringList folders;
        if (!readNames(o, QStringLiteral("run"), where, step.runs, err) ||
            !readNames(o, QStringLiteral("runs"), where, step.runs, err) ||
            !readNames(o, QStringLiteral("folder"), where, folders, err) ||
            !readNames(o, QStringLiteral("folders"), where, folders, err))
            return std::nullopt;
        for (const QString &f : std::as_const(folders)) {
            const QString folder = QDir::cleanPath(base.absoluteFilePath(f));
            // A folder that holds the grademl.json's own holds every run of it: the step would
            // claim the runs of every other step.
            if (!stored && holds(folder, baseDir)) {
                *err = where +
                       QStringLiteral(
                           ": the folder '%1' holds this grademl.json's own folder, so every run "
                           "would be in step '%2'; name a folder inside it")
                           .arg(f, step.name);
                return std::nullopt;
            }
            step.folders << folder;
        }
        if (step.runs.isEmpty() && step.folders.isEmpty()) {
            *err = where + QStringLiteral(": expected \"run\", \"runs\", \"folder\" or \"folders\" "
                                          "saying which runs the step is");
            return std::nullopt;
        }
        d.steps.push_back(std::move(step));
    }
    const QJsonValue edges = workflow.value(QStringLiteral("edges"));
    if (!edges.isUndefined() && !edges.isArray()) {
        *err = QStringLiteral("workflow.edges: expected a list of [from, to] step names, got ") +
               JsonFields::show(edges);
        return std::nullopt;
    }
    const QJsonArray edgeList = edges.toArray();
    if (edgeList.size() > kMaxEdges) {
        *err = QStringLiteral("workflow.edges: %1 edges; a workflow declares at most %2")
                   .arg(edgeList.size())
                   .arg(kMaxEdges);
        return std::nullopt;
    }
    for (qsizetype i = 0; i < edgeList.size(); ++i) {
        const QJsonValue e = edgeList[i];
        QString from, to;
        if (e.isArray() && e.toArray().size() == 2) {
            from = e.toArray()[0].toString();
            to = e.toArray()[1].toString();
        } else if (e.isObject()) {
            JsonFields edgeFields(e.toObject(), QStringLiteral("workflow.edges[%1]").arg(i));
            edgeFields.onlyKnown({"from", "to"});
            if (!edgeFields.ok()) {
                *err = edgeFields.error();
                return std::nullopt;
            }
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

bool storeWorkflowDeclaration(Project &project, const WorkflowDeclaration &declaration,
                              QString *error)
{
    auto st = project.db().prepare("INSERT INTO workflow(path, name, definition) VALUES(?1, ?2, "
                                   "?3) ON CONFLICT(path) DO UPDATE "
                                   "SET name = excluded.name, definition = excluded.definition, "
                                   "imported_at = datetime('now')");
    st.bind(1, declaration.path);
    st.bind(2, declaration.name);
    st.bind(3,
            QString::fromUtf8(QJsonDocument(declaration.toJson()).toJson(QJsonDocument::Compact)));
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
        auto d = WorkflowDeclaration::parse(o, st.text(0), &e, true);
        if (d) {
            out.push_back(std::move(*d));
        } else if (error) {
            *error =
                QStringLiteral("%1: the stored workflow cannot be read: %2").arg(st.text(0), e);
        }
    }
    return out;
}

} // namespace gml
