// SPDX-License-Identifier: GPL-3.0-or-later
// dcgmi dmon logs.
#include "monitorlog.h"

#include <QDateTime>

#include <algorithm>
#include <cmath>

namespace gml {

using namespace monitorlog;

// --- dcgmi dmon -----------------------------------------------------------------------------

namespace {

struct DcgmField
{
    const char *name;
    const char *label;
    const char *unit;
};
// DCGM field short names (dcgmi dmon -l) with what they measure and their unit.
constexpr DcgmField kDcgmFields[] = {
    {"POWER", "power", "W"},
    {"TOTEC", "total energy", "mJ"},
    {"TXTPT", "PCIe TX throughput", "KB/s"},
    {"RXTPT", "PCIe RX throughput", "KB/s"},
    {"GPUTL", "GPU utilization", "%"},
    {"MCUTL", "memory copy utilization", "%"},
    {"GRACT", "graphics engine active", "ratio"},
    {"SMACT", "SM active", "ratio"},
    {"SMOCC", "SM occupancy", "ratio"},
    {"TENSO", "tensor pipe active", "ratio"},
    {"DRAMA", "DRAM active", "ratio"},
    {"FP64A", "FP64 pipe active", "ratio"},
    {"FP32A", "FP32 pipe active", "ratio"},
    {"FP16A", "FP16 pipe active", "ratio"},
    {"PCITX", "PCIe TX", "B/s"},
    {"PCIRX", "PCIe RX", "B/s"},
    {"NVLTX", "NVLink TX", "B/s"},
    {"NVLRX", "NVLink RX", "B/s"},
    {"SMCLK", "SM clock", "MHz"},
    {"MMCLK", "memory clock", "MHz"},
    {"TMPTR", "GPU temperature", "C"},
    {"MMTMP", "memory temperature", "C"},
    {"FBUSD", "framebuffer used", "MiB"},
    {"FBFRE", "framebuffer free", "MiB"},
};

} // namespace

SniffResult DcgmiDmonImporter::sniff(const QString &, const QByteArray &head) const
{
    const QByteArrayView h = QByteArrayView(head).trimmed();
    return h.startsWith("#Entity") || h.startsWith("# Entity") ? SniffResult{95, {}}
                                                               : SniffResult{};
}

std::optional<QByteArray> DcgmiDmonImporter::tailPrelude(QByteArrayView prelude,
                                                         QByteArrayView lines) const
{
    // The first header and the units line under it; dcgmi repeats them every few samples.
    return headerPrelude(
        prelude, lines,
        [](QByteArrayView l) { return l.startsWith("#Entity") || l.startsWith("# Entity"); },
        [](QByteArrayView l) { return l.startsWith("ID") || l.startsWith("# ID"); });
}

namespace {

// A field of the header after the entity column: its name, label and unit, where it starts.
struct DcgmiColumn
{
    QString name, label, unit;
    qsizetype position = 0;
    bool repeated = false; // a field named twice: its second column is not read
};

// A sample row: its entity ("GPU 0") and one value per field.
struct DcgmiRow
{
    QString entity;
    std::vector<Token> values;
    qint64 offset;
};

// The columns of the '#Entity POWER ...' header line, each field labelled and given its unit
// when DCGM's field table knows it.
void readDcgmiHeader(const Line &line, std::vector<DcgmiColumn> &columns, WarningLog &warnings)
{
    const QByteArrayView l = line.text;
    const auto t = tokens(l);
    for (size_t i = (t[0].text == "#" ? 2 : 1); i < t.size(); ++i) {
        DcgmiColumn c;
        c.name = text(t[i].text);
        c.position = t[i].column;
        c.label = c.name;
        c.repeated = std::any_of(columns.begin(), columns.end(),
                                 [&](const DcgmiColumn &o) { return o.name == c.name; });
        if (c.repeated)
            warnings.add(
                QStringLiteral("repeated column"), line.offset,
                QStringLiteral("the header names %1 twice (column %2 at byte %3); two series would "
                               "share one name, so the second column is not read")
                    .arg(c.name)
                    .arg(columns.size() + 1)
                    .arg(line.offset + t[i].column));
        for (const auto &f : kDcgmFields)
            if (c.name == QLatin1String(f.name)) {
                c.label = QStringLiteral("%1 (%2)").arg(c.name, QLatin1String(f.label));
                c.unit = QLatin1String(f.unit);
            }
        columns.push_back(c);
    }
}

// The units line under the header: each unit belongs to the column it sits under.
void readDcgmiUnits(QByteArrayView l, std::vector<DcgmiColumn> &columns)
{
    // Units sit under their column: take each token's column by position.
    for (const auto &t : tokens(l)) {
        if (t.text == "ID" || t.text == "#")
            continue;
        for (size_t i = columns.size(); i-- > 0;) {
            if (columns[i].position <= t.column) {
                QString u = text(t.text);
                if (u.endsWith(QLatin1Char('/')))
                    u += QLatin1Char('s'); // dcgmi truncates "KB/s" to the column width
                columns[i].unit = u;
                break;
            }
        }
    }
}

// The rows' samples, on the GPU or host entity each names, at the default period from the
// estimated start; false when cancelled.
bool writeDcgmiRows(const std::vector<DcgmiRow> &rows, const std::vector<DcgmiColumn> &columns,
                    ImportContext &ctx, LogImport &log)
{
    auto &warnings = log.warnings;
    auto &meta = log.meta;
    SamplePlacement placement(ctx);
    std::vector<qint64> sample;
    sample.reserve(rows.size());
    for (const DcgmiRow &row : rows)
        sample.push_back(placement.next(row.entity));
    MonitorSink sink(*ctx.writer, QStringLiteral("dcgmi"));
    sink.setEstimated(true);
    const TimeNs start = placement.start(ctx, meta);
    for (size_t i = 0; i < rows.size(); ++i) {
        const DcgmiRow &row = rows[i];
        if ((i & 1023) == 0 && !reportProgress(ctx, log, row.offset))
            return false;
        const TimeNs ts = start + TimeNs(sample[i]) * kDefaultPeriod;
        TrackId device = 0;
        if (row.entity.startsWith(QLatin1String("GPU "))) {
            bool ok = false;
            const int index = row.entity.mid(4).toInt(&ok);
            if (!ok) {
                warnings.add(
                    QStringLiteral("entity"), row.offset,
                    QStringLiteral("row at byte %1: entity '%2' has no GPU number; skipped")
                        .arg(row.offset)
                        .arg(row.entity));
                continue;
            }
            device = sink.gpu(index, {});
        } else {
            device = sink.host(row.entity); // GPU instances, switches, ...
        }
        for (size_t c = 0; c < columns.size(); ++c) {
            if (columns[c].repeated || isMissing(row.values[c].text))
                continue;
            const auto v = parseNumber(row.values[c].text);
            if (!v) {
                warnings.add(QStringLiteral("value:") + columns[c].name, row.offset,
                             QStringLiteral("row at byte %1: '%2' in column %3 is not a number; "
                                            "skipped")
                                 .arg(row.offset)
                                 .arg(text(row.values[c].text), columns[c].name));
                continue;
            }
            sink.sample(device, columns[c].label, columns[c].unit, ts, *v);
        }
    }
    return true;
}

} // namespace

ImportOutcome DcgmiDmonImporter::import(ImportContext &ctx) const
{
    LogImport log;
    if (auto failure = startLog(ctx, log))
        return *failure;
    auto &[file, warnings, meta] = log;
    std::vector<DcgmiColumn> columns; // after the entity column
    QByteArray firstHeader;
    qint64 badRows = 0;
    std::pair<qint64, QString> firstBadRow;
    bool expectUnits = false;
    std::vector<DcgmiRow> rows;
    for (const Line &line : file.lines) {
        const QByteArrayView l = line.text;
        if (l.trimmed().isEmpty())
            continue;
        if (l.startsWith("#Entity") || l.startsWith("# Entity")) {
            const QByteArray h = l.trimmed().toByteArray();
            if (!firstHeader.isEmpty()) {
                if (h != firstHeader)
                    return failed(line.offset, QStringLiteral("the column header changes mid-file; "
                                                              "expected the same fields as the "
                                                              "first header"));
                expectUnits = true;
                continue;
            }
            firstHeader = h;
            readDcgmiHeader(line, columns, warnings);
            expectUnits = true;
            continue;
        }
        if (expectUnits && (l.startsWith("ID") || l.startsWith("# ID"))) {
            expectUnits = false;
            readDcgmiUnits(l, columns);
            continue;
        }
        expectUnits = false;
        if (columns.empty())
            return failed(line.offset, QStringLiteral("expected the '#Entity POWER ...' header "
                                                      "line before the first sample"));
        auto t = tokens(l);
        if (t.size() < 2 || t.size() - 2 != columns.size()) {
            const QString message = QStringLiteral("row at byte %1 has %2 values, expected an "
                                                   "entity and %3 fields")
                                        .arg(line.offset)
                                        .arg(qsizetype(t.size()) - 2)
                                        .arg(columns.size());
            if (badRows++ == 0)
                firstBadRow = {line.offset, message};
            warnings.add(QStringLiteral("field count"), line.offset,
                         message + QStringLiteral("; skipped"));
            continue;
        }
        DcgmiRow row;
        row.entity = text(t[0].text) + QLatin1Char(' ') + text(t[1].text);
        row.values.assign(t.begin() + 2, t.end());
        row.offset = line.offset;
        rows.push_back(std::move(row));
    }
    if (rows.empty() && badRows > 0)
        return failed(firstBadRow.first,
                      QStringLiteral("none of the %1 sample rows matches the header (%2); "
                                     "expected 'dcgmi dmon' rows with one value per field")
                          .arg(badRows)
                          .arg(firstBadRow.second));
    if (rows.empty() && ctx.tail) // a followed log with no row yet
        return finishLog(ctx, log);
    if (rows.empty())
        return failed(0, QStringLiteral("no sample rows; expected 'dcgmi dmon' output"));

    if (!writeDcgmiRows(rows, columns, ctx, log))
        return ImportOutcome{ImportOutcome::Status::Cancelled, -1, {}, {}};
    return finishLog(ctx, log);
}

} // namespace gml
