// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakraimporter.h"
#include "fuzzimport.h"

GML_FUZZ_IMPORTER(ChakraTraceImporter, ".et")
