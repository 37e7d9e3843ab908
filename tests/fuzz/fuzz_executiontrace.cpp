// SPDX-License-Identifier: GPL-3.0-or-later
#include "executiontraceimporter.h"
#include "fuzzimport.h"

GML_FUZZ_IMPORTER(ExecutionTraceImporter, ".json")
