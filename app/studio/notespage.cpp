// SPDX-License-Identifier: GPL-3.0-or-later
// The Notes page: the project's notes and bookmarks (views/panels/notespanel.h fed by
// notescontroller.h), tabbed below the timeline, and the Notes menu: Ctrl+M notes what is
// selected (its text asked for), Ctrl+1…9 set a bookmark there and 1…9 go to it (typing a digit
// in a text field still types it: a field takes the key first).
#include "notescontroller.h"
#include "notespanel.h"
#include "studiopage.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>

namespace gml {

namespace {

class NotesPage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("notes"); }
    // Room for a few notes (issue 73: at 1366x768 Runs showed its header and one group row).
    double heightWhenShown() const override { return 1.0 / 4; }
    QString title() const override { return pageTr("Notes"); }
    Place place() const override { return Place::ProjectPane; }
    QString menuTitle() const override { return pageTr("&Notes"); }

    QWidget *create(const PageContext &context) override
    {
        m_context = context;
        m_panel = new NotesPanel(context.window);
        m_controller =
            new NotesController(m_panel, context.timeline, context.state, context.window);
        return m_panel;
    }
    void addMenus(QMenuBar *menuBar) override
    {
        QMenu *menu = menuBar->addMenu(pageTr("&Notes"));
        QAction *add = menu->addAction(
            pageTr("&Add Note…"), QKeySequence(pageTr("Ctrl+M")), m_controller, [this] {
                QString text = pageTr("Note");
                if (m_context.interactive()) {
                    bool ok = false;
                    text = QInputDialog::getText(m_context.window, pageTr("Add Note"),
                                                 pageTr("A note on the selected slice, else the "
                                                        "selected range, else the cursor:"),
                                                 QLineEdit::Normal, QString(), &ok);
                    if (!ok || text.trimmed().isEmpty())
                        return;
                }
                m_controller->addNote(text.trimmed());
            });
        QObject::connect(m_panel, &NotesPanel::addRequested, add, &QAction::trigger);
        menu->addAction(pageTr("Show &Notes"), m_controller,
                        [reveal = m_context.reveal] { reveal(QStringLiteral("notes")); });
        QMenu *set = menu->addMenu(pageTr("&Set Bookmark"));
        QMenu *go = menu->addMenu(pageTr("&Go to Bookmark"));
        for (int n = 1; n <= 9; ++n) {
            QAction *s = set->addAction(pageTr("Bookmark %1").arg(n), m_controller,
                                        [this, n] { m_controller->setBookmark(n); });
            s->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + n)));
            QAction *g = go->addAction(pageTr("Bookmark %1").arg(n), m_controller, [this, n] {
                if (!m_controller->goToBookmark(n))
                    m_context.message(
                        pageTr("No bookmark %1 yet: Ctrl+%1 sets it on what is selected.").arg(n),
                        5000);
            });
            g->setShortcut(QKeySequence(Qt::Key(Qt::Key_0 + n)));
        }
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void waitForIdle() override { m_controller->waitForIdle(); }

private:
    PageContext m_context;
    NotesPanel *m_panel = nullptr;           // owned by the window
    NotesController *m_controller = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeNotesPage()
{
    return std::make_unique<NotesPage>();
}

} // namespace gml
