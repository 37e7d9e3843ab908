// SPDX-License-Identifier: GPL-3.0-or-later
// The recorder's /proc sampler (procsampler.h).
#include "procsampler.h"

#include <QDir>
#include <QFile>

#include <charconv>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace gml::rec {

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

namespace {

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

} // namespace

// The first number of a line, 0 when it has none (a /proc file of an unexpected shape never
// stops the recording).
std::uint64_t firstNumber(std::string_view line)
{
    const auto v = numbers(line);
    return v.empty() ? 0 : v.front();
}

Sampler::Sampler(SamplesFile &out) : m_out(out)
{
    m_tick = double(sysconf(_SC_CLK_TCK));
    m_pageMiB = double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
    // Whole disks (their partitions would count the same bytes twice).
    for (const QString &d :
         QDir(QStringLiteral("/sys/block")).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (!d.startsWith(QLatin1String("loop")) && !d.startsWith(QLatin1String("ram")))
            m_disks.insert(d.toStdString());
}

void Sampler::sample(Ns t, pid_t root)
{
    const double dt = m_last > 0 ? double(t - m_last) / 1e9 : 0;
    host(t, dt);
    if (root > 0)
        tree(t, dt, root);
    m_last = t;
    m_out.flush();
}

void Sampler::host(Ns t, double dt)
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
                    m_out.value(t, "host", "cpu busy cores", "cores",
                                busy / 100.0 * double(now.size() - 1));
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
            const std::string_view name =
                l.substr(l.find_first_not_of(' '), colon - l.find_first_not_of(' '));
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

std::vector<pid_t> Sampler::descendants(pid_t root)
{
    std::vector<pid_t> out{root};
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", root, root);
    if (::access(path, R_OK) == 0) {
        for (size_t i = 0; i < out.size(); ++i) {
            const QDir tasks(QStringLiteral("/proc/%1/task").arg(out[i]));
            for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                std::snprintf(path, sizeof path, "/proc/%d/task/%s/children", out[i],
                              tid.toLatin1().constData());
                if (readProc(path, m_buf))
                    for (auto c : numbers(m_buf))
                        out.push_back(pid_t(c));
            }
        }
        return out;
    }
    std::multimap<pid_t, pid_t> children;
    for (const QString &entry :
         QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
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

void Sampler::tree(Ns t, double dt, pid_t root)
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
        m_out.value(t, entity, "disk read", "MB/s",
                    double(p.readBytes - before->second.readBytes) / 1e6 / dt);
        m_out.value(t, entity, "disk write", "MB/s",
                    double(p.writeBytes - before->second.writeBytes) / 1e6 / dt);
    }
    if (!now.empty()) {
        if (dt > 0)
            m_out.value(t, "command", "cpu", "%", cpu);
        m_out.value(t, "command", "resident memory", "MiB", rss);
        m_out.value(t, "command", "processes", "", double(now.size()));
    }
    m_procs = std::move(now);
}

} // namespace gml::rec
