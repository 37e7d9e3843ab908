// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the readers of what users write for the simulator (issue 33): an input that parses as
// a JSON array is a what-if transform list (transformsFromJson), replayed on a small run when it
// is accepted; one that parses as an object is a cluster file (SimCluster::fromJson), simulated
// with a small job when it is accepted; one with a "workflow" member is a workflow declaration
// (WorkflowDeclaration::parse), resolved against the project's run and drawn as an execution
// model. The run is tst_whatif's (whatiffixture.h). A crash, a sanitizer report (UBSan: a signed
// overflow), a hang, or a predicted or simulated time that is negative is a finding.
#include "executionmodel.h"
#include "fuzzcheck.h"
#include "fuzzsmallrun.h"
#include "modelzoo.h"
#include "projectsummary.h"
#include "simcluster.h"
#include "strategy.h"
#include "whatif.h"
#include "workflow.h"
#include "workflowdeclaration.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const auto graph = gmlfuzz::smallRun();
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)), &pe);
    if (pe.error != QJsonParseError::NoError)
        return 0;
    QString error;
    if (doc.isArray()) {
        const auto transforms = gml::sim::transformsFromJson(doc.array(), &error);
        if (!transforms || transforms->size() > 16)
            return 0;
        const auto r = gml::sim::whatIf(graph, *transforms, {}, &error);
        if (!r)
            return 0;
        gmlfuzz::check(r->predicted.finish >= r->predicted.origin && r->report.predicted >= 0,
                       "a negative predicted time");
        for (size_t i = 0; i < r->predicted.start.size(); ++i)
            gmlfuzz::check(r->predicted.start[i] >= 0 &&
                               r->predicted.end[i] >= r->predicted.start[i],
                           "a negative node time");
        return 0;
    }
    if (doc.object().contains(QStringLiteral("workflow"))) {
        const auto decl = gml::WorkflowDeclaration::parse(
            doc.object().value(QStringLiteral("workflow")).toObject(),
            QStringLiteral("/fuzz/job/grademl.json"), &error);
        if (!decl)
            return 0;
        gmlfuzz::check(qsizetype(decl->steps.size()) <= gml::WorkflowDeclaration::kMaxSteps &&
                           qsizetype(decl->edges.size()) <= gml::WorkflowDeclaration::kMaxEdges,
                       "a declaration past its limits accepted");
        static const QList<gml::RunSummary> runs =
            gml::summarizeProject(gmlfuzz::project(), &error);
        const auto w = gml::sim::Workflow::resolve({*decl}, runs);
        const auto model = gml::sim::ExecutionModel::forWorkflow(w);
        gmlfuzz::check(model.criticalLength() >= 0, "a negative workflow critical path");
        return 0;
    }
    const auto cluster =
        gml::sim::SimCluster::fromJson(doc.object(), QStringLiteral("fuzz"), &error);
    if (!cluster || cluster->gpus() < 2)
        return 0;
    static const auto model = gml::sim::builtinModel(QStringLiteral("alexnet"), &error);
    gml::sim::SimConfig c;
    c.model = *model;
    c.cluster = *cluster;
    c.strategy =
        cluster->gpusPerNode >= 2 ? gml::sim::Strategy::Mirrored : gml::sim::Strategy::MultiWorker;
    c.workers = 2;
    c.iterations = 2;
    const auto r = gml::sim::simulate(c, &error);
    if (!r)
        return 0;
    gmlfuzz::check(r->replay.finish >= r->replay.origin && r->metrics.executionNs >= 0 &&
                       r->metrics.iterationNs >= 0,
                   "a negative simulated time");
    return 0;
}
