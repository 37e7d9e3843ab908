// SPDX-License-Identifier: GPL-3.0-or-later
// The Flame Graph page: the call stacks of the timeline's selection (or of the run in focus),
// views/panels/flameview.h fed by flamecontroller.h. Tabbed with the selection panes; when
// asked for (Ctrl+Shift+F) it gets a third of the window's height to show a few levels.
#include "flamecontroller.h"
#include "flameview.h"
#include "studiopage.h"

namespace gml {

namespace {

class FlamePage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("flame"); }
    QString title() const override { return pageTr("Flame Graph"); }
    Place place() const override { return Place::SelectionPane; }
    QKeySequence shortcut() const override { return QKeySequence(QStringLiteral("Ctrl+Shift+F")); }
    double heightWhenShown() const override { return 1.0 / 3; }

    QWidget *create(const PageContext &context) override
    {
        auto *view = new FlameView(context.window);
        m_controller = new FlameController(view, context.timeline, context.state, context.window);
        QObject::connect(view, &FlameView::hoverTextChanged, view, context.hover);
        QObject::connect(m_controller, &FlameController::showTimelineRequested, view,
                         [reveal = context.reveal] { reveal(QStringLiteral("timeline")); });
        return view;
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void setInView(bool inView) override { m_controller->setInView(inView); }
    void waitForIdle() override { m_controller->waitForIdle(); }

private:
    FlameController *m_controller = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeFlamePage()
{
    return std::make_unique<FlamePage>();
}

} // namespace gml
