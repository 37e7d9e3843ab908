// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcesmodel.h"

#include "timeformat.h"

#include <QFileInfo>
#include <QJsonObject>

namespace gml {

namespace {

QString clockText(const SourceAlignment &a)
{
    const auto sign = [](TimeNs v) -> QString {
        return (v < 0 ? QStringLiteral("−") : QStringLiteral("+")) + formatDuration(v < 0 ? -v : v);
    };
    if (a.source == a.reference && !a.user)
        return SourcesModel::tr("reference");
    if (a.user)
        return SourcesModel::tr("%1 (set by you)").arg(sign(a.applied));
    if (a.computed && a.significant)
        return SourcesModel::tr("%1 ± %2").arg(sign(a.applied), formatDuration(a.residual));
    if (a.computed)
        return SourcesModel::tr("same clock (%1 ± %2)")
            .arg(sign(*a.computed), formatDuration(a.residual));
    return SourcesModel::tr("not aligned");
}

RowsModel::Row warningRow(const QJsonValue &w)
{
    const auto o = w.toObject();
    QString text = o.value(QStringLiteral("message")).toString();
    if (text.isEmpty())
        text = w.toString();
    const int count = o.value(QStringLiteral("count")).toInt(1);
    if (count > 1)
        text += SourcesModel::tr(" (%1 times)").arg(count);
    RowsModel::Row child;
    child.cells.resize(SourcesModel::Message + 1);
    child.cells[SourcesModel::Status].text = SourcesModel::tr("warning");
    child.cells[SourcesModel::Message].text = text;
    child.cells[SourcesModel::Message].toolTip = text;
    return child;
}

} // namespace

SourcesModel::SourcesModel(QObject *parent)
    : RowsModel({tr("File"), tr("Status"), tr("Format"), tr("Slices"), tr("Counters"), tr("Flows"),
                 tr("Clock"), tr("Message")},
                parent)
{
    setHeaderToolTip(Clock, tr("The offset added to a rank's times to align it with the run's "
                               "reference rank (matched collective kernel ends), and its "
                               "residual. Right-click to override."));
}

const SourcesModel::Source *SourcesModel::sourceAt(const QModelIndex &index) const
{
    const QModelIndex top = index.parent().isValid() ? index.parent() : index;
    const QVariant i = rowData(top);
    return i.isValid() && i.toInt() < int(m_sources.size()) ? &m_sources[size_t(i.toInt())]
                                                            : nullptr;
}

void SourcesModel::setRuns(const QList<RunSummary> &runs)
{
    std::vector<Row> rows;
    m_sources.clear();
    m_failed = 0;
    for (const auto &run : runs) {
        for (const auto &s : run.sources) {
            Source src{qint64(s.id), QFileInfo(s.path).fileName(),
                       s.status == QLatin1String("imported"), 0, false};
            Row row;
            row.cells.resize(Message + 1);
            row.data = int(m_sources.size());
            row.cells[File].text = src.file;
            row.cells[File].toolTip = s.path;
            row.cells[Status].text = s.status;
            row.cells[Format].text = s.format;
            row.cells[Slices] = number(QString::number(s.slices), double(s.slices));
            row.cells[Counters] =
                number(QString::number(s.counterSamples), double(s.counterSamples));
            row.cells[Flows] = number(QString::number(s.flows), double(s.flows));
            if (s.alignment) {
                const auto &a = *s.alignment;
                row.cells[Clock].text = clockText(a);
                row.cells[Clock].toolTip = describeAlignment(a);
                row.cells[Clock].sortKey = qint64(a.applied);
                if (a.user || a.significant)
                    row.cells[Clock].foreground = QColor(0x1f, 0x6f, 0xb5);
                src.appliedOffset = qint64(a.applied);
                src.overridden = a.user.has_value();
            }
            if (s.status == QLatin1String("failed")) {
                ++m_failed;
                row.cells[Status].foreground = QColor(0xc6, 0x28, 0x28);
                row.cells[Message].text = s.error;
            } else if (s.status == QLatin1String("skipped")) {
                row.cells[Status].foreground = QColor(0x6a, 0x72, 0x7c);
                row.cells[Message].text = s.error;
            } else if (s.warningCount > 0) {
                row.cells[Message].text = tr("%n warning(s)", nullptr, int(s.warningCount));
            }
            row.cells[Message].toolTip = row.cells[Message].text;
            for (const auto &w : s.warnings)
                row.children.push_back(warningRow(w));
            rows.push_back(std::move(row));
            m_sources.push_back(std::move(src));
        }
    }
    setRows(std::move(rows));
}

} // namespace gml
