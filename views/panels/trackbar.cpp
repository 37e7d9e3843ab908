// SPDX-License-Identifier: GPL-3.0-or-later
#include "trackbar.h"

#include "timelineview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMenu>
#include <QTimer>
#include <QToolButton>

namespace gml {

TrackBar::TrackBar(TimelineView *timeline, QWidget *parent) : QWidget(parent), m_timeline(timeline)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("trackFilter"));
    m_filter->setPlaceholderText(tr("Filter tracks"));
    m_filter->setToolTip(
        tr("Show the tracks whose name (with their process, GPU and rank), kind (stream, "
           "thread, counter) or run holds this text; with Rows › Keep Tracks Holding Matches, "
           "those whose slices' names hold it too (\"nccl\" then keeps the streams that ran "
           "NCCL kernels)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(110);
    m_filter->setMaximumWidth(220);
    m_side = new QComboBox(this);
    m_side->setObjectName(QStringLiteral("trackSide"));
    m_side->addItem(tr("All tracks"), int(TimelineTrackFilter::Only::All));
    m_side->addItem(tr("GPU streams"), int(TimelineTrackFilter::Only::Gpu));
    m_side->addItem(tr("CPU only"), int(TimelineTrackFilter::Only::Cpu));
    m_side->setToolTip(tr("Which side of the job to show"));
    m_more = new QToolButton(this);
    m_more->setText(tr("Rows"));
    m_more->setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(m_more);
    menu->addAction(tr("Collapse All"), this, [this] { m_timeline->collapseAll(true); });
    menu->addAction(tr("Expand All"), this, [this] { m_timeline->collapseAll(false); });
    QAction *ranks = menu->addAction(tr("Ranks as Summary Rows"));
    ranks->setCheckable(true);
    ranks->setToolTip(tr("One compact row per rank drawing its GPU streams' activity"));
    connect(ranks, &QAction::toggled, m_timeline, &TimelineView::setRankRows);
    connect(m_timeline, &TimelineView::rankRowsChanged, ranks, &QAction::setChecked);
    QAction *holding = menu->addAction(tr("Keep Tracks Holding Matches"));
    holding->setCheckable(true);
    holding->setToolTip(tr("The track filter also keeps the tracks whose slices' names hold its "
                           "text, not only the tracks named so"));
    connect(holding, &QAction::toggled, m_timeline, &TimelineView::setFilterKeepsHolding);
    connect(m_timeline, &TimelineView::filterKeepsHoldingChanged, holding, &QAction::setChecked);
    menu->addSeparator();
    menu->addAction(tr("Unpin All"), m_timeline, &TimelineView::unpinAll);
    menu->addAction(tr("Show All Hidden Tracks"), m_timeline, &TimelineView::showAllTracks);
    m_more->setMenu(menu);
    layout->addWidget(m_filter, 1);
    layout->addWidget(m_side);
    layout->addWidget(m_more);
    // Typing re-lays the rows out after a pause, not at every key (a 1,024-rank job has
    // tens of thousands of tracks).
    auto *pause = new QTimer(this);
    pause->setSingleShot(true);
    pause->setInterval(150);
    connect(m_filter, &QLineEdit::textChanged, pause, qOverload<>(&QTimer::start));
    connect(pause, &QTimer::timeout, this, &TrackBar::apply);
    connect(m_filter, &QLineEdit::returnPressed, this, &TrackBar::apply);
    connect(m_side, &QComboBox::currentIndexChanged, this, &TrackBar::apply);
}

void TrackBar::apply()
{
    m_timeline->setTrackFilter(m_filter->text(),
                               TimelineTrackFilter::Only(m_side->currentData().toInt()));
}

} // namespace gml
