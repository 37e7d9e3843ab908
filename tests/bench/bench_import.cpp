// SPDX-License-Identifier: GPL-3.0-or-later
// bench_import: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "chrometracereader.h"
#include "folderscanner.h"
#include "hugepages.h"
#include "importjob.h"
#include "inputstream.h"
#include "project.h"
#include "slicetrack.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>

#include <sys/resource.h>

#include <cstdio>
#include <vector>

static qint64 decompressedSize(const QString &path)
{
    gml::InputStream in;
    if (!in.open(path))
        return 0;
    if (!in.isCompressed())
        return in.fileSize();
    std::vector<char> buf(size_t(1) << 20);
    qint64 total = 0;
    for (qint64 n; (n = in.read(buf.data(), qint64(buf.size()))) > 0;)
        total += n;
    return total;
}

// A handler that keeps nothing: what parsing alone costs.
class NullHandler final : public gml::ChromeTraceReader::Handler
{
public:
    void topLevel(std::string_view, std::string_view, qint64) override {}
    void event(const gml::TraceEventView &ev) override { events += ev.keyCount > 0; }
    void warning(qint64, const QString &) override {}
    bool progress(qint64) override { return true; }
    qint64 events = 0;
};

static void printStage(const QString &label, const char *stage, qint64 bytes, double secs)
{
    std::printf("%-28s %-14s %7.2f s  %7.1f MB/s\n", qPrintable(label), stage, secs,
                double(bytes) / 1e6 / std::max(secs, 1e-9));
}

static void timeStages(const QString &label, const QList<gml::ScannedFile> &files, qint64 bytes)
{
    QElapsedTimer timer;
    timer.start();
    std::vector<char> buf(size_t(4) << 20);
    for (const auto &f : files) {
        gml::InputStream in;
        if (in.open(f.path))
            while (in.read(buf.data(), qint64(buf.size())) > 0) {
            }
    }
    printStage(label, "read only", bytes, double(timer.nsecsElapsed()) / 1e9);
    timer.restart();
    qint64 parsed = 0;
    for (const auto &f : files) {
        gml::InputStream in;
        if (!in.open(f.path))
            continue;
        NullHandler handler;
        gml::ChromeTraceReader reader(in, handler);
        if (reader.run() == gml::ChromeTraceReader::Status::Ok)
            parsed += reader.bytesRead();
    }
    printStage(label, "parse only", parsed, double(timer.nsecsElapsed()) / 1e9);
    if (parsed != bytes)
        std::printf("%-28s (parse only: %.1f of %.1f MB are Chrome traces)\n", qPrintable(label),
                    double(parsed) / 1e6, double(bytes) / 1e6);
}

// What --help prints.
constexpr const char *kUsage =
    "bench_import: imports the given files into a fresh project and prints throughput and peak\n"
    "memory. One invocation per input set, so the peak resident size belongs to that input.\n"
    "\n"
    "  bench_import [--label NAME] [--project FILE] [--stages] [--threads N] FILE...\n"
    "\n"
    "Prints: label, input bytes (decompressed), seconds, MB/s, slices+samples (events placed),\n"
    "events/s, peak RSS (MiB) and peak RSS / input bytes; the threads the files were read on\n"
    "(--threads, default one per core: ImportJob::setThreads) and MB/s per thread; the process's\n"
    "page faults (getrusage); when files\n"
    "were read aside, the serial tail after the workers' last file (seconds and share of the\n"
    "import: ImportJob::afterWorkersSeconds); then how long reading every slice track back\n"
    "takes (SliceTrack::load, as the timeline does when a track is first drawn).\n"
    "--stages first times, in the same run, the two floors under the import: reading the bytes\n"
    "(InputStream) and parsing them with the Chrome trace reader into a handler that keeps "
    "nothing;\nafter the import, where its time went for the files read on the job's thread: "
    "reading and\nwriting their chunks (the importer), finishing each source (flows, level of "
    "detail, the\nsource's summary), its commit, and the rest of the job.\n"
    "Given 64 MiB or more, it starts itself again with glibc asking for huge pages, as\n"
    "`grademl import` does (hugepages.h); GLIBC_TUNABLES=glibc.malloc.hugetlb=0 measures\n"
    "without them.\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    gml::restartWithHugePages(argc, argv, gml::kHugePagesFromBytes);
    QCoreApplication app(argc, argv);
    QStringList args = QCoreApplication::arguments().mid(1);
    QString label = QStringLiteral("input");
    QString projectPath;
    QStringList inputs;
    bool stages = false;
    int threads = 0;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--label") && i + 1 < args.size())
            label = args[++i];
        else if (args[i] == QLatin1String("--project") && i + 1 < args.size())
            projectPath = args[++i];
        else if (args[i] == QLatin1String("--threads") && i + 1 < args.size())
            threads = args[++i].toInt();
        else if (args[i] == QLatin1String("--stages"))
            stages = true;
        else
            inputs << args[i];
    }
    if (inputs.isEmpty()) {
        std::fprintf(stderr, "usage: bench_import [--label NAME] [--project FILE] [--stages] "
                             "[--threads N] FILE...\n");
        return 2;
    }
    QTemporaryDir tmp;
    if (projectPath.isEmpty())
        projectPath = tmp.filePath(QStringLiteral("bench.grademl"));
    QFile::remove(projectPath);
    QStringList missing;
    const auto files = gml::scanInputs(inputs, QStringLiteral("bench"), &missing);
    for (const QString &m : missing)
        std::fprintf(stderr, "bench_import: %s\n", qPrintable(m));
    if (!missing.isEmpty() || files.empty()) {
        if (missing.isEmpty())
            std::fprintf(stderr, "bench_import: no importable file in the inputs\n");
        return 1;
    }
    qint64 bytes = 0;
    for (const auto &f : files)
        bytes += decompressedSize(f.path);
    if (stages)
        timeStages(label, files, bytes);
    QString error;
    auto project = gml::Project::open(projectPath, gml::Project::Mode::ReadWrite, &error);
    if (!project) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    gml::ImportJob job(*project);
    if (threads <= 0)
        threads = std::max(1, QThread::idealThreadCount());
    job.setThreads(threads);
    QElapsedTimer timer;
    timer.start();
    const auto reports = job.run(files);
    const double secs = double(timer.nsecsElapsed()) / 1e9;
    qint64 events = 0;
    int failed = 0, aside = 0;
    for (const auto &r : reports) {
        events += r.slices + r.counterSamples;
        aside += r.readAside;
        if (r.status == gml::SourceReport::Status::Failed) {
            ++failed;
            std::fprintf(stderr, "failed: %s\n", qPrintable(r.message));
        }
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const double rssMiB = double(ru.ru_maxrss) / 1024.0;
    std::printf("%-28s %9.1f MB  %7.2f s  %7.1f MB/s  %10lld events  %9.0f events/s  "
                "peak RSS %7.1f MiB (%.2fx input)\n",
                qPrintable(label), double(bytes) / 1e6, secs, double(bytes) / 1e6 / secs,
                static_cast<long long>(events), double(events) / secs, rssMiB,
                double(ru.ru_maxrss) * 1024.0 / double(std::max<qint64>(bytes, 1)));
    const int used = aside > 0 ? std::min(threads, aside) : 1;
    std::printf("%-28s read on %d thread%s (%d of %lld files aside): %.1f MB/s per thread\n",
                qPrintable(label), used, used == 1 ? "" : "s", aside,
                static_cast<long long>(reports.size()), double(bytes) / 1e6 / secs / used);
    // Memory touched for the first time costs a fault (and on a VM, dearly): the process's own
    // count, the restart with huge pages (hugepages.h) included.
    std::printf("%-28s page faults: %ld\n", qPrintable(label), ru.ru_minflt + ru.ru_majflt);
    // Where the import's time went, for the files read on the job's thread (SourceReport):
    // what is left is the job around them (opening the project and each source, hashing,
    // grouping runs, aligning clocks, folding the log).
    if (stages) {
        double read = 0, finish = 0, commit = 0;
        for (const auto &r : reports) {
            read += r.readSeconds;
            finish += r.finishSeconds;
            commit += r.commitSeconds;
        }
        if (read > 0) {
            const auto share = [&](double s) { return 100.0 * s / secs; };
            std::printf("%-28s stages: read and write %.3f s (%.0f%%), finish %.3f s (%.0f%%), "
                        "commit %.3f s (%.0f%%), the rest %.3f s (%.0f%%)\n",
                        qPrintable(label), read, share(read), finish, share(finish), commit,
                        share(commit), secs - read - finish - commit,
                        share(secs - read - finish - commit));
        }
    }
    // The serial tail: what the job's thread did after the workers' last file (copying the rest
    // in, runs grouped, clocks aligned, the log folded).
    if (const double tail = job.afterWorkersSeconds(); tail >= 0)
        std::printf("%-28s after the workers: %.3f s (%.1f%% of the import)\n", qPrintable(label),
                    tail, 100.0 * tail / secs);
    // Read-back: every track with slices, loaded as the timeline loads it.
    std::vector<gml::TrackId> tracks;
    {
        auto st = project->db().prepare("SELECT id FROM track WHERE slice_count > 0");
        while (st.step())
            tracks.push_back(st.int64(0));
    }
    timer.restart();
    qint64 loaded = 0;
    for (gml::TrackId t : tracks)
        loaded += qint64(gml::SliceTrack::load(*project, t, &error).size());
    const double loadSecs = double(timer.nsecsElapsed()) / 1e9;
    std::printf("%-28s read back %zu tracks, %lld slices in %.3f s (%.1f M slices/s)\n",
                qPrintable(label), tracks.size(), static_cast<long long>(loaded), loadSecs,
                double(loaded) / 1e6 / std::max(loadSecs, 1e-9));
    return failed ? 1 : 0;
}
