// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinecentre.h"

#include "aggregatemodel.h"
#include "detailspanel.h"
#include "figureexport.h"
#include "figurewriter.h"
#include "focuscontroller.h"
#include "projectsession.h"
#include "rankoverviewcontroller.h"
#include "rankoverviewview.h"
#include "selectioncontroller.h"
#include "timeformat.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "trackbar.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMessageBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace gml {

TimelineCentre::TimelineCentre(QMainWindow *window, ProjectSession &session)
    : QObject(window), m_window(window), m_state(new TimelineState(window))
{
    m_timeline = new TimelineView(m_state, window);
    auto *central = new QWidget(window);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(buildFindBar(central));
    // A multi-rank run's overview above the timeline (hidden otherwise), resizable.
    auto *split = new QSplitter(Qt::Vertical, central);
    split->setChildrenCollapsible(false);
    m_rankView = new RankOverviewView(m_state, split);
    split->addWidget(m_rankView);
    split->addWidget(m_timeline);
    split->setStretchFactor(1, 1);
    split->setSizes({150, 600});
    layout->addWidget(split, 1);
    central->setObjectName(QStringLiteral("timeline"));
    // The big views share the centre as tabs, the timeline first (MainWindow::showView).
    m_views = new QTabWidget(window);
    m_views->setObjectName(QStringLiteral("views"));
    m_views->setDocumentMode(true);
    m_views->addTab(central, tr("Timeline"));
    m_rankOverview = new RankOverviewController(m_rankView, m_timeline, m_state, window);
    connect(m_rankOverview, &RankOverviewController::openProjectRequested, this,
            &TimelineCentre::openProjectRequested);
    connect(m_rankOverview, &RankOverviewController::loaded, split, [this, split] {
        const int total = split->height();
        const int overview = std::min(m_rankView->preferredHeight(), total / 2);
        split->setSizes({overview, std::max(0, total - overview)});
    });
    window->setCentralWidget(m_views);
    buildSelectionPanes();

    m_statusWindow = new QLabel(window);
    m_statusWindow->setMinimumWidth(420);
    m_statusWindow->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_statusHover = new QLabel(window);
    window->statusBar()->addWidget(m_statusHover, 1);
    window->statusBar()->addPermanentWidget(m_statusWindow);
    connect(m_timeline, &TimelineView::hoverTextChanged, m_statusHover, &QLabel::setText);
    connect(m_timeline, &TimelineView::pagingFailed, this, [this](const QString &why) {
        m_window->statusBar()->showMessage(tr("Part of the timeline cannot be read: %1").arg(why));
    });
    connect(m_rankView, &RankOverviewView::hoverTextChanged, m_statusHover, &QLabel::setText);
    connect(m_state, &TimelineState::windowChanged, this, &TimelineCentre::updateStatus);
    connect(m_state, &TimelineState::originChanged, this, &TimelineCentre::updateStatus);
    m_selection = new SelectionController({m_state, m_timeline, m_details, m_aggregateModel,
                                           m_aggregateView, m_aggregateTitle, m_findLabel},
                                          session, window);
}

TimelineCentre::~TimelineCentre()
{
    // A slice's self time being computed holds pointers to the window's views: it ends first,
    // while they are whole.
    delete m_selection;
}

QWidget *TimelineCentre::buildFindBar(QWidget *parent)
{
    auto *findBar = new QWidget(parent);
    auto *findLayout = new QHBoxLayout(findBar);
    findLayout->setContentsMargins(6, 3, 6, 3);
    m_findEdit = new QLineEdit(findBar);
    m_findEdit->setPlaceholderText(tr("Find slices by name, cat:category or arg:text"));
    m_findEdit->setToolTip(
        tr("A name (or a regex), cat:TEXT for a category, arg:TEXT for the args (keys and "
           "values)\nEnter: next match, Shift+Enter: previous, Esc: back to the timeline"));
    m_findEdit->setClearButtonEnabled(true);
    m_findRegex = new QCheckBox(tr("Regex"), findBar);
    auto *prev = new QToolButton(findBar);
    prev->setText(QStringLiteral("◀"));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto *next = new QToolButton(findBar);
    next->setText(QStringLiteral("▶"));
    next->setToolTip(tr("Next match (Enter)"));
    m_findLabel = new QLabel(findBar);
    m_findLabel->setMinimumWidth(80);
    // The run switcher: which runs the timeline shows, each from its own start.
    auto *switcher = new QToolButton(findBar);
    switcher->setObjectName(QStringLiteral("runSwitcher"));
    m_focus = new FocusController(m_state, switcher, m_window);
    findLayout->addWidget(switcher);
    findLayout->addSpacing(12);
    findLayout->addWidget(new QLabel(tr("Find:"), findBar));
    findLayout->addWidget(m_findEdit, 2);
    findLayout->addWidget(m_findRegex);
    findLayout->addWidget(prev);
    findLayout->addWidget(next);
    findLayout->addWidget(m_findLabel);
    findLayout->addSpacing(8);
    findLayout->addWidget(new TrackBar(m_timeline, findBar));
    m_whatIfButton = new QToolButton(findBar);
    m_whatIfButton->setText(tr("What-if…"));
    m_whatIfButton->setToolTip(tr("Replay the run in focus with changes (Alt+0)"));
    m_whatIfButton->setCheckable(true);
    findLayout->addWidget(m_whatIfButton);

    // Esc in the find box hands the keyboard back to the timeline (W/A/S/D work again).
    auto *escape = new QAction(m_findEdit);
    escape->setShortcut(QKeySequence(Qt::Key_Escape));
    escape->setShortcutContext(Qt::WidgetShortcut);
    m_findEdit->addAction(escape);
    connect(escape, &QAction::triggered, this,
            [this] { m_timeline->setFocus(Qt::ShortcutFocusReason); });
    const auto find = [this](bool backwards) {
        m_selection->find(m_findEdit->text(), m_findRegex->isChecked(), backwards);
    };
    connect(m_findEdit, &QLineEdit::returnPressed, this,
            [find] { find(QApplication::keyboardModifiers() & Qt::ShiftModifier); });
    connect(next, &QToolButton::clicked, this, [find] { find(false); });
    connect(prev, &QToolButton::clicked, this, [find] { find(true); });
    return findBar;
}

void TimelineCentre::buildSelectionPanes()
{
    m_details = new DetailsPanel(m_window);
    auto *detailsDock = new QDockWidget(tr("Details"), m_window);
    detailsDock->setObjectName(QStringLiteral("details"));
    detailsDock->setWidget(m_details);
    connect(m_details, &DetailsPanel::linkedSliceActivated, this, [this](qint64 track, qint64 id) {
        if (const auto data = m_timeline->data())
            if (const auto ref = findSliceRef(*data, track, id))
                m_timeline->revealSlice(*ref, false);
    });

    auto *aggregate = new QWidget(m_window);
    auto *al = new QVBoxLayout(aggregate);
    al->setContentsMargins(0, 0, 0, 0);
    m_aggregateTitle =
        new QLabel(tr("Select a range (drag on the ruler) to aggregate its slices."), aggregate);
    m_aggregateTitle->setContentsMargins(6, 2, 6, 2);
    m_aggregateModel = new AggregateModel(m_window);
    m_aggregateView = new QTableView(aggregate);
    m_aggregateView->setModel(m_aggregateModel);
    m_aggregateView->setSortingEnabled(true);
    m_aggregateView->sortByColumn(AggregateModel::InRange, Qt::DescendingOrder);
    m_aggregateView->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_aggregateView->verticalHeader()->hide();
    m_aggregateView->setAlternatingRowColors(true);
    m_aggregateView->setSelectionBehavior(QAbstractItemView::SelectRows);
    al->addWidget(m_aggregateTitle);
    al->addWidget(m_aggregateView);
    auto *aggDock = new QDockWidget(tr("Aggregate"), m_window);
    aggDock->setObjectName(QStringLiteral("aggregate"));
    aggDock->setWidget(aggregate);
}

void TimelineCentre::subscribe(ProjectSession &session)
{
    m_focus->subscribe(session);
    connect(&session, &ProjectSession::opened, this, [this, &session] {
        m_timeline->setData(session.data());
        updateStatus();
    });
    connect(&session, &ProjectSession::dataReplaced, this,
            [this, &session] { m_timeline->updateLiveData(session.data()); });
    m_rankOverview->subscribe(session);
}

void TimelineCentre::clearSelection()
{
    m_selection->reset();
    m_state->clearSelectedSlice();
    m_state->clearSelection();
}

void TimelineCentre::setHoverText(const QString &text)
{
    m_statusHover->setText(text);
}

void TimelineCentre::focusFind()
{
    m_findEdit->setFocus();
    m_findEdit->selectAll();
}

QString TimelineCentre::findStatus() const
{
    return m_findLabel->text();
}

void TimelineCentre::exportFigure()
{
    if (!m_timeline->data())
        return;
    QList<QPair<TrackId, QString>> tracks;
    for (const TimelineRow &row : m_timeline->layout().rows())
        if (row.track)
            tracks.append({row.track, m_timeline->data()->trackPath(row.track)});
    FigureDialog dialog(tracks, m_state->hasSelection(),
                        !m_timeline->trackFilter().pinned.isEmpty(), m_timeline->size(),
                        m_state->hasOrigin(), m_window);
    if (m_lastFigure)
        dialog.setChoice(*m_lastFigure);
    dialog.setEstimator([this](const FigureDialog::Choice &c) {
        return timelineFigureSize(c, *m_timeline, *m_state);
    });
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_lastFigure = dialog.choice();
    QString error;
    if (!writeTimelineFigure(*m_lastFigure, *m_timeline, *m_state, &error))
        QMessageBox::warning(m_window, tr("Export Figure"), error);
    else
        m_window->statusBar()->showMessage(tr("Wrote %1").arg(m_lastFigure->path), 8000);
}

void TimelineCentre::updateStatus()
{
    const auto data = m_timeline->data();
    if (!data)
        return;
    // From the ruler's origin, exact to a hundredth of the window ("15.0001 ms → 15.0003 ms").
    const TimeNs resolution = std::max<TimeNs>(1, m_state->windowDuration() / 100);
    m_statusWindow->setText(
        tr("%1 → %2 (%3) · paint %4 ms")
            .arg(formatOffset(m_state->windowStart() - m_state->origin(), resolution),
                 formatOffset(m_state->windowEnd() - m_state->origin(), resolution),
                 formatDuration(m_state->windowDuration()))
            .arg(m_timeline->painter().lastPaintMs(), 0, 'f', 1));
}

} // namespace gml
