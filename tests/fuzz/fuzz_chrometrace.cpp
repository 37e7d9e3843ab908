// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzimport.h"
#include "chrometraceimporter.h"

GML_FUZZ_IMPORTER(ChromeTraceImporter, ".json")
