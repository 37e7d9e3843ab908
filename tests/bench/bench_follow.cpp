// SPDX-License-Identifier: GPL-3.0-or-later
// bench_follow: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "folderfollower.h"
#include "folderscanner.h"
#include "importjob.h"
#include "project.h"
#include "timelinedata.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimeZone>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

using namespace gml;

namespace {

double threadCpuS()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

double rssMb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void append(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::Append))
        qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
}

} // namespace

// What --help prints.
constexpr const char *kUsage =
    "bench_follow: what following a folder costs (issue 38: at most 1% of one core, bounded "
    "memory\n"
    "over 24 hours of samples).\n"
    "\n"
    "  bench_follow [--hours H] [--series N] [--gpus G] [--poll-s P]\n"
    "\n"
    "Generates, in simulated time, what a job's folder receives: the recorder's samples at 10 Hz\n"
    "(N series, default 60: host, cores, a few processes) and `nvidia-smi -l 1` with timestamps\n"
    "(G GPUs, default 8, four metrics). Every P simulated seconds (default 1, the follower's "
    "poll)\n"
    "it appends that much to both logs and polls a FolderFollower, timing the poll's CPU (thread\n"
    "CPU time). Prints the CPU per poll early and late in the run (bounded: no growth with the\n"
    "project), the follower's share of one core at the real poll period, the resident memory\n"
    "early and late, the studio's refresh after one more poll (the whole timeline loaded again\n"
    "against a reload that keeps the counters it holds), and a baseline measured in the same run:\n"
    "a one-shot import of the final folder (followed CPU in all / one-shot CPU).\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    QCoreApplication app(argc, argv);
    double hours = 2;
    int series = 60, gpus = 8, pollS = 1;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--hours"))
            hours = args[i + 1].toDouble();
        else if (args[i] == QLatin1String("--series"))
            series = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--gpus"))
            gpus = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--poll-s"))
            pollS = std::max(1, args[i + 1].toInt());
        else {
            std::fprintf(stderr,
                         "usage: bench_follow [--hours H] [--series N] [--gpus G] [--poll-s P]\n");
            return 2;
        }
    }
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("job"));
    QDir().mkpath(dir);
    const QString samples = dir + QStringLiteral("/grademl-samples.csv");
    const QString smi = dir + QStringLiteral("/nvidia-smi.csv");
    {
        QByteArray head = "grademl-samples 1\nhost,benchhost\n";
        for (int s = 0; s < series; ++s)
            head += "series," + QByteArray::number(s) +
                    (s < 16 ? QByteArray(",cpu" + QByteArray::number(s) + ",busy,%\n")
                            : QByteArray(",host,metric " + QByteArray::number(s) + ",MB/s\n"));
        append(samples, head);
        append(smi, "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W], "
                    "temperature.gpu\n");
    }
    QString error;
    auto project = Project::open(tmp.filePath(QStringLiteral("followed.grademl")),
                                 Project::Mode::ReadWrite, &error);
    if (!project)
        qFatal("%s", qPrintable(error));
    FolderFollower follower(*project, {{dir}, {}, QTimeZone::utc(), 1, 2000});

    const qint64 t0ms =
        QDateTime(QDate(2026, 11, 27), QTime(0, 0), QTimeZone::utc()).toMSecsSinceEpoch();
    const qint64 polls = qint64(hours * 3600 / pollS);
    std::vector<double> early, late;
    double followedCpu = 0, rssEarly = 0;
    qint64 bytes = 0;
    const qint64 window = std::max<qint64>(1, std::min<qint64>(600, polls / 10));
    for (qint64 p = 0; p < polls; ++p) {
        QByteArray s, g;
        for (int k = 0; k < 10 * pollS; ++k) { // 10 Hz
            const qint64 tns = (t0ms + (p * pollS) * 1000 + k * 100) * 1'000'000;
            for (int id = 0; id < series; ++id)
                s += QByteArray::number(tns) + ',' + QByteArray::number(id) + ',' +
                     QByteArray::number((k * 7 + id) % 100) + ".5\n";
        }
        for (int k = 0; k < pollS; ++k) { // 1 Hz
            const QByteArray ts =
                QDateTime::fromMSecsSinceEpoch(t0ms + (p * pollS + k) * 1000, QTimeZone::utc())
                    .toString(QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz"))
                    .toUtf8();
            for (int gpu = 0; gpu < gpus; ++gpu)
                g += ts + ", " + QByteArray::number(gpu) + ", " +
                     QByteArray::number((p + gpu) % 101) + " %, 40000 MiB, 350.5 W, 61\n";
        }
        append(samples, s);
        append(smi, g);
        bytes += s.size() + g.size();
        const double c0 = threadCpuS();
        const auto poll = follower.poll(QDateTime::currentMSecsSinceEpoch());
        const double cpu = threadCpuS() - c0;
        followedCpu += cpu;
        for (const auto &r : poll.reports)
            if (r.status != SourceReport::Status::Imported)
                qFatal("%s", qPrintable(r.message));
        if (p > 0 && p <= window) // the first poll imports the head
            early.push_back(cpu);
        if (p == window)
            rssEarly = rssMb();
        if (p >= polls - window)
            late.push_back(cpu);
    }
    const double rssLate = rssMb();
    const qint64 counters = project->db().scalar("SELECT count(*) FROM counter", -1);
    // The studio's refresh after one more poll: the whole timeline loaded again, against a
    // reload that keeps the counters held and reads only the new samples (FollowController).
    const QString projectPath = project->path();
    auto before = loadTimelineData(projectPath, &error);
    {
        QByteArray s;
        const qint64 tns = (t0ms + polls * pollS * 1000) * 1'000'000;
        for (int id = 0; id < series; ++id)
            s += QByteArray::number(tns) + ',' + QByteArray::number(id) + ",1.5\n";
        append(samples, s);
        (void)follower.poll(QDateTime::currentMSecsSinceEpoch());
    }
    QElapsedTimer timer;
    timer.start();
    const auto full = loadTimelineData(projectPath, &error);
    const double fullMs = double(timer.nsecsElapsed()) / 1e6;
    timer.restart();
    const auto reloaded = before ? reloadTimelineData(before, &error) : nullptr;
    const double reloadMs = double(timer.nsecsElapsed()) / 1e6;
    const double timelineMb = full ? double(full->memoryBytes()) / 1e6 : 0;
    project.reset();

    // Baseline: the final folder imported once.
    auto once = Project::open(tmp.filePath(QStringLiteral("once.grademl")),
                              Project::Mode::ReadWrite, &error);
    ImportJob job(*once);
    job.setTimeZone(QTimeZone::utc());
    job.setThreads(1);
    QStringList errors;
    const double c0 = threadCpuS();
    (void)job.run(scanInputs({dir}, {}, &errors));
    const double onceCpu = threadCpuS() - c0;

    std::printf("followed %.1f h of samples: %d series at 10 Hz + %d GPUs x 4 metrics at 1 Hz, "
                "polled every %d s\n",
                hours, series, gpus, pollS);
    std::printf("  %lld polls, %.1f MB appended, %lld counter samples\n",
                static_cast<long long>(polls), double(bytes) / 1e6,
                static_cast<long long>(counters));
    std::printf("  CPU per poll: median %.2f ms in the first %lld polls, %.2f ms in the last %lld "
                "(late/early %.2f)\n",
                median(early) * 1e3, static_cast<long long>(window), median(late) * 1e3,
                static_cast<long long>(window),
                median(early) > 0 ? median(late) / median(early) : 0.0);
    std::printf(
        "  share of one core at a %d s poll: %.3f%% early, %.3f%% late (goal: at most 1%%)\n",
        pollS, median(early) / pollS * 100, median(late) / pollS * 100);
    std::printf("  resident memory: %.1f MB after %lld polls, %.1f MB at the end\n", rssEarly,
                static_cast<long long>(window), rssLate);
    std::printf("studio refresh after a poll: whole timeline loaded again %.1f ms, reloaded "
                "keeping its counters %.1f ms "
                "(%.1fx); the timeline holds %.1f MB\n",
                fullMs, reloadMs, reloadMs > 0 ? fullMs / reloadMs : 0.0, timelineMb);
    std::printf("baseline: one-shot import of the final folder %.2f s CPU; followed in all %.2f s "
                "CPU (%.2fx)\n",
                onceCpu, followedCpu, onceCpu > 0 ? followedCpu / onceCpu : 0.0);
    return 0;
}
