// SPDX-License-Identifier: GPL-3.0-or-later
#include "rankoverviewview.h"

#include "timeformat.h"
#include "timelinestate.h"

#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QSignalBlocker>
#include <QToolButton>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace gml {

RankOverviewView::RankOverviewView(TimelineState *state, QWidget *parent)
    : QWidget(parent), m_state(state)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    auto *header = new QHBoxLayout;
    header->setContentsMargins(6, 1, 6, 0);
    header->setSpacing(4);
    m_title = new QLabel(this);
    header->addWidget(m_title);
    header->addStretch(1);
    m_legend = new QLabel(this);
    header->addWidget(m_legend);
    updateLegend();
    header->addSpacing(12);
    auto button = [&](const QString &text, const QString &tip, int which) {
        auto *b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        connect(b, &QToolButton::clicked, this, [this, which] { pick(which); });
        header->addWidget(b);
        return b;
    };
    m_stragglers = new QToolButton(this);
    m_stragglers->setAutoRaise(true);
    m_stragglers->setText(tr("Mark Stragglers"));
    m_stragglers->setToolTip(
        tr("Analyse the run (in the background) and mark the rank that arrived last at each "
           "collective"));
    connect(m_stragglers, &QToolButton::clicked, this, &RankOverviewView::stragglersRequested);
    header->addWidget(m_stragglers);
    m_warmup = new QToolButton(this);
    m_warmup->setAutoRaise(true);
    m_warmup->setCheckable(true);
    m_warmup->setText(tr("Include Warm-up"));
    m_warmup->setToolTip(
        tr("The first iterations that each take over 1.5× the median (compilation, autotuning, "
           "ranks starting one after another) are warm-up: left out of the window, of Slowest / "
           "Median / Fastest and of the colours. Check to show and rank the whole run."));
    connect(m_warmup, &QToolButton::toggled, this, &RankOverviewView::setIncludeWarmup);
    header->addWidget(m_warmup);
    const QString rule =
        tr("Ranks are ordered by how much they hold the others up: once Mark Stragglers has "
           "analysed the run, their time on the critical path, then how late they arrived last "
           "at collectives; before, how little they waited in communication (the rank the "
           "others wait for waits the least).");
    m_slowest = button(tr("Slowest"), tr("The rank the others wait for.\n") + rule, 0);
    m_median = button(tr("Median"), tr("The rank in the middle.\n") + rule, 1);
    m_fastest =
        button(tr("Fastest"), tr("The rank that waits the most for the others.\n") + rule, 2);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addLayout(header);
    outer->addStretch(1);
    connect(m_state, &TimelineState::windowChanged, this, qOverload<>(&QWidget::update));
    clear();
}

void RankOverviewView::setOverview(std::shared_ptr<const RankOverview> overview, const QString &run)
{
    m_overview = std::move(overview);
    m_run = run;
    m_highlight = -1;
    m_critical.clear();
    m_late.clear();
    m_withWarmup = false;
    {
        const QSignalBlocker block(m_warmup);
        m_warmup->setChecked(false);
    }
    m_warmup->setVisible(m_overview && m_overview->warmup > 0);
    reorder();
    updateTitle();
    const size_t lanes = m_overview ? m_overview->lanes.size() : 0;
    for (auto *b : {m_slowest, m_median, m_fastest})
        b->setEnabled(lanes > 1);
    m_stragglers->setEnabled(lanes > 1);
    updateLegend();
    setMarks({});
}

void RankOverviewView::updateTitle()
{
    const size_t lanes = m_overview ? m_overview->lanes.size() : 0;
    std::set<int> ranks;
    if (m_overview)
        for (const auto &l : m_overview->lanes)
            ranks.insert(l.rank);
    QString steady;
    if (lanes && m_overview->warmup > 0)
        steady = m_withWarmup ? tr(" · warm-up included")
                              : tr(" · steady state: %n warm-up iteration(s) left out", nullptr,
                                   m_overview->warmup);
    m_title->setText(lanes ? tr("<b>Ranks</b> · %1: %2 ranks, %3 GPUs%4")
                                 .arg(m_run.toHtmlEscaped(),
                                      QLocale().toString(qlonglong(ranks.size())),
                                      QLocale().toString(qlonglong(lanes)), steady)
                           : QString());
}

void RankOverviewView::reorder()
{
    m_order =
        m_overview ? m_overview->byHoldUp(m_late, m_critical, m_withWarmup) : std::vector<int>{};
}

void RankOverviewView::setIncludeWarmup(bool include)
{
    m_withWarmup = include;
    if (m_warmup->isChecked() != include) {
        const QSignalBlocker block(m_warmup);
        m_warmup->setChecked(include);
    }
    reorder();
    updateTitle();
    if (m_overview && m_overview->warmup > 0) {
        // View time = run time - the run's shift.
        if (include)
            m_state->setWindow(m_state->traceStart(), m_state->traceEnd());
        else
            m_state->setWindow(std::max(m_state->traceStart(), m_overview->steadyFrom - m_shift),
                               std::min(m_state->traceEnd(), m_overview->end - m_shift));
    }
    update();
}

void RankOverviewView::updateLegend()
{
    const bool shared = sharesRows();
    // The heat strip's colours (the studio's palette, in the current theme).
    auto swatch = [](const QColor &c, const QString &text) {
        return QStringLiteral("<span style=\"color:%1\">■</span> %2").arg(c.name(), text);
    };
    const QString gap = QStringLiteral("&nbsp;&nbsp;");
    m_legend->setText(swatch(RankOverviewPainter::heat(1, 0), tr("compute")) + gap +
                      swatch(RankOverviewPainter::heat(1, 1), tr("waiting in collectives")) + gap +
                      swatch(RankOverviewPainter::heat(0, 0), tr("idle")) + gap +
                      swatch(RankOverviewPainter::holdUpColour(), tr("holds others up")));
    const QString holds =
        tr("A GPU that holds the others up (over the window, it waited in communication half as "
           "long as the median GPU or less, or it arrived last at collectives) has its compute "
           "in red and a red mark left of its lane; the GPUs that wait for it show amber.");
    m_legend->setToolTip(
        shared ? holds + QStringLiteral("\n") +
                     tr("More GPUs than pixel rows: each row shows the median of its GPUs, and "
                        "the GPU of the row that holds the others up most in its own colour "
                        "where it differs from the median.")
               : holds);
}

bool RankOverviewView::sharesRows() const
{
    if (!m_overview)
        return false;
    const auto l = RankOverviewPainter::layout(area(), m_labelWidth, m_overview->lanes.size());
    return l.rows > 0 && size_t(l.rows) < m_overview->lanes.size();
}

void RankOverviewView::changeEvent(QEvent *e)
{
    if (e->type() == QEvent::PaletteChange)
        updateLegend(); // the theme changed
    QWidget::changeEvent(e);
}

void RankOverviewView::setMarks(std::vector<Mark> marks, std::map<int, TimeNs> criticalByRank)
{
    m_marks = std::move(marks);
    // The analysis says who arrived last and how late: the order follows it.
    std::map<int, TimeNs> late;
    for (const Mark &m : m_marks)
        late[m.rank] += m.late;
    m_late = std::move(late);
    m_critical = std::move(criticalByRank);
    reorder();
    m_stragglers->setText(m_marks.empty()
                              ? tr("Mark Stragglers")
                              : tr("%n straggler(s) marked", nullptr, int(m_marks.size())));
    update();
}

void RankOverviewView::clear()
{
    setOverview(nullptr, {});
}

void RankOverviewView::setLabelWidth(int width)
{
    if (width != m_labelWidth) {
        m_labelWidth = width;
        update();
    }
}

void RankOverviewView::setRightMargin(int margin)
{
    if (margin != m_rightMargin) {
        m_rightMargin = margin;
        update();
    }
}

void RankOverviewView::setHighlighted(int lane)
{
    m_highlight = lane;
    update();
}

int RankOverviewView::preferredHeight() const
{
    const int lanes = m_overview ? int(m_overview->lanes.size()) : 0;
    return RankOverviewPainter::kHeaderHeight +
           std::clamp(lanes * RankOverviewPainter::kMaxLaneHeight, 24, 160) + 8;
}

QRect RankOverviewView::area() const
{
    return QRect(0, 0, std::max(0, width() - m_rightMargin), height());
}

RankOverviewView::Hit RankOverviewView::hitAt(QPoint pos) const
{
    Hit hit;
    if (!m_overview)
        return hit;
    const auto l = RankOverviewPainter::layout(area(), m_labelWidth, m_overview->lanes.size());
    if (pos.x() < l.lanes.left() || pos.x() >= l.lanes.right())
        return hit;
    std::tie(hit.first, hit.last) = l.lanesAt(pos.y());
    if (hit.first == hit.last)
        return hit;
    hit.lane = int(hit.first);
    // A row that holds several lanes answers its marked lane (the one that stands out as holding
    // the others up, over the window as the painter marked it), else its first.
    if (hit.last - hit.first > 1) {
        const TimeNs a = timeAt(pos.x()) + m_shift, b = timeAt(pos.x() + 1) + m_shift;
        const TimeNs t0 = m_state->windowStart() + m_shift, t1 = m_state->windowEnd() + m_shift;
        hit.shares =
            RankOverviewPainter::rowShares(*m_overview, hit.first, hit.last, a, std::max(b, a + 1),
                                           1, m_overview->standOut(t0, t1, m_late));
        if (hit.shares->marked >= 0)
            hit.lane = hit.shares->marked;
    }
    return hit;
}

int RankOverviewView::laneAt(QPoint pos) const
{
    return hitAt(pos).lane;
}

TimeNs RankOverviewView::timeAt(int x) const
{
    const auto l = RankOverviewPainter::layout(area(), m_labelWidth, 0);
    const double f = l.lanes.width() > 0 ? double(x - l.lanes.left()) / l.lanes.width() : 0.0;
    return m_state->windowStart() + TimeNs(f * double(m_state->windowDuration()));
}

void RankOverviewView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!m_overview)
        return;
    const TimeNs t0 = m_state->windowStart() + m_shift, t1 = m_state->windowEnd() + m_shift;
    RankOverviewPainter::paint(p, area(), m_labelWidth, *m_overview, t0, t1, m_highlight,
                               m_overview->standOut(t0, t1, m_late));
    if (m_marks.empty() || t1 <= t0)
        return;
    // Straggler marks: a tick across each lane of the last rank, at its arrival, in the text
    // colour outlined in the background's, so it shows on red communication, blue compute and
    // grey idle alike (it was red on red).
    const auto l = RankOverviewPainter::layout(area(), m_labelWidth, m_overview->lanes.size());
    std::map<int, std::vector<size_t>> lanesOf;
    for (size_t i = 0; i < m_overview->lanes.size(); ++i)
        lanesOf[m_overview->lanes[i].rank].push_back(i);
    p.setClipRect(l.lanes);
    const int h = std::max(2, int(l.rowHeight));
    for (const Mark &m : m_marks) {
        if (m.at < t0 || m.at >= t1)
            continue;
        const int x = l.lanes.left() + int(double(m.at - t0) / double(t1 - t0) * l.lanes.width());
        for (size_t lane : lanesOf[m.rank]) {
            p.fillRect(QRect(x - 2, l.rowTop(lane), 5, h), palette().color(QPalette::Base));
            p.fillRect(QRect(x - 1, l.rowTop(lane), 3, h), palette().color(QPalette::Text));
        }
    }
}

void RankOverviewView::setShift(TimeNs shift)
{
    m_shift = shift;
    update();
}

void RankOverviewView::resizeEvent(QResizeEvent *)
{
    updateLegend();
    update();
}

void RankOverviewView::mouseMoveEvent(QMouseEvent *e)
{
    const QPoint pos = e->position().toPoint();
    const Hit hit = hitAt(pos);
    if (hit.lane < 0) {
        Q_EMIT hoverTextChanged(QString());
        return;
    }
    const RankLane &l = m_overview->lanes[size_t(hit.lane)];
    // The share of the pixel column under the mouse.
    const TimeNs view = timeAt(pos.x());
    const TimeNs a = view + m_shift, b = timeAt(pos.x() + 1) + m_shift;
    float busy = -1, comm = 0;
    RankOverview::shares(l, a, std::max(b, a + 1), 1, &busy, &comm);
    const auto share = [&](float busy, float comm) {
        return busy < 0 ? tr("no work recorded")
                        : tr("%1% busy, %2% communication")
                              .arg(qRound(busy * 100))
                              .arg(qRound(comm * 100));
    };
    QString what =
        l.rank >= 0 ? tr("rank %1 · GPU %2").arg(l.rank).arg(l.device) : tr("GPU %1").arg(l.device);
    QString row;
    if (const auto &s = hit.shares) {
        row = s->marked >= 0
                  ? tr(" (this row: %1 GPUs, their median %2; this one holds the others up "
                       "most, drawn where it differs)")
                        .arg(hit.last - hit.first)
                        .arg(share(s->busy.front(), s->communication.front()))
                  : tr(" (this row: %1 GPUs, their median %2 shown, the first named)")
                        .arg(hit.last - hit.first)
                        .arg(share(s->busy.front(), s->communication.front()));
    }
    const QString at = formatDuration(view - m_state->traceStart());
    Q_EMIT hoverTextChanged(
        tr("%1 at %2: %3%4 · own work %5, exposed communication %6 · click to show it in the "
           "timeline")
            .arg(what, at, share(busy, comm), row, formatDuration(l.work),
                 formatDuration(l.communication)));
}

void RankOverviewView::mousePressEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton)
        return;
    const int lane = laneAt(e->position().toPoint());
    if (lane < 0)
        return;
    Q_EMIT laneActivated(lane, timeAt(e->position().toPoint().x()));
}

void RankOverviewView::mouseDoubleClickEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton)
        return;
    if (const int lane = laneAt(e->position().toPoint()); lane >= 0)
        Q_EMIT laneOpened(lane, timeAt(e->position().toPoint().x()));
}

void RankOverviewView::contextMenuEvent(QContextMenuEvent *e)
{
    if (const int lane = laneAt(e->pos()); lane >= 0)
        Q_EMIT laneMenuRequested(lane, timeAt(e->pos().x()), e->globalPos());
}

void RankOverviewView::leaveEvent(QEvent *)
{
    Q_EMIT hoverTextChanged(QString());
}

void RankOverviewView::pick(int which)
{
    if (m_order.empty())
        return;
    const size_t k = which == 0 ? 0 : which == 1 ? m_order.size() / 2 : m_order.size() - 1;
    const int lane = m_order[k];
    Q_EMIT lanePicked(lane, m_state->windowStart() + m_state->windowDuration() / 2);
}

} // namespace gml
