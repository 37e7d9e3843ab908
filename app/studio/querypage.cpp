// SPDX-License-Identifier: GPL-3.0-or-later
// The Query page: SQL over the project, read-only as `grademl query` (views/panels/queryview.h
// fed by querycontroller.h). A full-size view; Ctrl+Shift+Q shows it, and a row shown in the
// timeline brings the timeline back to the front.
#include "querycontroller.h"
#include "queryview.h"
#include "studiopage.h"

namespace gml {

namespace {

class QueryPage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("query"); }
    QString title() const override { return pageTr("Query"); }
    QString menuTitle() const override { return pageTr("&Query (SQL)"); }
    Place place() const override { return Place::CentralView; }
    QKeySequence shortcut() const override { return QKeySequence(QStringLiteral("Ctrl+Shift+Q")); }

    QWidget *create(const PageContext &context) override
    {
        auto *view = new QueryView(context.window);
        m_controller = new QueryController(view, context.timeline, context.state, context.window);
        QObject::connect(m_controller, &QueryController::showTimelineRequested, view,
                         [reveal = context.reveal] { reveal(QStringLiteral("timeline")); });
        return view;
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void waitForIdle() override { m_controller->waitForIdle(); }

private:
    QueryController *m_controller = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeQueryPage()
{
    return std::make_unique<QueryPage>();
}

} // namespace gml
