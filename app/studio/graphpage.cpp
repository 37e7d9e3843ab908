// SPDX-License-Identifier: GPL-3.0-or-later
// The Graph page: the execution graph of a run (views/graph/graphview.h fed by
// graphcontroller.h) under a run picker, a full-size view. Its model is built the first time
// it is in view; a run picked there becomes the focus everywhere, and a what-if replay's
// result colours its nodes.
#include "focuscontroller.h"
#include "graphcontroller.h"
#include "graphview.h"
#include "studiopage.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace gml {

namespace {

class GraphPage final : public StudioPage
{
public:
    QString id() const override { return QStringLiteral("graph"); }
    QString title() const override { return pageTr("Graph"); }
    Place place() const override { return Place::CentralView; }
    QString menuTitle() const override { return pageTr("Execution &Graph"); }
    QKeySequence shortcut() const override { return QKeySequence(Qt::ALT | Qt::Key_3); }

    QWidget *create(const PageContext &context) override
    {
        auto *box = new QWidget(context.window);
        auto *layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(0);
        auto *top = new QHBoxLayout;
        top->setContentsMargins(6, 3, 6, 0);
        auto *runs = new QComboBox(box);
        runs->setMinimumContentsLength(24);
        top->addWidget(new QLabel(pageTr("Run:"), box));
        top->addWidget(runs, 1);
        layout->addLayout(top);
        auto *view = new GraphView(box);
        layout->addWidget(view, 1);
        m_controller =
            new GraphController(view, runs, context.state, context.timeline, context.window);
        QObject::connect(m_controller, &GraphController::runChosen, m_controller,
                         [focus = context.focus](const QString &run) { focus->focusRuns({run}); });
        QObject::connect(context.whatIf, &WhatIfController::resultReady, m_controller,
                         &GraphController::onWhatIfResult);
        return box;
    }
    void subscribe(const ProjectSession &session) override { m_controller->subscribe(session); }
    QObject *controller() const override { return m_controller; }
    void setInView(bool inView) override { m_controller->setVisible(inView); }
    void waitForIdle() override { m_controller->waitForIdle(); }

private:
    GraphController *m_controller = nullptr; // owned by the window
};

} // namespace

std::unique_ptr<StudioPage> makeGraphPage()
{
    return std::make_unique<GraphPage>();
}

} // namespace gml
