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

namespace gml {

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

} // namespace gml
