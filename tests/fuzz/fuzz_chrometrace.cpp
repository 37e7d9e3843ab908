// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrometraceimporter.h"
#include "fuzzimport.h"

GML_FUZZ_IMPORTER(ChromeTraceImporter, ".json")
