// SPDX-License-Identifier: GPL-3.0-or-later
// The Analysis page: the run in focus analysed (views/panels/analysispanel.h fed by
// analysiscontroller.h), a full-size view. It follows the timeline's focus, tries a finding's
// fix in the What-if pane, shows a piece of evidence in the timeline, and marks a multi-rank
// run's stragglers in the rank overview when asked from there. Its parts can be asked for by
// name: "ranks" (the multi-rank page), "memory" (the Memory page), "roofline" (its tab).
#include "analysiscontroller.h"
#include "analysispanel.h"
#include "focuscontroller.h"
#include "rankoverviewcontroller.h"
#include "studiopage.h"
#include "timelinestate.h"

#include <QTabWidget>

namespace gml {

namespace {

class AnalysisPage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("analysis"); }
    QString title() const override { return pageTr("Analysis"); }
    Place place() const override { return Place::CentralView; }
    QString menuTitle() const override { return pageTr("&Analysis"); }
    QKeySequence shortcut() const override { return QKeySequence(Qt::ALT | Qt::Key_2); }

    QWidget *create(const PageContext &context) override
    {
        m_panel = new AnalysisPanel(context.window);
        m_controller = new AnalysisController(m_panel, context.state, context.timeline,
                                              context.tryWhatIf, context.window);
        // A piece of evidence clicked: shown in the timeline, which comes to the front.
        QObject::connect(m_controller, &AnalysisController::revealed, m_controller,
                         [reveal = context.reveal] { reveal(QStringLiteral("timeline")); });
        // One run everywhere: the view follows the timeline's focus.
        QObject::connect(context.state, &TimelineState::focusChanged, m_controller,
                         [this, focus = context.focus] {
                             if (const QStringList f = focus->focusNames(); !f.isEmpty())
                                 m_controller->follow(f.first());
                         });
        // The rank overview's "Stragglers": its run analysed, and the report marks them there.
        RankOverviewController *ranks = context.rankOverview;
        QObject::connect(ranks, &RankOverviewController::stragglersRequested, m_controller,
                         [this, message = context.message](const QString &run) {
                             m_controller->analyse(run);
                             message(pageTr("Analysing %1 to mark its stragglers…").arg(run), 8000);
                         });
        QObject::connect(m_controller, &AnalysisController::reportReady, ranks,
                         [this, ranks](const QString &run, const QString &error) {
                             const auto *report = m_panel->report();
                             if (error.isEmpty() && report && report->analysis)
                                 ranks->setStragglers(run, report->analysis->stragglers,
                                                      report->criticalByRank);
                         });
        return scrolledPage(m_panel);
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void setInView(bool inView) override { m_controller->setVisible(inView); }
    void waitForIdle() override { m_controller->waitForIdle(); }
    bool showPart(const QString &name) override
    {
        if (name == QLatin1String("ranks"))
            m_panel->pages()->setCurrentIndex(1);
        else if (name == QLatin1String("memory"))
            m_panel->showMemoryPage();
        else if (name == QLatin1String("roofline"))
            m_panel->showRooflineTab();
        else
            return false;
        return true;
    }

private:
    AnalysisPanel *m_panel = nullptr;           // owned by the window
    AnalysisController *m_controller = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeAnalysisPage()
{
    return std::make_unique<AnalysisPage>();
}

} // namespace gml
