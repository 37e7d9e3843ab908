// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The recorder's sampler: what /proc says of the host and of the recorded command's process
// tree, written to grademl-samples.csv (importers/recorder/samplesimporter.h reads it).

#include "outputfile.h"

#include <QFile>
#include <QString>

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>
#include <time.h>

namespace gml::rec {

using Ns = std::int64_t;

Ns nowNs(clockid_t clock);
// A small /proc file read whole (they are generated on read: one read() is one snapshot).
bool readProc(const char *path, std::string &buf);
// The first number of a line, 0 when it has none (a /proc file of an unexpected shape never
// stops the recording).
std::uint64_t firstNumber(std::string_view line);

template <typename F> void forEachLine(std::string_view text, F &&f)
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

// The samples file (importers/recorder/samplesimporter.h): series declared once, then
// "time_ns,series,value" rows; flushed after every sample.
class SamplesFile
{
public:
    bool open(const QString &path, const QString &host)
    {
        // Appended to as samples come, so not through a temporary file; but never a link, a
        // device or a project (outputfile.h).
        if (!outputRefusal(path).isEmpty())
            return false;
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
            std::fprintf(m_file, "series,%d,%s,%s,%s\n", it->second, clean(entity).c_str(), metric,
                         unit);
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
    std::uint64_t ticks = 0;     // utime + stime
    std::uint64_t startTime = 0; // tells a reused pid apart
    std::uint64_t readBytes = 0, writeBytes = 0;
    double rssMiB = 0;
    std::string name;
};

// What /proc says of the host and of one process tree, as rates between two samples.
class Sampler
{
public:
    explicit Sampler(SamplesFile &out);

    void sample(Ns t, pid_t root);

private:
    void host(Ns t, double dt);

    // The process and its descendants: through /proc/PID/task/TID/children, else a scan of
    // every process's parent.
    std::vector<pid_t> descendants(pid_t root);

    void tree(Ns t, double dt, pid_t root);

    SamplesFile &m_out;
    std::string m_buf;
    double m_tick = 100, m_pageMiB = 4.0 / 1024;
    Ns m_last = 0;
    std::vector<CpuTimes> m_cpus;
    std::set<std::string> m_disks;
    std::uint64_t m_diskRead = 0, m_diskWrite = 0, m_netRx = 0, m_netTx = 0;
    std::map<pid_t, ProcTimes> m_procs;
};

} // namespace gml::rec
