// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of studio pages (studiopage.h): a new page adds its factory here, one line. The
// order is the order of the central views' tabs and of the panes below the timeline.
#include "studiopage.h"

#include <QCoreApplication>
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

QWidget *scrolledPage(QWidget *panel)
{
    // The bottom docks share one area, whose height can go no lower than the tallest minimum
    // among them: unwrapped, the Compare and What-if panels (450 and 300 px) held it at half
    // the window and squeezed the timeline. Squeezed, a panel scrolls.
    auto *area = new QScrollArea;
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(panel);
    return area;
}

} // namespace gml
