// SPDX-License-Identifier: GPL-3.0-or-later
// A followed log read in parts (importers/job/logtail.cpp, issue 56): the input's first byte picks
// the format (the recorder's samples or nvidia-smi -l) and where the writer stopped; the log is
// followed as it is written in two parts, then rewritten shorter (truncated). Nothing may
// crash or hang, and no sample once imported may be lost: the counter rows never decrease.
#include "fuzzimport.h"

#include "folderfollower.h"

#include <QDateTime>
#include <QDir>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    (void)gmlfuzz::project();
    const QString dir =
        QFileInfo(gmlfuzz::inputPath("")).absolutePath() + QStringLiteral("/follow");
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    const bool samples = data[0] & 1;
    const QString log = dir + (samples ? QStringLiteral("/grademl-samples.csv")
                                       : QStringLiteral("/nvidia-smi.csv"));
    const QByteArray body(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    const qsizetype cut = body.size() * (data[0] >> 1) / 127;
    QString error;
    // A project of its own each time (the follower commits; the shared one rolls back).
    auto project =
        gml::Project::open(QStringLiteral(":memory:"), gml::Project::Mode::ReadWrite, &error);
    if (!project)
        abort();
    gml::FolderFollower follower(*project, {{dir}, {}, {}, 1, 0});
    auto write = [&](const QByteArray &bytes, QIODevice::OpenMode mode) {
        QFile f(log);
        if (!f.open(mode))
            abort();
        f.write(bytes);
    };
    auto counters = [&] { return project->db().scalar("SELECT count(*) FROM counter", -1); };
    qint64 now = QDateTime::currentMSecsSinceEpoch();
    write(body.left(cut), QIODevice::WriteOnly);
    (void)follower.poll(now += 5000);
    const qint64 first = counters();
    write(body.mid(cut), QIODevice::Append);
    (void)follower.poll(now += 5000);
    const qint64 second = counters();
    write(body.left(cut / 2), QIODevice::WriteOnly | QIODevice::Truncate);
    (void)follower.poll(now += 5000);
    if (second < first || counters() < second)
        abort(); // samples imported before were dropped
    (void)follower.cutLastLines();
    return 0;
}
