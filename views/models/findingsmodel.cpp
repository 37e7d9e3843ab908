// SPDX-License-Identifier: GPL-3.0-or-later
#include "findingsmodel.h"

#include "timeformat.h"

#include <QGuiApplication>
#include <QPalette>

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
    // Text on the theme's base colour at a contrast of 4.5:1 or more (WCAG AA) in both: on
    // white 5.4, 5.1 and 6.4; on the dark theme's #26292E 5.8, 6.8 and 6.2.
    const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
    switch (s) {
    case sim::Severity::High:
        return dark ? QColor(0xff, 0x7b, 0x6b) : QColor(0xc0, 0x39, 0x2b);
    case sim::Severity::Medium:
        return dark ? QColor(0xe8, 0xa3, 0x3d) : QColor(0xa3, 0x5c, 0x00);
    case sim::Severity::Low:
        break;
    }
    return dark ? QColor(0xa8, 0xa8, 0xa8) : QColor(0x5f, 0x5f, 0x5f);
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
