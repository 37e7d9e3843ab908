// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the monitoring-log importers (nvidia-smi, dcgmi, top; monitoringimporters.h is
// their public face): the pieces every one of them reads its log with.

#include "monitoringimporters.h"
#include "tracewriter.h"

#include <QByteArrayView>
#include <QHash>
#include <QJsonObject>
#include <QSet>
#include <QString>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

class QDateTime;
class QTimeZone;

namespace gml::monitorlog {

constexpr TimeNs kSecond = 1'000'000'000;
constexpr TimeNs kDefaultPeriod = kSecond;
constexpr TimeNs kSampleGap = 100'000'000; // rows this far apart belong to different samples
constexpr qint64 kMaxLogBytes = qint64(1) << 30;

// One line of a text log and where it starts in the (decompressed) file.
struct Line
{
    QByteArrayView text; // without the line break
    qint64 offset = 0;
};

struct TextFile
{
    QByteArray data;
    std::vector<Line> lines;
};

// Whitespace-separated tokens with their column positions.
struct Token
{
    QByteArrayView text;
    qsizetype column = 0;
};
std::vector<QByteArrayView> split(QByteArrayView v, char sep);
std::vector<Token> tokens(QByteArrayView line);
// A finite number, all of `v` (or its head, the rest in *rest).
std::optional<double> parseNumber(QByteArrayView v, QByteArrayView *rest = nullptr);
// "N/A", "[Not Supported]" and the like.
bool isMissing(QByteArrayView v);
QString text(QByteArrayView v);
// Saturated just past the writer's limits (see monitoringimporters.cpp).
TimeNs toNs(const QDateTime &dt);
TimeNs fileMtimeNs(const QString &path);
bool readText(const QString &path, TextFile &out, QString *error);
// `data` into lines; `fileOffset` maps a position in it to the file's (a log read in parts).
void splitLines(QByteArray data, TextFile &out,
                const std::function<qint64(qint64)> &fileOffset = {});

// Creates the device tracks and one counter track per (device, metric) as they first appear.
class MonitorSink
{
public:
    MonitorSink(TraceWriter &w, QString tool) : m_w(w), m_tool(std::move(tool)) {}

    void setEstimated(bool estimated) { m_estimated = estimated; }

    TrackId gpu(int index, const QString &name)
    {
        const QString key = QStringLiteral("gpu:%1").arg(index);
        if (auto it = m_devices.constFind(key); it != m_devices.constEnd())
            return *it;
        TrackSpec spec;
        spec.kind = TrackKind::Gpu;
        spec.name = name.isEmpty() ? QStringLiteral("GPU %1").arg(index)
                                   : QStringLiteral("GPU %1 · %2").arg(index).arg(name);
        spec.sortKey = 1'000'000 + index;
        spec.pid = QString::number(index);
        spec.tid = QStringLiteral("monitor");
        const TrackId id = m_w.addTrack(spec);
        m_devices.insert(key, id);
        return id;
    }

    TrackId host(const QString &name)
    {
        const QString key = QStringLiteral("host:") + name;
        if (auto it = m_devices.constFind(key); it != m_devices.constEnd())
            return *it;
        TrackSpec spec;
        spec.kind = TrackKind::Host;
        spec.name = name;
        spec.sortKey = 2'000'000;
        spec.tid = QStringLiteral("monitor");
        const TrackId id = m_w.addTrack(spec);
        m_devices.insert(key, id);
        return id;
    }

    void sample(TrackId device, const QString &metric, const QString &unit, TimeNs ts, double v)
    {
        const QString key = QString::number(device) + QLatin1Char('\x1f') + metric;
        auto it = m_counters.find(key);
        if (it == m_counters.end()) {
            TrackSpec spec;
            spec.parent = device;
            spec.kind = TrackKind::Counter;
            spec.name = m_tool + QStringLiteral(" · ") + metric +
                        (m_estimated ? QStringLiteral(" (time estimated)") : QString());
            spec.sortKey = m_counters.size();
            spec.unit = unit;
            it = m_counters.insert(key, m_w.addTrack(spec));
        }
        m_w.addCounter(*it, ts, v);
        ++m_samples;
    }

    qint64 samples() const { return m_samples; }

private:
    TraceWriter &m_w;
    QString m_tool;
    bool m_estimated = false;
    QHash<QString, TrackId> m_devices;
    QHash<QString, TrackId> m_counters;
    qint64 m_samples = 0;
};

// "utilization.gpu [%]" -> ("utilization.gpu", "%").
std::pair<QString, QString> splitHeader(QByteArrayView field);
std::vector<QByteArrayView> splitCsv(QByteArrayView line);
bool looksLikeQueryHeader(QByteArrayView line);
std::optional<QDateTime> parseSmiTimestamp(QByteArrayView v, const QTimeZone &zone);

// The parsed form of an nvidia-smi query CSV, shared by the importer and the anchor search.
struct SmiColumns
{
    std::vector<std::pair<QString, QString>> names; // (field, unit)
    int timestamp = -1, index = -1, name = -1, uuid = -1, busId = -1, memTotal = -1;
};

SmiColumns smiColumns(QByteArrayView header);

// dmon: "#Date Time gpu pwr ..." / "# gpu pwr ...".
bool isDmonHeader(QByteArrayView line);
std::optional<QDateTime> parseDmonDateTime(QByteArrayView date, QByteArrayView time,
                                           const QTimeZone &zone);

ImportOutcome failed(qint64 offset, const QString &message);

// What every log import shares: the file's lines, folded warnings and the source metadata.
struct LogImport
{
    TextFile file;
    WarningLog warnings;
    QJsonObject meta;
};

// Reads the log and records the time zone its local times are read in; a failure on error.
std::optional<ImportOutcome> startLog(ImportContext &ctx, LogImport &log);
ImportOutcome finishLog(ImportContext &ctx, const LogImport &log);
bool reportProgress(ImportContext &ctx, const LogImport &log, qint64 offset);

// The prelude of a log that starts with a header and, under it, a units line (nvidia-smi dmon,
// dcgmi dmon): the first header and its units line, read once (`prelude` already holds them
// after the first part). Nullopt when the first line is not a header (the whole-file read says
// why); empty while no line has come.
std::optional<QByteArray> headerPrelude(QByteArrayView prelude, QByteArrayView lines,
                                        bool (*isHeader)(QByteArrayView),
                                        bool (*isUnits)(QByteArrayView));

// Places samples without absolute times: the sibling anchor, else the file's modification
// time as the last sample's time. Records the rule in the source metadata.
TimeNs estimatedStart(ImportContext &ctx, qint64 samples, TimeNs period, QJsonObject &meta);

// The samples of a log without times (dcgmi dmon, nvidia-smi without timestamps): a new
// sample starts where a device of the current one repeats; samples are placed one period apart
// from estimatedStart. A followed log read
// in parts (ImportContext::Tail) carries the numbering and the start from one part to the
// next in its tail state, so its parts place every sample where a one-shot read of the file
// at the time of the first part would (the start is fixed then: the file's time at that
// point, or the sibling anchor).
class SamplePlacement
{
public:
    explicit SamplePlacement(const ImportContext &ctx);
    // The sample of the next row, from its device.
    qint64 next(const QString &device);
    // Sample 0's time (once every row was numbered); saves the state for the next part.
    TimeNs start(ImportContext &ctx, QJsonObject &meta);

private:
    qint64 m_sample = 0;
    bool m_any = false; // a row was numbered, in this part or before
    QSet<QString> m_inSample;
    std::optional<TimeNs> m_start;
};

} // namespace gml::monitorlog
