// SPDX-License-Identifier: GPL-3.0-or-later
// grademl record: the command, its process tree and the host sampled from /proc at a fixed
// interval, GPU tools run beside it. POSIX and Linux only (fork, exec, /proc).
#include "recorder.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
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

using Ns = std::int64_t;

Ns nowNs(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return Ns(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A small /proc file read whole (they are generated on read: one read() is one snapshot).
bool readProc(const char *path, std::string &buf)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    buf.resize(1 << 16);
    size_t got = 0;
    for (;;) {
        if (got == buf.size())
            buf.resize(buf.size() * 2);
        const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += size_t(n);
    }
    ::close(fd);
    buf.resize(got);
    return got > 0;
}

// The whitespace-separated whole numbers a line starts with (a process's tpgid can be -1).
std::vector<std::uint64_t> numbers(std::string_view line)
{
    std::vector<std::uint64_t> out;
    const char *p = line.data(), *e = line.data() + line.size();
    while (p < e) {
        while (p < e && (*p == ' ' || *p == '\t'))
            ++p;
        std::int64_t v = 0;
        const auto r = std::from_chars(p, e, v);
        if (r.ec != std::errc())
            break;
        out.push_back(std::uint64_t(v)); // counters are never negative; -1 ids wrap, unused
        p = r.ptr;
    }
    return out;
}

// The first number of a line, 0 when it has none (a /proc file of an unexpected shape never
// stops the recording).
std::uint64_t firstNumber(std::string_view line)
{
    const auto v = numbers(line);
    return v.empty() ? 0 : v.front();
}

template <typename F>
void forEachLine(std::string_view text, F &&f)
{
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        f(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
}

// The samples file (importers/samplesimporter.h): series declared once, then
// "time_ns,series,value" rows; flushed after every sample.
class SamplesFile
{
public:
    bool open(const QString &path, const QString &host)
    {
        m_file = std::fopen(QFile::encodeName(path).constData(), "we");
        if (!m_file)
            return false;
        std::setvbuf(m_file, nullptr, _IOFBF, 1 << 16);
        std::fprintf(m_file, "grademl-samples 1\nhost,%s\n", clean(host).c_str());
        std::fflush(m_file);
        return true;
    }
    ~SamplesFile()
    {
        if (m_file)
            std::fclose(m_file);
    }
    void value(Ns t, const std::string &entity, const char *metric, const char *unit, double v)
    {
        std::string key = entity;
        key += '\x1f';
        key += metric;
        auto it = m_series.find(key);
        if (it == m_series.end()) {
            it = m_series.emplace(key, int(m_series.size())).first;
            std::fprintf(m_file, "series,%d,%s,%s,%s\n", it->second, clean(entity).c_str(), metric, unit);
        }
        std::fprintf(m_file, "%lld,%d,%.6g\n", static_cast<long long>(t), it->second, v);
        ++m_values;
    }
    void flush() { std::fflush(m_file); }
    std::int64_t values() const { return m_values; }

private:
    static std::string clean(const QString &s) { return clean(s.toStdString()); }
    static std::string clean(std::string s)
    {
        for (char &c : s)
            if (c == ',' || c == '\n' || c == '\r')
                c = ';';
        return s;
    }
    std::FILE *m_file = nullptr;
    std::map<std::string, int> m_series;
    std::int64_t m_values = 0;
};

struct CpuTimes
{
    std::uint64_t busy = 0, total = 0;
};

struct ProcTimes
{
    std::uint64_t ticks = 0;      // utime + stime
    std::uint64_t startTime = 0;  // tells a reused pid apart
    std::uint64_t readBytes = 0, writeBytes = 0;
    double rssMiB = 0;
    std::string name;
};

// What /proc says of the host and of one process tree, as rates between two samples.
class Sampler
{
public:
    explicit Sampler(SamplesFile &out) : m_out(out)
    {
        m_tick = double(sysconf(_SC_CLK_TCK));
        m_pageMiB = double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
        // Whole disks (their partitions would count the same bytes twice).
        for (const QString &d : QDir(QStringLiteral("/sys/block")).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (!d.startsWith(QLatin1String("loop")) && !d.startsWith(QLatin1String("ram")))
                m_disks.insert(d.toStdString());
    }

    void sample(Ns t, pid_t root)
    {
        const double dt = m_last > 0 ? double(t - m_last) / 1e9 : 0;
        host(t, dt);
        if (root > 0)
            tree(t, dt, root);
        m_last = t;
        m_out.flush();
    }

private:
    void host(Ns t, double dt)
    {
        if (readProc("/proc/stat", m_buf)) {
            std::vector<CpuTimes> now;
            forEachLine(m_buf, [&](std::string_view l) {
                if (!l.starts_with("cpu"))
                    return;
                const size_t sp = l.find(' ');
                const auto v = numbers(l.substr(sp));
                if (v.size() < 5)
                    return;
                CpuTimes c;
                for (size_t i = 0; i < v.size() && i < 8; ++i)
                    c.total += v[i];
                c.busy = c.total - v[3] - v[4]; // idle and iowait
                now.push_back(c);
            });
            if (dt > 0 && now.size() == m_cpus.size())
                for (size_t i = 0; i < now.size(); ++i) {
                    const double total = double(now[i].total - m_cpus[i].total);
                    if (total <= 0)
                        continue;
                    const double busy = 100.0 * double(now[i].busy - m_cpus[i].busy) / total;
                    // The first line is all cores together: % of the whole host, and in cores.
                    if (i == 0) {
                        m_out.value(t, "host", "cpu busy", "%", busy);
                        m_out.value(t, "host", "cpu busy cores", "cores", busy / 100.0 * double(now.size() - 1));
                    } else {
                        m_out.value(t, "cpu" + std::to_string(i - 1), "busy", "%", busy);
                    }
                }
            m_cpus = std::move(now);
        }
        if (readProc("/proc/meminfo", m_buf)) {
            double total = -1, available = -1;
            forEachLine(m_buf, [&](std::string_view l) {
                if (l.starts_with("MemTotal:"))
                    total = double(firstNumber(l.substr(9)));
                else if (l.starts_with("MemAvailable:"))
                    available = double(firstNumber(l.substr(13)));
            });
            if (total > 0 && available >= 0)
                m_out.value(t, "host", "memory used", "MiB", (total - available) / 1024.0);
        }
        if (readProc("/proc/diskstats", m_buf)) {
            std::uint64_t read = 0, written = 0;
            forEachLine(m_buf, [&](std::string_view l) {
                // major minor name reads merged sectors_read ms writes merged sectors_written ...
                const auto head = numbers(l);
                if (head.size() < 2)
                    return;
                size_t p = l.find_first_not_of(' ');
                for (int field = 0; field < 2; ++field) {
                    p = l.find(' ', p);
                    p = l.find_first_not_of(' ', p);
                }
                const size_t end = l.find(' ', p);
                if (p == std::string_view::npos || end == std::string_view::npos ||
                    !m_disks.contains(std::string(l.substr(p, end - p))))
                    return;
                const auto v = numbers(l.substr(end));
                if (v.size() >= 7) {
                    read += v[2] * 512;
                    written += v[6] * 512;
                }
            });
            if (dt > 0 && m_diskRead > 0) {
                m_out.value(t, "host", "disk read", "MB/s", double(read - m_diskRead) / 1e6 / dt);
                m_out.value(t, "host", "disk write", "MB/s", double(written - m_diskWrite) / 1e6 / dt);
            }
            m_diskRead = std::max<std::uint64_t>(read, 1);
            m_diskWrite = written;
        }
        if (readProc("/proc/net/dev", m_buf)) {
            std::uint64_t rx = 0, tx = 0;
            forEachLine(m_buf, [&](std::string_view l) {
                const size_t colon = l.find(':');
                if (colon == std::string_view::npos)
                    return;
                const std::string_view name = l.substr(l.find_first_not_of(' '), colon - l.find_first_not_of(' '));
                if (name == "lo")
                    return;
                const auto v = numbers(l.substr(colon + 1));
                if (v.size() >= 9) {
                    rx += v[0];
                    tx += v[8];
                }
            });
            if (dt > 0 && m_netRx > 0) {
                m_out.value(t, "host", "network receive", "MB/s", double(rx - m_netRx) / 1e6 / dt);
                m_out.value(t, "host", "network send", "MB/s", double(tx - m_netTx) / 1e6 / dt);
            }
            m_netRx = std::max<std::uint64_t>(rx, 1);
            m_netTx = tx;
        }
    }

    // The process and its descendants: through /proc/PID/task/TID/children, else a scan of
    // every process's parent.
    std::vector<pid_t> descendants(pid_t root)
    {
        std::vector<pid_t> out{root};
        char path[64];
        std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", root, root);
        if (::access(path, R_OK) == 0) {
            for (size_t i = 0; i < out.size(); ++i) {
                const QDir tasks(QStringLiteral("/proc/%1/task").arg(out[i]));
                for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                    std::snprintf(path, sizeof path, "/proc/%d/task/%s/children", out[i], tid.toLatin1().constData());
                    if (readProc(path, m_buf))
                        for (auto c : numbers(m_buf))
                            out.push_back(pid_t(c));
                }
            }
            return out;
        }
        std::multimap<pid_t, pid_t> children;
        for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            bool ok = false;
            const pid_t pid = pid_t(entry.toInt(&ok));
            std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
            if (!ok || !readProc(path, m_buf))
                continue;
            const size_t close = m_buf.rfind(')');
            if (close == std::string::npos)
                continue;
            const auto v = numbers(std::string_view(m_buf).substr(close + 4)); // past ") S "
            if (!v.empty())
                children.emplace(pid_t(v[0]), pid);
        }
        for (size_t i = 0; i < out.size(); ++i)
            for (auto [it, end] = children.equal_range(out[i]); it != end; ++it)
                out.push_back(it->second);
        return out;
    }

    void tree(Ns t, double dt, pid_t root)
    {
        std::map<pid_t, ProcTimes> now;
        char path[64];
        for (pid_t pid : descendants(root)) {
            std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
            if (!readProc(path, m_buf))
                continue;
            const size_t open = m_buf.find('('), close = m_buf.rfind(')');
            if (open == std::string::npos || close == std::string::npos || close < open)
                continue;
            ProcTimes p;
            p.name = m_buf.substr(open + 1, close - open - 1);
            // Fields from the 4th (ppid): utime 14, stime 15, starttime 22, rss 24.
            const auto v = numbers(std::string_view(m_buf).substr(close + 4));
            if (v.size() < 21)
                continue;
            p.ticks = v[10] + v[11];
            p.startTime = v[18];
            p.rssMiB = double(v[20]) * m_pageMiB;
            std::snprintf(path, sizeof path, "/proc/%d/io", pid);
            if (readProc(path, m_buf))
                forEachLine(m_buf, [&](std::string_view l) {
                    if (l.starts_with("read_bytes:"))
                        p.readBytes = firstNumber(l.substr(11));
                    else if (l.starts_with("write_bytes:"))
                        p.writeBytes = firstNumber(l.substr(12));
                });
            now.emplace(pid, std::move(p));
        }
        double cpu = 0, rss = 0;
        for (const auto &[pid, p] : now) {
            rss += p.rssMiB;
            const auto before = m_procs.find(pid);
            if (dt <= 0 || before == m_procs.end() || before->second.startTime != p.startTime)
                continue; // a process is charted from its second sample on
            const double share = 100.0 * double(p.ticks - before->second.ticks) / m_tick / dt;
            cpu += share;
            const std::string entity = "process " + std::to_string(pid) + " " + p.name;
            m_out.value(t, entity, "cpu", "%", share);
            m_out.value(t, entity, "resident memory", "MiB", p.rssMiB);
            m_out.value(t, entity, "disk read", "MB/s", double(p.readBytes - before->second.readBytes) / 1e6 / dt);
            m_out.value(t, entity, "disk write", "MB/s", double(p.writeBytes - before->second.writeBytes) / 1e6 / dt);
        }
        if (!now.empty()) {
            if (dt > 0)
                m_out.value(t, "command", "cpu", "%", cpu);
            m_out.value(t, "command", "resident memory", "MiB", rss);
            m_out.value(t, "command", "processes", "", double(now.size()));
        }
        m_procs = std::move(now);
    }

    SamplesFile &m_out;
    std::string m_buf;
    double m_tick = 100, m_pageMiB = 4.0 / 1024;
    Ns m_last = 0;
    std::vector<CpuTimes> m_cpus;
    std::set<std::string> m_disks;
    std::uint64_t m_diskRead = 0, m_diskWrite = 0, m_netRx = 0, m_netTx = 0;
    std::map<pid_t, ProcTimes> m_procs;
};

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
        outFd = ::open(QFile::encodeName(outPath).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (outFd < 0) {
            *error = QStringLiteral("cannot write %1: %2").arg(outPath, QString::fromLocal8Bit(std::strerror(errno)));
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
        return QStringLiteral("signal %1 (%2)").arg(WTERMSIG(status)).arg(QString::fromLocal8Bit(strsignal(WTERMSIG(status))));
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
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson(QJsonDocument::Indented)) < 0 || !f.commit()) {
        *error = f.errorString();
        return false;
    }
    return true;
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
        err << "grademl record: cannot write " << samplesPath << ": " << QString::fromLocal8Bit(std::strerror(errno)) << '\n';
        return 2;
    }
    const int intervalMs = std::max(1, int(o.intervalNs / 1'000'000));
    std::vector<Tool> tools = {
        {QStringLiteral("nvidia-smi"), QStringLiteral("nvidia-smi.csv"),
         {QStringLiteral("--query-gpu=timestamp,index,name,uuid,utilization.gpu,utilization.memory,memory.used,"
                         "memory.total,power.draw,temperature.gpu,clocks.sm"),
          QStringLiteral("--format=csv"), QStringLiteral("-lms"), QString::number(intervalMs)},
         o.nvidiaSmi, -1, {}},
        {QStringLiteral("dcgmi"), QStringLiteral("dcgmi-dmon.txt"),
         {QStringLiteral("dmon"), QStringLiteral("-e"), QStringLiteral("203,204,252,155,1001,1002,1003,1004,1005"),
          QStringLiteral("-d"), QString::number(std::max(100, intervalMs))},
         o.dcgmi, -1, {}},
    };
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
    QJsonObject toolState;
    for (Tool &t : tools) {
        if (t.path == QLatin1String("none")) {
            t.state = QStringLiteral("skipped (--%1 none)").arg(t.name);
        } else {
            const QString exe = t.path.isEmpty() ? QStandardPaths::findExecutable(t.name) : t.path;
            if (exe.isEmpty() || !QFileInfo(exe).isExecutable()) {
                t.state = QStringLiteral("not found: skipped");
                err << "grademl record: " << t.name << " not found on PATH: its samples are skipped\n";
            } else {
                t.pid = spawn(QStringList{exe} + t.args, dir + QLatin1Char('/') + t.file, true, &error);
                t.state = t.pid > 0 ? QStringLiteral("recorded to %1").arg(t.file) : QStringLiteral("failed to start: %1").arg(error);
                if (t.pid <= 0)
                    err << "grademl record: " << t.name << " did not start (" << error << "): its samples are skipped\n";
            }
        }
        toolState.insert(t.name, t.state);
    }
    rec.insert(QStringLiteral("tools"), toolState);

    struct sigaction sa = {};
    sa.sa_sigaction = onSignal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
        sigaction(sig, &sa, nullptr);

    const Ns wallStart = nowNs(CLOCK_REALTIME);
    rec.insert(QStringLiteral("start"), QDateTime::fromMSecsSinceEpoch(wallStart / 1'000'000, QTimeZone::systemTimeZone())
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
    const Ns monoStart = nowNs(CLOCK_MONOTONIC);
    Ns next = monoStart;
    std::int64_t ticks = 0;
    for (bool running = child > 0; running;) {
        if (::waitpid(child, &status, WNOHANG) == child)
            break;
        sampler.sample(nowNs(CLOCK_REALTIME), child);
        ++ticks;
        next += o.intervalNs;
        const Ns mono = nowNs(CLOCK_MONOTONIC);
        if (next < mono) // a slow sample: the next one on the grid, not a burst to catch up
            next = mono + o.intervalNs - (mono - next) % o.intervalNs;
        timespec until{time_t(next / 1'000'000'000), long(next % 1'000'000'000)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
            if (::waitpid(child, &status, WNOHANG) == child) {
                running = false; // ended while we slept: sampled once more below
                break;
            }
        }
    }
    g_child = 0;
    const Ns wallEnd = nowNs(CLOCK_REALTIME);
    sampler.sample(wallEnd, 0); // the host after the command
    for (Tool &t : tools)
        if (t.pid > 0) {
            const auto [toolStatus, endedEarly] = stopTool(t.pid);
            const QString file = dir + QLatin1Char('/') + t.file;
            QFile f(file);
            const QByteArray head = f.open(QIODevice::ReadOnly) ? f.read(256) : QByteArray();
            // A tool that failed at once (no driver) wrote its complaint, not samples.
            const bool samplesWritten = t.name == QLatin1String("nvidia-smi") ? head.startsWith("timestamp") : head.contains("Entity");
            if (endedEarly && !samplesWritten) {
                const QString kept = file + QStringLiteral(".error.txt");
                QFile::remove(kept);
                QFile::rename(file, kept);
                t.state = QStringLiteral("failed (%1): %2").arg(describeStatus(toolStatus), QString::fromUtf8(head).section(QLatin1Char('\n'), 0, 0).trimmed());
                err << "grademl record: " << t.name << " " << t.state << "; its output is in " << kept << '\n';
            }
            toolState.insert(t.name, t.state);
        }
    rec.insert(QStringLiteral("tools"), toolState);

    rusage self{};
    getrusage(RUSAGE_SELF, &self);
    const double cpuS = double(self.ru_utime.tv_sec + self.ru_stime.tv_sec) + double(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
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
        how = (WIFEXITED(status) ? QStringLiteral("exited with ") : QStringLiteral("ended by ")) + describeStatus(status);
    }
    rec.insert(QStringLiteral("status"), g_signals > 0 ? QStringLiteral("interrupted") : QStringLiteral("finished"));
    rec.insert(QStringLiteral("exit"), how);
    rec.insert(QStringLiteral("exit_status"), exitCode);
    if (child > 0 && WIFSIGNALED(status))
        rec.insert(QStringLiteral("signal"), WTERMSIG(status));
    rec.insert(QStringLiteral("end"), QDateTime::fromMSecsSinceEpoch(wallEnd / 1'000'000, QTimeZone::systemTimeZone())
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
    err << QStringLiteral("grademl record: the recorder used %1% of one core (%2 s CPU) and %3 MiB resident (%4 MiB proportional)\n")
               .arg(wallS > 0 ? 100 * cpuS / wallS : 0, 0, 'f', 2)
               .arg(cpuS, 0, 'f', 3)
               .arg(rssMiB, 0, 'f', 1)
               .arg(pss, 0, 'f', 1);
    out.flush();
    return exitCode;
}

} // namespace gml::rec
