// SPDX-License-Identifier: GPL-3.0-or-later
// The Collectives page: what the network did, rank by rank (views/panels/collectivesview.h fed
// by collectivescontroller.h), tabbed below the timeline so that a collective clicked is seen
// on every rank above it.
#include "collectivescontroller.h"
#include "collectivesview.h"
#include "studiopage.h"

namespace gml {

namespace {

class CollectivesPage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("collectives"); }
    QString title() const override { return pageTr("Collectives"); }
    QString menuTitle() const override { return pageTr("C&ollectives"); }
    Place place() const override { return Place::ProjectPane; }
    double heightWhenShown() const override { return 1.0 / 3; }

    QWidget *create(const PageContext &context) override
    {
        auto *view = new CollectivesView(context.window);
        m_controller = new CollectivesController(view, context.timeline, context.window);
        return view;
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void setInView(bool inView) override { m_controller->setInView(inView); }
    void waitForIdle() override { m_controller->waitForIdle(); }

private:
    CollectivesController *m_controller = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeCollectivesPage()
{
    return std::make_unique<CollectivesPage>();
}

} // namespace gml
