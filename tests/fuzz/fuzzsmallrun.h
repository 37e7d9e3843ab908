// SPDX-License-Identifier: GPL-3.0-or-later
// The small run the simulator's fuzzers replay what they accept on: tst_whatif's trace
// (whatiffixture.h) imported once into the fuzzers' scratch project, its dependency graph.
#pragma once

#include "../whatiffixture.h"
#include "chrometraceimporter.h"
#include "dependencygraph.h"
#include "fuzzimport.h"

#include <memory>

namespace gmlfuzz {

inline std::shared_ptr<const gml::sim::DependencyGraph> smallRun()
{
    const gml::ChromeTraceImporter importer;
    importOnce(importer, reinterpret_cast<const uint8_t *>(gmltest::kWhatIfTrace),
               sizeof gmltest::kWhatIfTrace - 1, ".json", true);
    QString error;
    auto &p = project();
    auto g = gml::sim::DependencyGraph::build(p, *p.findRun(QStringLiteral("fuzz")), &error);
    if (!g) {
        fprintf(stderr, "the small run has no graph: %s\n", qPrintable(error));
        abort();
    }
    return std::make_shared<const gml::sim::DependencyGraph>(std::move(*g));
}

} // namespace gmlfuzz
