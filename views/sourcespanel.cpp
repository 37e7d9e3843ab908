// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcespanel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QJsonObject>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace gml {

SourcesPanel::SourcesPanel(QWidget *parent) : QWidget(parent), m_tree(new QTreeWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    m_tree->setHeaderLabels({tr("File"), tr("Status"), tr("Format"), tr("Slices"), tr("Counters"),
                             tr("Flows"), tr("Message")});
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
            for (int c = 3; c <= 5; ++c)
                item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
            if (s.status == QLatin1String("failed")) {
                ++m_failed;
                item->setForeground(1, QColor(0xc6, 0x28, 0x28));
                item->setText(6, s.error);
            } else if (s.status == QLatin1String("skipped")) {
                item->setForeground(1, QColor(0x6a, 0x72, 0x7c));
                item->setText(6, s.error);
            } else if (s.warningCount > 0) {
                item->setText(6, tr("%n warning(s)", nullptr, int(s.warningCount)));
            }
            item->setToolTip(6, item->text(6));
            for (const auto &w : s.warnings) {
                const auto o = w.toObject();
                auto *child = new QTreeWidgetItem(item);
                QString text = o.value(QStringLiteral("message")).toString();
                if (text.isEmpty())
                    text = w.toString();
                const int count = o.value(QStringLiteral("count")).toInt(1);
                if (count > 1)
                    text += tr(" (%1 times)").arg(count);
                child->setText(6, text);
                child->setToolTip(6, text);
                child->setText(1, tr("warning"));
            }
        }
    }
    for (int c = 0; c < 6; ++c)
        m_tree->resizeColumnToContents(c);
}

} // namespace gml
