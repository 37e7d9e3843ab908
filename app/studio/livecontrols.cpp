// SPDX-License-Identifier: GPL-3.0-or-later
#include "livecontrols.h"

#include "projectopener.h"
#include "projectsession.h"
#include "timelinestate.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTime>
#include <QToolButton>

namespace gml {

LiveControls::LiveControls(QMainWindow *window, ProjectSession &session, ProjectOpener &opener,
                           TimelineState *state)
    : QObject(window), m_window(window), m_session(session), m_opener(opener), m_state(state)
{
    m_label = new QLabel(window);
    m_label->setVisible(false);
    m_button = new QToolButton(window);
    m_button->setText(tr("Follow"));
    m_button->setCheckable(true);
    m_button->setToolTip(tr("Keep the timeline at the end of the data as it arrives\n"
                            "(off when you scroll or zoom away from the end)"));
    m_button->setVisible(false);
    m_window->statusBar()->addPermanentWidget(m_label);
    m_window->statusBar()->addPermanentWidget(m_button);
    connect(m_button, &QToolButton::clicked, this, [this](bool on) {
        if (on)
            m_state->showTraceEnd();
    });
    // The button shows whether the window is at the live end: the user's own scroll or zoom
    // away from it turns following off, coming back (or the button) turns it on.
    connect(m_state, &TimelineState::windowChanged, this, [this] {
        if (m_follow.isFollowing())
            m_button->setChecked(m_state->atTraceEnd());
    });
    connect(&m_follow, &FollowController::updated, this, &LiveControls::onUpdate);
    connect(&m_follow, &FollowController::recordingEnded, this,
            [this](int code, const QString &message) {
                const QString text = message.isEmpty()
                                         ? tr("the recorded command ended (status %1)").arg(code)
                                         : message;
                m_window->statusBar()->showMessage(tr("Recording ended: %1").arg(text), 15000);
                m_label->setText(tr("Recorded: %1").arg(QFileInfo(m_follow.folder()).fileName()));
            });
    connect(&m_follow, &FollowController::stopped, this, [this] {
        m_button->setVisible(false);
        if (m_label->isVisible())
            m_label->setText(
                tr("Followed %1 (stopped)").arg(QFileInfo(m_follow.folder()).fileName()));
    });
}

void LiveControls::followFolder(const QString &folder)
{
    const QString path = QFileInfo(folder).absoluteFilePath();
    m_opener.setOpenedPath(path);
    m_window->statusBar()->showMessage(tr("Following %1…").arg(path));
    m_follow.follow(folder);
}

bool LiveControls::recordCommand(const QStringList &command, const QString &interval,
                                 const QString &out, QString *error)
{
    if (!m_follow.record(command, interval, out, error))
        return false;
    m_opener.setOpenedPath(m_follow.folder());
    m_window->statusBar()->showMessage(
        tr("Recording %1 into %2…").arg(command.join(QLatin1Char(' ')), m_follow.folder()));
    return true;
}

void LiveControls::askRecordCommand()
{
    QDialog dialog(m_window);
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
        QMessageBox::warning(m_window, tr("Record Command"), why);
}

void LiveControls::onUpdate(const FollowController::Update &u)
{
    m_label->setVisible(true);
    m_button->setVisible(m_follow.isFollowing());
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
        m_opener.finish(r);
        m_button->setChecked(true);
        m_label->setText(tr("● Live: %1").arg(name));
        return;
    }
    if (!u.data) {
        m_window->statusBar()->showMessage(tr("Following %1: %2").arg(name, u.error), 15000);
        return;
    }
    m_session.replaceData(u.data); // the views, a new run's focus, then the analyses

    qint64 samples = 0;
    for (const auto &run : u.data->runs)
        samples += run.counterSamples;
    m_label->setText(tr("● Live: %1 · %2 samples · %3")
                         .arg(name)
                         .arg(samples)
                         .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss"))));
    QStringList problems = u.errors;
    for (const auto &r : u.reports)
        if (r.status != SourceReport::Status::Imported)
            problems << r.message;
    if (!problems.isEmpty())
        m_window->statusBar()->showMessage(problems.join(QStringLiteral("; ")), 15000);
}

} // namespace gml
