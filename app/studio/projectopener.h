// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Opening in the studio (issue 71: it was the window's): a folder imported into its project, a
// project loaded, trace files added to the open project, a page's or the What-if pane's edit
// written through the same import job; the cancellable progress dialog and the status line
// while it runs; the session given what was opened; File › Recent. One job at a time
// (ImportController), off the GUI thread.
#include "importcontroller.h"

#include <QObject>

#include <functional>

class QMainWindow;
class QMenu;
class QProgressDialog;

namespace gml {

class ProjectSession;

class ProjectOpener : public QObject
{
    Q_OBJECT
public:
    struct Hooks
    {
        std::function<void()> clearSelection; // before the session takes another project
        std::function<bool()> interactive;    // false: no progress dialog (screenshots, tests)
        // The project could not be opened: where the window shows why, beside its status line.
        std::function<void(const QString &why)> failed;
    };
    ProjectOpener(QMainWindow *window, ProjectSession &session, Hooks hooks);

    // A folder (imported into its project), a .grademl file, or trace files (imported into the
    // open project, else into their folder's project).
    void openPath(const QString &path);
    void openFolder(const QString &folder);
    void openProject(const QString &projectPath);
    // The open project changed by `edit` in the import job, then reloaded; false when no
    // project is open or another job runs.
    bool write(const QString &what, ImportController::Edit edit);
    void reload(); // File › Reload: what was opened, again
    bool isBusy() const { return m_import.isRunning(); }
    // Stops the running job and waits for it (the window closes).
    void stop();
    // A followed folder: what the window shows as opened; its first update is opened as an
    // import's result.
    void setOpenedPath(const QString &path) { m_openedPath = path; }
    void finish(const ImportController::Result &result);
    // Why the last open failed, in the words the status line showed.
    QString problem() const { return m_problem; }
    // File › Recent: filled from the user's settings, refilled at each open.
    void setRecentMenu(QMenu *menu);

Q_SIGNALS:
    void loaded(bool ok);

private:
    void start(const QString &projectPath, const QStringList &inputs, const QString &what,
               ImportController::Edit edit = {});
    void showOpening(const QString &what); // the progress dialog and status line
    void onProgress(const QString &stage, const QString &detail, int done, int total);
    void addRecent(const QString &path);
    void rebuildRecentMenu();

    QMainWindow *m_window;
    ProjectSession &m_session;
    Hooks m_hooks;
    ImportController m_import;
    QProgressDialog *m_progress = nullptr;
    QMenu *m_recentMenu = nullptr;
    QString m_openedPath; // the folder or file the user is opening
    QString m_problem;
};

} // namespace gml
