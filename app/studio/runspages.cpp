// SPDX-License-Identifier: GPL-3.0-or-later
// The pages of the project's runs: the Runs pane (views/panels/runsbrowser.h fed by
// runscontroller.h: the catalog, tabbed below the timeline), the Compare view (comparepanel.h,
// comparecontroller.h: the runs picked there, side by side) and the Simulate view
// (simulatepanel.h, simulatecontroller.h: strategy sweeps, saved as simulated runs through the
// project's write path). Runs and Simulate hand runs to Compare; Simulate offers the catalog's
// runs.
#include "comparecontroller.h"
#include "comparepanel.h"
#include "focuscontroller.h"
#include "runsbrowser.h"
#include "runscontroller.h"
#include "simulatecontroller.h"
#include "simulatepanel.h"
#include "studiopage.h"
#include "timelineview.h"

namespace gml {

namespace {

template <class Controller> Controller *controllerOf(const PageContext &context, const char *id)
{
    StudioPage *p = context.page(QLatin1String(id));
    return p ? qobject_cast<Controller *>(p->controller()) : nullptr;
}

// `runs` of `catalog` in the Compare view, brought to the front.
void compareIn(const PageContext &context, const RunCatalog &catalog, const QStringList &runs)
{
    if (auto *compare = controllerOf<CompareController>(context, "compare")) {
        context.reveal(QStringLiteral("compare"));
        compare->compare(catalog, runs);
    }
}

class RunsPage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("runs"); }
    // Room for its filter, the header and a few runs (issue 73: at 1366x768 Runs showed its header
    // and one group row).
    double heightWhenShown() const override { return 1.0 / 3; }
    QString title() const override { return pageTr("Runs"); }
    Place place() const override { return Place::ProjectPane; }
    QString menuTitle() const override { return pageTr("&Runs"); }
    QKeySequence shortcut() const override { return QKeySequence(Qt::ALT | Qt::Key_9); }

    QWidget *create(const PageContext &context) override
    {
        auto *browser = new RunsBrowser(context.window);
        m_controller = new RunsController(browser, context.window);
        QObject::connect(browser, &RunsBrowser::showInTimelineRequested, m_controller,
                         [context](const QStringList &runs, bool projectClock) {
                             context.focus->focusRuns(runs, projectClock);
                             // The user asked to see them: the timeline in front, with the focus.
                             context.reveal(QStringLiteral("timeline"));
                             context.timeline->setFocus(Qt::OtherFocusReason);
                         });
        QObject::connect(browser, &RunsBrowser::compareRequested, m_controller,
                         [context, browser](const QStringList &runs) {
                             compareIn(context, browser->catalog(), runs);
                         });
        return browser;
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void waitForIdle() override { m_controller->waitForIdle(); }

private:
    RunsController *m_controller = nullptr; // owned by the window
};

class ComparePage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("compare"); }
    QString title() const override { return pageTr("Compare"); }
    Place place() const override { return Place::CentralView; }
    QString menuTitle() const override { return pageTr("&Compare"); }
    QKeySequence shortcut() const override { return QKeySequence(Qt::ALT | Qt::Key_4); }

    QWidget *create(const PageContext &context) override
    {
        auto *panel = new ComparePanel(context.window);
        m_controller = new CompareController(panel, context.window);
        return scrolledPage(panel);
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void waitForIdle() override { m_controller->waitForIdle(); }

private:
    CompareController *m_controller = nullptr; // owned by the window
};

class SimulatePage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("simulate"); }
    QString title() const override { return pageTr("Simulate"); }
    Place place() const override { return Place::CentralView; }
    QString menuTitle() const override { return pageTr("Si&mulate"); }
    QKeySequence shortcut() const override { return QKeySequence(Qt::ALT | Qt::Key_5); }

    QWidget *create(const PageContext &context) override
    {
        auto *panel = new SimulatePanel(context.window);
        // The sweep's results are saved through the project's write path (off the GUI thread,
        // then the project reloads and every page sees the new runs).
        auto save = [write = context.writeProject](const QList<sim::SimResult> &results,
                                                   const QStringList &names) {
            return write(
                results.size() == 1 ? pageTr("a simulated run")
                                    : pageTr("%1 simulated runs").arg(results.size()),
                [results, names](Project &p, QString *why) {
                    for (qsizetype i = 0; i < results.size(); ++i)
                        if (!sim::saveSimulatedRun(p, results[i], names[i], why)) {
                            *why = pageTr("simulated run '%1' not saved: %2").arg(names[i], *why);
                            return false;
                        }
                    return true;
                });
        };
        m_controller = new SimulateController(panel, save, context.window);
        // A simulated run against the others shown (up to four runs): the Compare view.
        QObject::connect(panel, &SimulatePanel::runActivated, m_controller,
                         [context, panel](const QString &run) {
                             auto *runs = controllerOf<RunsController>(context, "runs");
                             if (!runs || !runs->catalog().run(run))
                                 return;
                             QStringList shown{run};
                             for (const SweepPoint &p : panel->points())
                                 if (p.run != run && shown.size() < 4 && runs->catalog().run(p.run))
                                     shown << p.run;
                             if (shown.size() >= 2)
                                 compareIn(context, runs->catalog(), shown);
                         });
        m_context = context;
        return scrolledPage(panel);
    }
    void subscribe(const ProjectSession &session) override
    {
        m_controller->subscribe(session);
        // The catalog's runs, each time the Runs pane has read it. Connected here, not in
        // create(): the window subscribes each page once, after every page is made, and the
        // Runs page is registered after this one.
        if (auto *runs = controllerOf<RunsController>(m_context, "runs")) {
            QObject::connect(runs, &RunsController::catalogLoaded, m_controller,
                             [this, runs](int, const QString &error) {
                                 if (error.isEmpty())
                                     m_controller->setCatalog(runs->catalog());
                             });
        }
    }
    QObject *controller() const override { return m_controller; }
    void waitForIdle() override
    {
        if (auto *runs = controllerOf<RunsController>(m_context, "runs"))
            runs->waitForIdle();
        m_controller->waitForIdle();
    }

private:
    PageContext m_context;
    SimulateController *m_controller = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeRunsPage()
{
    return std::make_unique<RunsPage>();
}

std::unique_ptr<StudioPage> makeComparePage()
{
    return std::make_unique<ComparePage>();
}

std::unique_ptr<StudioPage> makeSimulatePage()
{
    return std::make_unique<SimulatePage>();
}

} // namespace gml
