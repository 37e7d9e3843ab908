// SPDX-License-Identifier: GPL-3.0-or-later
// grademl record: the command, its process tree and the host sampled from /proc at a fixed
// interval, GPU tools run beside it. POSIX and Linux only (fork, exec, /proc).
#include "recorder.h"

#include "outputfile.h"
#include "procsampler.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTimeZone>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace gml::rec {

namespace {

// Signals to the recorder: the first is passed to the command (unless the terminal sent it
// to the whole foreground group, the command included), a second one kills it.
volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_signals = 0;
volatile sig_atomic_t g_lastSignal = 0;

void onSignal(int sig, siginfo_t *info, void *)
{
    g_lastSignal = sig;
    g_signals = g_signals + 1;
    if (g_child <= 0)
        return;
    if (g_signals > 1)
        ::kill(pid_t(g_child), SIGKILL);
    else if (info && info->si_code != SI_KERNEL)
        ::kill(pid_t(g_child), sig);
}

// A child running `argv` with stdout to `outPath` (empty: inherited), in its own process
// group when `ownGroup` (a GPU tool: the terminal's Ctrl-C must not stop it before the files
// are complete). Returns the pid, or -1 with *error.
pid_t spawn(const QStringList &argv, const QString &outPath, bool ownGroup, QString *error)
{
    std::vector<std::string> args;
    for (const QString &a : argv)
        args.push_back(a.toStdString());
    std::vector<char *> cargs;
    for (auto &a : args)
        cargs.push_back(a.data());
    cargs.push_back(nullptr);
    int fail[2];
    if (::pipe2(fail, O_CLOEXEC) != 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return -1;
    }
    int outFd = -1;
    if (!outPath.isEmpty()) {
        outFd = ::open(QFile::encodeName(outPath).constData(),
                       O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (outFd < 0) {
            *error = QStringLiteral("cannot write %1: %2")
                         .arg(outPath, QString::fromLocal8Bit(std::strerror(errno)));
            ::close(fail[0]);
            ::close(fail[1]);
            return -1;
        }
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        if (ownGroup)
            ::setpgid(0, 0);
        if (outFd >= 0)
            ::dup2(outFd, STDOUT_FILENO);
        ::execvp(cargs[0], cargs.data());
        const int e = errno;
        [[maybe_unused]] ssize_t n = ::write(fail[1], &e, sizeof e);
        ::_exit(127);
    }
    ::close(fail[1]);
    if (outFd >= 0)
        ::close(outFd);
    if (pid < 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        ::close(fail[0]);
        return -1;
    }
    int e = 0;
    ssize_t n;
    do
        n = ::read(fail[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    ::close(fail[0]);
    if (n == sizeof e) { // exec failed
        ::waitpid(pid, nullptr, 0);
        *error = QString::fromLocal8Bit(std::strerror(e));
        return -1;
    }
    return pid;
}

// Stops a GPU tool: SIGTERM, then SIGKILL after a second. Returns its wait status, and
// whether it had already ended on its own (a tool that failed at once).
std::pair<int, bool> stopTool(pid_t pid)
{
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid)
        return {status, true};
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 100; ++i) {
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return {status, false};
        ::usleep(10'000);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return {status, false};
}

struct Tool
{
    QString name, file;
    QStringList args;
    QString path; // found executable
    pid_t pid = -1;
    QString state; // what grademl.json says of it
};

QString describeStatus(int status)
{
    if (WIFEXITED(status))
        return QStringLiteral("status %1").arg(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return QStringLiteral("signal %1 (%2)")
            .arg(WTERMSIG(status))
            .arg(QString::fromLocal8Bit(strsignal(WTERMSIG(status))));
    return QStringLiteral("wait status %1").arg(status);
}

double pssMiB()
{
    std::string buf;
    if (!readProc("/proc/self/smaps_rollup", buf))
        return -1;
    double kb = -1;
    forEachLine(buf, [&](std::string_view l) {
        if (l.starts_with("Pss:"))
            kb = double(firstNumber(l.substr(4)));
    });
    return kb / 1024.0;
}

bool writeJson(const QString &path, const QJsonObject &o, QString *error)
{
    return writeOutput(path, QJsonDocument(o).toJson(QJsonDocument::Indented), error);
}

} // namespace

std::int64_t parseInterval(const QString &text)
{
    QString t = text.trimmed();
    double scale = 1e6; // ms by default
    if (t.endsWith(QLatin1String("ms"))) {
        t.chop(2);
    } else if (t.endsWith(QLatin1String("us"))) {
        t.chop(2);
        scale = 1e3;
    } else if (t.endsWith(QLatin1Char('s'))) {
        t.chop(1);
        scale = 1e9;
    }
    bool ok = false;
    const double v = t.trimmed().toDouble(&ok);
    if (!ok || !(v > 0))
        return -1;
    return std::int64_t(v * scale);
}

// The GPU monitors run beside the command: nvidia-smi and dcgmi at the interval (dcgmi at
// 100 ms at least), each to its file in the output folder.
std::vector<Tool> gpuTools(const Options &o, int intervalMs)
{
    return {
        {QStringLiteral("nvidia-smi"),
         QStringLiteral("nvidia-smi.csv"),
         {QStringLiteral("--query-gpu=timestamp,index,name,uuid,utilization.gpu,utilization.memory,"
                         "memory.used,"
                         "memory.total,power.draw,temperature.gpu,clocks.sm"),
          QStringLiteral("--format=csv"), QStringLiteral("-lms"), QString::number(intervalMs)},
         o.nvidiaSmi,
         -1,
         {}},
        {QStringLiteral("dcgmi"),
         QStringLiteral("dcgmi-dmon.txt"),
         {QStringLiteral("dmon"), QStringLiteral("-e"),
          QStringLiteral("203,204,252,155,1001,1002,1003,1004,1005"), QStringLiteral("-d"),
          QString::number(std::max(100, intervalMs))},
         o.dcgmi,
         -1,
         {}},
    };
}

// Starts each tool that is asked for and found; what became of each, by name.
QJsonObject startTools(std::vector<Tool> &tools, const QString &dir, QTextStream &err)
{
    QString error;
    QJsonObject toolState;
    for (Tool &t : tools) {
        if (t.path == QLatin1String("none")) {
            t.state = QStringLiteral("skipped (--%1 none)").arg(t.name);
        } else {
            const QString exe = t.path.isEmpty() ? QStandardPaths::findExecutable(t.name) : t.path;
            if (exe.isEmpty() || !QFileInfo(exe).isExecutable()) {
                t.state = QStringLiteral("not found: skipped");
                err << "grademl record: " << t.name
                    << " not found on PATH: its samples are skipped\n";
            } else {
                t.pid =
                    spawn(QStringList{exe} + t.args, dir + QLatin1Char('/') + t.file, true, &error);
                t.state = t.pid > 0 ? QStringLiteral("recorded to %1").arg(t.file)
                                    : QStringLiteral("failed to start: %1").arg(error);
                if (t.pid <= 0)
                    err << "grademl record: " << t.name << " did not start (" << error
                        << "): its samples are skipped\n";
            }
        }
        toolState.insert(t.name, t.state);
    }
    return toolState;
}

// Samples the host and the command every `intervalNs` (on a grid: a slow sample is not made up
// by a burst) until the command ends; the samples taken.
std::int64_t sampleUntilExit(pid_t child, Sampler &sampler, Ns intervalNs, int &status)
{
    const Ns monoStart = nowNs(CLOCK_MONOTONIC);
    Ns next = monoStart;
    std::int64_t ticks = 0;
    for (bool running = child > 0; running;) {
        if (::waitpid(child, &status, WNOHANG) == child)
            break;
        sampler.sample(nowNs(CLOCK_REALTIME), child);
        ++ticks;
        next += intervalNs;
        const Ns mono = nowNs(CLOCK_MONOTONIC);
        if (next < mono) // a slow sample: the next one on the grid, not a burst to catch up
            next = mono + intervalNs - (mono - next) % intervalNs;
        timespec until{time_t(next / 1'000'000'000), long(next % 1'000'000'000)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
            if (::waitpid(child, &status, WNOHANG) == child) {
                running = false; // ended while we slept: sampled once more below
                break;
            }
        }
    }
    return ticks;
}

// Stops the tools; one that failed at once (no driver) wrote its complaint, not samples: kept
// aside as FILE.error.txt and said.
void stopTools(std::vector<Tool> &tools, const QString &dir, QTextStream &err,
               QJsonObject &toolState)
{
    for (Tool &t : tools)
        if (t.pid > 0) {
            const auto [toolStatus, endedEarly] = stopTool(t.pid);
            const QString file = dir + QLatin1Char('/') + t.file;
            QFile f(file);
            const QByteArray head = f.open(QIODevice::ReadOnly) ? f.read(256) : QByteArray();
            // A tool that failed at once (no driver) wrote its complaint, not samples.
            const bool samplesWritten = t.name == QLatin1String("nvidia-smi")
                                            ? head.startsWith("timestamp")
                                            : head.contains("Entity");
            if (endedEarly && !samplesWritten) {
                const QString kept = file + QStringLiteral(".error.txt");
                QFile::remove(kept);
                QFile::rename(file, kept);
                t.state =
                    QStringLiteral("failed (%1): %2")
                        .arg(describeStatus(toolStatus),
                             QString::fromUtf8(head).section(QLatin1Char('\n'), 0, 0).trimmed());
                err << "grademl record: " << t.name << " " << t.state << "; its output is in "
                    << kept << '\n';
            }
            toolState.insert(t.name, t.state);
        }
}

int record(const Options &o, QTextStream &out, QTextStream &err)
{
    if (!QDir().mkpath(o.outDir)) {
        err << "grademl record: cannot create " << o.outDir << '\n';
        return 2;
    }
    const QString dir = QDir(o.outDir).absolutePath();
    char hostName[256] = {};
    ::gethostname(hostName, sizeof hostName - 1);
    const QString host = QString::fromLocal8Bit(hostName);
    const QString samplesPath = dir + QStringLiteral("/grademl-samples.csv");
    SamplesFile samples;
    if (!samples.open(samplesPath, host)) {
        err << "grademl record: cannot write " << samplesPath << ": "
            << QString::fromLocal8Bit(std::strerror(errno)) << '\n';
        return 2;
    }
    const int intervalMs = std::max(1, int(o.intervalNs / 1'000'000));
    std::vector<Tool> tools = gpuTools(o, intervalMs);
    QJsonObject meta;
    meta.insert(QStringLiteral("run"), o.runName.isEmpty() ? QFileInfo(dir).fileName() : o.runName);
    meta.insert(QStringLiteral("timezone"), QString::fromUtf8(QTimeZone::systemTimeZoneId()));
    QJsonObject rec;
    rec.insert(QStringLiteral("command"), QJsonArray::fromStringList(o.command));
    rec.insert(QStringLiteral("working_directory"), QDir::currentPath());
    rec.insert(QStringLiteral("host"), host);
    rec.insert(QStringLiteral("interval_ms"), double(o.intervalNs) / 1e6);
    rec.insert(QStringLiteral("status"), QStringLiteral("running"));
    QString error;

    // The GPU tools first, so their first samples come before the command starts.
    QJsonObject toolState = startTools(tools, dir, err);
    rec.insert(QStringLiteral("tools"), toolState);

    struct sigaction sa = {};
    sa.sa_sigaction = onSignal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
        sigaction(sig, &sa, nullptr);

    const Ns wallStart = nowNs(CLOCK_REALTIME);
    rec.insert(QStringLiteral("start"),
               QDateTime::fromMSecsSinceEpoch(wallStart / 1'000'000, QTimeZone::systemTimeZone())
                   .toString(Qt::ISODateWithMs));
    rec.insert(QStringLiteral("start_ns"), QString::number(wallStart));
    meta.insert(QStringLiteral("recorder"), rec);
    if (!writeJson(dir + QStringLiteral("/grademl.json"), meta, &error))
        err << "grademl record: cannot write grademl.json: " << error << '\n';

    Sampler sampler(samples);
    sampler.sample(nowNs(CLOCK_REALTIME), 0);
    const pid_t child = spawn(o.command, QString(), false, &error);
    int status = 0;
    if (child <= 0)
        err << "grademl record: cannot run '" << o.command.value(0) << "': " << error << '\n';
    else
        g_child = child;
    const std::int64_t ticks = sampleUntilExit(child, sampler, o.intervalNs, status);
    g_child = 0;
    const Ns wallEnd = nowNs(CLOCK_REALTIME);
    sampler.sample(wallEnd, 0); // the host after the command
    stopTools(tools, dir, err, toolState);
    rec.insert(QStringLiteral("tools"), toolState);

    rusage self{};
    getrusage(RUSAGE_SELF, &self);
    const double cpuS = double(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                        double(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
    const double wallS = double(wallEnd - wallStart) / 1e9;
    const double rssMiB = double(self.ru_maxrss) / 1024.0;
    const double pss = pssMiB();
    int exitCode = 2;
    QString how;
    if (child <= 0) {
        how = QStringLiteral("did not start: %1").arg(error);
        exitCode = 127;
    } else if (WIFEXITED(status) || WIFSIGNALED(status)) {
        exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        how = (WIFEXITED(status) ? QStringLiteral("exited with ") : QStringLiteral("ended by ")) +
              describeStatus(status);
    }
    rec.insert(QStringLiteral("status"),
               g_signals > 0 ? QStringLiteral("interrupted") : QStringLiteral("finished"));
    rec.insert(QStringLiteral("exit"), how);
    rec.insert(QStringLiteral("exit_status"), exitCode);
    if (child > 0 && WIFSIGNALED(status))
        rec.insert(QStringLiteral("signal"), WTERMSIG(status));
    rec.insert(QStringLiteral("end"),
               QDateTime::fromMSecsSinceEpoch(wallEnd / 1'000'000, QTimeZone::systemTimeZone())
                   .toString(Qt::ISODateWithMs));
    rec.insert(QStringLiteral("end_ns"), QString::number(wallEnd));
    QJsonObject overhead;
    overhead.insert(QStringLiteral("samples"), double(ticks));
    overhead.insert(QStringLiteral("values"), double(samples.values()));
    overhead.insert(QStringLiteral("cpu_s"), cpuS);
    overhead.insert(QStringLiteral("cpu_percent_of_one_core"), wallS > 0 ? 100 * cpuS / wallS : 0);
    overhead.insert(QStringLiteral("peak_rss_mib"), rssMiB);
    if (pss >= 0)
        overhead.insert(QStringLiteral("pss_mib"), pss);
    rec.insert(QStringLiteral("overhead"), overhead);
    meta.insert(QStringLiteral("recorder"), rec);
    if (!writeJson(dir + QStringLiteral("/grademl.json"), meta, &error))
        err << "grademl record: cannot write grademl.json: " << error << '\n';
    err << QStringLiteral("grademl record: '%1' %2 after %3 s; %4 samples every %5 ms in %6\n")
               .arg(o.command.join(QLatin1Char(' ')), how)
               .arg(wallS, 0, 'f', 2)
               .arg(ticks)
               .arg(double(o.intervalNs) / 1e6)
               .arg(dir);
    err << QStringLiteral("grademl record: the recorder used %1% of one core (%2 s CPU) and %3 MiB "
                          "resident (%4 MiB proportional)\n")
               .arg(wallS > 0 ? 100 * cpuS / wallS : 0, 0, 'f', 2)
               .arg(cpuS, 0, 'f', 3)
               .arg(rssMiB, 0, 'f', 1)
               .arg(pss, 0, 'f', 1);
    out.flush();
    return exitCode;
}

} // namespace gml::rec
