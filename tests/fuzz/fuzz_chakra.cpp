// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzimport.h"
#include "chakraimporter.h"

GML_FUZZ_IMPORTER(ChakraTraceImporter, ".et")
