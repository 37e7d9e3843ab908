// SPDX-License-Identifier: GPL-3.0-or-later
// Layout, level-of-detail geometry and hit testing of the timeline painter. Compares geometry,
// not pixels; the data is built in memory, deterministic (and, for paged tracks, written to a
// project first).
#include "project.h"
#include "slicepager.h"
#include "timeformat.h"
#include "timelinepainter.h"
#include "timelinestate.h"
#include "tracewriter.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace gml;

namespace {

// One run: process 1 > thread 2 (slices), GPU 3 > stream 4 (slices), counter 5.
std::shared_ptr<TimelineData> makeData(std::vector<SliceTrack::Input> thread,
                                       std::vector<SliceTrack::Input> stream)
{
    auto d = std::make_shared<TimelineData>();
    RunSummary run;
    run.id = 1;
    run.name = QStringLiteral("r");
    run.kind = QStringLiteral("measured");
    auto add = [&](TrackId id, TrackId parent, TrackKind kind, const char *name, qint64 slices,
                   qint64 samples) {
        TrackSummary t;
        t.id = id;
        t.parent = parent;
        t.kind = kind;
        t.name = QString::fromUtf8(name);
        t.slices = slices;
        t.counterSamples = samples;
        t.unit = kind == TrackKind::Counter ? QStringLiteral("%") : QString();
        run.tracks.append(t);
    };
    add(1, 0, TrackKind::Process, "rank 0 · python (pid 1)", 0, 0);
    add(2, 1, TrackKind::Thread, "main thread", qint64(thread.size()), 0);
    add(3, 0, TrackKind::Gpu, "rank 0 · GPU 0", 0, 0);
    add(4, 3, TrackKind::Stream, "stream 7", qint64(stream.size()), 0);
    add(5, 3, TrackKind::Counter, "GPU utilization", 0, 4);
    d->runs.append(run);
    d->slices.insert(2, std::make_shared<const SliceTrack>(SliceTrack::build(std::move(thread))));
    d->slices.insert(4, std::make_shared<const SliceTrack>(SliceTrack::build(std::move(stream))));
    d->counters.insert(5, std::make_shared<const CounterTrack>(CounterTrack::build(
                              {{0, 10}, {250'000, 90}, {500'000, 40}, {999'000, 0}})));
    d->names = {QString(), QStringLiteral("step"), QStringLiteral("op"), QStringLiteral("kernel")};
    d->start = 0;
    d->end = 1'000'000;
    return d;
}

} // namespace

class TestTimelinePainter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Issue 73: a long row label keeps its first and last parts whole, the middle ones left
    // out ("Te...XM2-32GB" cut words in the middle), and is only cut at the end when even its
    // first part does not fit.
    void labelsLeaveOutWholeParts()
    {
        const QFontMetricsF fm(QGuiApplication::font());
        const QString label = QStringLiteral("rank 0 \u00b7 GPU 0 \u00b7 Tesla V100-SXM2-32GB");
        QCOMPARE(elideParts(fm, label, fm.horizontalAdvance(label)), label);
        const QString shorter = QStringLiteral("rank 0 \u00b7 \u2026 \u00b7 Tesla V100-SXM2-32GB");
        QCOMPARE(elideParts(fm, label, fm.horizontalAdvance(shorter) + 1), shorter);
        const QString first = QStringLiteral("rank 0 \u00b7 \u2026");
        QCOMPARE(elideParts(fm, label, fm.horizontalAdvance(first) + 1), first);
        const QString cut = elideParts(fm, label, fm.horizontalAdvance(QStringLiteral("rank")));
        QVERIFY2(cut.endsWith(QChar(0x2026)) && !cut.contains(QStringLiteral("V100")),
                 qPrintable(cut));
    }

    void layoutOrdersHidesAndCollapses()
    {
        auto d = makeData({{0, 100, 1, 1}, {10, 50, 2, 2}}, {{0, 10, 3, 3}});
        TimelineLayout l;
        l.build(*d, {}, {});
        QStringList labels;
        for (const auto &r : l.rows())
            labels << r.label;
        QCOMPARE(labels,
                 (QStringList{QStringLiteral("r"), QStringLiteral("rank 0 · python (pid 1)"),
                              QStringLiteral("main thread"), QStringLiteral("rank 0 · GPU 0"),
                              QStringLiteral("stream 7"), QStringLiteral("GPU utilization")}));
        const TimelineMetrics m;
        QCOMPARE(l.rows()[2].height, 2 * m.depthHeight + 2 * m.rowPadding); // two nesting levels
        QVERIFY(l.rows()[5].isCounter);
        QCOMPARE(l.rowAt(l.rows()[4].y + 1), 4);
        QCOMPARE(l.contentHeight(), l.rows().back().y + l.rows().back().height);
        l.build(*d, {3}, {}); // collapse the GPU: its stream and counter go
        QCOMPARE(int(l.rows().size()), 4);
        QVERIFY(!l.rows()[3].expanded);
        l.build(*d, {}, {1}); // hide the process and its thread
        QCOMPARE(int(l.rows().size()), 4);
        QCOMPARE(l.rowOfTrack(2), -1);
        QCOMPARE(l.sliceTracks(), (QList<TrackId>{4}));
        l.build(*d, {-1}, {}); // collapse the run
        QCOMPARE(int(l.rows().size()), 1);
    }

    void narrowSlicesFoldIntoPixelBuckets()
    {
        // 100,000 slices of 5 ns every 10 ns: at 1 ms over 1000 px every slice is a hundredth
        // of a pixel, so geometry must be per pixel, not per slice.
        std::vector<SliceTrack::Input> in;
        for (SliceId i = 0; i < 100'000; ++i)
            in.push_back({i * 10, 5, i + 1, StringId(1 + i % 3)});
        auto d = makeData(std::move(in), {{0, 10, 999'999, 3}});
        TimelinePainter p;
        p.setData(d);
        TimelineViewport v;
        v.size = QSize(p.metrics().labelWidth + 1000, 600);
        v.t0 = 0;
        v.t1 = 1'000'000;
        const auto &g = p.geometry(v);
        QCOMPARE(g.visibleSlices, size_t(100'000) + 1); // every slice accounted for (+ the kernel)
        QCOMPARE(g.exactBoxes, size_t(0));
        QVERIFY2(g.boxCount() <= 1000 + 1, qPrintable(QString::number(g.boxCount())));
        // The folded boxes tile the thread row from the first to the last pixel.
        double lo = 1e9, hi = -1e9;
        for (const auto &list : g.boxes)
            for (const auto &r : list)
                if (r.width() > 0 && r.top() < 200) {
                    lo = std::min(lo, double(r.x()));
                    hi = std::max(hi, double(r.x() + r.width()));
                }
        QCOMPARE(lo, double(p.metrics().labelWidth));
        QVERIFY(hi >= p.metrics().labelWidth + 999);

        // Zoomed to 1 µs: 100 visible slices, each 5 px wide, drawn exactly at its place.
        v.t0 = 500'000;
        v.t1 = 501'000;
        const auto &z = p.geometry(v);
        QCOMPARE(z.visibleSlices, size_t(100));
        QCOMPARE(z.mergedBoxes, size_t(0));
        QCOMPARE(z.exactBoxes, size_t(100));
        std::vector<double> lefts;
        for (const auto &list : z.boxes)
            for (const auto &r : list)
                lefts.push_back(r.x() - p.metrics().labelWidth);
        std::sort(lefts.begin(), lefts.end());
        for (size_t k = 0; k < lefts.size(); ++k)
            QCOMPARE(lefts[k], double(k * 10));
    }

    void geometryIsCachedPerViewport()
    {
        auto d = makeData({{0, 100, 1, 1}}, {});
        TimelinePainter p;
        p.setData(d);
        TimelineViewport v{QSize(1280, 400), 0, 1000, 0};
        const TimelineGeometry *a = &p.geometry(v);
        const size_t boxes = a->boxCount();
        QCOMPARE(&p.geometry(v), a);
        QCOMPARE(p.geometry(v).boxCount(), boxes);
        v.t1 = 500;
        QCOMPARE(p.geometry(v).boxCount(), boxes); // rebuilt for the new window, same slice
    }

    void counterShowsPeaksPerColumn()
    {
        auto d = makeData({}, {});
        TimelinePainter p;
        p.setData(d);
        TimelineViewport v{QSize(p.metrics().labelWidth + 100, 600), 0, 1'000'000, 0};
        const auto &g = p.geometry(v);
        QCOMPARE(int(g.counters.size()), 1);
        const auto &c = g.counters.front();
        QCOMPARE(c.maxText, QStringLiteral("90 %"));
        // The highest point (smallest y) is the 90% sample, between 25% and 50% of the width.
        double minY = 1e9, atX = -1;
        for (const auto &pt : c.line)
            if (pt.y() < minY)
                minY = pt.y(), atX = pt.x() - p.metrics().labelWidth;
        QVERIFY(atX >= 25 && atX < 50);
        QCOMPARE(c.peak.x(), -1.0); // GPU utilization is no memory: no peak mark
        // A memory counter (a unit of bytes, "memory" in its name): its peak is marked at the
        // first sample at the maximum, on the line's top.
        d->runs[0].tracks[4].name = QStringLiteral("memory allocated · PyTorch profiler");
        d->runs[0].tracks[4].unit = QStringLiteral("MiB");
        TimelinePainter m;
        m.setData(d);
        const auto &mc = m.geometry(v).counters.front();
        QCOMPARE(mc.peak.x(), double(m.metrics().labelWidth) + 25.0);
        QCOMPARE(mc.peak.y(), minY);
        QCOMPARE(mc.maxText, QStringLiteral("90.0 MiB"));
        // Values in the unit a person reads (issue 73): sizes in binary units, other units
        // without an exponent.
        QCOMPARE(formatQuantity(182'800, QStringLiteral("MiB")), QStringLiteral("179 GiB"));
        QCOMPARE(formatQuantity(2.5, QStringLiteral("GiB")), QStringLiteral("2.50 GiB"));
        QCOMPARE(formatQuantity(1536, QStringLiteral("bytes")), QStringLiteral("1.50 KiB"));
        QCOMPARE(formatQuantity(182'800, QStringLiteral("W")), QStringLiteral("182800 W"));
        QCOMPARE(formatQuantity(61.25, QStringLiteral("%")), QStringLiteral("61.25 %"));
        QCOMPARE(formatQuantity(0, QString()), QStringLiteral("0"));
    }

    void hitTestFindsSlicesAndToggles()
    {
        auto d = makeData({{0, 1000, 1, 1}, {100, 200, 2, 2}}, {{400, 10, 3, 3}});
        TimelinePainter p;
        p.setData(d);
        TimelineViewport v{QSize(p.metrics().labelWidth + 1000, 600), 0, 1000, 0};
        const auto &rows = p.layout().rows();
        const int header = p.metrics().headerHeight();
        const auto &thread = rows[size_t(p.layout().rowOfTrack(2))];
        const auto yAt = [&](const TimelineRow &r, int depth) {
            return double(header + r.y + p.metrics().rowPadding + depth * p.metrics().depthHeight +
                          5);
        };
        const double x150 = p.xForTime(v, 150);
        auto hit = p.hitTest(v, QPointF(x150, yAt(thread, 1)));
        QCOMPARE(hit.area, TimelineHit::Area::Rows);
        QCOMPARE(hit.track, TrackId(2));
        QCOMPARE(d->slices.value(2)->id(size_t(hit.index)), SliceId(2));
        hit = p.hitTest(v, QPointF(p.xForTime(v, 700), yAt(thread, 1)));
        QCOMPARE(hit.index, qint64(-1)); // nothing at depth 1 there
        hit = p.hitTest(v, QPointF(p.xForTime(v, 700), yAt(thread, 0)));
        QCOMPARE(d->slices.value(2)->id(size_t(hit.index)), SliceId(1));
        // A 10 ns kernel is 10 px wide; 2 px beside it still hits (tolerance for tiny slices).
        const auto &stream = rows[size_t(p.layout().rowOfTrack(4))];
        hit = p.hitTest(v, QPointF(p.xForTime(v, 412), yAt(stream, 0)));
        QCOMPARE(hit.index, qint64(0));
        // The process row's triangle toggles; its label does not.
        const auto &proc = rows[1];
        hit =
            p.hitTest(v, QPointF(16 + proc.indent * p.metrics().indent - 8, header + proc.y + 10));
        QCOMPARE(hit.area, TimelineHit::Area::Labels);
        QVERIFY(hit.onToggle);
        hit = p.hitTest(v, QPointF(200, header + proc.y + 10));
        QVERIFY(!hit.onToggle);
        // Ruler and overview.
        hit = p.hitTest(v, QPointF(p.xForTime(v, 500), p.metrics().overviewHeight + 5));
        QCOMPARE(hit.area, TimelineHit::Area::Ruler);
        QCOMPARE(hit.time, TimeNs(500));
        QCOMPARE(p.hitTest(v, QPointF(p.xForTime(v, 500), 5)).area, TimelineHit::Area::Overview);
    }

    // Run-scoped time (issue 35): a second run a day later. Focused alone, its span is the
    // trace range; focused with the first and aligned, it is shifted to start where the first
    // does (drawn, hit and overlaid there); on the project clock it stays where it ran.
    void focusedRunsAlignAtTheirStarts()
    {
        auto d = makeData({{0, 100'000, 1, 1}}, {{0, 10, 3, 3}});
        constexpr TimeNs kDay = 86'400'000'000'000;
        RunSummary later = d->runs.first();
        later.id = 2;
        later.name = QStringLiteral("later");
        for (auto &t : later.tracks)
            t.id += 10, t.parent = t.parent ? t.parent + 10 : 0;
        d->runs.first().start = 0;
        d->runs.first().end = 1'000'000;
        later.start = kDay;
        later.end = kDay + 500'000;
        d->runs.append(later);
        d->slices.insert(
            12, std::make_shared<const SliceTrack>(SliceTrack::build({{kDay, 200'000, 7, 1}})));
        d->end = kDay + 500'000;
        TimelineLayout all;
        all.build(*d, {}, {});
        QCOMPARE(all.spanStart(), TimeNs(0));
        QCOMPARE(all.spanEnd(), kDay + 500'000); // the whole project: a day
        TimelineLayout one;
        one.build(*d, {}, {}, {}, TimelineFocus{{2}, false});
        QCOMPARE(one.spanStart(), kDay);
        QCOMPARE(one.spanEnd(), kDay + 500'000);
        QCOMPARE(one.rows().front().label, QStringLiteral("later"));
        QCOMPARE(one.rowOfTrack(2), -1); // the other run's tracks are not laid out
        TimelineLayout both;
        both.build(*d, {}, {}, {}, TimelineFocus{{1, 2}, false});
        QCOMPARE(both.spanStart(), TimeNs(0));
        QCOMPARE(both.spanEnd(), TimeNs(1'000'000));
        QCOMPARE(both.shiftOf(12), kDay);
        QCOMPARE(both.shiftOf(2), TimeNs(0));
        TimelinePainter p;
        p.setData(d);
        p.setLayout(both);
        const TimelineViewport v{QSize(p.metrics().labelWidth + 1000, 800), 0, 1'000'000, 0};
        const auto &g = p.geometry(v);
        QVERIFY(g.visibleSlices >= 2); // the later run's slice is drawn at its aligned place
        const QRectF r = p.sliceRect(v, 12, 0);
        QCOMPARE(r.left(), p.xForTime(v, 0));
        QCOMPARE(r.width(), p.xForTime(v, 200'000) - p.xForTime(v, 0));
        const auto hit = p.hitTest(v, r.center());
        QCOMPARE(hit.track, TrackId(12));
        QCOMPARE(hit.index, qint64(0));
        TimelineLayout clock;
        clock.build(*d, {}, {}, {}, TimelineFocus{{1, 2}, true});
        QCOMPARE(clock.shiftOf(12), TimeNs(0));
        QCOMPARE(clock.spanEnd(), kDay + 500'000);
    }

    // Track management (issue 35): a name filter keeps the matching tracks and their
    // ancestors; a side keeps GPU devices and streams, or the CPU side; a pinned track leaves
    // its place for a band above the scrolling rows, where it is drawn and hit.
    void filtersAndPinsTracks()
    {
        auto d = makeData({{0, 100, 1, 1}, {10, 50, 2, 2}}, {{0, 10, 3, 3}});
        const auto labels = [](const TimelineLayout &l) {
            QStringList out;
            for (const auto &r : l.rows())
                out << r.label;
            return out;
        };
        TimelineLayout l;
        TimelineTrackFilter f;
        f.text = QStringLiteral("stream");
        l.build(*d, {}, {}, {}, {}, f);
        QCOMPARE(labels(l), (QStringList{QStringLiteral("r"), QStringLiteral("rank 0 · GPU 0"),
                                         QStringLiteral("stream 7")}));
        f.text = QStringLiteral("PYTHON"); // any case; its thread matches through its path
        l.build(*d, {}, {}, {}, {}, f);
        QCOMPARE(labels(l),
                 (QStringList{QStringLiteral("r"), QStringLiteral("rank 0 · python (pid 1)"),
                              QStringLiteral("main thread")}));
        f.text.clear();
        f.only = TimelineTrackFilter::Only::Gpu;
        l.build(*d, {}, {}, {}, {}, f);
        QCOMPARE(labels(l), (QStringList{QStringLiteral("r"), QStringLiteral("rank 0 · GPU 0"),
                                         QStringLiteral("stream 7")}));
        f.only = TimelineTrackFilter::Only::Cpu; // the GPU's counter is the GPU side's
        l.build(*d, {}, {}, {}, {}, f);
        QCOMPARE(labels(l),
                 (QStringList{QStringLiteral("r"), QStringLiteral("rank 0 · python (pid 1)"),
                              QStringLiteral("main thread")}));
        f.text = QStringLiteral("no such track");
        f.only = TimelineTrackFilter::Only::All;
        l.build(*d, {}, {}, {}, {}, f);
        QVERIFY(l.rows().empty());
        // Pinned: the stream in the band, out of its place in the tree.
        TimelineTrackFilter pin;
        pin.pinned = {4};
        l.build(*d, {}, {}, {}, {}, pin);
        QCOMPARE(l.pinnedCount(), size_t(1));
        QVERIFY(l.rows().front().pinned);
        QCOMPARE(l.rows().front().label, QStringLiteral("rank 0 · GPU 0 › stream 7"));
        QCOMPARE(l.pinnedHeight(), l.rows().front().height);
        int streams = 0;
        for (const auto &r : l.rows())
            streams += r.track == 4;
        QCOMPARE(streams, 1);
        TimelinePainter p;
        p.setData(d);
        p.setLayout(l);
        const TimelineViewport v{QSize(p.metrics().labelWidth + 1000, 600), 0, 1'000'000,
                                 200}; // scrolled
        QCOMPARE(p.rowsTop(), p.metrics().headerHeight() + l.pinnedHeight());
        const QRectF r = p.sliceRect(v, 4, 0); // drawn in the band whatever the scroll
        QVERIFY(r.top() >= p.metrics().headerHeight() && r.bottom() <= p.rowsTop());
        const auto hit = p.hitTest(v, r.center());
        QCOMPARE(hit.track, TrackId(4));
        QCOMPARE(hit.index, qint64(0));
        const auto &g = p.geometry(v);
        size_t pinnedBoxes = 0;
        for (size_t c : g.pinnedBoxes)
            pinnedBoxes += c;
        QVERIFY(pinnedBoxes >= 1);
        // Collapse all: every parent key of the focused runs.
        QCOMPARE(TimelineLayout::parentKeys(*d, {}), (QList<qint64>{-1, 1, 3}));
    }

    // The ruler's labels never overlap, from a nanosecond to years, at both screen widths; long
    // spans count in minutes, hours, days and years, not in ten-digit seconds.
    void rulerLabelsNeverOverlap_data()
    {
        QTest::addColumn<TimeNs>("span");
        QTest::addColumn<int>("width");
        QTest::addColumn<QString>("unit");
        constexpr TimeNs kS = 1'000'000'000;
        for (int w : {1366, 1920}) {
            QTest::addRow("1 ns @%d", w) << TimeNs(1) << w << QStringLiteral(" ns");
            QTest::addRow("1 us @%d", w) << TimeNs(1000) << w << QStringLiteral(" (ns|µs)");
            QTest::addRow("1 s @%d", w) << kS << w << QStringLiteral(" m?s");
            QTest::addRow("19 h @%d", w) << 19 * 3600 * kS << w << QStringLiteral(" h");
            QTest::addRow("1 day @%d", w) << 86400 * kS << w << QStringLiteral(" h");
            // Steps of 100 or 200 days, or of years, as the width allows.
            QTest::addRow("5 years @%d", w) << 5 * 365 * 86400 * kS << w << QStringLiteral(" [dy]");
            QTest::addRow("2000 days @%d", w) << 2000 * 86400 * kS << w << QStringLiteral(" [dy]");
        }
    }

    void rulerLabelsNeverOverlap()
    {
        QFETCH(TimeNs, span);
        QFETCH(int, width);
        QFETCH(QString, unit);
        auto d = makeData({{0, 10, 1, 1}}, {{0, 10, 3, 3}});
        TimelinePainter p;
        p.setData(d);
        QImage img(width, 300, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&img);
        // A window that starts off a tick (the labels' magnitudes are not round).
        const TimeNs t0 = span / 3 + 7;
        p.paint(painter, TimelineViewport{img.size(), t0, t0 + span, 0},
                TimelineOverlay{0, span * 2});
        const auto &labels = p.rulerLabels();
        // A tick a nanosecond at most: a window of a few nanoseconds holds one or two.
        QVERIFY2(labels.size() >= (span >= 100 ? 3u : 1u),
                 qPrintable(QString::number(labels.size())));
        for (size_t i = 0; i + 1 < labels.size(); ++i)
            QVERIFY2(labels[i].x + labels[i].width + 4 <= labels[i + 1].x,
                     qPrintable(QStringLiteral("'%1' at %2 (+%3) and '%4' at %5")
                                    .arg(labels[i].text)
                                    .arg(labels[i].x)
                                    .arg(labels[i].width)
                                    .arg(labels[i + 1].text)
                                    .arg(labels[i + 1].x)));
        QVERIFY2(QRegularExpression(QStringLiteral("^-?[0-9.]+") + unit + QLatin1Char('$'))
                     .match(labels.back().text)
                     .hasMatch(),
                 qPrintable(labels.back().text));
        QVERIFY(labels.size() <= size_t(width / 40));
    }

    // Deep zoom far from the origin: the ticks count from a base at the window ("+0 ns",
    // "+10 ns"), the label column says which ("start + 515.18 ms", a multiple of 10 steps), down
    // to the narrowest window, 10 ns of 1 ns ticks (issue 73: it stopped at 512 ns, counting
    // from 1000 steps back: "+9900 ns"); a chosen origin
    // counts from itself.
    void rulerLabelsStayShortAtDeepZoom()
    {
        auto d = makeData({{0, 10, 1, 1}}, {{0, 10, 3, 3}});
        TimelinePainter p;
        p.setData(d);
        for (int width : {1366, 1920}) {
            QImage img(width, 300, QImage::Format_ARGB32_Premultiplied);
            QPainter painter(&img);
            for (TimeNs span :
                 {TimelineState::kMinWindow, TimeNs(100), TimeNs(1000), TimeNs(1'000'000)}) {
                const TimeNs t0 = 515'180'750;
                TimelineOverlay o;
                o.traceStart = 0;
                o.traceEnd = 2'000'000'000;
                p.paint(painter, TimelineViewport{img.size(), t0, t0 + span, 0}, o);
                const auto &labels = p.rulerLabels();
                QVERIFY(labels.size() >= 3);
                for (size_t i = 0; i < labels.size(); ++i) {
                    QVERIFY2(labels[i].text.size() <= 10, qPrintable(labels[i].text));
                    if (i + 1 < labels.size())
                        QVERIFY(labels[i].x + labels[i].width + 4 <= labels[i + 1].x);
                }
                if (span >= 1'000'000) { // "515.2 ms": short enough from the start
                    QCOMPARE(p.rulerBaseText(), QStringLiteral("from start"));
                    continue;
                }
                QVERIFY2(p.rulerBaseText().startsWith(QStringLiteral("start + 515.")),
                         qPrintable(p.rulerBaseText()));
                QVERIFY2(labels.front().text.startsWith(QLatin1Char('+')),
                         qPrintable(labels.front().text));
                if (span <= 100) // relative to the viewport: within two windows of the base
                    for (const auto &l : labels) {
                        QVERIFY2(l.text.endsWith(QStringLiteral(" ns")), qPrintable(l.text));
                        QVERIFY2(l.text.mid(1).chopped(3).toDouble() < 2.0 * double(span),
                                 qPrintable(l.text));
                    }
            }
            // The origin at the window: plain offsets from it, a "0" tick where it is.
            TimelineOverlay o;
            o.traceEnd = 2'000'000'000;
            o.hasOrigin = true;
            o.origin = 515'180'700;
            p.paint(painter, TimelineViewport{img.size(), 515'180'650, 515'180'850, 0}, o);
            QCOMPARE(p.rulerBaseText(), QStringLiteral("from origin"));
            bool zero = false;
            for (const auto &l : p.rulerLabels()) {
                QVERIFY2(l.text.size() <= 10, qPrintable(l.text));
                zero = zero || l.text == QStringLiteral("0 ns");
            }
            QVERIFY(zero);
        }
    }

    void paintsWithoutData()
    {
        TimelinePainter p;
        QImage img(800, 400, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&img);
        p.paint(painter, TimelineViewport{img.size(), 0, 100, 0}, TimelineOverlay{});
        QVERIFY(p.lastPaintMs() >= 0);
    }

    // A project's large tracks are paged from their summaries (issue 34): at the whole trace and
    // at a zoom between levels the paged rows cover the pixels the whole tracks do (a summary
    // shows a slice wherever there is one), and zoomed in past the finest level they are the
    // slices themselves, drawn identically.
    void pagedTracksPaintWhatWholeTracksDo()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("paged.grademl"));
        {
            QString error;
            auto p = Project::open(path, Project::Mode::ReadWrite, &error);
            QVERIFY2(p && p->begin(&error), qPrintable(error));
            const RunId run = p->ensureRun(QStringLiteral("r"), &error);
            QVERIFY(
                p->db().exec("INSERT INTO source(run_id, path, format, status, clock_offset_ns) "
                             "VALUES(1, 'x', 'test', 'failed', 0)"));
            TraceWriter w(*p, run, p->db().lastInsertRowId());
            TrackSpec spec;
            spec.name = QStringLiteral("thread");
            const TrackId thread = w.addTrack(spec);
            spec.kind = TrackKind::Stream;
            spec.name = QStringLiteral("stream");
            const TrackId stream = w.addTrack(spec);
            QRandomGenerator rng(17);
            std::vector<StringId> names;
            for (int i = 0; i < 40; ++i)
                names.push_back(p->intern(QStringLiteral("op_%1").arg(i).toStdString()));
            TimeNs t = 0, k = 0;
            for (int i = 0; i < 30000; ++i) { // parents with 0-3 children, and kernels
                const TimeNs dur = rng.bounded(1000, 60000);
                w.addSlice(thread, t, dur, names[size_t(rng.bounded(40))], 0);
                const int kids = rng.bounded(4);
                for (int j = 0; j < kids; ++j)
                    w.addSlice(thread, t + 200 + j * (dur / 4), dur / 5,
                               names[size_t(rng.bounded(40))], 0);
                t += dur + rng.bounded(0, 10000);
                for (; k < t; k += rng.bounded(3000, 20000))
                    w.addSlice(stream, k, rng.bounded(1000, 15000) / 8,
                               names[size_t(rng.bounded(40))], 0);
            }
            QVERIFY2(w.finish({}, &error), qPrintable(error));
            QVERIFY2(p->commit(&error), qPrintable(error));
        }
        QString error;
        const auto paged = loadTimelineData(path, &error);
        const auto whole = loadTimelineData(path, &error, {}, false);
        QVERIFY2(paged && whole, qPrintable(error));
        QVERIFY(paged->pager && paged->slices.isEmpty());
        QCOMPARE(paged->sliceCount(), whole->sliceCount());
        QCOMPARE(paged->start, whole->start);
        QCOMPARE(paged->end, whole->end);
        // The slice boxes' pixels (labels and overview aside).
        const auto mask = [](const TimelineGeometry &g, QSize size) {
            QImage img(size, QImage::Format_Grayscale8);
            img.fill(0);
            QPainter p(&img);
            for (const auto &boxes : g.boxes)
                for (const QRect &r : boxes)
                    p.fillRect(r, Qt::white);
            return img;
        };
        TimelinePainter a, b;
        a.setData(paged);
        b.setData(whole);
        const TimeNs span = whole->end - whole->start;
        for (const TimeNs width : {span, span / 7, TimeNs(300'000)}) {
            const TimelineViewport v{QSize(1366, 400), whole->start + span / 3,
                                     whole->start + span / 3 + width, 0};
            QVERIFY(a.waitForPages(v));
            QVERIFY(a.complete());
            const QImage pa = mask(a.geometry(v), v.size), wh = mask(b.geometry(v), v.size);
            qint64 both = 0, onlyPaged = 0, onlyWhole = 0;
            for (int y = 0; y < pa.height(); ++y)
                for (int x = 0; x < pa.width(); ++x) {
                    const bool p = qGray(pa.pixel(x, y)) > 0, w = qGray(wh.pixel(x, y)) > 0;
                    both += p && w;
                    onlyPaged += p && !w;
                    onlyWhole += w && !p;
                }
            QVERIFY(both > 10000);
            if (width == TimeNs(300'000)) { // past the finest level: the slices themselves
                QCOMPARE(onlyPaged, 0);
                QCOMPARE(onlyWhole, 0);
            } else {
                // A summary never draws where the track has nothing, and misses at most a few
                // pixels where a bucket's longest slice lies just outside a pixel it shares.
                QCOMPARE(onlyPaged, 0);
                QVERIFY2(double(onlyWhole) < 0.005 * double(both),
                         qPrintable(QString::number(onlyWhole)));
            }
        }
        // A read of another window of the same level, landing later (the reader takes the
        // newest request first, so it may be of a viewport the view no longer has), keeps the
        // window on screen: the first rows of a 1,024-rank job were drawn empty when a paint
        // before the trace range was set read the window [0, 1) last.
        SlicePager &pager = *paged->pager;
        const TrackId thread = paged->runs.front().tracks.back().id;
        QVERIFY(pager.has(thread));
        const TimeNs a0 = whole->start + span / 3, b0 = whole->end - 400'000;
        const double nsPerPixel = 300'000.0 / 1000;
        (void)pager.view(thread, a0, a0 + 300'000, nsPerPixel);
        pager.waitForIdle();
        QVERIFY(pager.view(thread, a0, a0 + 300'000, nsPerPixel) && pager.exact(thread));
        (void)pager.view(thread, b0, b0 + 300'000, nsPerPixel);
        pager.waitForIdle();
        QVERIFY(pager.view(thread, b0, b0 + 300'000, nsPerPixel) && pager.exact(thread));
        const auto back = pager.view(thread, a0, a0 + 300'000, nsPerPixel);
        QVERIFY(back && back->size() > 0);
        QVERIFY(pager.exact(thread));
    }
};

QTEST_MAIN(TestTimelinePainter)
#include "tst_timelinepainter.moc"
