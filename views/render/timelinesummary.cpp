// SPDX-License-Identifier: GPL-3.0-or-later
// TimelinePainter, part 3: summary rows. A collapsed row with no slices of its own, or a rank
// shown as one row, draws the activity of the slice tracks it holds (issue 57): for each pixel
// column, the share of its time when any of them was busy, split by class (compute,
// communication, copy, CPU) in proportion to each class's own busy time there, stacked from the
// row's bottom. A row that holds nothing but ranges where the window is (a process of spans
// and annotations, an idle stretch under a step) draws the ranges' cover instead, in their
// colour, so that it is never blank where its rows would not be. The tracks are read as the slice
// rows are (held whole, or paged: the summary level the resolution wants), so a collapsed
// 1,024-rank job costs what its rows on screen hold.
#include "timelinepainter.h"

#include "sliceclass.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace gml {

namespace {

// The classes a summary stacks, bottom up, with the role whose colour each is drawn in; the
// last (ranges) only where the window holds no work.
constexpr std::array<SliceRole, 5> kSummaryClasses{SliceRole::Compute, SliceRole::Communication,
                                                   SliceRole::Copy, SliceRole::CpuOp,
                                                   SliceRole::Annotation};
constexpr int kRangeClass = 4;

int summaryClass(SliceRole role)
{
    switch (role) {
    case SliceRole::Compute:
        return 0;
    case SliceRole::Communication:
        return 1;
    case SliceRole::Copy:
        return 2;
    case SliceRole::CpuOp:
    case SliceRole::Python:
        return 3;
    case SliceRole::Annotation: // a range around work, not work
        return kRangeClass;
    }
    return -1;
}

using Interval = std::pair<TimeNs, TimeNs>;

// Adds the time of `iv` (sorted by start, possibly overlapping) to `columns`, each interval's
// overlap with each column counted once where intervals overlap one another.
void addUnion(std::vector<Interval> &iv, TimeNs t0, double scale, std::vector<float> &columns)
{
    std::sort(iv.begin(), iv.end());
    const auto add = [&](TimeNs a, TimeNs b) {
        const double xa = double(a - t0) * scale, xb = double(b - t0) * scale;
        const int last = std::min(int(columns.size()) - 1, int(std::ceil(xb)) - 1);
        for (int x = std::max(0, int(std::floor(xa))); x <= last; ++x)
            columns[size_t(x)] += float(std::min(xb, x + 1.0) - std::max(xa, double(x)));
    };
    TimeNs a = 0, b = 0;
    bool open = false;
    for (const auto &[s, e] : iv) {
        if (open && s <= b) {
            b = std::max(b, e);
            continue;
        }
        if (open)
            add(a, b);
        a = s, b = e, open = true;
    }
    if (open)
        add(a, b);
}

} // namespace

int TimelinePainter::summaryRole(StringId name, bool onGpu)
{
    if (m_classOfName[0].empty() && m_data && !m_data->names.empty())
        classifyNames();
    const auto &table = m_classOfName[onGpu ? 1 : 0];
    if (name < 0 || size_t(name) >= table.size())
        return summaryClass(onGpu ? SliceRole::Compute : SliceRole::CpuOp);
    return summaryClass(SliceRole(table[size_t(name)] - SlicePalette::kNames));
}

int TimelinePainter::buildSummaryRow(const TimelineViewport &v, size_t rowIndex, int top)
{
    const TimelineRow &row = m_layout.rows()[rowIndex];
    const int left = m_metrics.labelWidth, width = v.size.width() - left;
    if (width <= 0 || v.t1 <= v.t0)
        return 0;
    const double nsPerPixel = double(v.t1 - v.t0) / double(width);
    const double scale = 1.0 / nsPerPixel;
    std::array<std::vector<Interval>, kSummaryClasses.size()> byClass;
    std::vector<Interval> all;
    for (TrackId id : row.summarised) {
        const auto s = sliceView(id, v);
        if (!s)
            continue;
        // The two top levels: work sits there, under at most one range (a step, an annotation);
        // deeper slices lie within their parents.
        for (int d = 0; d < std::min(2, s->depthCount()); ++d) {
            const size_t last = s->lastIndex(d, v.t1);
            for (size_t i = s->firstIndex(d, v.t0); i < last; ++i) {
                const int c = summaryRole(s->nameId(i), row.summaryOnGpu);
                const TimeNs a = std::max(s->start(i), v.t0), b = std::min(s->end(i), v.t1);
                if (c < 0 || b <= a)
                    continue;
                byClass[size_t(c)].emplace_back(a, b);
                if (c != kRangeClass)
                    all.emplace_back(a, b);
            }
        }
    }
    // Ranges count only where there is no work to show.
    if (all.empty())
        all = byClass[kRangeClass];
    else
        byClass[kRangeClass].clear();
    std::vector<float> busy(size_t(width), 0.f);
    addUnion(all, v.t0, scale, busy);
    std::array<std::vector<float>, kSummaryClasses.size()> share;
    for (size_t c = 0; c < share.size(); ++c) {
        share[c].assign(size_t(width), 0.f);
        if (!byClass[c].empty())
            addUnion(byClass[c], v.t0, scale, share[c]);
    }
    // Stacked columns, run-length merged per class where neighbours have the same extent.
    const int inner = row.height - 2, bottom = top + row.height - 1;
    std::array<QRect, kSummaryClasses.size()> open{};
    const auto flush = [&](size_t c) {
        if (open[c].isValid()) {
            m_geometry.boxes[size_t(SlicePalette::classIndex(int(kSummaryClasses[c])))].push_back(
                open[c]);
            ++m_geometry.mergedBoxes;
        }
        open[c] = QRect();
    };
    int drawn = 0;
    for (int x = 0; x < width; ++x) {
        const double u = std::clamp(double(busy[size_t(x)]), 0.0, 1.0);
        double total = 0;
        for (const auto &sh : share)
            total += sh[size_t(x)];
        const int h = u > 0 && total > 0 ? std::max(1, int(std::lround(u * inner))) : 0;
        drawn += h > 0;
        double below = 0;
        int y = bottom;
        for (size_t c = 0; c < share.size(); ++c) {
            below += h > 0 ? share[c][size_t(x)] : 0.0;
            const int yTop = bottom - int(std::lround(h * below / std::max(total, 1e-12)));
            const QRect r(left + x, yTop, 1, y - yTop);
            y = yTop;
            if (r.height() <= 0) {
                flush(c);
                continue;
            }
            if (open[c].isValid() && open[c].y() == r.y() && open[c].height() == r.height() &&
                open[c].right() + 1 == r.x())
                open[c].setWidth(open[c].width() + 1);
            else {
                flush(c);
                open[c] = r;
            }
        }
    }
    for (size_t c = 0; c < open.size(); ++c)
        flush(c);
    // Kept for summaryText (the status bar under the mouse).
    m_geometry.summaries.push_back({rowIndex, std::move(busy), std::move(share)});
    return drawn;
}

QString TimelinePainter::summaryText(int row, double x) const
{
    const int column = int(std::floor(x)) - m_metrics.labelWidth;
    for (const auto &s : m_geometry.summaries) {
        if (int(s.row) != row || column < 0 || size_t(column) >= s.busy.size())
            continue;
        const double busy = std::clamp(double(s.busy[size_t(column)]), 0.0, 1.0);
        double total = 0;
        for (const auto &c : s.classes)
            total += c[size_t(column)];
        QStringList parts;
        for (size_t c = 0; c < s.classes.size(); ++c)
            if (const double share = total > 0 ? busy * s.classes[c][size_t(column)] / total : 0;
                share >= 0.005)
                parts << QStringLiteral("%1 %2%")
                             .arg(c == 3             ? QStringLiteral("CPU")
                                  : c == kRangeClass ? tr("ranges (no work)")
                                                     : sliceRoleName(kSummaryClasses[c]))
                             .arg(100 * share, 0, 'f', 0);
        const TimelineRow &r = m_layout.rows()[size_t(row)];
        return tr("%1: busy %2%%3 (%4 %5 held)")
            .arg(r.label)
            .arg(100 * busy, 0, 'f', 0)
            .arg(parts.isEmpty() ? QString()
                                 : QStringLiteral(" — ") + parts.join(QStringLiteral(", ")))
            .arg(r.summarised.size())
            .arg(r.summaryOnGpu ? tr("GPU streams") : tr("threads"));
    }
    return {};
}

} // namespace gml
