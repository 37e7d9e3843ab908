// SPDX-License-Identifier: GPL-3.0-or-later
#include "rankoverviewpainter.h"

#include "theme.h"

#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gml {

QColor RankOverviewPainter::waitingColour()
{
    return QColor(0xed, 0xc9, 0x48); // Tableau-10 amber: waiting, not work
}

QColor RankOverviewPainter::holdUpColour()
{
    return QColor(0xd6, 0x2f, 0x2f); // the Ranks page's step heat map takes it for its red
}

QColor RankOverviewPainter::heat(float busy, float communication, bool holdsUp)
{
    const Theme &t = Theme::current();
    if (busy < 0)
        return t.base; // no activity recorded there
    // On a square-root scale, so that 10% busy still shows; communication keeps its part of it.
    const float b0 = std::clamp(busy, 0.0f, 1.0f);
    const float c0 = std::clamp(communication, 0.0f, b0);
    const float b = std::sqrt(b0);
    const float c = b0 > 0 ? b * c0 / b0 : 0.0f;
    const float k = b - c, idle = 1 - b;
    // Idle and compute in the studio's one palette (render/theme.h); waiting amber.
    const QColor i = t.resource(ResourceClass::Idle),
                 x = holdsUp ? holdUpColour() : t.resource(ResourceClass::Compute),
                 y = waitingColour();
    auto mix = [&](int a, int b, int d) {
        return int(std::lround(idle * float(a) + k * float(b) + c * float(d)));
    };
    return QColor(mix(i.red(), x.red(), y.red()), mix(i.green(), x.green(), y.green()),
                  mix(i.blue(), x.blue(), y.blue()));
}

std::pair<size_t, size_t> RankOverviewPainter::Layout::lanesAt(int y) const
{
    if (rows <= 0 || y < lanes.top() || y >= lanes.top() + int(std::ceil(rows * rowHeight)))
        return {0, 0};
    const int row = std::min(rows - 1, int((y - lanes.top()) / rowHeight));
    return {laneCount * size_t(row) / size_t(rows), laneCount * size_t(row + 1) / size_t(rows)};
}

int RankOverviewPainter::Layout::rowTop(size_t lane) const
{
    if (laneCount == 0)
        return lanes.top();
    // Row r holds lanes [n r / rows, n (r+1) / rows): the row of `lane` is the last r whose
    // first lane is at or before it.
    const size_t row = std::min(size_t(rows - 1), ((lane + 1) * size_t(rows) - 1) / laneCount);
    return lanes.top() + int(std::floor(double(row) * rowHeight));
}

RankOverviewPainter::RowShares RankOverviewPainter::rowShares(const RankOverview &overview,
                                                              size_t first, size_t last, TimeNs t0,
                                                              TimeNs t1, int columns,
                                                              const std::vector<float> &standOut)
{
    const size_t n = size_t(std::max(0, columns));
    RowShares s;
    s.busy.assign(n, -1.0f);
    s.communication.assign(n, 0.0f);
    s.outlier.assign(n, -1);
    s.outlierBusy.assign(n, -1.0f);
    s.outlierCommunication.assign(n, 0.0f);
    last = std::min(last, overview.lanes.size());
    if (first >= last || n == 0)
        return s;
    const size_t count = last - first;
    if (count > 1 && standOut.size() == overview.lanes.size()) {
        const auto top = std::max_element(standOut.begin() + qsizetype(first),
                                          standOut.begin() + qsizetype(last));
        if (*top >= kStandOut)
            s.marked = int(top - standOut.begin());
    }
    std::vector<float> busy(count * n), comm(count * n);
    for (size_t i = 0; i < count; ++i)
        RankOverview::shares(overview.lanes[first + i], t0, t1, columns, busy.data() + i * n,
                             comm.data() + i * n);
    std::vector<size_t> active;
    std::vector<float> values;
    for (size_t c = 0; c < n; ++c) {
        active.clear();
        for (size_t i = 0; i < count; ++i)
            if (busy[i * n + c] >= 0)
                active.push_back(i);
        if (active.empty())
            continue;
        // The median of the busy shares and that of the communication shares (each the mean
        // of the middle two for an even count, as the heat map's shared rows).
        const size_t m = active.size();
        const auto median = [&](const std::vector<float> &v) {
            values.clear();
            for (size_t i : active)
                values.push_back(v[i * n + c]);
            std::sort(values.begin(), values.end());
            return (values[(m - 1) / 2] + values[m / 2]) / 2;
        };
        const float mb = median(busy);
        const float mc = std::min(mb, median(comm));
        s.busy[c] = mb;
        s.communication[c] = mc;
        if (s.marked < 0)
            continue;
        const size_t i = size_t(s.marked) - first;
        if (busy[i * n + c] < 0)
            continue;
        if (std::abs(busy[i * n + c] - mb) + std::abs(comm[i * n + c] - mc) >= kOutlier) {
            s.outlier[c] = s.marked;
            s.outlierBusy[c] = busy[i * n + c];
            s.outlierCommunication[c] = comm[i * n + c];
        }
    }
    return s;
}

RankOverviewPainter::Layout RankOverviewPainter::layout(const QRect &area, int labelWidth,
                                                        size_t lanes)
{
    Layout l;
    l.laneCount = lanes;
    l.lanes = QRect(area.left() + labelWidth, area.top() + kHeaderHeight,
                    std::max(0, area.width() - labelWidth),
                    std::max(0, area.height() - kHeaderHeight - 4));
    if (lanes == 0 || l.lanes.height() <= 0)
        return l;
    l.rows = int(std::min<size_t>(lanes, size_t(l.lanes.height())));
    l.rowHeight = std::min(double(kMaxLaneHeight), double(l.lanes.height()) / l.rows);
    return l;
}

void RankOverviewPainter::paint(QPainter &p, const QRect &area, int labelWidth,
                                const RankOverview &overview, TimeNs t0, TimeNs t1, int highlight,
                                const std::vector<float> &standOut)
{
    const Layout l = layout(area, labelWidth, overview.lanes.size());
    const Theme &theme = Theme::current();
    p.fillRect(area, theme.base);
    if (l.rows <= 0 || l.lanes.width() <= 0 || t1 <= t0)
        return;
    const int columns = l.lanes.width();
    const int height = int(std::ceil(l.rows * l.rowHeight));
    // One pixel per column and row, each row the median of its lanes (its marked lane in its
    // own colour where it differs by kOutlier or more), scaled up to the row height.
    QImage image(columns, l.rows, QImage::Format_RGB32);
    std::vector<int> marked;
    for (int row = 0; row < l.rows; ++row) {
        const size_t first = overview.lanes.size() * size_t(row) / size_t(l.rows);
        const size_t last = overview.lanes.size() * size_t(row + 1) / size_t(l.rows);
        const RowShares s = rowShares(overview, first, last, t0, t1, columns, standOut);
        // A row of one lane holds the others up as that lane does; a shared row shows its
        // marked lane, in its own colour, where it differs from the row's median.
        const bool holds =
            last == first + 1 && first < standOut.size() && standOut[first] >= kStandOut;
        auto *line = reinterpret_cast<QRgb *>(image.scanLine(row));
        for (int c = 0; c < columns; ++c) {
            const size_t k = size_t(c);
            line[c] = (s.outlier[k] >= 0 ? heat(s.outlierBusy[k], s.outlierCommunication[k], true)
                                         : heat(s.busy[k], s.communication[k], holds))
                          .rgb();
        }
        if (s.marked >= 0 || holds)
            marked.push_back(row);
    }
    p.drawImage(QRect(l.lanes.left(), l.lanes.top(), columns, height), image);
    // Rows holding a lane that stands out, marked left of the lanes.
    for (int row : marked)
        p.fillRect(QRectF(l.lanes.left() - 4, l.lanes.top() + row * l.rowHeight, 3,
                          std::max(1.0, l.rowHeight)),
                   holdUpColour());

    // Lanes apart when tall enough to tell.
    p.save();
    p.setClipRect(QRect(l.lanes.left(), l.lanes.top(), columns, height));
    if (l.rowHeight >= 5) {
        p.setPen(QPen(theme.base, 1));
        for (int row = 1; row < l.rows; ++row) {
            const double y = l.lanes.top() + row * l.rowHeight - 0.5;
            p.drawLine(QPointF(l.lanes.left(), y), QPointF(l.lanes.left() + columns, y));
        }
    }
    // Iteration starts, where they are at least 6 px apart: on each lane when lanes are tall
    // enough to tell apart, else the first lane's across all of them.
    auto xOf = [&](TimeNs t) {
        return l.lanes.left() + double(t - t0) / double(t1 - t0) * columns;
    };
    auto sparse = [&](const std::vector<std::pair<TimeNs, TimeNs>> &its) {
        const auto a = std::lower_bound(its.begin(), its.end(),
                                        std::make_pair(t0, std::numeric_limits<TimeNs>::min()));
        const auto b = std::lower_bound(its.begin(), its.end(),
                                        std::make_pair(t1, std::numeric_limits<TimeNs>::min()));
        return b - a <= std::max<std::ptrdiff_t>(1, columns / 6);
    };
    if (l.rowHeight >= 4 && l.rows == int(overview.lanes.size())) {
        QColor tick = theme.text;
        tick.setAlpha(170);
        p.setPen(QPen(tick, 1));
        for (size_t lane = 0; lane < overview.lanes.size(); ++lane) {
            const auto &its = overview.lanes[lane].iterations;
            if (!sparse(its))
                continue;
            const int top = l.rowTop(lane);
            for (const auto &[a, b] : its)
                if (a >= t0 && a < t1)
                    p.drawLine(QPointF(xOf(a), top), QPointF(xOf(a), top + l.rowHeight - 1));
        }
    } else if (!overview.lanes.empty() && sparse(overview.lanes.front().iterations)) {
        QColor tick = theme.text;
        tick.setAlpha(90);
        p.setPen(QPen(tick, 1));
        for (const auto &[a, b] : overview.lanes.front().iterations)
            if (a >= t0 && a < t1)
                p.drawLine(QPointF(xOf(a), l.lanes.top()), QPointF(xOf(a), l.lanes.top() + height));
    }
    if (highlight >= 0 && size_t(highlight) < overview.lanes.size()) {
        const int top = l.rowTop(size_t(highlight));
        p.setPen(QPen(theme.text, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(l.lanes.left() + 0.75, top - 1.25, columns - 1.5,
                          std::max(2.0, l.rowHeight) + 1.5));
    }
    p.restore();

    // Rank numbers in the label column, as many as fit.
    p.setPen(theme.muted);
    QFont f = p.font();
    f.setPointSizeF(std::max(6.5, f.pointSizeF() - 1.5));
    p.setFont(f);
    const int textHeight = p.fontMetrics().height();
    int lastBottom = l.lanes.top() - textHeight;
    for (size_t lane = 0; lane < overview.lanes.size(); ++lane) {
        const int top = l.rowTop(lane);
        const int y = top + int(l.rowHeight / 2);
        if (y - textHeight / 2 < lastBottom + 2)
            continue;
        const RankLane &r = overview.lanes[lane];
        const QString label = r.rank >= 0 ? QStringLiteral("rank %1").arg(r.rank)
                                          : QStringLiteral("GPU %1").arg(r.device);
        p.drawText(QRect(area.left() + 4, y - textHeight / 2, labelWidth - 10, textHeight),
                   Qt::AlignRight | Qt::AlignVCenter, label);
        lastBottom = y + textHeight / 2;
    }
}

} // namespace gml
