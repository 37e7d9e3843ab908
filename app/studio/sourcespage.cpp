// SPDX-License-Identifier: GPL-3.0-or-later
// The Sources page: every file the project was imported from, with its importer, its state and
// its clock alignment (views/panels/sourcespanel.h), tabbed below the timeline. A clock offset
// set or cleared there is written through the project's write path.
#include "clockalignment.h"
#include "projectsession.h"
#include "sourcespanel.h"
#include "studiopage.h"
#include "timelinedata.h"

#include <optional>

namespace gml {

namespace {

class SourcesPage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("sources"); }
    // Room for its summary and a few sources (issue 73: at 1366x768 Runs showed its header and one
    // group row).
    double heightWhenShown() const override { return 1.0 / 3; }
    QString title() const override { return pageTr("Sources"); }
    Place place() const override { return Place::ProjectPane; }
    QString menuTitle() const override { return pageTr("&Sources"); }
    QKeySequence shortcut() const override { return QKeySequence(Qt::ALT | Qt::Key_8); }

    QWidget *create(const PageContext &context) override
    {
        m_panel = new SourcesPanel(context.window);
        QObject::connect(
            m_panel, &SourcesPanel::clockOverrideRequested, m_panel,
            [write = context.writeProject](qint64 source, bool clear, qint64 offsetNs) {
                const std::optional<TimeNs> value =
                    clear ? std::nullopt : std::optional<TimeNs>(offsetNs);
                write(pageTr("clock offset"), [source, value](Project &p, QString *why) {
                    return setAlignmentOverride(p, source, value, why);
                });
            });
        return m_panel;
    }
    void subscribe(const ProjectSession &session) override
    {
        auto show = [this, &session] { m_panel->setRuns(session.data()->runs); };
        QObject::connect(&session, &ProjectSession::opened, m_panel, show);
        QObject::connect(&session, &ProjectSession::dataReplaced, m_panel, show);
    }
    // The panel is its own controller: it reads nothing, the session hands it the runs.
    QObject *controller() const override { return m_panel; }

private:
    SourcesPanel *m_panel = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeSourcesPage()
{
    return std::make_unique<SourcesPage>();
}

} // namespace gml
