// SPDX-License-Identifier: GPL-3.0-or-later
// grademl collectives: what the network did, rank by rank (collectives.h): each collective
// matched across ranks, its skew and transfer, algbw and busbw against the link's peak.
#include "clicommands.h"

#include "collectivelinks.h"
#include "collectives.h"
#include "devicecatalog.h"
#include "project.h"

#include <QJsonDocument>

namespace gml::cli {

int collectivesCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {QStringLiteral("run"), QStringLiteral("measured-link")},
                           {QStringLiteral("json")});
    QString problem = p.error;
    if (problem.isEmpty() && p.positional.size() != 1)
        problem = QStringLiteral("need one project file");
    if (!problem.isEmpty()) {
        err << "grademl collectives: " << problem
            << "\nusage: grademl collectives FILE.grademl [--run NAME] [--measured-link ID] "
               "[--json]\n";
        return Usage;
    }
    auto project =
        openProject(p.positional.first(), false, QStringLiteral("grademl collectives: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "collectives", err, &exitCode);
    if (!run)
        return exitCode;
    // The network a job wider than a node ran over is not in its trace: the user names it
    // (a catalog link, as whatif's --measured-link).
    const QString network = p.options.value(QStringLiteral("measured-link"));
    if (!network.isEmpty() && !sim::DeviceCatalog::builtin().link(network)) {
        err << "grademl collectives: --measured-link: no link '" << network << "' in the catalog\n";
        return Usage;
    }
    QString error;
    auto report = sim::linkedCollectives(*project, *run, network, &error);
    if (!report) {
        err << "grademl collectives: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject o = report->toJson();
        o.insert(QStringLiteral("run"), runName);
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << "run " << runName << '\n' << report->toText();
    }
    return Ok;
}

} // namespace gml::cli
