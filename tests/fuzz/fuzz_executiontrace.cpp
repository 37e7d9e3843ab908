// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzimport.h"
#include "executiontraceimporter.h"

GML_FUZZ_IMPORTER(ExecutionTraceImporter, ".json")
