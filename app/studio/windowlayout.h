// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The studio window's layout (issue 71: it was the window's): where each pane sits, first and
// after View › Reset Layout, the default sizes, the user's layout kept per user in QSettings,
// which central view is in front, and the selection panes shrinking while another view is.
#include "studiopage.h"

#include <QObject>

#include <memory>
#include <vector>

class QMainWindow;
class QTabWidget;

namespace gml {

class WindowLayout : public QObject
{
    Q_OBJECT
public:
    // `views`: the central views; `pages`: the registered pages, made before the layout is.
    WindowLayout(QMainWindow *window, QTabWidget *views,
                 const std::vector<std::unique_ptr<StudioPage>> &pages);

    // The selection panes tabbed below the centre, Details in front; What-if at the right,
    // hidden until asked for.
    void arrange();
    void reset(); // View › Reset Layout
    // The user's layout (docks, sizes, the view in front); the screenshot mode never reads it,
    // so its pictures do not depend on who runs it.
    void restore();
    void save();
    void shown(); // the window's first show: the panes get their sizes (unless restored)
    // Brings a central view, a pane or a page's part to the front; false for an unknown name.
    bool showView(const QString &name);
    QString frontView() const;
    // Another central view in front: the selection panes shrink; the timeline: they come back.
    void fitBottomPanes();

private:
    QStringList bottomPanes() const;                // the docks tabbed below, in order
    bool showsSelection(const QString &pane) const; // a pane of the timeline's selection
    const StudioPage *page(const QString &id) const;
    void applyDefaultSizes();

    QMainWindow *m_window;
    QTabWidget *m_views;
    const std::vector<std::unique_ptr<StudioPage>> &m_pages;
    bool m_sized = false;      // the panes have their sizes: restored, or defaults at first show
    QByteArray m_pendingState; // the restored layout, applied again at the first show
    int m_bottomHeight = 0;    // the selection panes' height before another view compacted them
};

} // namespace gml
