// SPDX-License-Identifier: GPL-3.0-or-later
// grademl runs: the project's experiments -> workloads -> runs with their kind, status, start,
// duration and headline metrics (issue 17). Metrics not computed yet are computed and stored
// first when the project is writable.
#include "clicommands.h"

#include "chartlayer.h"
#include "comparecharts.h"
#include "devicecatalog.h"
#include "project.h"
#include "runcatalog.h"
#include "runcompare.h"
#include "runmetrics.h"
#include "runrecords.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>

namespace gml::cli {

namespace {

// grademl runs FILE [--run NAME] --tag KEY=VALUE: the user's tag on a run (what Runs › Edit
// Tags sets), e.g. network=ib-ndr, the network collectives across nodes crossed.
int tagRun(const Parsed &p, QTextStream &out, QTextStream &err)
{
    const QString tag = p.options.value(QStringLiteral("tag"));
    const qsizetype eq = tag.indexOf(QLatin1Char('='));
    if (eq <= 0) {
        err << "grademl runs: --tag: expected KEY=VALUE, got '" << tag << "'\n";
        return Usage;
    }
    const QString key = tag.left(eq).trimmed(), value = tag.mid(eq + 1).trimmed();
    if (key == QLatin1String("network") && !value.isEmpty() &&
        !sim::DeviceCatalog::builtin().link(value)) {
        err << "grademl runs: --tag network: no link '" << value << "' in the catalog (one of "
            << sim::DeviceCatalog::builtin().linkIds() << ")\n";
        return Usage;
    }
    auto project = openProject(p.positional.first(), true, QStringLiteral("grademl runs: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "runs", err, &exitCode);
    if (!run)
        return exitCode;
    QJsonObject tags = runTags(*project, *run);
    if (value.isEmpty())
        tags.remove(key);
    else
        tags.insert(key, value);
    QString error;
    if (!setRunTags(*project, *run, tags, &error)) {
        err << "grademl runs: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    out << "run '" << runName << "': "
        << (value.isEmpty() ? QStringLiteral("tag %1 removed").arg(key)
                            : QStringLiteral("tag %1=%2").arg(key, value))
        << '\n';
    return Ok;
}

} // namespace

int runsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args, {QStringLiteral("filter"), QStringLiteral("run"), QStringLiteral("tag")},
              {QStringLiteral("json")});
    if (!p.error.isEmpty() || p.positional.size() != 1) {
        err << "grademl runs: "
            << (p.error.isEmpty() ? QStringLiteral("need one project file") : p.error)
            << "\nusage: grademl runs FILE.grademl [--filter TEXT|KEY=VALUE] [--json]\n"
               "       grademl runs FILE.grademl [--run NAME] --tag KEY=VALUE   set a run's tag "
               "(an empty VALUE removes it)\n";
        return Usage;
    }
    if (p.options.contains(QStringLiteral("tag")))
        return tagRun(p, out, err);
    const bool json = p.flags.contains(QStringLiteral("json"));
    auto project = openWithMetrics(p.positional.first(), "runs", err, json);
    if (!project)
        return SomeFailed;
    QString error;
    const auto catalog = loadRunCatalog(*project, &error);
    if (!catalog) {
        err << "grademl runs: " << error << '\n';
        return SomeFailed;
    }
    const QString filter = p.options.value(QStringLiteral("filter"));
    if (json)
        out << QJsonDocument(catalogToJson(*catalog, filter)).toJson(QJsonDocument::Indented);
    else
        out << catalogToText(*catalog, filter);
    return Ok;
}

} // namespace gml::cli
