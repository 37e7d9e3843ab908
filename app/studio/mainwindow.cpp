// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "runexport.h"

#include "aggregatemodel.h"
#include "commandpalette.h"
#include "detailspanel.h"
#include "figureexport.h"
#include "figurewriter.h"
#include "focuscontroller.h"
#include "project.h"
#include "rankoverviewcontroller.h"
#include "rankoverviewview.h"
#include "timeformat.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "trackbar.h"
#include "whatifpanel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressDialog>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace gml {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent), m_state(new TimelineState(this))
{
    setWindowTitle(tr("GradeML Studio"));
    setAcceptDrops(true);
    m_timeline = new TimelineView(m_state, this);

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *findBar = new QWidget(central);
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
    m_focus = new FocusController(m_state, switcher, this);
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
    layout->addWidget(findBar);
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
    m_views = new QTabWidget(this);
    m_views->setObjectName(QStringLiteral("views"));
    m_views->setDocumentMode(true);
    m_views->addTab(central, tr("Timeline"));
    connect(m_views, &QTabWidget::currentChanged, this, [this] {
        QTimer::singleShot(0, this, &MainWindow::fitBottomPanes); // once the page is shown
    });
    m_rankOverview = new RankOverviewController(m_rankView, m_timeline, m_state, this);
    connect(m_rankOverview, &RankOverviewController::openProjectRequested, this,
            &MainWindow::openProject);
    connect(m_rankOverview, &RankOverviewController::loaded, split, [this, split] {
        const int total = split->height();
        const int overview = std::min(m_rankView->preferredHeight(), total / 2);
        split->setSizes({overview, std::max(0, total - overview)});
    });
    setCentralWidget(m_views);
    // Esc in the find box hands the keyboard back to the timeline (W/A/S/D work again).
    auto *escape = new QAction(m_findEdit);
    escape->setShortcut(QKeySequence(Qt::Key_Escape));
    escape->setShortcutContext(Qt::WidgetShortcut);
    m_findEdit->addAction(escape);
    connect(escape, &QAction::triggered, this,
            [this] { m_timeline->setFocus(Qt::ShortcutFocusReason); });
    connect(m_findEdit, &QLineEdit::returnPressed, this, [this] {
        find(m_findEdit->text(), m_findRegex->isChecked(),
             QApplication::keyboardModifiers() & Qt::ShiftModifier);
    });
    connect(next, &QToolButton::clicked, this,
            [this] { find(m_findEdit->text(), m_findRegex->isChecked(), false); });
    connect(prev, &QToolButton::clicked, this,
            [this] { find(m_findEdit->text(), m_findRegex->isChecked(), true); });

    buildPanels();
    buildMenus();
    wireSession();

    m_statusWindow = new QLabel(this);
    m_statusWindow->setMinimumWidth(420);
    m_statusWindow->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_statusHover = new QLabel(this);
    statusBar()->addWidget(m_statusHover, 1);
    statusBar()->addPermanentWidget(m_statusWindow);
    buildLiveControls();
    connect(m_timeline, &TimelineView::hoverTextChanged, m_statusHover, &QLabel::setText);
    connect(m_timeline, &TimelineView::pagingFailed, this, [this](const QString &why) {
        statusBar()->showMessage(tr("Part of the timeline cannot be read: %1").arg(why));
    });
    connect(m_rankView, &RankOverviewView::hoverTextChanged, m_statusHover, &QLabel::setText);
    connect(m_state, &TimelineState::windowChanged, this, &MainWindow::updateStatus);
    connect(m_state, &TimelineState::originChanged, this, &MainWindow::updateStatus);
    m_selection = new SelectionController({m_state, m_timeline, m_details, m_aggregateModel,
                                           m_aggregateView, m_aggregateTitle, m_findLabel},
                                          m_session, this);
    connect(&m_import, &ImportController::progressed, this, &MainWindow::onImportProgress);
    connect(&m_import, &ImportController::finished, this, &MainWindow::onImportFinished);
    // The first window: 1400 x 900 where that fits, else the screen's available area less a
    // margin (a 1366 x 768 laptop gets a window that fits, not one that overflows).
    const QScreen *screen = QGuiApplication::primaryScreen();
    const QSize room = screen ? screen->availableSize() : QSize(1400, 900);
    resize(std::min(1400, room.width() - 16), std::min(900, room.height() - 48));
}

MainWindow::~MainWindow()
{
    // A slice's self time being computed holds a pointer to this window: it ends first, while
    // the window is still whole.
    delete m_selection; // its self time being computed ends while the window is whole
    // The base destructors hide and remove the children (a dock hidden, a tab removed), which
    // emit: no slot of this window, half destroyed by then, may answer.
    for (QObject *child : findChildren<QObject *>())
        child->blockSignals(true);
}

void MainWindow::buildPanels()
{
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    m_details = new DetailsPanel(this);
    auto *detailsDock = new QDockWidget(tr("Details"), this);
    detailsDock->setObjectName(QStringLiteral("details"));
    detailsDock->setWidget(m_details);
    connect(m_details, &DetailsPanel::linkedSliceActivated, this, [this](qint64 track, qint64 id) {
        if (const auto data = m_timeline->data())
            if (const auto ref = findSliceRef(*data, track, id))
                m_timeline->revealSlice(*ref, false);
    });

    auto *aggregate = new QWidget(this);
    auto *al = new QVBoxLayout(aggregate);
    al->setContentsMargins(0, 0, 0, 0);
    m_aggregateTitle =
        new QLabel(tr("Select a range (drag on the ruler) to aggregate its slices."), aggregate);
    m_aggregateTitle->setContentsMargins(6, 2, 6, 2);
    m_aggregateModel = new AggregateModel(this);
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
    auto *aggDock = new QDockWidget(tr("Aggregate"), this);
    aggDock->setObjectName(QStringLiteral("aggregate"));
    aggDock->setWidget(aggregate);

    // The central views after the Timeline, and the panes after Details and Aggregate: the
    // registered pages (studiopages.cpp). Then the What-if pane.
    buildPages();
    buildWhatIfPanel();
    // Docks move and close but never float: one careless drag used to leave a panel over the
    // timeline. Each has a shortcut (View menu) that brings it to the front.
    for (auto *dock : findChildren<QDockWidget *>())
        dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    // The bottom panes span the window's left; What-if, when shown, takes the whole right edge
    // (its controls and chart need the height more than Details needs the width).
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    arrangeDocks();
}

void MainWindow::showPalette()
{
    if (!m_palette)
        m_palette = new CommandPalette(this);
    // Every menu action, and the runs to focus (the switcher's menu).
    auto actions = CommandPalette::collect(menuBar()->actions());
    if (auto *switcher = findChild<QToolButton *>(QStringLiteral("runSwitcher"));
        switcher && switcher->menu())
        actions += CommandPalette::collect(switcher->menu()->actions(), tr("Focus"));
    m_palette->setActions(actions);
    m_palette->move(geometry().center() - QPoint(m_palette->width() / 2, height() / 3));
    m_palette->show();
    m_palette->raise();
    // A dialog shown from a shortcut is not always the active window (the window manager
    // decides): ask for it, or typing goes to whatever had the focus (issue 58).
    m_palette->activateWindow();
    m_palette->edit()->setFocus();
}

void MainWindow::openPath(const QString &path)
{
    const QFileInfo info(path);
    if (info.isDir())
        openFolder(path);
    else if (info.suffix() == QLatin1String("grademl"))
        openProject(path);
    else if (info.exists()) {
        const QString project = m_session.path().isEmpty()
                                    ? ImportController::projectPathForFolder(info.absolutePath())
                                    : m_session.path();
        startImport(project, {info.absoluteFilePath()}, info.fileName());
        m_openedPath = project;
    } else {
        m_problem = tr("%1: no such file or folder").arg(path);
        statusBar()->showMessage(m_problem, 8000);
        Q_EMIT loaded(false);
    }
}

void MainWindow::openFolder(const QString &folder)
{
    m_openedPath = QFileInfo(folder).absoluteFilePath();
    startImport(ImportController::projectPathForFolder(folder), {m_openedPath}, m_openedPath);
}

void MainWindow::openProject(const QString &projectPath)
{
    m_openedPath = QFileInfo(projectPath).absoluteFilePath();
    showOpening(m_openedPath);
    m_import.open(m_openedPath);
}

bool MainWindow::isBusy() const
{
    return m_import.isRunning();
}

void MainWindow::startImport(const QString &projectPath, const QStringList &inputs,
                             const QString &what, ImportController::Edit edit)
{
    showOpening(what);
    m_import.start(projectPath, inputs, std::move(edit));
}

void MainWindow::showOpening(const QString &what)
{
    if (!m_progress) {
        m_progress = new QProgressDialog(this);
        m_progress->setWindowTitle(tr("Opening"));
        m_progress->setMinimumWidth(520);
        m_progress->setAutoClose(false);
        m_progress->setAutoReset(false);
        m_progress->setMinimumDuration(300); // quick opens never flash a dialog
        connect(m_progress, &QProgressDialog::canceled, &m_import, &ImportController::cancel);
    }
    m_progress->setLabelText(tr("Opening %1").arg(what));
    m_progress->setRange(0, 0);
    m_progress->setValue(0);
    if (m_interactive)
        m_progress->show();
    statusBar()->showMessage(tr("Opening %1…").arg(what));
}

void MainWindow::onImportProgress(const QString &stage, const QString &detail, int done, int total)
{
    if (!m_progress)
        return;
    // The stage, then what it is doing (ImportController: the file, bytes, rate and time left).
    m_progress->setLabelText(detail.isEmpty() ? stage : stage + QLatin1Char('\n') + detail);
    m_progress->setRange(0, std::max(total, 0));
    m_progress->setValue(std::min(done, total));
}

void MainWindow::onImportFinished(const ImportController::Result &r)
{
    if (m_progress)
        m_progress->hide();
    int failed = 0;
    for (const auto &rep : r.reports)
        failed += rep.status == SourceReport::Status::Failed;
    if (!r.data) {
        const QString why = r.cancelled ? tr("cancelled") : r.error;
        m_problem = tr("Could not open %1: %2").arg(r.projectPath, why);
        statusBar()->showMessage(m_problem, 15000);
        m_details->showMessage(m_problem);
        Q_EMIT loaded(false);
        return;
    }
    m_selection->reset();
    m_state->clearSelectedSlice();
    m_state->clearSelection();
    m_session.open(r.projectPath, m_openedPath, r.data, r.reader, r.groupings); // projectsession.h
    addRecent(m_openedPath);
    QString msg = tr("%1: %n slices", nullptr, int(r.data->sliceCount()))
                      .arg(QFileInfo(m_openedPath).fileName());
    if (failed)
        msg += tr(", %n file(s) failed (see Sources)", nullptr, failed);
    if (r.cancelled)
        msg += tr(", import cancelled: showing what was imported");
    const QString readOnly = Project::whyNotWritable(m_session.path());
    if (!readOnly.isEmpty())
        msg += tr(", read-only: %1").arg(readOnly);
    for (const auto &e : r.scanErrors)
        msg += QStringLiteral("; ") + e;
    statusBar()->showMessage(msg, 15000);
    Q_EMIT loaded(true);
}

void MainWindow::wireSession()
{
    // The focus first: ProjectSession::focusing comes before opened (projectsession.h).
    m_focus->subscribe(m_session);
    connect(&m_session, &ProjectSession::opened, this,
            [this] { m_timeline->setData(m_session.data()); });
    connect(&m_session, &ProjectSession::dataReplaced, this,
            [this] { m_timeline->updateLiveData(m_session.data()); });
    m_whatIf.subscribe(m_session);
    m_rankOverview->subscribe(m_session);
    for (const auto &page : m_pages)
        page->subscribe(m_session);
    connect(&m_session, &ProjectSession::opened, this, &MainWindow::onProjectOpened);
}

void MainWindow::onProjectOpened()
{
    const auto data = m_session.data();
    {
        QStringList measuredRuns;
        for (const auto &run : data->runs)
            if (run.kind == QLatin1String("measured") && run.slices > 0)
                measuredRuns << run.name;
        const QString focused = m_session.focus().value(0);
        const QString current = measuredRuns.contains(focused) ? focused : measuredRuns.value(0);
        m_whatIfPanel->setRuns(measuredRuns, current);
        m_whatIfPanel->showMessage(measuredRuns.isEmpty()
                                       ? tr("The project has no measured run with slices.")
                                       : tr("Building the dependency graph…"));
        const auto *dock = findChild<QDockWidget *>(QStringLiteral("whatif"));
        if (dock && !dock->visibleRegion().isEmpty() && !measuredRuns.isEmpty())
            m_whatIf.select(current);
    }
    // A project on read-only media is shown as it is; edits (clock offsets, Save as Run) would
    // fail.
    const QString readOnly = Project::whyNotWritable(m_session.path());
    setWindowTitle(tr("%1%2 — GradeML Studio")
                       .arg(QFileInfo(m_session.openedPath()).fileName(),
                            readOnly.isEmpty() ? QString() : tr(" (read-only)")));
    updateStatus();
}

void MainWindow::exportFigure()
{
    if (!m_timeline->data())
        return;
    QList<QPair<TrackId, QString>> tracks;
    for (const TimelineRow &row : m_timeline->layout().rows())
        if (row.track)
            tracks.append({row.track, m_timeline->data()->trackPath(row.track)});
    FigureDialog dialog(tracks, m_state->hasSelection(),
                        !m_timeline->trackFilter().pinned.isEmpty(), m_timeline->size(),
                        m_state->hasOrigin(), this);
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
        QMessageBox::warning(this, tr("Export Figure"), error);
    else
        statusBar()->showMessage(tr("Wrote %1").arg(m_lastFigure->path), 8000);
}

void MainWindow::showRunExport(const RunExportOutcome &outcome)
{
    if (outcome.ok)
        statusBar()->showMessage(outcome.message, 10000);
    else if (outcome.cancelled)
        statusBar()->showMessage(outcome.message, 8000);
    else
        QMessageBox::warning(this, tr("Run Not Written"), outcome.message);
}

void MainWindow::updateStatus()
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

void MainWindow::dragEnterEvent(QDragEnterEvent *e)
{
    if (e->mimeData()->hasUrls())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *e)
{
    const auto urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        openPath(urls.first().toLocalFile());
        e->acceptProposedAction();
    }
}

void MainWindow::closeEvent(QCloseEvent *e)
{
    if (m_interactive)
        saveLayout();
    m_focus->waitForIdle();
    m_whatIf.waitForIdle();
    m_import.cancel();
    m_import.waitForFinished();
    m_follow.stop(); // a recorded command gets Ctrl-C, its recorder writes what it has
    e->accept();
}

QString MainWindow::findStatus() const
{
    return m_findLabel->text();
}

} // namespace gml
