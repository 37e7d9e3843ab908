// SPDX-License-Identifier: GPL-3.0-or-later
// TimelinePainter, part 1: building the cached geometry of one viewport (level of detail).
#include "timelinepainter.h"

#include "sliceclass.h"

#include "timeformat.h"

#include <QElapsedTimer>
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace gml {

namespace {

constexpr double kMinLabelWidth = 26; // px: narrower boxes get no text

} // namespace

size_t TimelineGeometry::boxCount() const
{
    size_t n = 0;
    for (const auto &b : boxes)
        n += b.size();
    return n;
}

TimelinePainter::TimelinePainter()
{
    setFont(QFont(QStringLiteral("DejaVu Sans"), 8));
}

void TimelinePainter::setFont(const QFont &font)
{
    m_font = font;
    m_boldFont = font;
    m_boldFont.setBold(true);
    m_geometryValid = false;
}

void TimelinePainter::setData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_colorOfName.assign(m_data ? m_data->names.size() : 0, 0);
    if (m_data)
        for (size_t i = 0; i < m_data->names.size(); ++i)
            m_colorOfName[i] = uint8_t(SlicePalette::indexFor(m_data->names[i]));
    m_classOfName[0].clear();
    m_classOfName[1].clear();
    if (m_colorBy == ColorBy::Class)
        classifyNames();
    m_overviewWidth = -1;
    m_geometryValid = false;
    m_layout = {};
    if (m_data)
        m_layout.build(*m_data, {}, {}, m_metrics);
}

int TimelinePainter::colorOf(StringId name) const
{
    const auto &table =
        m_colorBy == ColorBy::Class ? m_classOfName[m_rowOnGpu ? 1 : 0] : m_colorOfName;
    return (name >= 0 && size_t(name) < table.size()) ? table[size_t(name)] : 0;
}

void TimelinePainter::setColorBy(ColorBy by)
{
    if (by == m_colorBy)
        return;
    m_colorBy = by;
    if (by == ColorBy::Class && m_classOfName[0].empty())
        classifyNames();
    m_geometryValid = false;
}

void TimelinePainter::classifyNames()
{
    const size_t n = m_data ? m_data->names.size() : 0;
    for (int gpu = 0; gpu < 2; ++gpu) {
        m_classOfName[gpu].assign(n, uint8_t(SlicePalette::classIndex(int(SliceRole::CpuOp))));
        for (size_t i = 0; i < n; ++i)
            m_classOfName[gpu][i] =
                uint8_t(SlicePalette::classIndex(int(sliceRole(m_data->names[i], gpu == 1))));
    }
}

double TimelinePainter::xForTime(const TimelineViewport &v, TimeNs t) const
{
    const double w = std::max(1, v.size.width() - m_metrics.labelWidth);
    return m_metrics.labelWidth + double(t - v.t0) * w / double(std::max<TimeNs>(1, v.t1 - v.t0));
}

TimeNs TimelinePainter::timeForX(const TimelineViewport &v, double x) const
{
    const double w = std::max(1, v.size.width() - m_metrics.labelWidth);
    return v.t0 + TimeNs(std::llround((x - m_metrics.labelWidth) * double(v.t1 - v.t0) / w));
}

const TimelineGeometry &TimelinePainter::geometry(const TimelineViewport &v)
{
    if (!m_geometryValid || !(m_geometryViewport == v) ||
        m_geometryLayoutVersion != m_layout.version()) {
        QElapsedTimer timer;
        timer.start();
        buildGeometry(v);
        m_geometryViewport = v;
        m_geometryLayoutVersion = m_layout.version();
        m_geometryValid = true;
        m_lastBuildMs = double(timer.nsecsElapsed()) / 1e6;
    }
    return m_geometry;
}

bool TimelinePainter::waitForPages(const TimelineViewport &v, int rounds)
{
    for (int i = 0; i < rounds; ++i) {
        (void)geometry(v);
        if (m_geometryComplete || !m_data || !m_data->pager)
            return m_geometryComplete;
        m_data->pager->waitForIdle();
        pagesArrived();
    }
    (void)geometry(v);
    return m_geometryComplete;
}

void TimelinePainter::buildGeometry(const TimelineViewport &v)
{
    for (auto &b : m_geometry.boxes)
        b.clear();
    m_geometry.labels.clear();
    m_geometry.counters.clear();
    m_geometry.visibleSlices = m_geometry.exactBoxes = m_geometry.mergedBoxes = 0;
    m_geometryComplete = true;
    m_geometry.drawn.assign(m_layout.rows().size(), -1);
    m_geometry.summaries.clear();
    if (!m_data)
        return;
    const auto &rows = m_layout.rows();
    for (size_t r = 0; r < rows.size(); ++r) {
        if (r == m_layout.pinnedCount()) { // the pinned band's part ends here
            for (int c = 0; c < SlicePalette::kSize; ++c)
                m_geometry.pinnedBoxes[size_t(c)] = m_geometry.boxes[size_t(c)].size();
            m_geometry.pinnedLabels = m_geometry.labels.size();
            m_geometry.pinnedCounters = m_geometry.counters.size();
        }
        const TimelineRow &row = rows[r];
        const int top = rowTop(row, v);
        // A scrolling row is drawn below the band, a pinned one in it.
        const int clipTop = row.pinned ? m_metrics.headerHeight() : rowsTop();
        const int clipBottom = row.pinned ? rowsTop() : v.size.height();
        if (top + row.height <= clipTop || top >= clipBottom ||
            row.type != TimelineRow::Type::Track)
            continue;
        TimelineViewport rv = v; // on the row's clock
        rv.t0 += row.shift;
        rv.t1 += row.shift;
        if (row.isSummary()) {
            m_geometry.drawn[r] = buildSummaryRow(rv, r, top);
        } else if (row.depthCount > 0) {
            const auto s = sliceView(row.track, rv);
            m_geometry.drawn[r] = s ? buildSliceRow(rv, row, *s, top, clipTop, clipBottom) : 0;
        } else if (row.isCounter) {
            const size_t before = m_geometry.counters.size();
            if (const auto c = m_data->counters.value(row.track))
                buildCounterRow(rv, row, *c, top);
            m_geometry.drawn[r] = m_geometry.counters.size() > before
                                      ? int(m_geometry.counters.back().line.size() / 2)
                                      : 0;
        }
    }
    if (m_layout.pinnedCount() >= rows.size()) {
        for (int c = 0; c < SlicePalette::kSize; ++c)
            m_geometry.pinnedBoxes[size_t(c)] = m_geometry.boxes[size_t(c)].size();
        m_geometry.pinnedLabels = m_geometry.labels.size();
        m_geometry.pinnedCounters = m_geometry.counters.size();
    }
}

std::shared_ptr<const SliceTrack> TimelinePainter::sliceView(TrackId track,
                                                             const TimelineViewport &v)
{
    if (auto s = m_data->slices.value(track))
        return s;
    if (!m_data->pager || !m_data->pager->has(track))
        return nullptr;
    // A paged track: what the pager has for this window and scale.
    auto s = m_data->pager->view(track, v.t0, v.t1,
                                 double(std::max<TimeNs>(1, v.t1 - v.t0)) /
                                     std::max(1.0, double(v.size.width() - m_metrics.labelWidth)));
    m_geometryComplete = m_geometryComplete && m_data->pager->exact(track);
    return s;
}

int TimelinePainter::buildSliceRow(const TimelineViewport &v, const TimelineRow &row,
                                   const SliceTrack &track, int top, int viewTop, int viewBottom)
{
    const double left = m_metrics.labelWidth, right = v.size.width();
    const double width = std::max(1.0, right - left);
    const double span = double(std::max<TimeNs>(1, v.t1 - v.t0));
    const double scale = width / span; // px per ns
    const auto px = [&](TimeNs t) { return left + double(t - v.t0) * scale; };
    const QFontMetricsF fm(m_font);
    const double h = m_metrics.depthHeight - 1;
    // Pixel columns covered at the top depth (its boxes never overlap): the row's `drawn`.
    int drawn = 0;
    const auto count = [&](int d, const QRect &r) {
        if (d == 0)
            drawn += std::max(0, std::min(r.right() + 1, int(right)) - std::max(r.x(), int(left)));
    };
    m_rowOnGpu = row.kind == TrackKind::Stream || row.kind == TrackKind::Gpu;
    for (int d = 0; d < track.depthCount(); ++d) {
        const double y = top + m_metrics.rowPadding + d * m_metrics.depthHeight;
        if (y + h < viewTop || y > viewBottom) // the paint clips a level half out of its band
            continue;
        const size_t last = track.lastIndex(d, v.t1);
        size_t i = track.firstIndex(d, v.t0);
        // The last merged box of this depth, so adjacent buckets of one colour become one box.
        int lastMergedColor = -1;
        while (i < last) {
            const double xs = px(track.start(i)), xe = px(track.end(i));
            if (xe - xs >= 1.0) {
                const int a = int(std::floor(std::max(xs, left - 1))),
                          b = int(std::lround(std::min(xe, right + 1)));
                const int c = colorOf(track.nameId(i));
                // Boxes wide enough keep a one-pixel gap, so back-to-back slices of one colour
                // stay distinguishable.
                const int w = b - a >= 4 ? b - a - 1 : std::max(1, b - a);
                const QRect r(a, int(y), w, int(h));
                m_geometry.boxes[size_t(c)].push_back(r);
                count(d, QRect(a, r.y(), b - a, r.height()));
                ++m_geometry.exactBoxes;
                ++m_geometry.visibleSlices;
                lastMergedColor = -1;
                if (r.width() >= kMinLabelWidth) {
                    const QString text =
                        fm.elidedText(m_data->name(track.nameId(i)), Qt::ElideRight, r.width() - 4);
                    if (!text.isEmpty() && text != QStringLiteral("…"))
                        m_geometry.labels.push_back({QRectF(r).adjusted(2, 0, -2, 0), text});
                }
                ++i;
                continue;
            }
            // A pixel bucket of narrow slices: everything starting before the next pixel.
            const double bucketX = std::floor(xs);
            const TimeNs bucketEnd = v.t0 + TimeNs(std::ceil((bucketX + 1 - left) / scale));
            size_t j = std::min(last, track.nextStartingAt(d, i + 1, bucketEnd));
            if (j - 1 > i && px(track.end(j - 1)) - px(track.start(j - 1)) >= 1.0)
                --j; // a wide slice starting in the bucket is drawn exactly, next round
            const size_t longest = track.longestIn(i, j);
            const int c = colorOf(track.nameId(longest));
            const int x0 = int(std::max(bucketX, left - 1));
            const int x1 =
                std::max(x0 + 1, int(std::ceil(std::min(px(track.end(j - 1)), right + 1))));
            auto &list = m_geometry.boxes[size_t(c)];
            count(d, QRect(x0, int(y), x1 - x0, int(h)));
            // QRect: x() + width() is one past the last pixel.
            if (lastMergedColor == c && !list.empty() &&
                list.back().x() + list.back().width() >= x0 && list.back().y() == int(y)) {
                list.back().setWidth(std::max(list.back().width(), x1 - list.back().x()));
            } else {
                list.push_back(QRect(x0, int(y), x1 - x0, int(h)));
                ++m_geometry.mergedBoxes;
            }
            lastMergedColor = c;
            m_geometry.visibleSlices += j - i;
            i = j;
        }
    }
    return drawn;
}

void TimelinePainter::buildCounterRow(const TimelineViewport &v, const TimelineRow &row,
                                      const CounterTrack &track, int top)
{
    const int left = m_metrics.labelWidth, right = v.size.width();
    const double maxValue = std::max(track.maxValue(), 0.0);
    const double minValue = std::min(track.minValue(), 0.0);
    const double range = maxValue - minValue > 0 ? maxValue - minValue : 1.0;
    const double bottom = top + row.height - 3, height = row.height - 8;
    const auto yOf = [&](double value) { return bottom - (value - minValue) / range * height; };
    TimelineGeometry::CounterShape shape;
    shape.rect = QRectF(left, top, right - left, row.height);
    shape.colorIndex = SlicePalette::indexFor(row.label);
    shape.maxText = formatQuantity(maxValue, row.unit);
    // One column per pixel: the maximum of the samples in effect during the column (the value
    // held from before plus every sample inside), so short peaks never vanish when zoomed out.
    qint64 k = track.sampleAt(v.t0);
    size_t next = track.lowerBound(v.t0);
    const TimeNs lastTs = track.ts(track.size() - 1);
    for (int x = left; x < right; ++x) {
        const TimeNs c0 = timeForX(v, x), c1 = timeForX(v, x + 1);
        if (c0 > lastTs)
            break; // after the last sample: nothing is known
        bool any = k >= 0;
        double hi = any ? track.value(size_t(k)) : 0.0;
        while (next < track.size() && track.ts(next) < c1) {
            hi = any ? std::max(hi, track.value(next)) : track.value(next);
            any = true;
            k = qint64(next++);
        }
        if (!any)
            continue;
        const double yy = yOf(hi);
        shape.line << QPointF(x, yy) << QPointF(x + 1, yy);
    }
    if (shape.line.isEmpty())
        return;
    // A memory row's peak (its first sample at the maximum), when in view.
    static const QStringList byteUnits{QStringLiteral("B"), QStringLiteral("KiB"),
                                       QStringLiteral("MiB"), QStringLiteral("GiB"),
                                       QStringLiteral("bytes")};
    if (byteUnits.contains(row.unit) &&
        row.label.contains(QLatin1String("memory"), Qt::CaseInsensitive) && track.maxAt() >= v.t0 &&
        track.maxAt() <= v.t1 && maxValue > 0)
        shape.peak = QPointF(std::max(double(left), xForTime(v, track.maxAt())), yOf(maxValue));
    shape.area = shape.line;
    shape.area << QPointF(shape.line.last().x(), yOf(0)) << QPointF(shape.line.first().x(), yOf(0));
    m_geometry.counters.push_back(std::move(shape));
}

} // namespace gml
