// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcespanel.h"

#include "timeformat.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonObject>
#include <QMenu>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace gml {

SourcesPanel::SourcesPanel(QWidget *parent) : QWidget(parent), m_tree(new QTreeWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    m_tree->setHeaderLabels({tr("File"), tr("Status"), tr("Format"), tr("Slices"), tr("Counters"),
                             tr("Flows"), tr("Clock"), tr("Message")});
    m_tree->headerItem()->setToolTip(Clock,
                                     tr("The offset added to a rank's times to align it with the "
                                        "run's reference rank (matched collective kernel ends), "
                                        "and its residual. Right-click to override."));
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QTreeWidget::customContextMenuRequested, this, &SourcesPanel::showContextMenu);
    m_tree->setRootIsDecorated(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(true);
}

void SourcesPanel::setRuns(const QList<RunSummary> &runs)
{
    m_tree->clear();
    m_failed = 0;
    for (const auto &run : runs) {
        for (const auto &s : run.sources) {
            auto *item = new QTreeWidgetItem(m_tree);
            item->setText(0, QFileInfo(s.path).fileName());
            item->setToolTip(0, s.path);
            item->setText(1, s.status);
            item->setText(2, s.format);
            item->setText(3, QString::number(s.slices));
            item->setText(4, QString::number(s.counterSamples));
            item->setText(5, QString::number(s.flows));
            for (int c = Slices; c <= Flows; ++c)
                item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
            item->setData(File, Qt::UserRole, qint64(s.id));
            if (s.alignment) {
                const auto &a = *s.alignment;
                const auto sign = [](TimeNs v) -> QString {
                    return (v < 0 ? QStringLiteral("−") : QStringLiteral("+")) +
                           formatDuration(v < 0 ? -v : v);
                };
                QString text;
                if (a.source == a.reference && !a.user)
                    text = tr("reference");
                else if (a.user)
                    text = tr("%1 (set by you)").arg(sign(a.applied));
                else if (a.computed && a.significant)
                    text = tr("%1 ± %2").arg(sign(a.applied), formatDuration(a.residual));
                else if (a.computed)
                    text = tr("same clock (%1 ± %2)")
                               .arg(sign(*a.computed), formatDuration(a.residual));
                else
                    text = tr("not aligned");
                item->setText(Clock, text);
                item->setToolTip(Clock, describeAlignment(a));
                item->setData(Clock, Qt::UserRole, qint64(a.applied));
                item->setData(Clock, Qt::UserRole + 1, bool(a.user));
                if (a.user || a.significant)
                    item->setForeground(Clock, QColor(0x1f, 0x6f, 0xb5));
            }
            if (s.status == QLatin1String("failed")) {
                ++m_failed;
                item->setForeground(1, QColor(0xc6, 0x28, 0x28));
                item->setText(Message, s.error);
            } else if (s.status == QLatin1String("skipped")) {
                item->setForeground(1, QColor(0x6a, 0x72, 0x7c));
                item->setText(Message, s.error);
            } else if (s.warningCount > 0) {
                item->setText(Message, tr("%n warning(s)", nullptr, int(s.warningCount)));
            }
            item->setToolTip(Message, item->text(Message));
            for (const auto &w : s.warnings) {
                const auto o = w.toObject();
                auto *child = new QTreeWidgetItem(item);
                QString text = o.value(QStringLiteral("message")).toString();
                if (text.isEmpty())
                    text = w.toString();
                const int count = o.value(QStringLiteral("count")).toInt(1);
                if (count > 1)
                    text += tr(" (%1 times)").arg(count);
                child->setText(Message, text);
                child->setToolTip(Message, text);
                child->setText(1, tr("warning"));
            }
        }
    }
    for (int c = File; c < Message; ++c)
        m_tree->resizeColumnToContents(c);
}

void SourcesPanel::showContextMenu(const QPoint &pos)
{
    QTreeWidgetItem *item = m_tree->itemAt(pos);
    if (item && item->parent())
        item = item->parent();
    if (!item || item->text(Status) != QLatin1String("imported"))
        return;
    const qint64 source = item->data(File, Qt::UserRole).toLongLong();
    const qint64 applied = item->data(Clock, Qt::UserRole).toLongLong();
    const bool overridden = item->data(Clock, Qt::UserRole + 1).toBool();
    QMenu menu(this);
    menu.addAction(tr("Set Clock Offset…"), this, [this, item, source, applied] {
        bool ok = false;
        const double us = QInputDialog::getDouble(
            this, tr("Clock Offset"),
            tr("Offset added to the times of %1, in microseconds:").arg(item->text(File)),
            double(applied) / 1e3, -1e12, 1e12, 3, &ok);
        if (ok)
            Q_EMIT clockOverrideRequested(source, false, qint64(std::llround(us * 1e3)));
    });
    QAction *reset = menu.addAction(tr("Use Computed Clock Offset"), this, [this, source] {
        Q_EMIT clockOverrideRequested(source, true, 0);
    });
    reset->setEnabled(overridden);
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

} // namespace gml
