// SPDX-License-Identifier: GPL-3.0-or-later
// grademl info FILE.grademl [--json]: runs, sources, counts and the track tree.
#include "clicommands.h"

#include "clusterproject.h"
#include "project.h"
#include "projectsummary.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace gml::cli {

int infoCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {}, {QStringLiteral("json")});
    if (!p.error.isEmpty() || p.positional.size() != 1) {
        err << "grademl info: "
            << (p.error.isEmpty() ? QStringLiteral("need one project file") : p.error)
            << "\nusage: grademl info FILE.grademl [--json]\n";
        return Usage;
    }
    QString error;
    auto project = openProject(p.positional.first(), false, QStringLiteral("grademl info: "), err);
    if (!project)
        return SomeFailed;
    const auto runs = summarizeProject(*project, &error);
    if (!error.isEmpty()) {
        err << "grademl info: " << error << '\n';
        return SomeFailed;
    }
    // A cluster project: each shard it references, checked to be the one it merged (issue 56).
    QJsonArray shardList;
    QStringList shardLines;
    int unreadable = 0;
    for (const cluster::Shard &sh : cluster::shards(*project)) {
        QString state = sh.status;
        if (sh.status == QLatin1String("merged")) {
            QString why;
            auto shard = Project::open(sh.path, Project::Mode::ReadOnly, &why);
            if (shard)
                why = cluster::shardMismatch(*shard, sh);
            state = why.isEmpty() ? QStringLiteral("ok") : QStringLiteral("cannot be read: ") + why;
            unreadable += why.isEmpty() ? 0 : 1;
        }
        shardList.append(QJsonObject{{QStringLiteral("path"), sh.path},
                                     {QStringLiteral("index"), sh.index},
                                     {QStringLiteral("count"), sh.count},
                                     {QStringLiteral("state"), state}});
        shardLines << QStringLiteral("  shard %1: %2: %3")
                          .arg(sh.index >= 0
                                   ? QStringLiteral("%1 of %2").arg(sh.index).arg(sh.count)
                                   : QString::number(sh.id),
                               sh.path, state);
    }
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject o = summaryToJson(runs);
        if (!shardList.isEmpty())
            o.insert(QStringLiteral("shards"), shardList);
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << summaryToText(runs);
        if (!shardLines.isEmpty())
            out << "shards of this cluster project:\n"
                << shardLines.join(QLatin1Char('\n')) << '\n';
    }
    if (unreadable)
        err << "grademl info: " << unreadable << " shard" << (unreadable == 1 ? " is" : "s are")
            << " not the one merged; merge again\n";
    return unreadable ? SomeFailed : Ok;
}

} // namespace gml::cli
