// SPDX-License-Identifier: GPL-3.0-or-later
#include "findingsmodel.h"

#include "timeformat.h"

namespace gml {

namespace {

QString gainColumn(const sim::Finding &f)
{
    if (f.priced)
        return QStringLiteral("−%1%").arg(f.gain() * 100, 0, 'f', 1);
    return f.priceError.isEmpty() ? QStringLiteral("–") : QStringLiteral("?");
}

} // namespace

FindingsModel::FindingsModel(QObject *parent)
    : RowsModel({tr("Severity"), tr("Gain"), tr("Finding")}, parent)
{
}

QColor FindingsModel::severityColour(sim::Severity s)
{
    switch (s) {
    case sim::Severity::High:
        return QColor(0xc0, 0x39, 0x2b);
    case sim::Severity::Medium:
        return QColor(0xd6, 0x8a, 0x10);
    case sim::Severity::Low:
        break;
    }
    return QColor(0x60, 0x60, 0x60);
}

void FindingsModel::setFindings(const std::vector<sim::Finding> &findings)
{
    std::vector<Row> rows;
    rows.reserve(findings.size());
    for (size_t i = 0; i < findings.size(); ++i) {
        const sim::Finding &f = findings[i];
        Row row;
        row.data = int(i);
        Cell severity{sim::severityName(f.severity())};
        severity.foreground = severityColour(f.severity());
        severity.sortKey = int(f.severity());
        row.cells = {
            severity,
            Cell{gainColumn(f), f.priced ? QVariant(f.gain()) : QVariant(0.0), sim::gainText(f)},
            Cell{f.title, {}, f.title}};
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

EvidenceModel::EvidenceModel(QObject *parent) : RowsModel({tr("Evidence")}, parent) {}

void EvidenceModel::setEvidence(const std::vector<sim::Evidence> &evidence, TimeNs origin)
{
    std::vector<Row> rows;
    rows.reserve(evidence.size());
    for (const auto &e : evidence) {
        Row row;
        const QString text =
            QStringLiteral("%1  @ %2").arg(e.what, formatDuration(e.start - origin));
        row.cells.push_back({text, {}, text}); // the tooltip: the whole line, however narrow
        row.data = QVariant::fromValue(e);
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

} // namespace gml
