// SPDX-License-Identifier: GPL-3.0-or-later
// What the monitoring-log importers share (monitorlog.h): reading a log's lines, tokens and
// numbers, the device and counter tracks, nvidia-smi's CSV header and timestamps, and the time
// anchor a log without absolute times borrows from a sibling log.
#include "monitorlog.h"

#include "inputstream.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gml {

namespace monitorlog {

bool readText(const QString &path, TextFile &out, QString *error)
{
    auto buf = InputStream::readAll(path, kMaxLogBytes, QStringLiteral("a monitoring log"), error);
    if (!buf)
        return false;
    splitLines(std::move(*buf), out);
    return true;
}

void splitLines(QByteArray data, TextFile &out, const std::function<qint64(qint64)> &fileOffset)
{
    out.data = std::move(data);
    out.lines.clear();
    const QByteArrayView all(out.data);
    qsizetype pos = 0;
    while (pos < all.size()) {
        qsizetype nl = all.indexOf('\n', pos);
        if (nl < 0)
            nl = all.size();
        QByteArrayView line = all.sliced(pos, nl - pos);
        if (line.endsWith('\r'))
            line.chop(1);
        out.lines.push_back({line, fileOffset ? fileOffset(pos) : pos});
        pos = nl + 1;
    }
}

std::vector<QByteArrayView> split(QByteArrayView v, char sep)
{
    std::vector<QByteArrayView> out;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= v.size(); ++i)
        if (i == v.size() || v[i] == sep) {
            out.push_back(v.sliced(start, i - start));
            start = i + 1;
        }
    return out;
}

std::vector<Token> tokens(QByteArrayView line)
{
    std::vector<Token> out;
    qsizetype i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const qsizetype start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start)
            out.push_back({line.sliced(start, i - start), start});
    }
    return out;
}

std::optional<double> parseNumber(QByteArrayView v, QByteArrayView *rest)
{
    v = v.trimmed();
    double d = 0;
    const char *b = v.data(), *e = v.data() + v.size();
    if (b != e && *b == '+')
        ++b;
    const auto r = std::from_chars(b, e, d);
    if (r.ec != std::errc() || !std::isfinite(d))
        return std::nullopt;
    if (rest)
        *rest = QByteArrayView(r.ptr, e - r.ptr).trimmed();
    else if (r.ptr != e)
        return std::nullopt;
    return d;
}

bool isMissing(QByteArrayView v)
{
    v = v.trimmed();
    return v.isEmpty() || v == "N/A" || v == "-" || v.startsWith("[N/A") ||
           v.startsWith("[Not Supported") || v.startsWith("[Unknown") ||
           v == "[Insufficient Permissions]";
}

QString text(QByteArrayView v)
{
    return QString::fromUtf8(v.data(), v.size());
}

// Saturated just past the writer's limits, which then refuse the sample with a warning (a
// date in year 4046 overflowed the multiplication; found by fuzz_dmon).
TimeNs toNs(const QDateTime &dt)
{
    constexpr qint64 limitMs = kMaxAbsTimeNs / 1'000'000 + 1;
    return std::clamp<qint64>(dt.toMSecsSinceEpoch(), -limitMs, limitMs) * 1'000'000;
}

TimeNs fileMtimeNs(const QString &path)
{
    return QFileInfo(path).lastModified().toMSecsSinceEpoch() * 1'000'000;
}

// "utilization.gpu [%]" -> ("utilization.gpu", "%").
std::pair<QString, QString> splitHeader(QByteArrayView field)
{
    const QString f = text(field.trimmed());
    const qsizetype open = f.indexOf(QLatin1Char('['));
    if (open > 0 && f.endsWith(QLatin1Char(']')))
        return {f.left(open).trimmed(), f.mid(open + 1, f.size() - open - 2).trimmed()};
    return {f, {}};
}

std::vector<QByteArrayView> splitCsv(QByteArrayView line)
{
    auto out = split(line, ',');
    for (auto &f : out)
        f = f.trimmed();
    return out;
}

bool looksLikeQueryHeader(QByteArrayView line)
{
    static const QRegularExpression field(QStringLiteral(R"(^[a-z][a-z0-9_.]*( \[[^\]]*\])?$)"));
    const auto fields = splitCsv(line);
    if (fields.size() < 2)
        return false;
    bool known = false;
    for (const auto &f : fields) {
        const QString s = text(f);
        if (!field.match(s).hasMatch())
            return false;
        known = known || s.contains(QLatin1Char('.')) || s == QLatin1String("timestamp") ||
                s == QLatin1String("index") || s == QLatin1String("uuid") ||
                s == QLatin1String("pstate");
    }
    return known;
}

std::optional<QDateTime> parseSmiTimestamp(QByteArrayView v, const QTimeZone &zone)
{
    const QString s = text(v.trimmed());
    QDateTime dt = QDateTime::fromString(s, QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz"));
    if (!dt.isValid())
        dt = QDateTime::fromString(s, QStringLiteral("yyyy/MM/dd HH:mm:ss"));
    if (!dt.isValid())
        return std::nullopt;
    return QDateTime(dt.date(), dt.time(), zone);
}

SmiColumns smiColumns(QByteArrayView header)
{
    SmiColumns c;
    const auto fields = splitCsv(header);
    for (size_t i = 0; i < fields.size(); ++i) {
        c.names.push_back(splitHeader(fields[i]));
        const QString &n = c.names.back().first;
        const int k = int(i);
        if (n == QLatin1String("timestamp"))
            c.timestamp = k;
        else if (n == QLatin1String("index"))
            c.index = k;
        else if (n == QLatin1String("name") || n == QLatin1String("gpu_name"))
            c.name = k;
        else if (n == QLatin1String("uuid") || n == QLatin1String("gpu_uuid"))
            c.uuid = k;
        else if (n == QLatin1String("pci.bus_id") || n == QLatin1String("gpu_bus_id"))
            c.busId = k;
        else if (n == QLatin1String("memory.total"))
            c.memTotal = k;
    }
    return c;
}

// dmon: "#Date Time gpu pwr ..." / "# gpu pwr ...", then "#YYYYMMDD HH:MM:SS Idx W ..." units.
bool isDmonHeader(QByteArrayView line)
{
    if (!line.startsWith('#'))
        return false;
    const auto t = tokens(line.sliced(1));
    if (t.empty())
        return false;
    const auto first = t.front().text;
    return (first == "gpu" || (first == "Date" && t.size() > 2 && t[2].text == "gpu"));
}

std::optional<QDateTime> parseDmonDateTime(QByteArrayView date, QByteArrayView time,
                                           const QTimeZone &zone)
{
    const QDate d = QDate::fromString(text(date), QStringLiteral("yyyyMMdd"));
    const QTime t = QTime::fromString(text(time), QStringLiteral("HH:mm:ss"));
    if (!d.isValid() || !t.isValid())
        return std::nullopt;
    return QDateTime(d, t, zone);
}

// The first absolute time in one file, if it is a log with absolute timestamps.
std::optional<TimeNs> firstAbsoluteTime(const QString &path, const QTimeZone &zone)
{
    const QByteArray head = InputStream::head(path, 16 * 1024);
    if (head.isEmpty())
        return std::nullopt;
    std::vector<QByteArrayView> lines;
    for (QByteArrayView l : split(head, '\n'))
        lines.push_back(l.endsWith('\r') ? l.chopped(1) : l);
    if (lines.size() < 2)
        return std::nullopt;
    if (looksLikeQueryHeader(lines[0])) {
        const SmiColumns c = smiColumns(lines[0]);
        if (c.timestamp < 0)
            return std::nullopt;
        for (size_t i = 1; i < lines.size(); ++i) {
            const auto f = splitCsv(lines[i]);
            if (f.size() == c.names.size())
                if (auto dt = parseSmiTimestamp(f[size_t(c.timestamp)], zone))
                    return toNs(*dt);
        }
        return std::nullopt;
    }
    if (isDmonHeader(lines[0])) {
        const auto h = tokens(lines[0].sliced(1));
        if (h.front().text != "Date")
            return std::nullopt;
        for (size_t i = 1; i < lines.size(); ++i) {
            if (lines[i].startsWith('#'))
                continue;
            const auto t = tokens(lines[i]);
            if (t.size() >= 2)
                if (auto dt = parseDmonDateTime(t[0].text, t[1].text, zone))
                    return toNs(*dt);
        }
    }
    return std::nullopt;
}

ImportOutcome failed(qint64 offset, const QString &message)
{
    return ImportOutcome{ImportOutcome::Status::Failed, offset, message, {}};
}

// Reads the log and records the time zone its local times are read in; a failure on error.
std::optional<ImportOutcome> startLog(ImportContext &ctx, LogImport &log)
{
    QString error;
    if (ctx.tail) // a followed log, read in parts: its prelude and the lines appended (importer.h)
        splitLines(ctx.tail->text, log.file, [&ctx](qint64 at) { return ctx.fileOffset(at); });
    else if (!readText(ctx.path, log.file, &error))
        return failed(-1, error);
    // The tools write whole lines: a last line without its break was cut while being written
    // (the log copied or the job killed mid-line), and its last value may be cut too ("45" of
    // "456"). It is left out, and said; a file of that one line is read as it is.
    auto &lines = log.file.lines;
    if (lines.size() > 1 && !log.file.data.endsWith('\n') &&
        !lines.back().text.trimmed().isEmpty()) {
        log.warnings.add(
            QStringLiteral("cut"), lines.back().offset,
            QStringLiteral("the last line has no line break: the log was cut while it was being "
                           "written; that line is left out"));
        lines.pop_back();
    }
    log.meta.insert(QStringLiteral("time_zone"), QString::fromUtf8(ctx.timeZone.id()));
    return std::nullopt;
}

ImportOutcome finishLog(ImportContext &ctx, const LogImport &log)
{
    ctx.writer->setSourceMetadata(log.meta);
    ImportOutcome outcome;
    outcome.warnings = log.warnings.list();
    return outcome;
}

bool reportProgress(ImportContext &ctx, const LogImport &log, qint64 offset)
{
    const qint64 total = log.file.data.size();
    return !ctx.progress || ctx.progress(total > 0 ? double(offset) / double(total) : 0.0);
}

// Places samples without absolute times: the sibling anchor, else the file's modification
// time as the last sample's time. Records the rule in the source metadata.
TimeNs estimatedStart(ImportContext &ctx, qint64 samples, TimeNs period, QJsonObject &meta)
{
    meta.insert(QStringLiteral("time_estimated"), true);
    meta.insert(QStringLiteral("sampling_period_ns"), period);
    if (auto anchor = siblingTimeAnchor(ctx.path, ctx.timeZone)) {
        meta.insert(QStringLiteral("time_placement"),
                    QStringLiteral("first sample at the first timestamp of %1, one sample per %2 s")
                        .arg(anchor->from)
                        .arg(double(period) / 1e9));
        return anchor->start;
    }
    meta.insert(QStringLiteral("time_placement"),
                QStringLiteral("last sample at the file's modification time, one sample per %1 s")
                    .arg(double(period) / 1e9));
    return fileMtimeNs(ctx.path) - std::max<qint64>(samples - 1, 0) * period;
}

std::optional<QByteArray> headerPrelude(QByteArrayView prelude, QByteArrayView lines,
                                        bool (*isHeader)(QByteArrayView),
                                        bool (*isUnits)(QByteArrayView))
{
    if (!prelude.isEmpty())
        return prelude.toByteArray();
    QByteArray out;
    bool header = true;
    forEachLine(lines, [&](QByteArrayView line) {
        const QByteArrayView l = line.trimmed();
        if (l.isEmpty())
            return true;
        if (out.isEmpty()) {
            header = isHeader(l);
            if (header)
                out = line.toByteArray() + '\n';
            return header;
        }
        if (isUnits(l))
            out += line.toByteArray() + '\n';
        return false;
    });
    return header ? std::optional<QByteArray>(out) : std::nullopt;
}

SamplePlacement::SamplePlacement(const ImportContext &ctx)
{
    if (!ctx.tail)
        return;
    const QJsonObject &s = ctx.tail->state;
    bool ok = false;
    const TimeNs start = s.value(QStringLiteral("start")).toString().toLongLong(&ok);
    if (!ok)
        return; // the first part with rows
    m_start = start;
    m_any = true;
    m_sample = s.value(QStringLiteral("sample")).toInteger();
    for (const QJsonValue &d : s.value(QStringLiteral("in_sample")).toArray())
        m_inSample.insert(d.toString());
}

qint64 SamplePlacement::next(const QString &device)
{
    if (m_inSample.contains(device)) {
        ++m_sample;
        m_inSample.clear();
    }
    m_inSample.insert(device);
    m_any = true;
    return m_sample;
}

TimeNs SamplePlacement::start(ImportContext &ctx, QJsonObject &meta)
{
    if (!m_start)
        m_start = estimatedStart(ctx, m_any ? m_sample + 1 : 0, kDefaultPeriod, meta);
    if (ctx.tail && m_any) {
        QJsonObject &s = ctx.tail->state;
        s.insert(QStringLiteral("start"), QString::number(*m_start)); // ns: past a double's 53 bits
        s.insert(QStringLiteral("sample"), m_sample);
        QJsonArray in;
        for (const QString &d : m_inSample)
            in.append(d);
        s.insert(QStringLiteral("in_sample"), in);
    }
    return *m_start;
}

} // namespace monitorlog

using monitorlog::firstAbsoluteTime;
using monitorlog::kMaxLogBytes;

std::optional<TimeAnchor> siblingTimeAnchor(const QString &path, const QTimeZone &zone)
{
    const QFileInfo self(path);
    const QDir dir = self.absoluteDir();
    std::optional<TimeAnchor> best;
    const auto entries = dir.entryInfoList(QDir::Files | QDir::Readable, QDir::Name);
    for (const QFileInfo &f : entries) {
        if (f.absoluteFilePath() == self.absoluteFilePath() || f.size() == 0 ||
            f.size() > kMaxLogBytes)
            continue;
        if (auto t = firstAbsoluteTime(f.absoluteFilePath(), zone))
            if (!best || *t < best->start)
                best = TimeAnchor{*t, f.fileName()};
    }
    return best;
}

} // namespace gml
