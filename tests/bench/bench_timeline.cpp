// SPDX-License-Identifier: GPL-3.0-or-later
// bench_timeline: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "timelinepainter.h"

#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace gml;

static std::shared_ptr<TimelineData> generate(qint64 total, int tracks)
{
    auto d = std::make_shared<TimelineData>();
    for (int i = 0; i < 200; ++i)
        d->names.push_back(QStringLiteral("aten::op_%1").arg(i));
    RunSummary run;
    run.id = 1;
    run.name = QStringLiteral("generated");
    run.kind = QStringLiteral("measured");
    const qint64 perTrack = total / tracks;
    TimeNs end = 0;
    for (int k = 0; k < tracks; ++k) {
        QRandomGenerator rng(quint32(1000 + k));
        std::vector<SliceTrack::Input> in;
        in.reserve(size_t(perTrack));
        TimeNs t = 0;
        SliceId id = SliceId(k) * perTrack;
        while (qint64(in.size()) < perTrack) {
            // A parent op with 0-3 children laid inside it.
            const TimeNs dur = rng.bounded(1000, 60000);
            in.push_back({t, dur, ++id, StringId(rng.bounded(200))});
            const int kids = rng.bounded(4);
            TimeNs c = t + 200;
            for (int j = 0; j < kids && qint64(in.size()) < perTrack; ++j) {
                const TimeNs cd = (dur - 400) / (kids + 1);
                in.push_back({c, cd, ++id, StringId(rng.bounded(200))});
                c += cd + 50;
            }
            t += dur + rng.bounded(0, 10000);
        }
        end = std::max(end, t);
        TrackSummary tr;
        tr.id = k + 1;
        tr.kind = TrackKind::Thread;
        tr.name = QStringLiteral("thread %1").arg(k);
        tr.slices = qint64(in.size());
        run.tracks.append(tr);
        d->slices.insert(tr.id,
                         std::make_shared<const SliceTrack>(SliceTrack::build(std::move(in))));
    }
    d->runs.append(run);
    d->start = 0;
    d->end = end;
    return d;
}

// `hours` of a 10 Hz sampler's 60 series (what a followed recorder log holds after that long),
// as counter tracks of their own run, over the same span as the slices when there are any.
static std::shared_ptr<TimelineData> withCounters(std::shared_ptr<TimelineData> d, double hours)
{
    const qint64 samples = qint64(hours * 3600 * 10);
    if (samples <= 0)
        return d;
    RunSummary run;
    run.id = 2;
    run.name = QStringLiteral("recorded");
    run.kind = QStringLiteral("measured");
    const TimeNs span = d->end > 0 ? d->end : TimeNs(samples) * 100'000'000;
    for (int k = 0; k < 60; ++k) {
        QRandomGenerator rng(quint32(2000 + k));
        std::vector<std::pair<TimeNs, double>> in;
        in.reserve(size_t(samples));
        for (qint64 i = 0; i < samples; ++i)
            in.emplace_back(span * i / samples, double(rng.bounded(1000)) / 10.0);
        TrackSummary tr;
        tr.id = 100'000 + k;
        tr.kind = TrackKind::Counter;
        tr.name = QStringLiteral("series %1").arg(k);
        tr.counterSamples = samples;
        run.tracks.append(tr);
        d->counters.insert(
            tr.id, std::make_shared<const CounterTrack>(CounterTrack::build(std::move(in))));
    }
    d->runs.append(run);
    d->end = std::max(d->end, span);
    return d;
}

static void runCase(const char *label, TimelinePainter &painter, QSize size, int frames,
                    TimeNs span)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    std::vector<double> ms;
    double baseline = 1e9;
    const TimeNs centre = span / 3;
    size_t slices = 0, boxes = 0;
    {
        // The overview strip's density is computed once per data and width (then cached);
        // time it apart from the frames.
        QPainter p(&image);
        QElapsedTimer warm;
        warm.start();
        TimelineOverlay o;
        o.traceEnd = span;
        painter.paint(p, TimelineViewport{size, 0, span, 0}, o);
        std::printf("%-26s first paint (overview density computed) %.2f ms\n", label,
                    double(warm.nsecsElapsed()) / 1e6);
    }
    for (int f = 0; f < frames; ++f) {
        const double w = double(span) * std::pow(1000.0 / double(span), double(f) / (frames - 1));
        TimelineViewport v;
        v.size = size;
        v.t0 = centre - TimeNs(w / 2);
        v.t1 = v.t0 + std::max<TimeNs>(1, TimeNs(w));
        TimelineOverlay o;
        o.traceEnd = span;
        QElapsedTimer timer;
        {
            QPainter p(&image);
            timer.start();
            painter.paint(p, v, o);
            ms.push_back(double(timer.nsecsElapsed()) / 1e6);
            timer.start();
            p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
            baseline = std::min(baseline, double(timer.nsecsElapsed()) / 1e6);
        }
        if (qEnvironmentVariableIsSet("BENCH_VERBOSE") && f % 10 == 0)
            std::printf("  frame %3d  geometry build %.2f ms of the paint\n", f,
                        painter.lastBuildMs());
        const auto &g = painter.geometry(v);
        slices += g.visibleSlices;
        boxes += g.boxCount();
    }
    if (qEnvironmentVariableIsSet("BENCH_VERBOSE"))
        for (int f = 0; f < frames; f += 10)
            std::printf("  frame %3d  window %.3g ns  %.2f ms\n", f,
                        double(span) * std::pow(1000.0 / double(span), double(f) / (frames - 1)),
                        ms[size_t(f)]);
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::printf("%-26s %5dx%-5d frames %3d  median %7.2f ms  worst %7.2f ms  (whole trace %7.2f "
                "ms, 1 us %6.2f ms)  "
                "boxes/frame %7.0f  slices covered/frame %9.0f  baseline fill %5.2f ms  "
                "median/baseline %.1fx\n",
                label, size.width(), size.height(), frames, median, sorted.back(), ms.front(),
                ms.back(), double(boxes) / frames, double(slices) / frames, baseline,
                median / std::max(baseline, 1e-6));
}

// What --help prints.
constexpr const char *kUsage =
    "bench_timeline: paint time of the timeline at zoom levels from the whole trace down to 1 µs,\n"
    "and memory per loaded slice.\n"
    "\n"
    "  bench_timeline [--slices N] [--tracks T] [--frames F] [--size WxH] [--counter-hours H]\n"
    "\n"
    "--counter-hours adds what a followed recorder log holds after H hours (60 series at 10 Hz)\n"
    "as counter tracks: paint times at two values of H say whether painting keeps its figures\n"
    "while a live view's data grows.\n"
    "\n"
    "The trace is generated in memory (nested CPU-op-like slices of 200 names, 1-60 µs, with\n"
    "gaps), N slices spread over T tracks, and loaded into the same SliceTrack/TimelineData the\n"
    "GUI uses. Each frame uses a new window (geometry rebuilt, nothing cached), centred on a\n"
    "fixed point, widths geometric from the whole trace to 1 µs; frames paint into a QImage with\n"
    "the GUI's TimelinePainter. Two cases: the window size given (the rows that fit, as on\n"
    "screen), and one tall image holding every track. Prints median and worst per case, and a\n"
    "baseline: one plain fillRect of the whole image, timed in the same run.\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen")
                                                                    : qgetenv("QT_QPA_PLATFORM"));
    QGuiApplication app(argc, argv);
    qint64 slices = 10'000'000;
    int tracks = 64, frames = 100;
    double counterHours = 0;
    QSize size(1920, 1080);
    const QStringList args = QGuiApplication::arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--slices"))
            slices = args[i + 1].toLongLong();
        else if (args[i] == QLatin1String("--tracks"))
            tracks = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--frames"))
            frames = std::max(2, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--counter-hours"))
            counterHours = args[i + 1].toDouble();
        else if (args[i] == QLatin1String("--size"))
            size = QSize(args[i + 1].section(QLatin1Char('x'), 0, 0).toInt(),
                         args[i + 1].section(QLatin1Char('x'), 1, 1).toInt());
    }
    QElapsedTimer timer;
    timer.start();
    const auto data = withCounters(generate(slices, tracks), counterHours);
    const double genS = double(timer.nsecsElapsed()) / 1e9;
    std::printf("generated %zu slices over %d tracks in %.1f s; span %.3f s; SliceTrack memory "
                "%.1f bytes/slice\n",
                data->sliceCount(), tracks, genS, double(data->end) / 1e9,
                double(data->memoryBytes()) / double(std::max<size_t>(1, data->sliceCount())));
    if (counterHours > 0)
        std::printf("with %.1f h of a 10 Hz sampler's 60 series: %lld counter samples\n",
                    counterHours, static_cast<long long>(qint64(counterHours * 3600 * 10) * 60));
    TimelinePainter painter;
    painter.setData(data);
    runCase("window (rows that fit)", painter, size, frames, data->end);
    const int tall = painter.metrics().headerHeight() + painter.layout().contentHeight();
    runCase("all tracks (tall image)", painter, QSize(size.width(), tall), frames, data->end);
    return 0;
}
