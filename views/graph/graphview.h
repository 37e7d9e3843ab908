// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphpainter.h"

#include <QFutureWatcher>
#include <QHash>
#include <QWidget>

#include <memory>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QToolButton;

namespace gml {

class GraphCanvas;

// The graph dock: the execution model of one run as a layered graph. A breadcrumb of the
// focus's ancestors on top (click to go back up), the level to open down to, a search box,
// Fit and Export. Double-click opens a node (it becomes the focus) or unfolds a ×N group;
// the context menu opens or collapses in place. Layouts are computed off the GUI thread and
// cached per collapse state, so going back up is instant.
class GraphView : public QWidget
{
    Q_OBJECT
public:
    explicit GraphView(QWidget *parent = nullptr);
    ~GraphView() override;

    // A new model (null: none, `message` says why); the view starts at the focus `focus`.
    void setModel(std::shared_ptr<const sim::ExecutionModel> model, const QString &title,
                  int focus = 0);
    void showMessage(const QString &message);
    // A line above the graph for what the model's data says is wrong (a workflow's bad
    // declaration); empty hides it.
    void setNotice(const QString &text);
    QString notice() const;
    // A crumb before the model's own (the project's workflow above a run's graph): clicking it
    // emits upRequested(). Empty: none.
    void setUpLink(const QString &label);
    const std::shared_ptr<const sim::ExecutionModel> &model() const { return m_model; }

    GraphCollapse collapse() const { return m_collapse; }
    void setCollapse(const GraphCollapse &collapse); // lays out (cached) and shows it
    void setFocusNode(int node);                     // the breadcrumb's end
    void unfold(int item);                           // a ×N group into its members
    void openInPlace(int item);
    void collapseItem(int item);
    void setLevel(sim::Level level);

    // The picture on screen (null while the first layout runs) and whether one is pending.
    std::shared_ptr<const GraphPicture> picture() const { return m_picture; }
    bool isLayingOut() const;
    void waitForLayout(); // tests

    // Linked selection: model nodes to highlight (the items showing them light up), the
    // selected item, the what-if change per model node (predicted / measured - 1).
    void setHighlightedNodes(const std::vector<int> &nodes);
    QSet<int> highlightedItems() const;
    void selectItem(int item);
    int selectedItem() const;
    void setPredictedChange(std::vector<std::optional<double>> perNode);
    void find(const QString &text); // highlights and centres on the matches
    int matchCount() const;
    void fit();
    bool exportTo(const QString &path, QString *error) const;
    QString statusText() const;
    // The run has several ranks: offer to fold them (the controller swaps the model).
    void setRanksFoldable(bool foldable);
    bool ranksFolded() const;
    void setRanksFolded(bool folded);

Q_SIGNALS:
    // A click on a box: reveal the model node's slices in the timeline.
    void nodeActivated(int node);
    void collapseChanged();
    void pictureShown();
    // A double-click on a box with nothing inside to open (a workflow's step).
    void leafOpened(int node);
    // A link of the notice was clicked (its href).
    void noticeLinkActivated(const QString &link);
    void upRequested();
    void foldRanksToggled(bool folded);

private:
    void request();
    void show(std::shared_ptr<const GraphPicture> picture);
    void rebuildBreadcrumb();
    void updateOverlay();
    void exportDialog();

    std::shared_ptr<const sim::ExecutionModel> m_model;
    QString m_title;
    GraphCollapse m_collapse;
    std::shared_ptr<const GraphPicture> m_picture;
    QHash<quint64, std::shared_ptr<const GraphPicture>> m_cache;
    QFutureWatcher<std::shared_ptr<const GraphPicture>> m_watcher;
    bool m_pending = false;
    std::vector<int> m_highlightNodes;
    std::vector<std::optional<double>> m_change; // per model node
    QString m_search;
    int m_matchCursor = -1;
    QString m_message;
    QString m_upLink;

    QWidget *m_crumbs;
    QHBoxLayout *m_crumbLayout;
    QComboBox *m_level;
    QLineEdit *m_find;
    QToolButton *m_foldRanks;
    QToolButton *m_syncEdges;
    QLabel *m_status;
    QLabel *m_notice;
    GraphCanvas *m_canvas;
};

} // namespace gml
