// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of studio pages (studiopage.h): a new page adds its factory here, one line. The
// order is the order of the central views' tabs and of the panes below the timeline.
#include "studiopage.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFrame>
#include <QScrollArea>

namespace gml {

std::unique_ptr<StudioPage> makeAnalysisPage();    // analysispage.cpp
std::unique_ptr<StudioPage> makeGraphPage();       // graphpage.cpp
std::unique_ptr<StudioPage> makeComparePage();     // runspages.cpp
std::unique_ptr<StudioPage> makeSimulatePage();    // runspages.cpp
std::unique_ptr<StudioPage> makeQueryPage();       // querypage.cpp
std::unique_ptr<StudioPage> makeFlamePage();       // flamepage.cpp
std::unique_ptr<StudioPage> makeNotesPage();       // notespage.cpp
std::unique_ptr<StudioPage> makeCollectivesPage(); // collectivespage.cpp
std::unique_ptr<StudioPage> makeSourcesPage();     // sourcespage.cpp
std::unique_ptr<StudioPage> makeRunsPage();        // runspages.cpp

const std::vector<PageFactory> &studioPages()
{
    static const std::vector<PageFactory> pages{
        &makeAnalysisPage, &makeGraphPage, &makeComparePage,     &makeSimulatePage,
        &makeQueryPage,    &makeFlamePage, &makeCollectivesPage, &makeNotesPage,
        &makeSourcesPage,  &makeRunsPage,
    };
    return pages;
}

QString pageTr(const char *text)
{
    return QCoreApplication::translate("MainWindow", text);
}

namespace {

// A panel filling its page, the page as tall as the panel's minimum at the least: a scroll area
// sizes a page with a word-wrapped label to the height it prefers at its width (its layout's
// height for width), so the Analysis view scrolled its charts' legends out of sight at
// 1366x768 and Compare stood 1,770 px tall (issue 73). The page has no layout of its own, so
// only its minimum counts.
class FittedPage final : public QWidget
{
public:
    explicit FittedPage(QWidget *panel) : m_panel(panel) { panel->setParent(this); }
    QSize minimumSizeHint() const override { return m_panel->minimumSizeHint(); }
    QSize sizeHint() const override { return m_panel->sizeHint(); }

protected:
    void resizeEvent(QResizeEvent *) override { m_panel->setGeometry(rect()); }
    bool event(QEvent *e) override
    {
        if (e->type() == QEvent::LayoutRequest) // the panel's minimum may have changed
            updateGeometry();
        return QWidget::event(e);
    }

private:
    QWidget *m_panel;
};

} // namespace

QWidget *scrolledPage(QWidget *panel)
{
    // The bottom docks share one area, whose height can go no lower than the tallest minimum
    // among them: unwrapped, the Compare and What-if panels (450 and 300 px) held it at half
    // the window and squeezed the timeline. Squeezed below its minimum, a panel scrolls.
    auto *area = new QScrollArea;
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(new FittedPage(panel));
    return area;
}

} // namespace gml
