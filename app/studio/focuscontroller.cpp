// SPDX-License-Identifier: GPL-3.0-or-later
#include "focuscontroller.h"

#include "projectsession.h"

#include "project.h"
#include "timeformat.h"
#include "timelinestate.h"
#include "viewstate.h"

#include <QActionGroup>
#include <QButtonGroup>
#include <QDialog>
#include <QDialogButtonBox>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QRadioButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace gml {

namespace {

const QString kFocusKey = QStringLiteral("timeline.focus");

bool hasData(const RunSummary &r)
{
    return r.end > r.start;
}

// "resnet50-w4 · measured · 12.3 s · 2024-03-01 10:12:03 UTC"
QString describe(const RunSummary &r)
{
    QString text = r.name;
    if (r.kind != QLatin1String("measured"))
        text += QStringLiteral(" · ") + r.kind;
    if (hasData(r)) {
        text += QStringLiteral(" · ") + formatDuration(r.end - r.start);
        if (constexpr TimeNs kYear = 365LL * 86400 * 1'000'000'000;
            r.start > 3 * kYear) // a date, not a clock from 0
            text += QStringLiteral(" · ") + formatUtc(r.start);
    } else {
        text += QObject::tr(" · no timeline data");
    }
    return text;
}

} // namespace

FocusController::FocusController(TimelineState *state, QToolButton *switcher, QObject *parent)
    : QObject(parent), m_state(state), m_switcher(switcher)
{
    m_switcher->setPopupMode(QToolButton::InstantPopup);
    m_switcher->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_switcher->setToolTip(tr("The runs the timeline shows, each from its own start"));
    m_switcher->setMenu(new QMenu(m_switcher));
    m_switcher->setEnabled(false);
    m_switcher->setText(tr("Run: none"));
    connect(m_state, &TimelineState::focusChanged, this, [this] {
        update();
        if (!m_loading)
            remember();
    });
}

FocusController::~FocusController()
{
    waitForIdle();
}

void FocusController::waitForIdle()
{
    m_write.waitForFinished();
}

RunId FocusController::defaultRun(const TimelineData &data)
{
    // Profiled runs (slices) before monitoring logs alone, then measured before derived runs.
    const RunSummary *best = nullptr;
    for (int pass = 0; pass < 3 && !best; ++pass)
        for (const auto &r : data.runs) {
            const bool measured = r.kind == QLatin1String("measured");
            const bool wanted = pass == 0 ? measured && r.slices > 0 : pass == 1 ? measured : true;
            if (r.id != kLivePredictionRun && hasData(r) && wanted &&
                (!best || r.start > best->start))
                best = &r;
        }
    return best ? best->id : 0;
}

void FocusController::setProject(const QString &projectPath,
                                 std::shared_ptr<const TimelineData> data, Project *project)
{
    waitForIdle();
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_writable = Project::whyNotWritable(projectPath).isEmpty();
    QStringList names;
    bool projectClock = false;
    if (project)
        if (const auto saved = readViewState(*project, kFocusKey)) {
            for (const auto &v : saved->value(QStringLiteral("runs")).toArray())
                names << v.toString();
            projectClock = saved->value(QStringLiteral("project_clock")).toBool();
        }
    // One change of focus, to this project's own runs (never the last project's ids).
    QList<RunId> ids = idsOf(names);
    if (ids.isEmpty() && m_data)
        if (const RunId run = defaultRun(*m_data))
            ids = {run};
    m_loading = true;
    m_state->setFocus(ids, projectClock && ids.size() > 1);
    m_loading = false;
    update();
}

QList<RunId> FocusController::idsOf(const QStringList &names) const
{
    QList<RunId> ids;
    for (const QString &name : names)
        for (const auto &r : m_data ? m_data->runs : QList<RunSummary>{})
            if (r.name == name && r.id != kLivePredictionRun && !ids.contains(r.id))
                ids << r.id;
    return ids;
}

void FocusController::focusRuns(const QStringList &names, bool projectClock)
{
    const QList<RunId> ids = idsOf(names);
    m_state->setFocus(ids, projectClock && ids.size() > 1);
}

QStringList FocusController::focusNames() const
{
    QStringList out;
    if (!m_data)
        return out;
    for (RunId id : m_state->focusRuns())
        for (const auto &r : m_data->runs)
            if (r.id == id)
                out << r.name;
    return out;
}

void FocusController::update()
{
    QMenu *menu = m_switcher->menu();
    menu->clear();
    const QStringList focus = focusNames();
    if (m_session)
        m_session->setFocus(focus);
    if (!m_data) {
        m_switcher->setEnabled(false);
        m_switcher->setText(tr("Run: none"));
        return;
    }
    m_switcher->setEnabled(true);
    QString text;
    if (focus.isEmpty())
        text = tr("All runs · project clock");
    else if (focus.size() == 1)
        text = tr("Run: %1").arg(focus.first());
    else
        text = tr("Runs: %1 · %2")
                   .arg(focus.join(QStringLiteral(", ")),
                        m_state->projectClock() ? tr("project clock") : tr("aligned at start"));
    m_switcher->setToolTip(text);
    m_switcher->setText(m_switcher->fontMetrics().elidedText(text, Qt::ElideMiddle, 360) +
                        QStringLiteral(" ▾"));

    menu->addSection(tr("Show one run"));
    auto *group = new QActionGroup(menu);
    for (const auto &r : m_data->runs) {
        if (r.id == kLivePredictionRun)
            continue;
        QAction *a = menu->addAction(describe(r));
        a->setCheckable(true);
        a->setChecked(focus.size() == 1 && focus.first() == r.name);
        a->setEnabled(hasData(r));
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, name = r.name] { focusRuns({name}); });
    }
    menu->addSeparator();
    menu->addAction(tr("Several Runs…"), this, &FocusController::chooseSeveral);
    QAction *all = menu->addAction(tr("All Runs on the Project Clock"), this,
                                   [this] { m_state->setFocus({}, false); });
    all->setCheckable(true);
    all->setChecked(focus.isEmpty());
    if (focus.size() > 1) {
        QAction *clock = menu->addAction(tr("Project Clock (runs that ran together)"));
        clock->setCheckable(true);
        clock->setChecked(m_state->projectClock());
        connect(clock, &QAction::toggled, this,
                [this](bool on) { m_state->setFocus(m_state->focusRuns(), on); });
    }
}

void FocusController::chooseSeveral()
{
    if (!m_data)
        return;
    QDialog dialog(m_switcher->window());
    dialog.setWindowTitle(tr("Runs in Focus"));
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("Show these runs in the timeline:"), &dialog));
    auto *list = new QListWidget(&dialog);
    const QStringList focus = focusNames();
    for (const auto &r : m_data->runs) {
        if (r.id == kLivePredictionRun || !hasData(r))
            continue;
        auto *item = new QListWidgetItem(describe(r), list);
        item->setData(Qt::UserRole, r.name);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(focus.contains(r.name) ? Qt::Checked : Qt::Unchecked);
    }
    list->setMinimumWidth(520);
    layout->addWidget(list, 1);
    auto *aligned = new QRadioButton(tr("Aligned: each run from its own start"), &dialog);
    auto *clock =
        new QRadioButton(tr("Project clock: where they ran (runs that ran together)"), &dialog);
    (m_state->projectClock() ? clock : aligned)->setChecked(true);
    layout->addWidget(aligned);
    layout->addWidget(clock);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QStringList names;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->checkState() == Qt::Checked)
            names << list->item(i)->data(Qt::UserRole).toString();
    if (!names.isEmpty())
        focusRuns(names, clock->isChecked());
}

void FocusController::remember()
{
    if (m_projectPath.isEmpty() || !m_writable)
        return;
    QJsonArray runs;
    for (const QString &n : focusNames())
        runs.append(n);
    const QJsonObject value{{QStringLiteral("runs"), runs},
                            {QStringLiteral("project_clock"), m_state->projectClock()}};
    waitForIdle(); // one write at a time, in order
    m_write = QtConcurrent::run([path = m_projectPath, value] {
        QString error;
        (void)writeViewState(path, kFocusKey, value,
                             &error); // not remembered: nothing else is lost
    });
}

void FocusController::subscribe(ProjectSession &session)
{
    m_session = &session;
    auto take = [this, &session] {
        setProject(session.path(), session.data(), session.readProject());
    };
    connect(&session, &ProjectSession::focusing, this, take);
    connect(&session, &ProjectSession::runsChanged, this, take); // the focus list offers it
}

} // namespace gml
