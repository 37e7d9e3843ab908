// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "findings.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QListView;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTextBrowser;
class QTreeView;

namespace gml {

class Chart;
class EvidenceModel;
class FindingsModel;
class MemoryView;
class RanksView;

// The Analysis panel: a run's summary header (step time, GPU busy, MFU, the top findings),
// its findings ranked by what fixing each would gain, the selected finding's detail and
// evidence, and the breakdown charts. It shows a report it is given; the controller computes
// it off the GUI thread (first the findings unpriced, then priced).
class AnalysisPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AnalysisPanel(QWidget *parent = nullptr);

    void setRuns(const QStringList &runs, const QString &current);
    QString currentRun() const;
    void showProgress(const QString &stage, int done, int total);
    // `final`: the findings are priced and ranked (else they are still being priced).
    void showReport(const sim::RunReport &report, bool final);
    void showMessage(const QString &text);
    // New data arrived in a followed folder (FollowController): a "Refresh" button beside
    // `text` until it is pressed or another run is picked.
    void offerRefresh(const QString &text);
    void withdrawRefresh(); // another run was picked: the offer was about the one shown
    const sim::RunReport *report() const { return m_report ? &*m_report : nullptr; }
    int selectedFinding() const;
    FindingsModel *findingsModel() const { return m_findingsModel; }
    EvidenceModel *evidenceModel() const { return m_evidenceModel; } // the selected finding's
    void selectFinding(int index);
    std::vector<Chart *> charts() const; // iterations, GPUs, kernels, over time
    Chart *rooflineChart() const { return m_roofline; }
    void showRooflineTab();
    RanksView *ranksView() const { return m_rankView; }
    MemoryView *memoryView() const { return m_memoryView; }
    void showMemoryPage();
    QTabWidget *pages() const { return m_pages; }

Q_SIGNALS:
    void runChanged(const QString &run);
    void cancelRequested();
    void refreshRequested();
    void evidenceActivated(const gml::sim::Evidence &evidence);
    void tryRequested(const QList<gml::sim::Transform> &transforms);

protected:
    void changeEvent(QEvent *e) override;

private:
    void showFinding();
    void styleSummary();

    QComboBox *m_runs;
    QLabel *m_status;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QPushButton *m_refresh;
    QLabel *m_summary;
    FindingsModel *m_findingsModel;
    QTreeView *m_findings;
    QTextBrowser *m_detail;
    QListView *m_evidence;
    EvidenceModel *m_evidenceModel;
    QPushButton *m_try;
    QTabWidget *m_pages;
    RanksView *m_rankView;
    MemoryView *m_memoryView;
    QTabWidget *m_tabs;
    Chart *m_iterations;
    Chart *m_ranks;
    Chart *m_families;
    Chart *m_time;
    Chart *m_roofline;
    std::optional<sim::RunReport> m_report;
};

} // namespace gml
