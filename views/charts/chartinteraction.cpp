// SPDX-License-Identifier: GPL-3.0-or-later
// Chart, what the user does with one: the tooltip under the mouse (a bar, a point, the time
// series' values), double-click to reset the zoom, the context menu's export; and several
// charts exported as one figure.
#include "chartlayer.h"

#include "figureexport.h"
#include "theme.h"

#include <QContextMenuEvent>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPicture>
#include <QRegularExpression>
#include <QToolTip>

#include <cmath>

namespace gml {

QString Chart::scatterTipAt(QPoint pos) const
{
    const ScatterChart::Point *best = nearestPoint(m_scatter.points, pos, 10);
    if (!best)
        return {};
    const QString x = m_scatter.categories.isEmpty()
                          ? QString::number(best->x, 'g', 6)
                          : m_scatter.categories.value(int(std::lround(best->x)) - 1);
    return QStringLiteral("<b>%1</b><br>%2: %3<br>%4: %5")
        .arg(best->label.toHtmlEscaped(), m_scatter.keyLabel.toHtmlEscaped(), x.toHtmlEscaped(),
             m_scatter.valueLabel.toHtmlEscaped())
        .arg(best->y, 0, 'g', 5);
}

QString Chart::pointsTipAt(QPoint pos) const
{
    // Joined points (a sweep): the values of every shown line at the key nearest the mouse.
    double best = 0, bestPx = 12;
    bool found = false;
    for (int i = 0; i < int(m_time.lines.size()); ++i) {
        if (i < graphCount() && !graph(i)->visible())
            continue;
        for (double x : m_time.lines[size_t(i)].x) {
            const double px = std::abs(xAxis->coordToPixel(x) - pos.x());
            if (px < bestPx) {
                bestPx = px;
                best = x;
                found = true;
            }
        }
    }
    if (!found)
        return {};
    QStringList lines{
        QStringLiteral("<b>%1 %2</b>").arg(best, 0, 'g', 6).arg(m_time.keyLabel.toHtmlEscaped())};
    for (int i = 0; i < int(m_time.lines.size()); ++i) {
        const auto &l = m_time.lines[size_t(i)];
        if (i < graphCount() && !graph(i)->visible())
            continue;
        for (size_t k = 0; k < l.x.size(); ++k)
            if (l.x[k] == best) {
                lines << QStringLiteral("%1: %2 %3")
                             .arg(l.name.toHtmlEscaped())
                             .arg(l.y[k], 0, 'g', 4)
                             .arg(m_time.valueLabel);
                break;
            }
    }
    return lines.join(QStringLiteral("<br>"));
}

QString Chart::tipAt(QPoint pos) const
{
    if (m_empty || !axisRect()->rect().contains(pos))
        return {};
    if (m_kind == Kind::Scatter)
        return scatterTipAt(pos);
    if (m_kind == Kind::Roofline) {
        const auto *p = rooflinePointAt(pos);
        return p ? p->label : QString();
    }
    const double key = xAxis->pixelToCoord(pos.x());
    if (m_kind == Kind::Bars) {
        const int k = int(std::lround(key)) - 1;
        if (k < 0 || k >= m_bars.categories.size() || std::abs(key - (k + 1)) > 0.4)
            return {};
        QStringList lines{QStringLiteral("<b>%1</b>").arg(m_bars.categories[k].toHtmlEscaped())};
        if (!m_bars.notes.value(k).isEmpty())
            lines << QStringLiteral("<i>%1</i>").arg(m_bars.notes[k].toHtmlEscaped());
        double total = 0;
        for (const auto &s : m_bars.series)
            if (size_t(k) < s.values.size())
                total += s.values[size_t(k)];
        for (const auto &s : m_bars.series) {
            if (size_t(k) >= s.values.size() || s.values[size_t(k)] <= 0)
                continue;
            QString line = QStringLiteral("%1: %2 %3")
                               .arg(s.name.toHtmlEscaped())
                               .arg(s.values[size_t(k)], 0, 'f', 3)
                               .arg(m_bars.valueLabel);
            if (m_bars.sharesOfTotal)
                line += QStringLiteral(" (%1%)").arg(
                    total > 0 ? 100 * s.values[size_t(k)] / total : 0, 0, 'f', 1);
            lines << line;
        }
        if (size_t(k) < m_bars.errors.size() && m_bars.errors[size_t(k)] > 0)
            lines << QStringLiteral("spread: \u00b1 %1 %2")
                         .arg(m_bars.errors[size_t(k)], 0, 'f', 3)
                         .arg(m_bars.valueLabel);
        return lines.join(QStringLiteral("<br>"));
    }
    if (!m_time.steps)
        return pointsTipAt(pos);
    QStringList lines{
        QStringLiteral("<b>%1 %2</b>").arg(key, 0, 'f', 3).arg(m_time.keyLabel.toHtmlEscaped())};
    for (const auto &b : m_time.bands)
        if (key >= b.from && key < b.to)
            lines << b.label.toHtmlEscaped();
    for (int i = 0; i < int(m_time.lines.size()); ++i) {
        const auto &l = m_time.lines[size_t(i)];
        if (i < graphCount() && !graph(i)->visible())
            continue;
        const auto it = std::upper_bound(l.x.begin(), l.x.end(), key);
        if (it == l.x.begin())
            continue;
        const size_t at = size_t(it - l.x.begin()) - 1;
        lines << QStringLiteral("%1: %2 %3")
                     .arg(l.name.toHtmlEscaped())
                     .arg(l.y[at], 0, 'g', 5)
                     .arg(m_time.valueLabel);
    }
    return lines.join(QStringLiteral("<br>"));
}

void Chart::mouseMoveEvent(QMouseEvent *event)
{
    QCustomPlot::mouseMoveEvent(event);
    const QString tip = tipAt(event->position().toPoint());
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tip, this);
}

void Chart::mouseDoubleClickEvent(QMouseEvent *event)
{
    QCustomPlot::mouseDoubleClickEvent(event);
    if (axisRect()->rect().contains(event->position().toPoint()))
        resetZoom();
}

bool Chart::exportTo(const QString &path, QString *error)
{
    return exportCharts({this}, 1, size().expandedTo(QSize(480, 300)), path, title(), error);
}

void Chart::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    QAction *reset = menu.addAction(tr("Reset Zoom"));
    QAction *save = menu.addAction(tr("Export Chart…"));
    save->setEnabled(!m_empty);
    QAction *chosen = menu.exec(event->globalPos());
    if (chosen == reset) {
        resetZoom();
    } else if (chosen == save) {
        QString name = title().section(QLatin1Char(':'), 0, 0).simplified().toLower();
        name.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Chart"), name + QStringLiteral(".png"),
            tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !exportTo(path, &error))
            QMessageBox::warning(this, tr("Export Chart"),
                                 tr("The chart was not exported: %1").arg(error));
    }
}

bool exportCharts(const std::vector<Chart *> &charts, int columns, QSize size, const QString &path,
                  const QString &title, QString *error)
{
    std::vector<Chart *> shown;
    for (auto *c : charts)
        if (c && !c->isEmpty())
            shown.push_back(c);
    if (shown.empty()) {
        *error = QStringLiteral("nothing to chart: the charts are empty");
        return false;
    }
    columns = std::max(1, std::min(columns, int(shown.size())));
    const int rows = (int(shown.size()) + columns - 1) / columns;
    constexpr int kTitle = 28;
    const QSize cell(size.width() / columns, std::max(120, (size.height() - kTitle) / rows));
    // Each chart recorded as vector drawing commands at its cell's size, then placed.
    std::vector<QPicture> pictures(shown.size());
    for (size_t k = 0; k < shown.size(); ++k) {
        QCPPainter p(&pictures[k]);
        shown[k]->toPainter(&p, cell.width(), cell.height());
    }
    return writeFigure(
        path, size, title, QStringLiteral("GradeML Studio charts"),
        [&](QPainter &painter) {
            painter.fillRect(QRect(QPoint(0, 0), size), Theme::current().base);
            QFont f = painter.font();
            f.setPointSizeF(11);
            f.setBold(true);
            painter.setFont(f);
            painter.setPen(Theme::current().text);
            painter.drawText(QRect(8, 0, size.width() - 16, kTitle),
                             Qt::AlignVCenter | Qt::AlignLeft, title);
            for (size_t k = 0; k < pictures.size(); ++k)
                painter.drawPicture(QPoint(int(k % size_t(columns)) * cell.width(),
                                           kTitle + int(k / size_t(columns)) * cell.height()),
                                    pictures[k]);
        },
        error, 96, 96); // the charts were laid out in screen pixels
}

void Chart::setEmptyText(const QString &text)
{
    m_emptyText = text;
    update();
}

void Chart::paintEvent(QPaintEvent *event)
{
    if (!m_empty) {
        QCustomPlot::paintEvent(event);
        return;
    }
    const Theme &t = Theme::current();
    QPainter p(this);
    p.fillRect(rect(), t.base);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(t.text);
    const QRect titleBox(8, 4, width() - 16, QFontMetrics(bold).height() + 4);
    p.drawText(titleBox, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(m_title, Qt::ElideRight, titleBox.width()));
    p.setFont(font());
    p.setPen(t.muted);
    p.drawText(rect().adjusted(16, titleBox.bottom(), -16, -8), Qt::AlignCenter | Qt::TextWordWrap,
               m_emptyText.isEmpty() ? tr("Nothing to chart here.") : m_emptyText);
}

} // namespace gml
