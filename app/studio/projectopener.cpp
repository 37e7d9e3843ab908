// SPDX-License-Identifier: GPL-3.0-or-later
#include "projectopener.h"

#include "project.h"
#include "projectsession.h"

#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>

namespace gml {

namespace {
constexpr int kMaxRecent = 10;
const QString kRecentKey = QStringLiteral("recentPaths");
} // namespace

ProjectOpener::ProjectOpener(QMainWindow *window, ProjectSession &session, Hooks hooks)
    : QObject(window), m_window(window), m_session(session), m_hooks(std::move(hooks))
{
    connect(&m_import, &ImportController::progressed, this, &ProjectOpener::onProgress);
    connect(&m_import, &ImportController::finished, this, &ProjectOpener::finish);
}

void ProjectOpener::openPath(const QString &path)
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
        start(project, {info.absoluteFilePath()}, info.fileName());
        m_openedPath = project;
    } else {
        m_problem = tr("%1: no such file or folder").arg(path);
        m_window->statusBar()->showMessage(m_problem, 8000);
        Q_EMIT loaded(false);
    }
}

void ProjectOpener::openFolder(const QString &folder)
{
    m_openedPath = QFileInfo(folder).absoluteFilePath();
    start(ImportController::projectPathForFolder(folder), {m_openedPath}, m_openedPath);
}

void ProjectOpener::openProject(const QString &projectPath)
{
    m_openedPath = QFileInfo(projectPath).absoluteFilePath();
    showOpening(m_openedPath);
    m_import.open(m_openedPath);
}

bool ProjectOpener::write(const QString &what, ImportController::Edit edit)
{
    if (isBusy() || m_session.path().isEmpty())
        return false;
    start(m_session.path(), {}, what, std::move(edit));
    return true;
}

void ProjectOpener::reload()
{
    if (!m_openedPath.isEmpty())
        openPath(m_openedPath);
}

void ProjectOpener::stop()
{
    m_import.cancel();
    m_import.waitForFinished();
}

void ProjectOpener::start(const QString &projectPath, const QStringList &inputs,
                          const QString &what, ImportController::Edit edit)
{
    showOpening(what);
    m_import.start(projectPath, inputs, std::move(edit));
}

void ProjectOpener::showOpening(const QString &what)
{
    if (!m_progress) {
        m_progress = new QProgressDialog(m_window);
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
    if (m_hooks.interactive())
        m_progress->show();
    m_window->statusBar()->showMessage(tr("Opening %1…").arg(what));
}

void ProjectOpener::onProgress(const QString &stage, const QString &detail, int done, int total)
{
    if (!m_progress)
        return;
    // The stage, then what it is doing (ImportController: the file, bytes, rate and time left).
    m_progress->setLabelText(detail.isEmpty() ? stage : stage + QLatin1Char('\n') + detail);
    m_progress->setRange(0, std::max(total, 0));
    m_progress->setValue(std::min(done, total));
}

void ProjectOpener::finish(const ImportController::Result &r)
{
    if (m_progress)
        m_progress->hide();
    int failed = 0;
    for (const auto &rep : r.reports)
        failed += rep.status == SourceReport::Status::Failed;
    if (!r.data) {
        const QString why = r.cancelled ? tr("cancelled") : r.error;
        m_problem = tr("Could not open %1: %2").arg(r.projectPath, why);
        m_window->statusBar()->showMessage(m_problem, 15000);
        m_hooks.failed(m_problem);
        Q_EMIT loaded(false);
        return;
    }
    m_hooks.clearSelection();
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
    m_window->statusBar()->showMessage(msg, 15000);
    Q_EMIT loaded(true);
}

void ProjectOpener::setRecentMenu(QMenu *menu)
{
    m_recentMenu = menu;
    rebuildRecentMenu();
}

void ProjectOpener::addRecent(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

void ProjectOpener::rebuildRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString &p : recent)
        m_recentMenu->addAction(p, this, [this, p] { openPath(p); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

} // namespace gml
