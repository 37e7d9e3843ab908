// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracediffmodel.h"

#include "timeformat.h"

#include <cmath>

namespace gml {

namespace {

QString countText(double c)
{
    return std::abs(c - std::round(c)) < 1e-9 ? QString::number(qint64(std::llround(c)))
                                              : QString::number(c, 'f', 2);
}

TimeNs ns(double t)
{
    return TimeNs(std::llround(t));
}

} // namespace

TraceDiffModel::TraceDiffModel(QObject *parent)
    : RowsModel({tr("Name"), tr("A"), tr("B"), tr("B \u2212 A"), tr("%"), tr("Count A"),
                 tr("Count B"), tr("Call path")},
                parent)
{
    setHeaderToolTip(DeltaPct, tr("B against A; 'new' where A has none"));
}

void TraceDiffModel::clear()
{
    setRows({});
    setHeader(TimeA, tr("A"));
    setHeader(TimeB, tr("B"));
}

void TraceDiffModel::setLevel(const sim::DiffLevel &level)
{
    const QColor slower(0xb0, 0x30, 0x30), faster(0x2a, 0x7a, 0x2a);
    std::vector<Row> rows;
    rows.reserve(level.rows.size());
    for (const sim::DiffRow &r : level.rows) {
        Row row;
        row.data = r.name;
        const double pct = r.timeA > 0 ? 100 * r.delta() / r.timeA : 0;
        const double pctKey = r.timeA > 0 ? pct : 1e300; // "new" past every change
        row.cells = {
            Cell{r.name, {}, r.path},
            number(formatDuration(ns(r.timeA)), r.timeA),
            number(formatDuration(ns(r.timeB)), r.timeB),
            number(formatSignedDuration(ns(r.delta())), r.delta()),
            number(r.timeA > 0 ? QStringLiteral("%1%2%")
                                     .arg(r.delta() >= 0 ? QStringLiteral("+") : QString())
                                     .arg(pct, 0, 'f', 1)
                               : tr("new"),
                   pctKey),
            number(countText(r.countA), r.countA),
            number(countText(r.countB), r.countB),
            Cell{r.path},
        };
        if (r.delta() != 0)
            row.cells[Delta].foreground = r.delta() > 0 ? slower : faster;
        if (r.countDelta() != 0) {
            row.cells[CountB].foreground = slower;
            row.cells[CountB].toolTip =
                tr("%1 per iteration in A, %2 in B").arg(countText(r.countA), countText(r.countB));
        }
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
    setHeader(TimeA, tr("A (%1)").arg(formatDuration(ns(level.totalA))));
    setHeader(TimeB, tr("B (%1)").arg(formatDuration(ns(level.totalB))));
}

} // namespace gml
