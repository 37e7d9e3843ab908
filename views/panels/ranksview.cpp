// SPDX-License-Identifier: GPL-3.0-or-later
#include "ranksview.h"

#include "rankoverviewpainter.h"
#include "steadystate.h"
#include "theme.h"

#include "ranksmodels.h"
#include "sortedtable.h"
#include "timeformat.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace gml {

namespace {

TimeNs length(const sim::IterationBreakdown &it)
{
    return it.end - it.start;
}

} // namespace

RanksView::RanksView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(m_message);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    auto *heatBox = new QWidget(split);
    auto *hl = new QVBoxLayout(heatBox);
    hl->setContentsMargins(0, 0, 0, 0);
    auto *top = new QHBoxLayout;
    top->setContentsMargins(6, 0, 6, 0);
    m_heatTitle = new QLabel(heatBox);
    m_heatTitle->setWordWrap(true);
    top->addWidget(m_heatTitle, 1);
    m_includeWarmup = new QCheckBox(tr("Include warm-up"), heatBox);
    m_includeWarmup->setToolTip(
        tr("The first iterations that each take over 1.5× the median are warm-up (compilation, "
           "autotuning, ranks starting one after another): left out of the map unless checked."));
    top->addWidget(m_includeWarmup);
    hl->addLayout(top);
    m_heat = new StepHeatMap(heatBox);
    connect(m_includeWarmup, &QCheckBox::toggled, m_heat, &StepHeatMap::setIncludeWarmup);
    hl->addWidget(m_heat, 1);
    auto *bottom = new QSplitter(Qt::Horizontal, split);
    m_stragglerModel = new StragglersModel(this);
    m_stragglers = new SortedTable(m_stragglerModel, bottom);
    m_stragglers->setToolTip(
        tr("Each collective matched across ranks: the rank that arrived last, how long after the "
           "first and the median, and what it ran just before (click: show it in the timeline)"));
    m_rankModel = new RankLoadModel(this);
    m_ranks = new SortedTable(m_rankModel, bottom);
    m_ranks->setToolTip(
        tr("Each rank's GPU compute and communication time, and how many collectives it arrived "
           "at last"));
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({200, 300});
    layout->addWidget(split, 1);
    connect(m_heat, &StepHeatMap::cellActivated, this, [this](int row, int column) {
        if (const auto *it = m_heat->iteration(row, column))
            Q_EMIT revealRequested(
                sim::Evidence{QStringLiteral("%1 of rank %2").arg(it->name).arg(it->rank), it->rank,
                              it->start, it->end, 0, 0});
    });
    connect(m_heat, &StepHeatMap::hoverTextChanged, this,
            [this](const QString &text) { m_heat->setToolTip(text); });
    connect(m_stragglers, &SortedTable::rowClicked, this, [this](const QModelIndex &row) {
        if (const sim::Straggler *s = m_stragglerModel->stragglerAt(row))
            Q_EMIT revealRequested(sim::Evidence{
                QStringLiteral("%1 #%2").arg(s->operation).arg(s->index + 1), s->lastRank,
                s->firstArrival, std::max(s->lastArrival, s->firstArrival + 1), 0, 0});
    });
    setAnalysis(std::nullopt);
}

void RanksView::setAnalysis(const std::optional<sim::Analysis> &analysis)
{
    const bool multi = analysis && analysis->ranks.size() > 1;
    m_message->setText(
        multi ? tr("%n rank(s) · compute imbalance %1 · communication imbalance %2 (max / mean)",
                   nullptr, int(analysis->ranks.size()))
                    .arg(analysis->computeImbalance, 0, 'f', 2)
                    .arg(analysis->communicationImbalance, 0, 'f', 2)
              : tr("This run has one rank: nothing to compare across ranks."));
    m_heat->setIterations(multi ? analysis->iterations : std::vector<sim::IterationBreakdown>{});
    m_heat->setIncludeWarmup(m_includeWarmup->isChecked());
    m_includeWarmup->setVisible(m_heat->warmup() > 0);
    m_heatTitle->setText(
        m_heat->coloursHoldUp()
            ? tr("<b>Who holds the others up, by rank and iteration</b> — each rank's wait in "
                 "collectives against the iteration's median (red: waited less, held the others "
                 "up; blue: waited for them; click: show it in the timeline)")
            : tr("<b>Step time by rank and iteration</b> — against each iteration's median "
                 "(red slower, blue faster; click: show it in the timeline)"));
    m_stragglerModel->setStragglers(multi ? analysis->stragglers : std::vector<sim::Straggler>{});
    m_stragglers->sortByColumn(StragglersModel::Late, Qt::DescendingOrder); // the latest first
    m_stragglers->resizeColumnsToContents();
    m_stragglers->setColumnWidth(StragglersModel::Before,
                                 std::min(m_stragglers->columnWidth(StragglersModel::Before), 260));
    m_rankModel->setRanks(multi ? analysis->ranks : std::vector<sim::RankLoad>{});
    m_ranks->sortByColumn(RankLoadModel::Rank, Qt::AscendingOrder);
    m_ranks->resizeColumnsToContents();
}

StepHeatMap::StepHeatMap(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
}

void StepHeatMap::setIterations(const std::vector<sim::IterationBreakdown> &iterations)
{
    m_grid = sim::stepGrid(iterations);
    m_warmup = warmupIterations(m_grid.median);
    m_holdUp = false;
    m_medianWait.assign(size_t(m_grid.columns), 0);
    std::vector<TimeNs> waits;
    for (int c = 0; c < m_grid.columns; ++c) {
        waits.clear();
        for (size_t r = 0; r < m_grid.cells.size(); ++r)
            if (const auto *it = iteration(int(r), c))
                waits.push_back(it->time.communication);
        if (waits.empty())
            continue;
        m_medianWait[size_t(c)] = quantile(waits, 0.5);
        m_holdUp = m_holdUp || *std::max_element(waits.begin(), waits.end()) > 0;
    }
    update();
}

void StepHeatMap::setIncludeWarmup(bool include)
{
    m_includeWarmup = include;
    update();
}

double StepHeatMap::deviation(int rankIndex, int column) const
{
    const auto *it = iteration(rankIndex, column);
    if (!it || m_grid.median[size_t(column)] <= 0)
        return 0;
    const double median = double(m_grid.median[size_t(column)]);
    return m_holdUp ? double(m_medianWait[size_t(column)] - it->time.communication) / median
                    : double(length(*it)) / median - 1.0;
}

QRect StepHeatMap::grid() const
{
    // Below: the iteration numbers, then the colour scale.
    return rect().adjusted(64, 4, -8, -24 - fontMetrics().height());
}

std::pair<int, int> StepHeatMap::cellAt(QPoint pos) const
{
    const QRect g = grid();
    if (m_grid.cells.empty() || m_grid.columns == 0 || !g.contains(pos))
        return {-1, -1};
    const int row =
        std::min(int(m_grid.cells.size()) - 1,
                 int(double(pos.y() - g.top()) / g.height() * double(m_grid.cells.size())));
    const int shown = m_grid.columns - firstColumn();
    if (shown <= 0)
        return {-1, -1};
    const int col =
        firstColumn() + std::min(shown - 1, int(double(pos.x() - g.left()) / g.width() * shown));
    return {row, col};
}

const sim::IterationBreakdown *StepHeatMap::iteration(int rankIndex, int column) const
{
    if (rankIndex < 0 || size_t(rankIndex) >= m_grid.cells.size() || column < 0 ||
        size_t(column) >= m_grid.cells[size_t(rankIndex)].size())
        return nullptr;
    return &m_grid.cells[size_t(rankIndex)][size_t(column)];
}

void StepHeatMap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect g = grid();
    if (m_grid.cells.empty() || m_grid.columns == 0 || g.width() <= 0 || g.height() <= 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No iterations on two ranks or more."));
        return;
    }
    const int rows = int(m_grid.cells.size());
    const int first = firstColumn(), shown = std::max(1, m_grid.columns - first);
    const double rh = double(g.height()) / rows, cw = double(g.width()) / shown;
    const Theme &theme = Theme::current();
    // Red as the rank overview's "holds others up", one colour for both maps.
    const QColor slow = RankOverviewPainter::holdUpColour(), fast(0x2f, 0x6f, 0xd6);
    // The median is the theme's background (white in light, dark in dark), slower toward red,
    // faster toward blue, ±25% saturating.
    const auto colourOf = [&](double deviation) {
        const double f = std::clamp(deviation / kSaturation, -1.0, 1.0);
        const QColor &to = f >= 0 ? slow : fast;
        const QColor &mid = theme.base;
        const double a = std::abs(f);
        return QColor::fromRgbF(float((1 - a) * mid.redF() + a * to.redF()),
                                float((1 - a) * mid.greenF() + a * to.greenF()),
                                float((1 - a) * mid.blueF() + a * to.blueF()));
    };
    // Rows thinner than a pixel share one: it shows their median, so a red row means its ranks
    // hold the others up, not that one of them does; the reddest of them is the cell's right
    // edge (a quarter of it, at most 4 px), so a straggler still shows as a line of red edges.
    const int pixelRows = std::max(1, std::min(rows, g.height()));
    std::vector<double> group;
    for (int pr = 0; pr < pixelRows; ++pr) {
        const int r0 = pr * rows / pixelRows, r1 = std::max(r0 + 1, (pr + 1) * rows / pixelRows);
        for (int c = first; c < m_grid.columns; ++c) {
            group.clear();
            for (int r = r0; r < r1; ++r)
                if (const auto *it = iteration(r, c); it && m_grid.median[size_t(c)] > 0)
                    group.push_back(deviation(r, c));
            const QRectF cell(g.left() + (c - first) * cw, g.top() + r0 * rh,
                              std::max(1.0, cw - (cw > 4 ? 1 : 0)),
                              std::max(1.0, (r1 - r0) * rh - (rh > 4 ? 1 : 0)));
            if (group.empty()) { // no iteration: the theme's alternate shade
                p.fillRect(cell, theme.alternate);
                continue;
            }
            std::sort(group.begin(), group.end());
            const size_t n = group.size();
            const double median = n % 2 ? group[n / 2] : (group[n / 2 - 1] + group[n / 2]) / 2;
            p.fillRect(cell, colourOf(median));
            if (n > 1 && cell.width() >= 4) {
                const double w = std::min(4.0, std::floor(cell.width() / 4));
                p.fillRect(QRectF(cell.right() - w, cell.top(), w, cell.height()),
                           colourOf(group.back()));
            }
        }
    }
    // The scale, under the iteration numbers: faster, the median, slower, and the mark.
    const QFontMetrics lfm(font());
    const int ly = g.bottom() + 20, lh = lfm.height();
    int x = g.left();
    const auto text = [&](const QString &t) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(x, ly, lfm.horizontalAdvance(t) + 2, lh), Qt::AlignVCenter, t);
        x += lfm.horizontalAdvance(t) + 6;
    };
    text(m_holdUp ? tr("waits for the others −25%") : tr("faster −25%"));
    for (int i = 0; i < 60; ++i)
        p.fillRect(QRect(x + i, ly + 3, 1, lh - 6),
                   colourOf(kSaturation * (double(i) / 59.0 * 2.0 - 1.0)));
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(QRect(x, ly + 3, 59, lh - 7));
    x += 66;
    text(m_holdUp ? tr("+25% of the step: holds the others up")
                  : tr("+25% slower than the iteration's median"));
    if (m_warmup > 0)
        text(m_includeWarmup ? tr("· warm-up included")
                             : tr("· %n warm-up iteration(s) left out", nullptr, m_warmup));
    if (pixelRows < rows)
        text(tr("· %1 ranks a row: their median, the reddest at the cell's right edge")
                 .arg(double(rows) / pixelRows, 0, 'f', 1));
    // Rank labels where they fit, iteration numbers below.
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(font());
    const int every = std::max(1, int(std::ceil((fm.height() + 2) / rh)));
    for (int r = 0; r < rows; r += every)
        p.drawText(QRectF(0, g.top() + r * rh, g.left() - 6, std::max<double>(rh, fm.height())),
                   Qt::AlignRight | Qt::AlignVCenter, tr("rank %1").arg(m_grid.ranks[size_t(r)]));
    const int everyCol =
        std::max(1, int(std::ceil((fm.horizontalAdvance(QStringLiteral("#000")) + 6) / cw)));
    for (int c = first; c < m_grid.columns; c += everyCol)
        p.drawText(
            QRectF(g.left() + (c - first) * cw, g.bottom() + 2, std::max(cw * everyCol, 30.0), 16),
            Qt::AlignLeft, QStringLiteral("#%1").arg(c));
}

void StepHeatMap::mouseMoveEvent(QMouseEvent *e)
{
    const auto [r, c] = cellAt(e->position().toPoint());
    const auto *it = iteration(r, c);
    if (!it) {
        Q_EMIT hoverTextChanged(QString());
        return;
    }
    const TimeNs median = m_grid.median[size_t(c)];
    if (m_holdUp && median > 0) {
        const double d = deviation(r, c);
        Q_EMIT hoverTextChanged(
            tr("rank %1 · %2: %3, waited %4 in collectives (the ranks' median %5): %6")
                .arg(it->rank)
                .arg(it->name, formatDuration(length(*it)), formatDuration(it->time.communication),
                     formatDuration(m_medianWait[size_t(c)]),
                     d >= 0
                         ? tr("held the others up %1% of the step").arg(100.0 * d, 0, 'f', 1)
                         : tr("waited for the others %1% of the step").arg(-100.0 * d, 0, 'f', 1)));
        return;
    }
    const QString text =
        tr("rank %1 · %2: %3 (%4 against the iteration's median %5)")
            .arg(it->rank)
            .arg(it->name, formatDuration(length(*it)),
                 median > 0
                     ? QStringLiteral("%1%2%")
                           .arg(length(*it) >= median ? QStringLiteral("+") : QString())
                           .arg(100.0 * (double(length(*it)) / double(median) - 1.0), 0, 'f', 1)
                     : QStringLiteral("–"),
                 formatDuration(median));
    Q_EMIT hoverTextChanged(text);
}

void StepHeatMap::mousePressEvent(QMouseEvent *e)
{
    const auto [r, c] = cellAt(e->position().toPoint());
    if (iteration(r, c))
        Q_EMIT cellActivated(r, c);
}

} // namespace gml
