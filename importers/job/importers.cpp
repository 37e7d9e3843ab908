// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakraimporter.h"
#include "chrometraceimporter.h"
#include "executiontraceimporter.h"
#include "importer.h"
#include "mlflowimporter.h"
#include "monitoringimporters.h"
#include "nsysimporter.h"
#include "samplesimporter.h"
#include "xplaneimporter.h"

#include <exception>
#include <new>

namespace gml {

// Importers return error values; this is the net under them, so that a bug in one (an uncaught
// std::out_of_range, a failed allocation on a huge value) fails its file alone and never
// aborts the program and the rest of the folder.
ImportOutcome importGuarded(const Importer &importer, ImportContext &ctx)
{
    try {
        return importer.import(ctx);
    } catch (const std::bad_alloc &) {
        return {ImportOutcome::Status::Failed,
                -1,
                QStringLiteral("ran out of memory reading this file (a value too large to hold?)"),
                {}};
    } catch (const std::exception &e) {
        return {
            ImportOutcome::Status::Failed,
            -1,
            QStringLiteral("internal error in the %1 importer: %2 (please report it with the file)")
                .arg(importer.format(), QString::fromLocal8Bit(e.what())),
            {}};
    }
}

const std::vector<std::unique_ptr<Importer>> &importers()
{
    static const std::vector<std::unique_ptr<Importer>> all = [] {
        std::vector<std::unique_ptr<Importer>> v;
        v.push_back(std::make_unique<ChromeTraceImporter>());
        v.push_back(std::make_unique<ExecutionTraceImporter>());
        v.push_back(std::make_unique<ChakraTraceImporter>());
        v.push_back(std::make_unique<XPlaneImporter>());
        v.push_back(std::make_unique<NsysSqliteImporter>());
        v.push_back(std::make_unique<MlflowRunImporter>());
        v.push_back(std::make_unique<NvidiaSmiCsvImporter>());
        v.push_back(std::make_unique<NvidiaSmiDmonImporter>());
        v.push_back(std::make_unique<DcgmiDmonImporter>());
        v.push_back(std::make_unique<TopBatchImporter>());
        v.push_back(std::make_unique<SamplesImporter>());
        return v;
    }();
    return all;
}

const Importer *importerOf(const QString &format)
{
    for (const auto &importer : importers())
        if (importer->format() == format)
            return importer.get();
    return nullptr;
}

} // namespace gml
