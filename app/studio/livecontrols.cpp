// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, live (issue 38): a followed folder's updates taken into the open window, the
// status bar's Live label and Follow button, and File › Follow Folder… / Record Command….
#include "mainwindow.h"

#include "focuscontroller.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTime>
#include <QToolButton>

namespace gml {

void MainWindow::buildLiveControls()
{
    m_liveLabel = new QLabel(this);
    m_liveLabel->setVisible(false);
    m_liveButton = new QToolButton(this);
    m_liveButton->setText(tr("Follow"));
    m_liveButton->setCheckable(true);
    m_liveButton->setToolTip(tr("Keep the timeline at the end of the data as it arrives\n"
                                "(off when you scroll or zoom away from the end)"));
    m_liveButton->setVisible(false);
    statusBar()->addPermanentWidget(m_liveLabel);
    statusBar()->addPermanentWidget(m_liveButton);
    connect(m_liveButton, &QToolButton::clicked, this, [this](bool on) {
        if (on)
            m_state->showTraceEnd();
    });
    // The button shows whether the window is at the live end: the user's own scroll or zoom
    // away from it turns following off, coming back (or the button) turns it on.
    connect(m_state, &TimelineState::windowChanged, this, [this] {
        if (m_follow.isFollowing())
            m_liveButton->setChecked(m_state->atTraceEnd());
    });
    connect(&m_follow, &FollowController::updated, this, &MainWindow::onLiveUpdate);
    connect(&m_follow, &FollowController::recordingEnded, this,
            [this](int code, const QString &message) {
                const QString text = message.isEmpty()
                                         ? tr("the recorded command ended (status %1)").arg(code)
                                         : message;
                statusBar()->showMessage(tr("Recording ended: %1").arg(text), 15000);
                m_liveLabel->setText(
                    tr("Recorded: %1").arg(QFileInfo(m_follow.folder()).fileName()));
            });
    connect(&m_follow, &FollowController::stopped, this, [this] {
        m_liveButton->setVisible(false);
        if (m_liveLabel->isVisible())
            m_liveLabel->setText(
                tr("Followed %1 (stopped)").arg(QFileInfo(m_follow.folder()).fileName()));
    });
}

void MainWindow::followFolder(const QString &folder)
{
    m_liveUpdates = 0;
    m_openedPath = QFileInfo(folder).absoluteFilePath();
    statusBar()->showMessage(tr("Following %1…").arg(m_openedPath));
    m_follow.follow(folder);
}

bool MainWindow::recordCommand(const QStringList &command, const QString &interval,
                               const QString &out, QString *error)
{
    m_liveUpdates = 0;
    if (!m_follow.record(command, interval, out, error))
        return false;
    m_openedPath = m_follow.folder();
    statusBar()->showMessage(
        tr("Recording %1 into %2…").arg(command.join(QLatin1Char(' ')), m_openedPath));
    return true;
}

void MainWindow::askRecordCommand()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Record Command"));
    auto *form = new QFormLayout(&dialog);
    auto *command = new QLineEdit(&dialog);
    command->setPlaceholderText(tr("python train.py --epochs 1"));
    command->setMinimumWidth(420);
    auto *interval = new QLineEdit(QStringLiteral("100ms"), &dialog);
    form->addRow(tr("Command:"), command);
    form->addRow(tr("Sample every:"), interval);
    form->addRow(new QLabel(
        tr("The recorder samples the command's CPU, memory and I/O (and the GPUs through\n"
           "nvidia-smi and dcgmi when installed) into a new folder, which the window follows."),
        &dialog));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Record"));
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted || command->text().trimmed().isEmpty())
        return;
    // Run through the shell, as typed.
    QString why;
    if (!recordCommand({QStringLiteral("sh"), QStringLiteral("-c"), command->text().trimmed()},
                       interval->text().trimmed(), {}, &why))
        QMessageBox::warning(this, tr("Record Command"), why);
}

void MainWindow::onLiveUpdate(const FollowController::Update &u)
{
    ++m_liveUpdates;
    m_liveLabel->setVisible(true);
    m_liveButton->setVisible(m_follow.isFollowing());
    const QString name = QFileInfo(u.folder).fileName();
    if (u.first || !m_session.data()) {
        // The project opens as any other, at the folder's first look.
        ImportController::Result r;
        r.projectPath = u.projectPath;
        r.data = u.data;
        r.reader = u.reader;
        r.reports = u.reports;
        r.scanErrors = u.errors;
        r.error = u.error;
        onImportFinished(r);
        m_liveButton->setChecked(true);
        m_liveLabel->setText(tr("● Live: %1").arg(name));
        return;
    }
    if (!u.data) {
        statusBar()->showMessage(tr("Following %1: %2").arg(name, u.error), 15000);
        return;
    }
    m_session.replaceData(u.data); // the views, a new run's focus, then the analyses

    qint64 samples = 0;
    for (const auto &run : u.data->runs)
        samples += run.counterSamples;
    m_liveLabel->setText(tr("● Live: %1 · %2 samples · %3")
                             .arg(name)
                             .arg(samples)
                             .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss"))));
    QStringList problems = u.errors;
    for (const auto &r : u.reports)
        if (r.status != SourceReport::Status::Imported)
            problems << r.message;
    if (!problems.isEmpty())
        statusBar()->showMessage(problems.join(QStringLiteral("; ")), 15000);
}

} // namespace gml
