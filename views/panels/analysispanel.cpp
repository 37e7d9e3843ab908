// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysispanel.h"

#include "findingsmodel.h"

#include "memoryview.h"
#include "ranksview.h"

#include "analysischarts.h"
#include "chartlayer.h"
#include "theme.h"
#include "timeformat.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

namespace gml {

namespace {

QColor severityColour(sim::Severity s)
{
    return FindingsModel::severityColour(s);
}

} // namespace

AnalysisPanel::AnalysisPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Run:"), this));
    m_runs = new QComboBox(this);
    m_runs->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(m_runs);
    m_status = new QLabel(this);
    top->addWidget(m_status, 1);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(160);
    m_progress->setVisible(false);
    top->addWidget(m_progress);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    top->addWidget(m_cancel);
    m_refresh = new QPushButton(tr("Refresh"), this);
    m_refresh->setToolTip(tr("Analyse the run again with the data that arrived since"));
    m_refresh->setVisible(false);
    top->addWidget(m_refresh);
    layout->addLayout(top);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    styleSummary();
    layout->addWidget(m_summary);

    // Two pages: the findings (side by side: the ranked findings, the selected one's detail and
    // evidence, the charts) and the ranks (a multi-rank run's stragglers, loads, step times).
    m_pages = new QTabWidget(this);
    m_pages->setDocumentMode(true);
    auto *split = new QSplitter(Qt::Horizontal, m_pages);
    m_findingsModel = new FindingsModel(this);
    m_findings = new QTreeView(split);
    m_findings->setModel(m_findingsModel);
    m_findings->setRootIsDecorated(false);
    m_findings->setUniformRowHeights(true);
    m_findings->setWordWrap(false);
    m_findings->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_findings->header()->setSectionResizeMode(FindingsModel::Severity,
                                               QHeaderView::ResizeToContents);
    m_findings->header()->setSectionResizeMode(FindingsModel::Gain, QHeaderView::ResizeToContents);
    m_findings->header()->setStretchLastSection(true);
    auto *detailBox = new QWidget(split);
    auto *detailLayout = new QVBoxLayout(detailBox);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    m_detail = new QTextBrowser(detailBox);
    m_detail->setOpenLinks(false);
    detailLayout->addWidget(m_detail, 3);
    auto *evidenceRow = new QHBoxLayout;
    // Short enough for the narrow column at 1366x768 with What-if open; the rest in its tip.
    auto *evidenceTitle = new QLabel(tr("Evidence"), detailBox);
    evidenceTitle->setToolTip(tr("Click a line to show it in the timeline"));
    evidenceRow->addWidget(evidenceTitle, 1);
    m_try = new QPushButton(tr("Try it in What-if"), detailBox);
    m_try->setToolTip(tr("Apply this finding's transform in the What-if panel"));
    m_try->setEnabled(false);
    evidenceRow->addWidget(m_try);
    detailLayout->addLayout(evidenceRow);
    m_evidenceModel = new EvidenceModel(this);
    m_evidence = new QListView(detailBox);
    m_evidence->setObjectName(QStringLiteral("evidence"));
    m_evidence->setModel(m_evidenceModel);
    m_evidence->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_evidence->setUniformItemSizes(true);
    m_evidence->setToolTip(tr("Click a line to show it in the timeline"));
    detailLayout->addWidget(m_evidence, 2);

    m_tabs = new QTabWidget(split);
    m_iterations = new Chart(m_tabs);
    m_ranks = new Chart(m_tabs);
    m_families = new Chart(m_tabs);
    m_time = new Chart(m_tabs);
    m_tabs->addTab(m_iterations, tr("Iterations"));
    m_tabs->addTab(m_ranks, tr("GPUs"));
    m_tabs->addTab(m_families, tr("Kernels"));
    m_tabs->addTab(m_time, tr("Over time"));
    m_roofline = new Chart(m_tabs);
    m_tabs->addTab(m_roofline, tr("Roofline"));
    // A click on an operator shows its longest call in the timeline.
    connect(m_roofline, &Chart::rooflinePointClicked, this, [this](int op) {
        if (!m_report || !m_report->roofline || op < 0 || op >= m_report->roofline->ops.size())
            return;
        const sim::RooflineOp &o = m_report->roofline->ops[op];
        Q_EMIT evidenceActivated({tr("longest %1 call").arg(o.name), o.rank, o.sliceStart,
                                  o.sliceEnd, o.slice, o.track});
    });
    split->addWidget(m_findings);
    split->addWidget(detailBox);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 4);
    split->setStretchFactor(2, 3);
    split->setSizes({400, 400, 330}); // the proportions it opens with
    m_findings->setMinimumWidth(220);
    detailBox->setMinimumWidth(220);
    m_pages->addTab(split, tr("Findings"));
    m_rankView = new RanksView(m_pages);
    m_pages->addTab(m_rankView, tr("Ranks"));
    m_memoryView = new MemoryView(m_pages);
    m_pages->addTab(m_memoryView, tr("Memory"));
    connect(m_memoryView, &MemoryView::evidenceActivated, this, &AnalysisPanel::evidenceActivated);
    layout->addWidget(m_pages, 1);
    connect(m_rankView, &RanksView::revealRequested, this, &AnalysisPanel::evidenceActivated);

    connect(m_runs, &QComboBox::currentTextChanged, this, [this](const QString &run) {
        if (!run.isEmpty())
            Q_EMIT runChanged(run);
    });
    connect(m_cancel, &QPushButton::clicked, this, &AnalysisPanel::cancelRequested);
    connect(m_refresh, &QPushButton::clicked, this, [this] {
        m_refresh->setVisible(false);
        Q_EMIT refreshRequested();
    });
    connect(m_findings->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &AnalysisPanel::showFinding);
    const auto activated = [this](const QModelIndex &index) {
        if (const QVariant e = m_evidenceModel->rowData(index); e.isValid())
            Q_EMIT evidenceActivated(e.value<sim::Evidence>());
    };
    connect(m_evidence, &QListView::activated, this, activated);
    connect(m_evidence, &QListView::clicked, this, activated);
    connect(m_try, &QPushButton::clicked, this, [this] {
        const int k = selectedFinding();
        if (m_report && k >= 0 && !m_report->findings[size_t(k)].fix.isEmpty())
            Q_EMIT tryRequested(m_report->findings[size_t(k)].fix);
    });
    showMessage(tr("Open a project to analyse its runs."));
}

void AnalysisPanel::setRuns(const QStringList &runs, const QString &current)
{
    const QSignalBlocker block(m_runs);
    m_runs->clear();
    m_runs->addItems(runs);
    m_runs->setCurrentText(current);
}

QString AnalysisPanel::currentRun() const
{
    return m_runs->currentText();
}

void AnalysisPanel::showProgress(const QString &stage, int done, int total)
{
    m_status->setText(stage + QStringLiteral("…"));
    m_progress->setVisible(true);
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(done);
    m_cancel->setVisible(true);
}

void AnalysisPanel::showMessage(const QString &text)
{
    m_status->setText(text);
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
}

void AnalysisPanel::offerRefresh(const QString &text)
{
    m_status->setText(text);
    m_refresh->setVisible(true);
}

void AnalysisPanel::withdrawRefresh()
{
    m_refresh->setVisible(false);
}

void AnalysisPanel::showReport(const sim::RunReport &report, bool final)
{
    const int keep = selectedFinding();
    m_report = report;
    m_rankView->setAnalysis(report.analysis);
    // Times after the run's start as the CLI and the timeline count it (the tracks' span;
    // the report's origin, the graph's, put the peak 95 us away from `grademl memory`'s).
    m_memoryView->showMemory(report.memory ? &*report.memory : nullptr,
                             report.memory ? report.memory->runStart : report.origin);
    m_pages->setTabText(1, report.analysis && report.analysis->ranks.size() > 1
                               ? tr("Ranks (%1)").arg(report.analysis->ranks.size())
                               : tr("Ranks"));
    const sim::RunSummary &s = report.summary;
    QStringList head;
    if (s.iterations > 0 && s.warmupIterations > 0)
        head << tr("<b>Step</b> %1 (steady: %2 warm-up of %3 iterations left out; %4 with "
                   "them)")
                    .arg(formatDuration(s.stepTime))
                    .arg(s.warmupIterations)
                    .arg(s.iterations)
                    .arg(formatDuration(s.stepTimeAll));
    else if (s.iterations > 0)
        head << tr("<b>Step</b> %1 (%n iteration(s))", nullptr, int(s.iterations))
                    .arg(formatDuration(s.stepTime));
    else if (s.stepTime > 0)
        head << tr("<b>Span</b> %1").arg(formatDuration(s.stepTime));
    if (s.gpuBusy >= 0)
        head << tr("<b>GPU busy</b> %1%").arg(s.gpuBusy * 100, 0, 'f', 1);
    // Below 1%, two significant digits ("0.042%"), never a bare "0.0%".
    const auto percent = [](double f) {
        return f > 0 && f < 0.01 ? QString::number(f * 100, 'g', 2)
                                 : QString::number(f * 100, 'f', 1);
    };
    head << (s.mfu >= 0 ? tr("<b>MFU</b> %1% · <b>HFU</b> %2%").arg(percent(s.mfu), percent(s.hfu))
                        : tr("<b>MFU</b> – (%1)")
                              .arg(s.mfuUnknown.isEmpty() ? tr("no FLOPs recorded")
                                                          : s.mfuUnknown.toHtmlEscaped()));
    if (report.memory) {
        // The highest GPU peak (the CPU's when no GPU allocated), as the Memory page shows it.
        const DeviceMemory *top = report.memory->highestGpu();
        if (!top && !report.memory->devices.empty())
            top = &report.memory->devices.front();
        if (top)
            head
                << tr("<b>Memory</b> %1 peak %2").arg(top->device, formatBytes(top->peakAllocated));
    }
    if (s.gpuUtilisation >= 0)
        head << tr("<b>GPU utilisation</b> %1% (monitoring)").arg(s.gpuUtilisation, 0, 'f', 1);
    if (s.energyPerIterationJ >= 0)
        head << tr("<b>Energy</b> %1 J per iteration").arg(s.energyPerIterationJ, 0, 'f', 1);
    if (report.analysis && report.analysis->ranks.size() > 1 && !report.criticalByRank.empty() &&
        report.criticalLength > 0)
        head << tr("<b>Critical path</b> %1% on rank %2")
                    .arg(100.0 * double(report.criticalByRank.front().second) /
                             double(report.criticalLength),
                         0, 'f', 0)
                    .arg(report.criticalByRank.front().first);
    QStringList top;
    for (size_t k = 0; k < report.findings.size() && k < 3; ++k) {
        const auto &f = report.findings[k];
        top << QStringLiteral("%1. <span style='color:%2'>%3</span>%4")
                   .arg(k + 1)
                   .arg(severityColour(f.severity()).name(),
                        f.title.section(QLatin1Char(':'), 0, 0).toHtmlEscaped(),
                        f.priced ? QStringLiteral(" (up to −%1%)").arg(f.gain() * 100, 0, 'f', 1)
                                 : QString());
    }
    // Values dropped as outside physical bounds: said under the headline, one line each.
    QString warnings;
    for (const QString &w : s.warnings)
        warnings += QStringLiteral("<br><span style='color:%1'>%2</span>")
                        .arg(severityColour(sim::Severity::High).name(),
                             tr("Dropped: %1").arg(w.toHtmlEscaped()));
    m_summary->setText(QStringLiteral("%1%3<br><b>Top findings:</b> %2")
                           .arg(head.join(QStringLiteral(" &nbsp;·&nbsp; ")),
                                top.isEmpty() ? (report.noFindingsBecause.isEmpty()
                                                     ? tr("none — no rule passed its threshold")
                                                     : report.noFindingsBecause.toHtmlEscaped())
                                              : top.join(QStringLiteral(" &nbsp; ")),
                                warnings));
    {
        const QSignalBlocker block(m_findings->selectionModel());
        m_findingsModel->setFindings(report.findings);
    }
    if (!report.findings.empty())
        selectFinding(keep >= 0 && keep < int(report.findings.size()) ? keep : 0);
    else
        showFinding();
    const AnalysisCharts charts = analysisCharts(report);
    m_iterations->showBars(charts.iterations);
    m_ranks->showBars(charts.ranks);
    m_families->showBars(charts.families);
    m_time->showTime(charts.utilisation);
    m_tabs->setTabEnabled(0, !m_iterations->isEmpty());
    m_tabs->setTabEnabled(1, !m_ranks->isEmpty());
    m_tabs->setTabEnabled(2, !m_families->isEmpty());
    m_tabs->setTabEnabled(3, !m_time->isEmpty());
    m_roofline->showRoofline(charts.roofline);
    m_tabs->setTabEnabled(4, !m_roofline->isEmpty());
    m_tabs->setTabToolTip(4, charts.roofline.why.isEmpty()
                                 ? tr("How close to the GPU's peaks each operator ran (from the "
                                      "recorded shapes); click a point to see its longest call")
                                 : tr("No roofline: %1").arg(charts.roofline.why));
    if (!m_tabs->isTabEnabled(m_tabs->currentIndex()))
        for (int k = 0; k < m_tabs->count(); ++k)
            if (m_tabs->isTabEnabled(k)) {
                m_tabs->setCurrentIndex(k);
                break;
            }
    if (final)
        showMessage(tr("%n finding(s)", nullptr, int(report.findings.size())));
}

int AnalysisPanel::selectedFinding() const
{
    const QVariant k = m_findingsModel->rowData(m_findings->currentIndex());
    return k.isValid() ? k.toInt() : -1;
}

void AnalysisPanel::selectFinding(int index)
{
    if (const QModelIndex i = m_findingsModel->index(index, 0); i.isValid())
        m_findings->setCurrentIndex(i);
    showFinding();
}

void AnalysisPanel::styleSummary()
{
    // The theme's (render/theme.h): a light box in the light theme, a dark one in the dark.
    const Theme &t = Theme::current();
    m_summary->setStyleSheet(
        QStringLiteral("QLabel { background: %1; color: %2; border: 1px solid %3; padding: 6px; }")
            .arg(t.alternate.name(), t.text.name(), t.border.name()));
}

void AnalysisPanel::changeEvent(QEvent *e)
{
    if (e->type() == QEvent::PaletteChange)
        styleSummary();
    QWidget::changeEvent(e);
}

void AnalysisPanel::showMemoryPage()
{
    m_pages->setCurrentWidget(m_memoryView);
}

void AnalysisPanel::showRooflineTab()
{
    m_tabs->setCurrentWidget(m_roofline);
}

std::vector<Chart *> AnalysisPanel::charts() const
{
    return {m_iterations, m_ranks, m_families, m_time};
}

void AnalysisPanel::showFinding()
{
    m_evidenceModel->setEvidence({}, 0);
    const int k = selectedFinding();
    if (!m_report || k < 0) {
        m_detail->setHtml(
            !m_report ? QString()
            : m_report->noFindingsBecause.isEmpty()
                ? tr("<p>No rule passed its threshold: nothing stands out.</p>")
                : QStringLiteral("<p>%1.</p>").arg(m_report->noFindingsBecause.toHtmlEscaped()));
        m_try->setEnabled(false);
        return;
    }
    const sim::Finding &f = m_report->findings[size_t(k)];
    QString html = QStringLiteral("<p><b>%1</b></p><p><i>%2</i></p><p>%3</p>")
                       .arg(f.title.toHtmlEscaped(), sim::gainText(f).toHtmlEscaped(),
                            f.detail.toHtmlEscaped());
    if (!f.fix.isEmpty()) {
        QStringList what;
        for (const auto &t : f.fix)
            what << t.describe().toHtmlEscaped();
        html += tr("<p><b>What-if:</b> %1</p>").arg(what.join(QStringLiteral("; ")));
    }
    for (const auto &n : f.notes)
        html += QStringLiteral("<p style='color:%1'>%2</p>")
                    .arg(Theme::current().muted.name(), n.toHtmlEscaped());
    m_detail->setHtml(html);
    m_try->setEnabled(!f.fix.isEmpty() && f.priced);
    m_evidenceModel->setEvidence(f.evidence, m_report->origin);
}

} // namespace gml
