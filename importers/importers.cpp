// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrometraceimporter.h"
#include "importer.h"

namespace gml {

const std::vector<std::unique_ptr<Importer>> &importers()
{
    static const std::vector<std::unique_ptr<Importer>> all = [] {
        std::vector<std::unique_ptr<Importer>> v;
        v.push_back(std::make_unique<ChromeTraceImporter>());
        return v;
    }();
    return all;
}

} // namespace gml
