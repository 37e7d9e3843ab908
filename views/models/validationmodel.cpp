// SPDX-License-Identifier: GPL-3.0-or-later
#include "validationmodel.h"

#include "timeformat.h"

#include <cmath>

namespace gml {

namespace {

RowsModel::Row section(const QString &title)
{
    RowsModel::Row s;
    RowsModel::Cell c;
    c.text = title;
    c.bold = true;
    s.cells.push_back(c);
    return s;
}

RowsModel::Row validationRow(const sim::ValidationRow &r)
{
    RowsModel::Row row;
    RowsModel::Cell what;
    what.text = r.what;
    what.toolTip = r.what;
    row.cells.push_back(what);
    row.cells.push_back(RowsModel::number(formatDuration(r.measured), double(r.measured)));
    row.cells.push_back(RowsModel::number(formatDuration(r.predicted), double(r.predicted)));
    double e = r.error() * 100;
    if (std::abs(e) < 0.05)
        e = 0; // no "-0.0%"
    RowsModel::Cell err =
        RowsModel::number(r.measured > 0 ? QStringLiteral("%1%2%")
                                               .arg(e >= 0 ? QStringLiteral("+") : QString())
                                               .arg(e, 0, 'f', 1)
                                         : QStringLiteral("n/a"),
                          r.measured > 0 ? e : 0.0);
    // Within 5%: as good as the goal; past 10%: a miss.
    if (r.measured > 0 && std::abs(e) > 10)
        err.foreground = QColor(0xc0, 0x39, 0x2b);
    else if (r.measured > 0 && std::abs(e) <= 5)
        err.foreground = QColor(0x2e, 0x8b, 0x57);
    row.cells.push_back(err);
    return row;
}

} // namespace

ValidationModel::ValidationModel(QObject *parent)
    : RowsModel({tr("What"), tr("Measured"), tr("Predicted"), tr("Error")}, parent)
{
}

void ValidationModel::setReport(const sim::ValidationReport &report)
{
    std::vector<Row> rows;
    Row times = section(tr("Times"));
    times.children.push_back(validationRow(report.endToEnd));
    for (const auto &r : report.iterations)
        times.children.push_back(validationRow(r));
    rows.push_back(std::move(times));
    if (!report.families.isEmpty()) {
        Row families = section(tr("GPU time by kernel family (all ranks)"));
        for (const auto &r : report.families)
            families.children.push_back(validationRow(r));
        rows.push_back(std::move(families));
    }
    if (!report.operators.isEmpty()) {
        Row operators = section(tr("Largest operators by call path"));
        for (const auto &r : report.operators)
            operators.children.push_back(validationRow(r));
        rows.push_back(std::move(operators));
    }
    setRows(std::move(rows));
}

} // namespace gml
