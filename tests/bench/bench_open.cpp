// SPDX-License-Identifier: GPL-3.0-or-later
// bench_open: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "project.h"
#include "timelinedata.h"
#include "timelinepainter.h"
#include "tracewriter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QRandomGenerator>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

using namespace gml;

namespace {

double peakRssMb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return -1;
}

bool generate(const QString &path, qint64 total, int ranks)
{
    QFile::remove(path);
    QString error;
    auto p = Project::open(path, Project::Mode::ReadWrite, &error);
    if (!p || !p->begin(&error)) {
        std::fprintf(stderr, "bench_open: %s\n", qPrintable(error));
        return false;
    }
    const RunId run = p->ensureRun(QStringLiteral("generated"), &error);
    constexpr int kTracksPerRank = 4;
    std::vector<StringId> names;
    for (int i = 0; i < 200; ++i)
        names.push_back(p->intern(QStringLiteral("op_%1").arg(i).toStdString()));
    const qint64 perTrack = total / (ranks * kTracksPerRank);
    for (int r = 0; r < ranks; ++r) {
        auto st = p->db().prepare(
            "INSERT INTO source(run_id, path, format, status) VALUES(?, ?, 'generated', 'failed')");
        st.bind(1, run);
        st.bind(2, QStringLiteral("rank%1").arg(r));
        if (!st.exec()) {
            std::fprintf(stderr, "bench_open: %s\n", qPrintable(st.errorString()));
            return false;
        }
        TraceWriter w(*p, run, p->db().lastInsertRowId());
        for (int k = 0; k < kTracksPerRank; ++k) {
            TrackSpec spec;
            const bool gpu = k >= kTracksPerRank / 2;
            spec.kind = gpu ? TrackKind::Stream : TrackKind::Thread;
            spec.name =
                gpu ? QStringLiteral("stream %1").arg(k) : QStringLiteral("thread %1").arg(k);
            spec.rank = r;
            const TrackId track = w.addTrack(spec);
            QRandomGenerator rng(quint32(r * 100 + k));
            TimeNs t = 0;
            for (qint64 n = 0; n < perTrack;) {
                const TimeNs dur = gpu ? rng.bounded(2000, 200000) : rng.bounded(1000, 60000);
                w.addSlice(track, t, dur, names[rng.bounded(200)], 0);
                ++n;
                if (!gpu) {
                    const int kids = rng.bounded(4);
                    const TimeNs cd = (dur - 400) / (kids + 1);
                    for (int j = 0; j < kids && n < perTrack; ++j, ++n)
                        w.addSlice(track, t + 200 + j * (cd + 50), cd, names[rng.bounded(200)], 0);
                }
                t += dur + rng.bounded(0, 10000);
            }
        }
        if (!w.finish({}, &error)) {
            std::fprintf(stderr, "bench_open: %s\n", qPrintable(error));
            return false;
        }
    }
    return p->commit(&error);
}

// One child: open, first complete paint, pan and zoom.
int child(const QString &path, bool page, QSize size)
{
    QElapsedTimer timer;
    timer.start();
    QString error;
    auto data = loadTimelineData(path, &error, {}, page);
    if (!data) {
        std::fprintf(stderr, "bench_open: %s\n", qPrintable(error));
        return 1;
    }
    const double loadMs = double(timer.nsecsElapsed()) / 1e6;
    TimelinePainter painter;
    painter.setData(data);
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    TimelineOverlay o;
    o.traceStart = data->start;
    o.traceEnd = data->end;
    const auto paintUntilComplete = [&](const TimelineViewport &v, double *firstMs) {
        for (int i = 0; i < 32; ++i) {
            QElapsedTimer f;
            f.start();
            {
                QPainter p(&image);
                painter.paint(p, v, o);
            }
            if (firstMs && i == 0)
                *firstMs = double(f.nsecsElapsed()) / 1e6;
            if (painter.complete() || !data->pager)
                return;
            data->pager->waitForIdle();
            painter.pagesArrived();
        }
    };
    paintUntilComplete(TimelineViewport{size, data->start, data->end, 0}, nullptr);
    const double openMs = double(timer.nsecsElapsed()) / 1e6;
    const double openRss = peakRssMb();
    std::vector<double> paint, complete;
    const TimeNs span = data->end - data->start, centre = data->start + span / 3;
    constexpr int kFrames = 40;
    for (int f = 0; f < kFrames; ++f) {
        const double w = double(span) * std::pow(10000.0 / double(span), double(f) / (kFrames - 1));
        TimelineViewport v{size, centre - TimeNs(w / 2),
                           centre - TimeNs(w / 2) + std::max<TimeNs>(1, TimeNs(w)), 0};
        QElapsedTimer t;
        t.start();
        double first = 0;
        paintUntilComplete(v, &first);
        paint.push_back(first);
        complete.push_back(double(t.nsecsElapsed()) / 1e6);
        if (qEnvironmentVariableIsSet("BENCH_VERBOSE"))
            std::fprintf(
                stderr,
                "  frame %2d window %.3g ns: paint %.2f ms, complete %.2f ms, %zu KB read\n", f, w,
                first, complete.back(), data->pager ? data->pager->memoryBytes() / 1024 : 0);
    }
    std::sort(paint.begin(), paint.end());
    std::sort(complete.begin(), complete.end());
    std::printf("%.1f %.1f %.0f %.2f %.2f %.1f %.1f %.0f %zu\n", loadMs, openMs, openRss,
                paint[kFrames / 2], paint.back(), complete[kFrames / 2], complete.back(),
                peakRssMb(), data->sliceCount());
    return 0;
}

} // namespace

// What --help prints.
constexpr const char *kUsage =
    "bench_open: opening a project until the timeline's first complete paint, and memory then,\n"
    "at growing sizes (issue 34). Projects are generated at benchmark time straight into the\n"
    "project file (no JSON): T tracks per rank, half CPU-thread-like (nested ops of 1-60 us with\n"
    "0-3 children), half GPU-stream-like (kernels of 2-200 us), slices spread evenly.\n"
    "\n"
    "  bench_open [--slices M,M,...] [--ranks R] [--size WxH] [--dir DIR] [--keep]\n"
    "  bench_open --projects A.grademl,B.grademl,... [--size WxH]\n"
    "\n"
    "For each size (millions of slices; default 3.4,14,40) it writes DIR/open-<M>M.grademl once,\n"
    "then runs itself twice per mode in a fresh process (so memory is the process's own):\n"
    "  paged: what the studio does (the tree, then the viewport's summaries, slicepager.h);\n"
    "  whole: every track read whole (the studio before schema v7), the baseline of the same run.\n"
    "Each child prints: time to load, time until the first paint shows every row complete, peak\n"
    "resident memory, then 40 pan and zoom frames from the whole trace to 10 us: the paint time "
    "of\n"
    "each frame with what is read so far (median, worst), and the time until the frame is "
    "complete.\n"
    "With --projects, the given projects instead (a cluster project against a small one and the\n"
    "direct import of the same job), paged, three fresh processes each, with ratios to the "
    "first.\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen")
                                                                    : qgetenv("QT_QPA_PLATFORM"));
    QGuiApplication app(argc, argv);
    QStringList sizes{QStringLiteral("3.4"), QStringLiteral("14"), QStringLiteral("40")};
    int ranks = 4;
    QSize size(1366, 768);
    QString dir = QDir::tempPath();
    QStringList projects;
    const QStringList args = QGuiApplication::arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--child"))
            return child(args[i + 1], args.value(i + 2) == QLatin1String("paged"),
                         QSize(args.value(i + 3).toInt(), args.value(i + 4).toInt()));
        if (args[i] == QLatin1String("--slices"))
            sizes = args[i + 1].split(QLatin1Char(','));
        else if (args[i] == QLatin1String("--ranks"))
            ranks = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--projects"))
            projects = args[i + 1].split(QLatin1Char(','));
        else if (args[i] == QLatin1String("--dir"))
            dir = args[i + 1];
        else if (args[i] == QLatin1String("--size")) {
            const QStringList wh = args[i + 1].split(QLatin1Char('x'));
            size = QSize(wh.value(0).toInt(), wh.value(1).toInt());
        }
    }
    if (!projects.isEmpty()) {
        // Given projects (a cluster project and its peers, issue 39), paged as the studio does,
        // three fresh processes each; ratios against the first project of the list.
        std::printf("%-28s %9s %14s %9s %14s %16s\n", "project", "load ms", "first paint ms",
                    "peak MB", "pan median ms", "complete med ms");
        double baseLoad = 0, basePaint = 0;
        for (int k = 0; k < projects.size(); ++k) {
            std::vector<double> load, paint;
            for (int round = 0; round < 3; ++round) {
                QProcess p;
                p.start(QCoreApplication::applicationFilePath(),
                        {QStringLiteral("--child"), projects[k], QStringLiteral("paged"),
                         QString::number(size.width()), QString::number(size.height())});
                p.waitForFinished(-1);
                const QStringList f =
                    QString::fromLatin1(p.readAllStandardOutput()).split(QLatin1Char(' '));
                if (p.exitCode() != 0 || f.size() < 9) {
                    std::fprintf(stderr, "bench_open: %s: %s\n", qPrintable(projects[k]),
                                 p.readAllStandardError().constData());
                    return 1;
                }
                load.push_back(f[0].toDouble());
                paint.push_back(f[1].toDouble());
                std::printf("%-28s %9s %14s %9s %14s %16s\n",
                            qPrintable(QFileInfo(projects[k]).fileName()), qPrintable(f[0]),
                            qPrintable(f[1]), qPrintable(f[2]), qPrintable(f[3]), qPrintable(f[5]));
            }
            std::sort(load.begin(), load.end());
            std::sort(paint.begin(), paint.end());
            if (k == 0) {
                baseLoad = load[1];
                basePaint = paint[1];
            }
            std::printf(
                "%-28s median load %.1f ms (%.2fx the first), first paint %.1f ms (%.2fx)\n",
                qPrintable(QFileInfo(projects[k]).fileName()), load[1],
                load[1] / std::max(baseLoad, 1e-6), paint[1], paint[1] / std::max(basePaint, 1e-6));
        }
        return 0;
    }
    std::printf("%-8s %-6s %9s %13s %9s %14s %14s %16s %16s %9s\n", "slices", "mode", "load ms",
                "first paint ms", "peak MB", "pan median ms", "pan worst ms", "complete med ms",
                "complete worst ms", "end MB");
    for (const QString &m : sizes) {
        const qint64 n = qint64(m.toDouble() * 1e6);
        const QString path =
            QDir(dir).filePath(QStringLiteral("open-%1M-%2r.grademl").arg(m).arg(ranks));
        if (!QFileInfo::exists(path)) {
            QElapsedTimer g;
            g.start();
            if (!generate(path, n, ranks))
                return 1;
            std::printf("(generated %s in %.1f s, %.0f MB)\n", qPrintable(path),
                        double(g.nsecsElapsed()) / 1e9, double(QFileInfo(path).size()) / 1e6);
        }
        double paged = 0, whole = 0;
        for (const char *mode : {"whole", "paged"}) {
            QProcess p;
            p.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("--child"), path, QString::fromLatin1(mode),
                     QString::number(size.width()), QString::number(size.height())});
            p.waitForFinished(-1);
            const QStringList f =
                QString::fromLatin1(p.readAllStandardOutput()).split(QLatin1Char(' '));
            if (p.exitCode() != 0 || f.size() < 9) {
                std::fprintf(stderr, "bench_open: child failed: %s\n",
                             p.readAllStandardError().constData());
                return 1;
            }
            (std::strcmp(mode, "paged") == 0 ? paged : whole) = f[1].toDouble();
            std::printf("%-8s %-6s %9s %13s %9s %14s %14s %16s %16s %9s\n",
                        qPrintable(m + QLatin1Char('M')), mode, qPrintable(f[0]), qPrintable(f[1]),
                        qPrintable(f[2]), qPrintable(f[3]), qPrintable(f[4]), qPrintable(f[5]),
                        qPrintable(f[6]), qPrintable(f[7].trimmed()));
        }
        std::printf("%-8s first paint paged/whole: %.3f\n", qPrintable(m + QLatin1Char('M')),
                    paged / std::max(whole, 1e-6));
    }
    return 0;
}
