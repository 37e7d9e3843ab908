// SPDX-License-Identifier: GPL-3.0-or-later
#include "statedump.h"

#include "focuscontroller.h"
#include "mainwindow.h"
#include "rankoverviewcontroller.h"
#include "rankoverviewpainter.h"
#include "rankoverviewview.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QDockWidget>
#include <QJsonArray>

#include <set>

namespace gml {

QJsonObject studioState(const MainWindow &w)
{
    QJsonObject out;
    out.insert(QStringLiteral("size"), QJsonObject{{QStringLiteral("width"), w.width()},
                                                   {QStringLiteral("height"), w.height()}});
    out.insert(QStringLiteral("front_view"), w.frontView());
    QJsonArray panels;
    for (const QDockWidget *dock : w.findChildren<QDockWidget *>()) {
        // A panel behind another's tab, or closed, has no place on screen: zeros.
        const bool visible = dock->isVisible() && !dock->visibleRegion().isEmpty();
        const QRect r = visible ? QRect(dock->mapTo(&w, QPoint(0, 0)), dock->size()) : QRect();
        panels.append(QJsonObject{{QStringLiteral("name"), dock->objectName()},
                                  {QStringLiteral("title"), dock->windowTitle()},
                                  {QStringLiteral("visible"), visible},
                                  {QStringLiteral("floating"), dock->isFloating()},
                                  {QStringLiteral("x"), r.x()},
                                  {QStringLiteral("y"), r.y()},
                                  {QStringLiteral("width"), r.width()},
                                  {QStringLiteral("height"), r.height()}});
    }
    out.insert(QStringLiteral("panels"), panels);
    QJsonObject pages; // what each registered page adds (studiopage.h)
    for (const auto &page : w.pages())
        if (const QJsonObject s = page->state(); !s.isEmpty())
            pages.insert(page->id(), s);
    if (!pages.isEmpty())
        out.insert(QStringLiteral("pages"), pages);
    out.insert(QStringLiteral("focus_runs"), QJsonArray::fromStringList(w.focus()->focusNames()));
    const TimelineState *s = w.state();
    out.insert(QStringLiteral("window"),
               QJsonObject{{QStringLiteral("start_ns"), s->windowStart()},
                           {QStringLiteral("end_ns"), s->windowEnd()},
                           {QStringLiteral("origin_ns"), s->origin()},
                           {QStringLiteral("origin_set"), s->hasOrigin()},
                           {QStringLiteral("project_clock"), s->projectClock()}});
    const TimelineView *t = w.timeline();
    const QPoint origin = t->mapTo(&w, QPoint(0, 0));
    const bool shown = t->isVisible() && !t->visibleRegion().isEmpty();
    QJsonArray tracks;
    const auto &data = t->data();
    if (shown && data) {
        const TimelineViewport v = t->viewport();
        const auto &drawnColumns = t->painter().lastGeometry().drawn;
        const auto &rows = t->layout().rows();
        for (size_t i = 0; i < rows.size(); ++i) {
            const auto &row = rows[i];
            const int y = t->painter().rowTop(row, v);
            const int top =
                row.pinned ? t->painter().metrics().headerHeight() : t->painter().rowsTop();
            if (y + row.height <= top || y >= t->height())
                continue;
            const auto *info =
                row.type == TimelineRow::Type::Track ? data->track(row.track) : nullptr;
            const auto drawn = info ? data->shown(row.track) : nullptr;
            QString runName;
            for (const auto &r : data->runs)
                if (r.id == row.run)
                    runName = r.name;
            tracks.append(QJsonObject{
                {QStringLiteral("name"), row.label},
                {QStringLiteral("kind"), row.type == TimelineRow::Type::Run
                                             ? QStringLiteral("run")
                                             : trackKindName(row.kind)},
                {QStringLiteral("run"), runName},
                {QStringLiteral("rank"), info ? info->rank : -1},
                {QStringLiteral("y"), origin.y() + y},
                {QStringLiteral("height"), row.height},
                {QStringLiteral("pinned"), row.pinned},
                // What the row draws now (a paged track: what was read for the viewport).
                {QStringLiteral("slices"), drawn ? qint64(drawn->size()) : 0},
                // Of them, those drawn clipped to their parent's end (nesting.h).
                {QStringLiteral("clipped"), drawn ? drawn->clippedCount() : 0},
                // A summary row: the slice tracks it draws (collapsed below it, or its rank's).
                {QStringLiteral("summary"), qint64(row.summarised.size())},
                // The pixel columns it painted (slices at its top level, a summary's busy
                // columns, a counter's line).
                {QStringLiteral("drawn"), i < drawnColumns.size() ? drawnColumns[i] : -1}});
        }
    }
    out.insert(QStringLiteral("tracks"), tracks);
    out.insert(QStringLiteral("paging_error"),
               data && data->pager ? data->pager->errorString() : QString());
    QJsonArray ruler;
    if (shown)
        for (const auto &l : t->painter().rulerLabels())
            ruler.append(QJsonObject{{QStringLiteral("label"), l.text},
                                     {QStringLiteral("x"), origin.x() + l.x},
                                     {QStringLiteral("width"), l.width}});
    out.insert(QStringLiteral("ruler"), ruler);
    out.insert(QStringLiteral("ruler_base"), shown ? t->painter().rulerBaseText() : QString());
    out.insert(QStringLiteral("find"), QJsonObject{{QStringLiteral("matches"), w.findMatchCount()},
                                                   {QStringLiteral("status"), w.findStatus()}});
    // The track filter: its text and what it keeps (every row laid out, on screen or not).
    QJsonObject kinds;
    qint64 kept = 0;
    for (const auto &row : t->layout().rows())
        if (row.type == TimelineRow::Type::Track) {
            ++kept;
            const QString k = trackKindName(row.kind);
            kinds.insert(k, kinds.value(k).toInt() + 1);
        }
    out.insert(QStringLiteral("track_filter"),
               QJsonObject{{QStringLiteral("text"), t->trackFilter().text},
                           {QStringLiteral("tracks"), kept},
                           {QStringLiteral("by_kind"), kinds},
                           {QStringLiteral("keep_holding"), t->trackFilter().keepHolding},
                           {QStringLiteral("matches_nothing"), t->filterMatchesNothing()}});
    out.insert(QStringLiteral("first_paint_ms"), t->firstPaintMs());
    // The rank overview: how many lanes (GPUs) of how many ranks, in how many pixel rows.
    if (const RankOverviewView *ro = w.rankView(); ro && ro->overview()) {
        const auto &lanes = ro->overview()->lanes;
        std::set<int> ranks;
        for (const auto &l : lanes)
            ranks.insert(l.rank);
        const QPoint at = ro->mapTo(&w, QPoint(0, 0));
        const bool visible = ro->isVisible() && !ro->visibleRegion().isEmpty();
        const auto l = RankOverviewPainter::layout(QRect(QPoint(0, 0), ro->size()),
                                                   t->painter().metrics().labelWidth, lanes.size());
        out.insert(QStringLiteral("rank_overview"),
                   QJsonObject{{QStringLiteral("run"), w.rankOverview()->run()},
                               {QStringLiteral("visible"), visible},
                               {QStringLiteral("lanes"), qint64(lanes.size())},
                               {QStringLiteral("ranks"), qint64(ranks.size())},
                               {QStringLiteral("rows"), l.rows},
                               {QStringLiteral("y"), at.y()},
                               {QStringLiteral("height"), ro->height()},
                               {QStringLiteral("marks"), qint64(ro->markCount())}});
    }
    return out;
}

} // namespace gml
