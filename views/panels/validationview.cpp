// SPDX-License-Identifier: GPL-3.0-or-later
#include "validationview.h"

#include "validationmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace gml {

ValidationView::ValidationView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_head = new QLabel(this);
    m_head->setWordWrap(true);
    m_head->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_head);
    m_model = new ValidationModel(this);
    m_table = new QTreeView(this);
    m_table->setModel(m_model);
    m_table->setRootIsDecorated(false);
    m_table->setItemsExpandable(false);
    m_table->setUniformRowHeights(true);
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(ValidationModel::What, QHeaderView::Stretch);
    for (int c = ValidationModel::Measured; c <= ValidationModel::Error; ++c)
        m_table->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    layout->addWidget(m_table, 1);
    showMessage(
        tr("Compare a predicted run with a measured run to see how far its prediction lands."));
}

void ValidationView::showMessage(const QString &text)
{
    m_head->setText(text);
    m_model->clear();
}

void ValidationView::setReport(const sim::ValidationReport &report, const QString &note)
{
    QStringList lines{
        tr("<b>%1</b> predicted, against <b>%2</b> measured.")
            .arg(report.predictedRun.toHtmlEscaped(), report.measuredRun.toHtmlEscaped())};
    if (!note.isEmpty())
        lines << note.toHtmlEscaped();
    for (const QString &a : report.assumptions)
        lines << tr("Assumed: %1").arg(a.toHtmlEscaped());
    if (report.stepsPredicted != report.stepsMeasured)
        lines << tr("%1 steps predicted, %2 measured: aligned in order.")
                     .arg(report.stepsPredicted)
                     .arg(report.stepsMeasured);
    m_head->setText(lines.join(QStringLiteral("<br>")));
    m_model->setReport(report);
    // A section's title spans the row; every section open.
    for (int r = 0; r < m_model->rowCount(); ++r)
        m_table->setFirstColumnSpanned(r, {}, true);
    m_table->expandAll();
}

} // namespace gml
