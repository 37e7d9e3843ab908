// SPDX-License-Identifier: GPL-3.0-or-later
#include "validationview.h"

#include "timeformat.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace gml {

ValidationView::ValidationView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_head = new QLabel(this);
    m_head->setWordWrap(true);
    m_head->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_head);
    m_table = new QTableWidget(0, 4, this);
    m_table->setHorizontalHeaderLabels({tr("What"), tr("Measured"), tr("Predicted"), tr("Error")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    layout->addWidget(m_table, 1);
    showMessage(
        tr("Compare a predicted run with a measured run to see how far its prediction lands."));
}

void ValidationView::showMessage(const QString &text)
{
    m_head->setText(text);
    m_table->setRowCount(0);
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
    m_table->setRowCount(0);
    auto section = [&](const QString &title) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto *item = new QTableWidgetItem(title);
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
        m_table->setItem(row, 0, item);
        m_table->setSpan(row, 0, 1, 4);
    };
    auto add = [&](const sim::ValidationRow &r) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, new QTableWidgetItem(r.what));
        m_table->item(row, 0)->setToolTip(r.what);
        for (const auto &[col, t] : {std::pair{1, r.measured}, std::pair{2, r.predicted}}) {
            auto *item = new QTableWidgetItem(formatDuration(t));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, col, item);
        }
        double e = r.error() * 100;
        if (std::abs(e) < 0.05)
            e = 0; // no "-0.0%"
        auto *err =
            new QTableWidgetItem(r.measured > 0 ? QStringLiteral("%1%2%")
                                                      .arg(e >= 0 ? QStringLiteral("+") : QString())
                                                      .arg(e, 0, 'f', 1)
                                                : QStringLiteral("n/a"));
        err->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        // Within 5%: as good as the goal; past 10%: a miss.
        if (r.measured > 0 && std::abs(e) > 10)
            err->setForeground(QColor(0xc0, 0x39, 0x2b));
        else if (r.measured > 0 && std::abs(e) <= 5)
            err->setForeground(QColor(0x2e, 0x8b, 0x57));
        m_table->setItem(row, 3, err);
    };
    section(tr("Times"));
    add(report.endToEnd);
    for (const auto &r : report.iterations)
        add(r);
    if (!report.families.isEmpty()) {
        section(tr("GPU time by kernel family (all ranks)"));
        for (const auto &r : report.families)
            add(r);
    }
    if (!report.operators.isEmpty()) {
        section(tr("Largest operators by call path"));
        for (const auto &r : report.operators)
            add(r);
    }
}

} // namespace gml
